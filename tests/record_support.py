"""What the record tables expect of a verdict, and the checks every family's table shares."""

from __future__ import annotations

from dataclasses import dataclass

from keilref.referee.verdict import Verdict


@dataclass(frozen=True)
class Illegal:
    turn: int
    point: str
    """The token as written."""
    reason: str
    line: int
    column: int
    repeats_turn: int | None = None


@dataclass(frozen=True)
class Error:
    phrase: str
    """A key phrase of the message (the rest of its wording may change)."""
    line: int
    column: int


@dataclass(frozen=True)
class Expect:
    """What the referee must say about one game."""

    status: str
    rules: str | None = None
    """``None`` in a family's own table: the family's one rule set."""
    size: int | None = None
    komi: float | None = None
    turns: int | None = None
    declared: str | None = None
    computed: str | None = None
    score: tuple[float, float] | None = None
    """(black, white): the final count, or the count of the last legal position."""
    illegal: Illegal | None = None
    error: Error | None = None
    other: tuple[tuple[str, str], ...] | None = None
    """For a game that ended: the result under the sibling rule set."""
    start: int = 1
    """The line where the game starts in its file (its first tag, or 1 for a file with no game)."""


def error(phrase: str, line: int, column: int) -> Expect:
    return Expect("error", error=Error(phrase, line, column))


def assert_verdict(v: Verdict, e: Expect, *, file: str, game: int = 1, rules: str | None = None) -> None:
    """Everything a table says about one game, checked against its verdict."""
    where = f"{file} game {game}"
    assert v.status.value == e.status, where
    assert (v.file, v.game, v.line) == (file, game, e.start), where
    if e.status == "error":
        assert v.error is not None and e.error is not None, where
        assert e.error.phrase in v.error.message, where
        assert (v.error.line, v.error.column) == (e.error.line, e.error.column), where
        assert v.illegal is None and v.computed is None and v.score is None, where
        return
    assert v.error is None, where
    assert (v.rules, v.size, v.komi) == (e.rules or rules, e.size, e.komi), where
    assert v.turns == e.turns, where
    assert (v.declared, v.computed) == (e.declared, e.computed), where
    assert v.score is not None, where
    if e.illegal is None:
        assert e.score is not None, f"{where}: the table must give the score"
    if e.score is not None:
        assert (v.score.black, v.score.white) == e.score, where
    if e.illegal is not None:
        assert v.illegal is not None, where
        t = v.illegal
        assert Illegal(t.turn, t.point, t.reason, t.line, t.column, t.repeats_turn) == e.illegal, where
    else:
        assert v.illegal is None, where
