"""A game written back as a record: the one place that makes a record from played turns.

:meth:`Game.to_record <keilref.engine.game.Game.to_record>` and
``keilref generate`` both write their records here, so the setting tags
(``Button`` included wherever the rules have a button) are the same for a
game played through the library and for a generated one. The promise:
the record written by :func:`~keilref.records.writer.write_record`, read back
and replayed, gives the same turns and the same position.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from keilref.engine.game import Game, new_game
from keilref.engine.rules import ButtonRule, RuleSet
from keilref.errors import IllegalMoveError, InvalidMoveError, wrong_type
from keilref.records.record import Record, Tag, Turn
from keilref.records.tags import SETTING_TAGS
from keilref.records.writer import canonical_tags
from keilref.values import Result, format_number

__all__ = ["SETTING_TAGS", "game_record", "played_record", "setting_tags"]

# SETTING_TAGS, the tags a record made here derives from the game itself,
# are the tag table's settings (keilref.records.tags).


def setting_tags(
    rules: RuleSet, size: int, komi: float, button: bool, removed: Iterable[str] = ()
) -> list[tuple[str, str]]:
    """The setting tags of a game, in written order: every one stated, so that
    the record needs no default (a button only under rules with one, removed
    groups only where there are some)."""
    values = {"Rules": rules.name, "Size": str(size), "Komi": format_number(komi)}
    if rules.button is not ButtonRule.ABSENT:
        values["Button"] = "yes" if button else "no"
    points = " ".join(removed)
    if points:
        values["Removed"] = points
    return [(name, values[name]) for name in SETTING_TAGS if name in values]


def played_record(
    settings: list[tuple[str, str]], moves: Iterable[str], result: str, tags: Mapping[str, str] | None = None
) -> Record:
    """A record of ``moves`` under ``settings``, with the caller's other ``tags``.

    A setting given again in ``tags`` must agree; so must a ``Result`` tag
    with ``result``. Raises ``ValueError`` otherwise, or for a result that
    does not read.
    """
    given = dict(tags or {})
    for name, value in settings:
        if name in given and (written := given.pop(name)) != value:
            raise ValueError(f"tag {name} {written!r} disagrees with the game, which has {value!r}")
    Result.parse(result)  # raises ValueError naming a token that is not a result
    if "Result" in given and given["Result"] != result:
        raise ValueError(f"tag Result {given['Result']!r} disagrees with the result {result!r}")
    return Record(
        # In the writer's order, so that reading the written text back gives an equal record.
        tags=canonical_tags(
            (*(Tag(name, value) for name, value in settings), *(Tag(name, value) for name, value in given.items()))
        ),
        turns=tuple(Turn.of(move) for move in moves),
        result=result,
    )


def game_record(game: Game, tags: Mapping[str, str] | None = None, *, result: str | None = None) -> Record:
    """``game`` as a record (see :meth:`Game.to_record <keilref.Game.to_record>`)."""
    if tags is not None and not (
        isinstance(tags, Mapping) and all(isinstance(k, str) and isinstance(v, str) for k, v in tags.items())
    ):
        raise wrong_type("the tags of a record", tags, "a mapping of tag names to values, all str")
    if result is not None and not isinstance(result, str):
        raise wrong_type("a record's result", result, "a result token (str) such as 'B+3', or None")
    removed: frozenset[str] = getattr(game, "removed", frozenset())
    # Any point of a group names it; every removed point is listed, in board order.
    order = {p: i for i, p in enumerate(game.points())}
    settings = setting_tags(
        game.rules, game.size, game.komi, game.button_in_play, sorted(removed, key=order.__getitem__)
    )
    if result is None:
        result = str(game.score().result) if game.is_over else "*"
    record = played_record(settings, game.moves, result, tags)
    _check_replays(game, removed)
    return record


def _check_replays(game: Game, removed: frozenset[str]) -> None:
    """Refuse a game whose turns do not lead to its position (one set up from a diagram)."""
    try:
        button = None if game.rules.button is ButtonRule.ABSENT else game.button_in_play
        again = new_game(rules=game.rules.name, size=game.size, komi=game.komi, button=button)
        for move in game.moves:
            again.play(move)
        if removed:
            again.agree_removal(removed)
    except (ValueError, IllegalMoveError, InvalidMoveError) as e:
        raise ValueError(f"this game cannot be written as a record: its turns do not replay ({e})") from None
    if _position(again) != _position(game):
        raise ValueError(
            "this game cannot be written as a record: it did not start from the empty board "
            "(a position set up from a diagram)"
        )


def _position(game: Game) -> tuple[object, ...]:
    return (
        game.moves,
        tuple(game.stone_at(p) for p in game.points()),
        game.to_move,
        game.button_holder,
        game.is_over,
    )
