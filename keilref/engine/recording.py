"""A game written back as a record: the one place that makes a record from played turns.

:meth:`Game.to_record <keilref.engine.game.Game.to_record>` and
``keilref generate`` both write their records here, so the setting tags
(``Button`` included wherever the rules have a button) are the same for a
game played through the library and for a generated one. A game that did
not start from the empty board writes its position's tags too (format
version 3): the position :meth:`Game.from_position
<keilref.engine.game.Game.from_position>` was given, or the one a diagram
drew. The promise: the record written by
:func:`~keilref.records.writer.write_record`, read back and replayed, gives
the same turns and the same position; a game for which it could not (a
diagram no legal play could leave, a turn the record's superko would
forbid) is refused.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from keilref import wording
from keilref.engine.game import Game, new_game
from keilref.engine.rules import ButtonRule, RuleSet
from keilref.errors import IllegalMoveError, InvalidMoveError, PositionError, wrong_type
from keilref.records.record import Record, Tag, Turn
from keilref.records.setup import (
    BUTTON_TAKEN_TAG,
    FIRST_PASS_TAG,
    SETUP_TAG,
    TO_MOVE_TAG,
    Placed,
    StartPosition,
    canonical_setup,
)
from keilref.records.tags import POSITION_TAGS, SETTING_TAGS
from keilref.records.writer import canonical_tags
from keilref.values import Color, Result, format_number

__all__ = ["SETTING_TAGS", "game_record", "played_record", "setting_tags", "start_position_of"]

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
            raise ValueError(wording.tag_disagrees_with_game(name, written, value))
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
    start = start_position_of(game)
    given = dict(tags or {})
    position = _position_tags(start, given)
    if result is None:
        result = str(game.score().result) if game.is_over else "*"
    record = played_record(settings + position, game.moves, result, given)
    _check_replays(game, start, removed)
    return record


def start_position_of(game: Game) -> StartPosition | None:
    """The position ``game`` started from: the one :meth:`Game.from_position
    <keilref.engine.game.Game.from_position>` was given, else the one on its
    board before the first turn (a diagram's); ``None`` for the empty board
    with Black to move and nobody holding the button."""
    if game.start_position is not None:
        return game.start_position
    before = game._start()
    is_king = getattr(before, "is_king", None)

    def placed(color: Color) -> tuple[Placed, ...]:
        points = sorted(before.stones(color), key=before.points().index)
        return tuple(Placed(p, bool(is_king and is_king(p))) for p in points)

    first_pass: Color | None = getattr(before, "first_pass", None)
    start = StartPosition(
        placed(Color.BLACK), placed(Color.WHITE), before.to_move, before.button_holder, first_pass
    )
    return None if start == StartPosition() else start


def _word(color: Color | None) -> str:
    """A colour as a position's tags write it: ``Black``, ``White``, ``no`` for nobody."""
    return "no" if color is None else color.name.capitalize()


def _position_tags(start: StartPosition | None, given: dict[str, str]) -> list[tuple[str, str]]:
    """The position's tags, in written order. Each of them given in ``given``
    must say what the game's position says (a ``Setup`` in any spelling of
    it) and is taken out; raises ``ValueError`` otherwise."""
    if start is None:
        for name in POSITION_TAGS:
            if name in given:
                raise ValueError(wording.tag_disagrees_with_game(name, given[name], None))
        return []
    says = {
        SETUP_TAG: start.setup_text,
        TO_MOVE_TAG: _word(start.to_move),
        BUTTON_TAKEN_TAG: _word(start.button_taken),
        FIRST_PASS_TAG: _word(start.first_pass),
    }
    for name, value in says.items():
        if name in given:
            written = given.pop(name)
            if (canonical_setup(written) if name == SETUP_TAG else written) != value:
                raise ValueError(wording.tag_disagrees_with_game(name, written, value))
    return list(start.tags())


def _check_replays(game: Game, start: StartPosition | None, removed: frozenset[str]) -> None:
    """Refuse a game that its record would not replay: its turns, from the
    position its record gives (the empty board, or its tags'), must be legal
    and lead to the game's position."""
    button = None if game.rules.button is ButtonRule.ABSENT else game.button_in_play
    try:
        if start is None:
            again = new_game(rules=game.rules.name, size=game.size, komi=game.komi, button=button)
        else:
            again = Game.from_position(start, rules=game.rules.name, size=game.size, komi=game.komi, button=button)
    except PositionError as e:
        # Only a diagram's position can be one that no record's could be.
        raise ValueError(wording.game_not_written(wording.diagram_not_a_setup(str(e)))) from None
    try:
        for move in game.moves:
            again.play(move)
        if removed:
            again.agree_removal(removed)
    except (ValueError, IllegalMoveError, InvalidMoveError) as e:
        raise ValueError(wording.game_not_written(wording.turns_do_not_replay(str(e), start is not None))) from None
    if _position(again) != _position(game):
        raise ValueError(wording.game_not_written(wording.POSITION_NOT_REACHED))


def _position(game: Game) -> tuple[object, ...]:
    is_king = getattr(game, "is_king", None)
    return (
        game.moves,
        tuple(game.stone_at(p) for p in game.points()),
        tuple(bool(is_king(p)) for p in game.points()) if is_king else (),
        game.to_move,
        game.button_holder,
        getattr(game, "first_pass", None),
        game.is_over,
    )
