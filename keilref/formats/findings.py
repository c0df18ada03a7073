"""A failing game as code-scanning tools see it: a rule, a place, a message, a fingerprint.

SARIF, GitLab Code Quality, Checkstyle and GitHub's annotations all speak of
*findings*. Whether a game fails, and why, is decided beside its status
(:meth:`~keilref.referee.verdict.Verdict.faults`); this module only turns
each fault into what those formats need, so they agree with each other and
with the exit code.
"""

from __future__ import annotations

import enum
import hashlib
from dataclasses import dataclass

from keilref.values import Reason
from keilref import wording
from keilref.escaping import one_line
from keilref.formats import CheckOptions
from keilref.referee.verdict import Fault, Status, Verdict


class Level(enum.Enum):
    """How much a finding matters to a CI gate."""

    ERROR = "error"
    """The game fails the check."""
    NOTE = "note"
    """The game passes, but a reader may want to know (an unfinished game without --strict)."""


class Weight(enum.Enum):
    """How much a finding of a rule weighs: each format words it in its own
    vocabulary (SARIF's levels, GitLab's and Checkstyle's severities, the
    editor's), from this one decision."""

    FAILS = "fails"
    """The game fails the check, strict or not (an illegal turn, a mismatch, an error)."""
    STRICT = "strict"
    """The game fails only by ``--strict`` (a warning)."""
    INFORMS = "informs"
    """Said even without ``--strict``, which fails the game by it (an unfinished game)."""


@dataclass(frozen=True)
class Rule:
    """One kind of finding: a status, or for an illegal turn, its reason."""

    id: str
    """Stable: ``mismatch``, ``error``, ``unfinished``, ``warning``, or ``illegal/<reason>``."""
    description: str
    weight: Weight = Weight.FAILS


RULES: tuple[Rule, ...] = (
    *(Rule(f"illegal/{r.value}", wording.illegal_rule(r)) for r in Reason),
    Rule(Status.MISMATCH.value, wording.STATUSES[Status.MISMATCH.value]),
    Rule(Status.ERROR.value, wording.STATUSES[Status.ERROR.value]),
    Rule(Status.UNFINISHED.value, wording.STATUSES[Status.UNFINISHED.value], Weight.INFORMS),
    # Last, so that the indexes of the rules before it stay what they were.
    Rule("warning", wording.WARNING_RULE, Weight.STRICT),
)
"""Every rule a finding can name, in a fixed order (SARIF refers to them by index)."""

RULE_INDEX = {r.id: i for i, r in enumerate(RULES)}

RULES_PAGE = "checks.md"
"""The page of the documentation that explains every rule (``docs/checks.md``)."""


def rule_anchor(rule: str) -> str:
    """The rule's anchor on :data:`RULES_PAGE` (``illegal-superko``)."""
    return rule.replace("/", "-")


def rules_markdown() -> str:
    """:data:`RULES_PAGE`, made from the rules and their wording, so that the
    page and the reports (SARIF's rule help) say the same."""
    out = [
        "# What keilref reports, rule by rule",
        "",
        "Each finding in a report names one of these rules: SARIF's `ruleId`, GitLab's",
        "`check_name`, Checkstyle's `source`. A code-scanning panel links each rule",
        "here. This page is made from keilref's own wording (`keilref/wording.py`);",
        "a test keeps the two the same.",
    ]
    for r in RULES:
        out += ["", f'<a id="{rule_anchor(r.id)}"></a>', "", f"## `{r.id}`", "", wording.rule_help(r.id)]
    return "\n".join(out) + "\n"


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

    @property
    def weight(self) -> Weight:
        """How much its rule weighs (see :class:`Weight`)."""
        return RULES[RULE_INDEX[self.rule]].weight


def rule_id(v: Verdict) -> str:
    """The rule of the verdict's status: ``illegal/<reason>`` or the status."""
    if v.illegal is not None:
        return f"illegal/{v.illegal.reason}"
    return v.status.value


def fingerprint(v: Verdict, rule: str | None = None, nth: int = 0) -> str:
    """Stable across runs: no line numbers and no wording go into it.

    A game is known by its file and its index in the file, so a finding
    stays the same finding when a comment above it grows, and becomes a new
    one when the game fails differently. Inserting a game before it renumbers
    it, as it renumbers every game after it. ``nth`` tells a game's second
    warning from its first (the first keeps the key it always had).
    """
    parts = [v.file, str(v.game), v.status.value, rule or rule_id(v)]
    if nth:
        parts.append(str(nth))
    return hashlib.sha256("\0".join(parts).encode("utf-8", "surrogatepass")).hexdigest()


def message(v: Verdict, fault: Fault | None = None) -> str:
    """``game 3: illegal: move 16 (Black) e2, turn 31: superko (repeats turn 29)``:
    what and where in words, as the text output says it."""
    # It quotes the input, which may hold anything (a text given with lone surrogates too).
    return one_line(wording.fault_sentence(v, fault))


def game_of(message: str) -> int:
    """The game a finding's message names (``game 3: ...``), for reading a report back."""
    head, _, _ = message.partition(": ")
    return int(head.removeprefix("game "))


def findings(v: Verdict, options: CheckOptions = CheckOptions()) -> tuple[Finding, ...]:
    """The game's faults as findings (see :meth:`Verdict.faults`), as strict as
    ``options`` say, and for an unfinished game that passes, one note."""
    faults = v.faults(strict=options.strict)
    if not faults:
        if v.status is not Status.UNFINISHED:
            return ()
        line, column = v.location
        note = Fault("unfinished", line, column, wording.GAME_NOT_ENDED)
        return (Finding(v, note.rule, Level.NOTE, line, column, message(v, note), fingerprint(v, note.rule)),)
    out = []
    warnings = 0
    for fault in faults:
        nth = warnings if fault.rule == "warning" else 0
        warnings += fault.rule == "warning"
        out.append(
            Finding(
                v, fault.rule, Level.ERROR, fault.line, fault.column, message(v, fault), fingerprint(v, fault.rule, nth)
            )
        )
    return tuple(out)
