"""Every wording a user reads about a verdict, in one place.

Text lines, CI annotations, SARIF, GitLab, Checkstyle, JUnit, the HTML
report and the board captions all say a status, an illegal turn, a
mismatch or a warning the same way because they say it through here.
"""

from __future__ import annotations

from keilref.referee.verdict import Fault, Status, Verdict


def turn_name(turn: int, token: str) -> str:
    """A turn as the record numbers it, then as the referee counts it:
    ``move 16 (Black) e2, turn 31``. Black plays the odd turns."""
    colour = "Black" if turn % 2 == 1 else "White"
    return f"move {(turn + 1) // 2} ({colour}) {token}, turn {turn}"


def illegal_turn(turn: int, token: str, reason: str, repeats_turn: int | None = None) -> str:
    """``move 16 (Black) e2, turn 31: superko (repeats turn 29)``."""
    text = f"{turn_name(turn, token)}: {reason}"
    if repeats_turn is not None:
        text += f" (repeats turn {repeats_turn})"
    return text


def verdict_message(v: Verdict) -> str:
    """What the text line says after the status: the reason, in words."""
    if v.status is Status.ERROR:
        assert v.error is not None
        return v.error.message
    parts = [f"computed {v.computed or '-'}, declared {v.declared or '-'}"]
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
