"""A failing game as code-scanning tools see it: a rule, a place, a message, a fingerprint.

SARIF and GitLab Code Quality (and GitHub's job summary) all speak of
*findings*; this module decides once what a verdict's finding is, so the
formats agree with each other.
"""

from __future__ import annotations

import enum
import hashlib
from dataclasses import dataclass

from keilref.values import Reason
from keilref.formats import text as report
from keilref.escaping import one_line
from keilref.referee.verdict import Status, Verdict


class Level(enum.Enum):
    """How much a finding matters to a CI gate."""

    ERROR = "error"
    """The game fails the check."""
    NOTE = "note"
    """The game passes, but a reader may want to know (an unfinished game)."""


@dataclass(frozen=True)
class Rule:
    """One kind of finding: a status, or for an illegal turn, its reason."""

    id: str
    """Stable: ``mismatch``, ``error``, ``unfinished``, or ``illegal/<reason>``."""
    description: str


_STATUS_RULES = {
    Status.MISMATCH: "The declared result disagrees with the game.",
    Status.ERROR: "The record cannot be read: a syntax error or a tag the rules do not allow.",
    Status.UNFINISHED: "The game did not end and no result is claimed (a failure with --strict).",
}

_REASON_TEXT = {
    Reason.OFF_BOARD: "the point is not on the board",
    Reason.OCCUPIED: "the point already holds a stone",
    Reason.SUICIDE: "after captures, the placed stone's group has no liberty",
    Reason.SUPERKO: "the position repeats one left by an earlier turn of the same player",
    Reason.PASS_BEFORE_BUTTON: "a pass while the button is still available",
    Reason.BUTTON_TAKEN: "the button was already taken, or is not in play",
    Reason.GAME_OVER: "the game had already ended",
    Reason.PAWN_SURROUNDS: "a pawn placement that changes the number of surrounded groups (Yugo)",
    Reason.KING_CAPTURES_NOTHING: "a king placement that surrounds no new enemy group (Yugo)",
    Reason.TRIANGLE: "a placement making a triangle pattern the restriction forbids (Dehil)",
}

RULES: tuple[Rule, ...] = (
    *(Rule(f"illegal/{r.value}", f"An illegal turn: {_REASON_TEXT[r]}.") for r in Reason),
    *(Rule(s.value, text) for s, text in _STATUS_RULES.items()),
)
"""Every rule a finding can name, in a fixed order (SARIF refers to them by index)."""

RULE_INDEX = {r.id: i for i, r in enumerate(RULES)}


@dataclass(frozen=True)
class Finding:
    """What a CI format says about one game that needs attention."""

    verdict: Verdict
    rule: str
    """A :attr:`Rule.id`."""
    level: Level
    line: int
    column: int
    """1-based, in Unicode code points, as the verdict's positions are."""
    message: str
    fingerprint: str
    """Hex SHA-256 of the file, the game's index, its status and its rule: the
    same game failing the same way has the same fingerprint in every run,
    even when lines above it move (see :func:`fingerprint`)."""


def rule_id(v: Verdict) -> str:
    if v.illegal is not None:
        return f"illegal/{v.illegal.reason}"
    return v.status.value


def fingerprint(v: Verdict) -> str:
    """Stable across runs: no line numbers and no wording go into it.

    A game is known by its file and its index in the file, so a finding
    stays the same finding when a comment above it grows, and becomes a new
    one when the game fails differently. Inserting a game before it renumbers
    it, as it renumbers every game after it.
    """
    key = "\0".join((v.file, str(v.game), v.status.value, rule_id(v)))
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()


def message(v: Verdict) -> str:
    """``game 3: illegal: move 16 (Black) e2, turn 31: superko (repeats turn 29)``:
    what and where in words, as the text output says it."""
    head = f"game {v.game}: {v.status.value}"
    if v.status is Status.UNFINISHED:
        so_far = f"; score so far {v.score.result}" if v.score is not None else ""
        return f"{head}: the game did not end{so_far}"
    # It quotes the input, which may hold anything (a text given with lone surrogates too).
    return one_line(f"{head}: {report.verdict_message(v)}")


def finding(v: Verdict, *, strict: bool = False) -> Finding | None:
    """The finding for a failing game (an unfinished one too, as a note), else ``None``."""
    if not v.status.failed and v.status is not Status.UNFINISHED:
        return None
    level = Level.ERROR if v.status.failed or strict else Level.NOTE
    line, column = v.location
    return Finding(v, rule_id(v), level, line, column, message(v), fingerprint(v))
