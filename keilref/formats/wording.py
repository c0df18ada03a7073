"""Every wording a user reads about a verdict, in one place.

Text lines, CI annotations, SARIF, GitLab, Checkstyle, JUnit, the HTML
report and the board captions all say a status, an illegal turn, a
mismatch or a warning the same way because they say it through here.
"""

from __future__ import annotations

from keilref.values import Reason
from keilref.errors import illegal_turn, turn_name
from keilref.engine.game import Game, may_resume
from keilref.referee.verdict import Fault, Status, Verdict

__all__ = [
    "REASONS",
    "STATUSES",
    "fault_sentence",
    "illegal_turn",
    "play_state",
    "results",
    "turn_name",
    "unfinished_message",
    "verdict_message",
]

STATUSES = {
    Status.OK: "Every turn legal, and the declared result agrees with the game.",
    Status.UNFINISHED: "The game did not end and no result is claimed (a failure with --strict).",
    Status.MISMATCH: "The declared result disagrees with the game.",
    Status.ILLEGAL: "A turn breaks the rules.",
    Status.ERROR: "The record cannot be read: a syntax error or a tag the rules do not allow.",
}
"""Each status in a sentence (SARIF's rule descriptions, the HTML report)."""

REASONS = {
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
"""Why a turn is illegal, in words (the one description of each :class:`~keilref.Reason`)."""

WARNING_RULE = "A warning about the record: a tag misspelt, missing or out of place (a failure with --strict)."


def play_state(game: Game) -> str:
    """Where play stands: ``game over``, ``play stopped; Black may resume`` (Yugo's
    first double pass), or ``Black to move``."""
    if game.is_final:
        return "game over"
    if game.is_over:
        return f"play stopped; {may_resume(game.to_move)}"
    return f"{game.to_move.name.capitalize()} to move"




def results(v: Verdict) -> str:
    """``computed W+3.5, declared B+3.5``: the game's result beside the record's."""
    return f"computed {v.computed or '-'}, declared {v.declared or '-'}"


def verdict_message(v: Verdict) -> str:
    """What the text line says after the status: the reason, in words."""
    if v.status is Status.ERROR:
        assert v.error is not None
        return v.error.message
    parts = [results(v)]
    if v.illegal is not None:
        t = v.illegal
        parts = [illegal_turn(t.turn, t.point, t.reason, t.repeats_turn)]
    elif v.status is Status.UNFINISHED and v.score is not None:
        parts.append(f"score so far {v.score.result}")
    if v.detail:
        parts.append(v.detail)
    if v.rule_sensitive:
        others = ", ".join(f"{r} under {name}" for name, r in v.other_results)
        parts.append(f"rule-sensitive: {others}")
    return "; ".join(parts)


def unfinished_message(v: Verdict) -> str:
    """``the game did not end; score so far B+3``."""
    so_far = f"; score so far {v.score.result}" if v.score is not None else ""
    return f"the game did not end{so_far}"


def fault_sentence(v: Verdict, fault: Fault | None = None) -> str:
    """One fault of a game (by default its status's) in a sentence that names the game:
    ``game 3: illegal: move 16 (Black) e2, turn 31: superko (repeats turn 29)``,
    ``game 2: warning: unknown tag 'komi'; did you mean 'Komi'?``."""
    rule = fault.rule if fault is not None else v.status.value
    if rule == "warning":
        assert fault is not None
        return f"game {v.game}: warning: {fault.message}"
    if rule == "unfinished":
        return f"game {v.game}: unfinished: {unfinished_message(v)}"
    return f"game {v.game}: {v.status.value}: {verdict_message(v)}"
