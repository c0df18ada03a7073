"""Between records and games, both ways: a record replayed to any turn, and
a game written back as a record.

The two directions meet in one promise: ``game.to_record()`` written by
:func:`~keilref.writer.write_record`, read back and replayed gives the same
turns and the same position. :func:`game_record` checks that promise on
every record it makes, by replaying it.
"""

from __future__ import annotations

from collections.abc import Mapping

from keilref.core import Reason, Result, format_number
from keilref.errors import IllegalMoveError, wrong_type
from keilref.game import Game
from keilref.record import Record, Tag, Turn
from keilref.rules import ButtonRule, find_rules
from keilref.writer import canonical_tags

__all__ = ["game_record", "replay_record"]

SETTING_TAGS = ("Rules", "Size", "Komi", "Button", "Removed")
"""The tags :func:`game_record` derives from the game itself."""


def replay_record(record: Record, turn: int | None = None, *, rules: str | None = None) -> Game:
    """The game after the record's first ``turn`` turns (all of them by default).

    The settings come from the tags; ``rules`` replays under another rule set.
    Raises :class:`~keilref.TagError` for a bad tag and
    :class:`~keilref.RecordError` for a turn the rule set cannot read (both
    with line and column), :class:`~keilref.IllegalMoveError` (with the
    turn's number and the reason) when one of those turns is illegal, and
    ``ValueError`` for a ``turn`` outside ``0..len(record.turns)``. A Yugo
    ``Removed`` agreement is applied when all turns are replayed. A ``turn``
    that is not an ``int`` or a ``rules`` that is not a ``str`` raises ``TypeError``.
    """
    from keilref.verdict import replay

    if turn is not None and (not isinstance(turn, int) or isinstance(turn, bool)):
        raise wrong_type("the turn to replay to", turn, "an int or None")
    if rules is not None:
        find_rules(rules)
    total = len(record.turns)
    if turn is not None and not 0 <= turn <= total:
        raise ValueError(f"turn {turn} is out of range: the record has {total} turns (0..{total})")
    rep = replay(record, rules=rules, stop=turn)
    bad = rep.illegal
    if bad is not None:
        raise IllegalMoveError(record.turns[bad.turn - 1].move, Reason(bad.reason), bad.turn, bad.repeats_turn)
    return rep.game


def game_record(game: Game, tags: Mapping[str, str] | None = None, *, result: str | None = None) -> Record:
    """``game`` as a record (see :meth:`Game.to_record <keilref.Game.to_record>`)."""
    if tags is not None and not (
        isinstance(tags, Mapping) and all(isinstance(k, str) and isinstance(v, str) for k, v in tags.items())
    ):
        raise wrong_type("the tags of a record", tags, "a mapping of tag names to values, all str")
    if result is not None and not isinstance(result, str):
        raise wrong_type("a record's result", result, "a result token (str) such as 'B+3', or None")
    settings = _setting_tags(game)
    given = dict(tags or {})
    for name, value in settings:
        if name in given and (written := given.pop(name)) != value:
            raise ValueError(f"tag {name} {written!r} disagrees with the game, which has {value!r}")
    if result is None:
        result = str(game.score().result) if game.is_over else "*"
    else:
        Result.parse(result)  # raises ValueError naming a token that is not a result
    if "Result" in given and given["Result"] != result:
        raise ValueError(f"tag Result {given['Result']!r} disagrees with the result {result!r}")
    record = Record(
        # In the writer's order, so that reading the written text back gives an equal record.
        tags=canonical_tags(
            (*(Tag(name, value) for name, value in settings), *(Tag(name, value) for name, value in given.items()))
        ),
        turns=tuple(Turn.of(move) for move in game.moves),
        result=result,
    )
    _check_replays(game, record)
    return record


def _setting_tags(game: Game) -> list[tuple[str, str]]:
    rules = game.rules
    out = [("Rules", rules.name), ("Size", str(game.size)), ("Komi", format_number(game.komi))]
    if rules.button is not ButtonRule.ABSENT:
        out.append(("Button", "yes" if game.button_in_play else "no"))
    removed: frozenset[str] = getattr(game, "removed", frozenset())
    if removed:
        # Any point of a group names it; every removed point is listed, in board order.
        order = {p: i for i, p in enumerate(game.points())}
        out.append(("Removed", " ".join(sorted(removed, key=order.__getitem__))))
    return out


def _check_replays(game: Game, record: Record) -> None:
    """Refuse a record that would not replay to ``game`` (a game set up from a diagram)."""
    try:
        again = replay_record(record)
    except (ValueError, IllegalMoveError) as e:
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
