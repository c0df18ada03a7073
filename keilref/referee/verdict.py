"""Adjudication: one record in, one :class:`Verdict` out.

This is the only place that decides a status. Everything it needs from the
rules comes through :class:`~keilref.engine.game.Game` and the rule-set registry, so
it is the same for every rule family.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field, replace
from typing import Any

from keilref import wording
from keilref.values import Color, Result, ResultKind, Score
from keilref.errors import ConfigError, RecordError
from keilref.engine.game import Game
from keilref.records.record import Record
from keilref.records.setup import has_position
from keilref.engine.rules import all_rules, find_rules
from keilref.referee.clocks import TimeUsed, clock_warnings, time_used
from keilref.referee.lines import VariationFault, variation_faults
from keilref.referee.replay import IllegalTurn, replay
from keilref.referee.settings import GameSetup, read_setup


class Status(enum.Enum):
    """The one status every game gets."""

    OK = "ok"
    """Every turn legal, and the declared result agrees with the game."""
    UNFINISHED = "unfinished"
    """Every turn legal, the game did not end, and no result is claimed."""
    MISMATCH = "mismatch"
    """Every turn legal, but the declared result disagrees with the game."""
    ILLEGAL = "illegal"
    """A turn breaks the rules."""
    ERROR = "error"
    """The record cannot be read."""

    @property
    def failed(self) -> bool:
        """Whether this status fails a check (``unfinished`` only with ``--strict``)."""
        return self in (Status.MISMATCH, Status.ILLEGAL, Status.ERROR)


@dataclass(frozen=True)
class ReadError:
    """Why a record could not be read, and where."""

    message: str
    line: int
    column: int
    source_line: str | None = None


@dataclass(frozen=True)
class Fault:
    """One reason a game fails a check, and where it is."""

    rule: str
    """Stable: ``illegal/<reason>``, ``mismatch``, ``error``, ``unfinished`` or ``warning``."""
    line: int
    column: int
    """1-based, in Unicode code points, as the verdict's positions are."""
    message: str
    """The cause in the referee's words: the reading error, the mismatch's
    detail, the illegal turn's reason, the warning; the formats say it in a
    sentence (``keilref.wording``)."""


class MismatchReason(enum.Enum):
    """Why a declared result disagrees with the game: the mismatch's reason
    code in the JSON line, one per sentence :mod:`keilref.wording` says it in."""

    WRONG_WINNER = "wrong-winner"
    WRONG_MARGIN = "wrong-margin"
    CLAIMED_AFTER_END = "claimed-after-end"
    """A resignation, time or forfeit result for a game that ended by two passes."""
    CLAIMED_UNENDED = "claimed-unended"
    """A score or winner-only result for a game that did not end."""
    TIME_LOSS_NOT_TO_MOVE = "time-loss-not-to-move"
    """A loss on time claimed for the player who was not to move."""


FAULT_RULES = ("mismatch", "error", "unfinished", "warning")
"""The rules of a fault other than ``illegal/<reason>``, in a fixed order."""


@dataclass(frozen=True)
class Verdict:
    """The referee's answer for one game."""

    file: str
    game: int
    """1-based index of the game in its file."""
    line: int
    """Where the game starts in its file."""
    status: Status
    rules: str | None = None
    size: int | None = None
    komi: float | None = None
    turns: int = 0
    declared: str | None = None
    computed: str | None = None
    score: Score | None = None
    illegal: IllegalTurn | None = None
    error: ReadError | None = None
    warnings: tuple[str, ...] = ()
    detail: str | None = None
    """For a mismatch: what disagrees, in words."""
    mismatch_reason: MismatchReason | None = None
    """For a mismatch: what disagrees, as a code (``detail`` says it in words)."""
    other_results: tuple[tuple[str, str], ...] = field(default=())
    """For an ended game: ``(rules, result)`` under each sibling rule set."""
    event: str | None = None
    """The ``Event`` tag, when the record could be read that far."""
    black: str | None = None
    """The ``Black`` tag: who played Black."""
    white: str | None = None
    """The ``White`` tag: who played White."""
    round: str | None = None
    """The ``Round`` tag, for standings (not in the JSON line, which predates it)."""
    date: str | None = None
    """The ``Date`` tag as written: the order ratings are computed in (not in the JSON line)."""
    site: str | None = None
    """The ``Site`` tag (in the verdict table, not in the JSON line)."""
    game_id: str | None = None
    """The ``GameId`` tag: a game's name on the site it was played (in the verdict table, not in the JSON line)."""
    result_at: tuple[int, int] | None = None
    """Line and column of the declared result (the token, else the ``Result`` tag)."""
    warnings_at: tuple[tuple[int, int], ...] = ()
    """Line and column each warning points at, in the order of ``warnings``
    (the game's start for a tag that is missing)."""
    variation_illegal: tuple[VariationFault, ...] = ()
    """Each variation's first illegal turn (each is also a warning)."""
    time_used: TimeUsed | None = None
    """For a game with clocks on its main line: the time each player used,
    where the time control tells (``keilref stats`` reports it)."""
    from_position: bool = False
    """Whether the record starts from a position (a tag of version 3), read
    or not: ``stats`` counts such games, ``filter --setup`` chooses them
    (not in the JSON line, which says nothing of it)."""

    @property
    def location(self) -> tuple[int, int]:
        """Line and column of the fault: the illegal turn, the error, the
        declared result of a mismatch; the game's start otherwise."""
        if self.illegal is not None:
            return self.illegal.line, self.illegal.column
        if self.error is not None:
            return self.error.line, self.error.column
        if self.status is Status.MISMATCH and self.result_at is not None:
            return self.result_at
        return self.line, 1

    @property
    def placed_warnings(self) -> tuple[tuple[str, int, int], ...]:
        """Each warning with the line and column it points at: its tag, clock
        or variation, the game's start for what has no place of its own.
        Every format that places a warning reads it here."""
        places = self.warnings_at + ((self.line, 1),) * (len(self.warnings) - len(self.warnings_at))
        return tuple((text, line, column) for text, (line, column) in zip(self.warnings, places))

    @property
    def players(self) -> tuple[str | None, str | None]:
        """The ``Black`` and ``White`` tags, for reports that name the players."""
        return self.black, self.white

    def faults(self, *, strict: bool = False) -> tuple[Fault, ...]:
        """Why this game fails a check, the status's fault first; empty when it passes.

        The one place that decides it: every format, the summary and the exit
        code read this. ``strict`` also fails an unfinished game and each
        warning (a warning alone fails an otherwise passing game).
        """
        out: list[Fault] = []
        line, column = self.location
        if self.illegal is not None:
            out.append(Fault(f"illegal/{self.illegal.reason}", line, column, self.illegal.reason))
        elif self.status is Status.ERROR:
            out.append(Fault("error", line, column, self.error.message if self.error else "error"))
        elif self.status is Status.MISMATCH:
            out.append(Fault("mismatch", line, column, self.detail or wording.MISMATCH_FALLBACK))
        elif strict and self.status is Status.UNFINISHED:
            out.append(Fault("unfinished", line, column, wording.GAME_NOT_ENDED))
        if strict:
            out.extend(Fault("warning", line, column, text) for text, line, column in self.placed_warnings)
        return tuple(out)

    def fails(self, *, strict: bool = False) -> bool:
        """Whether this game fails a check: whether it has a fault (see :meth:`faults`)."""
        return bool(self.faults(strict=strict))

    @property
    def rule_sensitive(self) -> bool:
        """Whether the winner differs under a sibling rule set."""
        if self.computed is None:
            return False
        mine = Result.parse(self.computed).winner
        return any(Result.parse(r).winner != mine for _, r in self.other_results)

    def to_json(self) -> dict[str, Any]:
        """The machine-readable verdict, exactly as the record format documents it."""
        return {
            "file": self.file,
            "game": self.game,
            "status": self.status.value,
            "rules": self.rules,
            "size": self.size,
            "komi": self.komi,
            "turns": self.turns,
            "declared": self.declared,
            "computed": self.computed,
            "score": None
            if self.score is None
            else {"black": float(self.score.black), "white": float(self.score.white)},
            "illegal": None if self.illegal is None else _illegal_json(self.illegal),
            "error": None
            if self.error is None
            else {"message": self.error.message, "line": self.error.line, "column": self.error.column},
            "warnings": list(self.warnings),
            "line": self.line,
            "rule_sensitive": self.rule_sensitive,
            "event": self.event,
            "black": self.black,
            "white": self.white,
            # Only for a game that has them: a record of version 1 gets the line it always got.
            **(
                {"variation_illegal": [_variation_json(f) for f in self.variation_illegal]}
                if self.variation_illegal
                else {}
            ),
            # Where the text line places each warning and the mismatch (the
            # keys above keep the values they always had).
            "warning_places": [
                {"line": line, "column": column, "message": text} for text, line, column in self.placed_warnings
            ],
            "mismatch": self._mismatch_json(),
        }

    def _mismatch_json(self) -> dict[str, Any] | None:
        """Where a mismatch is (its declared result) and why, as the text line places it."""
        if self.status is not Status.MISMATCH:
            return None
        fault = self.faults()[0]
        reason = self.mismatch_reason
        return {
            "line": fault.line,
            "column": fault.column,
            "reason": None if reason is None else reason.value,
            "message": fault.message,
        }


def _variation_json(f: VariationFault) -> dict[str, Any]:
    out: dict[str, Any] = {"opened_at": {"line": f.opened_at[0], "column": f.opened_at[1]}}
    out.update(_illegal_json(f))
    return out


def _illegal_json(t: IllegalTurn) -> dict[str, Any]:
    out: dict[str, Any] = {
        "turn": t.turn,
        "point": t.point,
        "reason": t.reason,
        "line": t.line,
        "column": t.column,
    }
    if t.repeats_turn is not None:
        out["repeats_turn"] = t.repeats_turn
    return out


def error_verdict(err: RecordError, *, file: str, game: int, line: int | None = None) -> Verdict:
    return Verdict(
        file=file,
        game=game,
        line=err.line if line is None else line,
        status=Status.ERROR,
        error=ReadError(err.message, err.line, err.column, err.source_line),
    )


def adjudicate(
    item: Record | RecordError,
    *,
    file: str,
    game: int,
    rules: str | None = None,
    line: int | None = None,
) -> Verdict:
    """The verdict on one game (a parsed record, or the error reading it).

    ``line`` is where the game starts, for an error that stopped the parse.
    """
    if isinstance(item, RecordError):
        return error_verdict(item, file=file, game=game, line=line)
    record = item
    event, black, white, round_, date, site, game_id = (
        record.tag_value(name) for name in ("Event", "Black", "White", "Round", "Date", "Site", "GameId")
    )
    from_position = has_position(record)
    try:
        setup = read_setup(record, rules=rules)
    except RecordError as e:
        failed = error_verdict(e, file=file, game=game, line=record.line)
        return replace(
            failed, event=event, black=black, white=white, round=round_, date=date, site=site, game_id=game_id,
            from_position=from_position,
        )
    try:
        rep = replay(record, setup=setup)
    except RecordError as e:
        # The settings were read: say what the replay used, as far as it got.
        return Verdict(
            file=file,
            game=game,
            line=record.line,
            status=Status.ERROR,
            rules=setup.rules,
            size=setup.size,
            komi=setup.komi,
            turns=e.turns_played or 0,
            declared=setup.declared,
            warnings=setup.warnings,
            warnings_at=_warnings_at(setup, record),
            error=ReadError(e.message, e.line, e.column, e.source_line),
            event=event,
            black=black,
            white=white,
            round=round_,
            date=date,
            site=site,
            game_id=game_id,
            from_position=from_position,
        )
    g = rep.game
    variations = variation_faults(record, setup)
    notes = _annotation_warnings(record, variations)
    base = dict(
        file=file,
        game=game,
        line=record.line,
        rules=setup.rules,
        size=setup.size,
        komi=setup.komi,
        turns=g.turn,
        declared=setup.declared,
        warnings=setup.warnings + tuple(message for message, _ in notes),
        warnings_at=_warnings_at(setup, record) + tuple(at for _, at in notes),
        result_at=_result_at(record),
        variation_illegal=tuple(variations),
        event=event,
        black=black,
        white=white,
        round=round_,
        date=date,
        site=site,
        game_id=game_id,
        time_used=time_used(record),
        from_position=from_position,
    )
    score = g.score()
    if rep.illegal is not None:
        return Verdict(status=Status.ILLEGAL, illegal=rep.illegal, score=score, **base)  # type: ignore[arg-type]
    computed = str(score.result) if rep.ended else None
    status, reason = _judge(setup.declared, computed, g.to_move)
    return Verdict(
        status=status,
        computed=computed,
        score=score,
        detail=None if reason is None else reason[1],
        mismatch_reason=None if reason is None else reason[0],
        other_results=_sibling_results(g, setup) if rep.ended else (),
        **base,  # type: ignore[arg-type]
    )


def _annotation_warnings(record: Record, variations: list[VariationFault]) -> list[tuple[str, tuple[int, int]]]:
    """What version 2 adds to judge, as warnings in file order: each
    variation's illegal turn, and the clock checks."""
    notes = [(f.message, (f.line, f.column)) for f in variations]
    notes += clock_warnings(record)
    return sorted(notes, key=lambda note: note[1])


def _result_at(record: Record) -> tuple[int, int] | None:
    """The result token if there is one (it is what ``declared`` reads), else the Result tag."""
    if record.result is not None:
        return record.result_line, record.result_column
    tag = record.tag("Result")
    return None if tag is None else (tag.line, tag.column)


def _warnings_at(setup: GameSetup, record: Record) -> tuple[tuple[int, int], ...]:
    at = setup.warnings_at + ((0, 0),) * (len(setup.warnings) - len(setup.warnings_at))
    return tuple((record.line, 1) if place == (0, 0) else place for place in at[: len(setup.warnings)])


_CLAIMS = (ResultKind.RESIGN, ResultKind.TIME, ResultKind.FORFEIT)


def _judge(
    declared: str | None, computed: str | None, to_move: Color
) -> tuple[Status, tuple[MismatchReason, str] | None]:
    """Compare the declared result with the game; the rules of the record format.

    A mismatch comes with its reason, as a code and in words. ``to_move`` is
    the player to move where the record ends: a flag falls only on the clock
    that runs, so a loss on time is that player's.
    """
    claim = Result.parse(declared) if declared is not None else Result(ResultKind.UNKNOWN)
    if claim.kind is ResultKind.UNKNOWN:
        return (Status.OK if computed is not None else Status.UNFINISHED), None
    if claim.kind in _CLAIMS:
        if computed is not None:
            return Status.MISMATCH, (MismatchReason.CLAIMED_AFTER_END, wording.claimed_after_end(claim.kind))
        if claim.kind is ResultKind.TIME and claim.winner is to_move:
            return Status.MISMATCH, (MismatchReason.TIME_LOSS_NOT_TO_MOVE, wording.time_loss_not_to_move(to_move))
        return Status.OK, None
    if computed is None:
        return Status.MISMATCH, (MismatchReason.CLAIMED_UNENDED, wording.claimed_unended(claim.kind))
    actual = Result.parse(computed)
    wrong_winner = (MismatchReason.WRONG_WINNER, wording.WRONG_WINNER)
    if claim.kind is ResultKind.WINNER:
        return (Status.OK, None) if claim.winner is actual.winner else (Status.MISMATCH, wrong_winner)
    if claim == actual:
        return Status.OK, None
    if claim.winner != actual.winner:
        return Status.MISMATCH, wrong_winner
    return Status.MISMATCH, (MismatchReason.WRONG_MARGIN, wording.WRONG_MARGIN)


def _sibling_results(game: Game, setup: GameSetup) -> tuple[tuple[str, str], ...]:
    """The result of the same final position under each sibling rule set."""
    mine = find_rules(setup.rules)
    out = []
    for other in all_rules():
        if other.family != mine.family or other.name == mine.name:
            continue
        try:
            out.append((other.name, str(game.score_as(other.name).result)))
        except ConfigError:
            continue
    return tuple(out)
