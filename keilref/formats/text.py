"""Rendering verdicts as text: a line per game and per warning, and the summary line.

Nothing here depends on the terminal: output is the same in a pipe, a
snapshot and a CI log.
"""

from __future__ import annotations

import re
from collections import Counter

from keilref.formats import Causes, CheckOptions, Places, Summary, Writer
from keilref.escaping import one_line, shown_name
from keilref.referee.verdict import Status, Verdict
from keilref.wording import verdict_message

def text_line(v: Verdict) -> str:
    """One line per game, starting ``FILE:LINE:COLUMN:`` at the fault, as compilers do.

    The place is the illegal turn, the reading error or the declared result
    of a mismatch; the game's start for a game that passed.
    """
    line, column = v.location
    return one_line(f"{shown_name(v.file)}:{line}:{column}: game {v.game}: {v.status.value}: {verdict_message(v)}")


def warning_lines(v: Verdict) -> list[str]:
    """One line per warning, at the tag it is about (the game's start for a missing one)."""
    return [
        one_line(f"{shown_name(v.file)}:{line}:{column}: game {v.game}: warning: {text}")
        for text, line, column in v.placed_warnings
    ]



class TextWriter(Writer):
    """``--format text``: a line per game and one per warning, then the summary line."""

    writes_summary = True
    spells = "listed"

    @classmethod
    def lines(cls, v: Verdict, options: CheckOptions) -> str:
        return "".join(line + "\n" for line in (text_line(v), *warning_lines(v)))

    def close(self, summary: Summary | None = None) -> None:
        if summary is not None:
            self.write(summary.line + "\n")

    @classmethod
    def read_back(cls, text: str) -> Causes:
        # The status is not whether the game fails (an unfinished game fails
        # only by --strict): read with --quiet, the games listed are the failing ones.
        failing: Causes = {}
        for line in text.splitlines():
            m = re.match(r"(.+?):\d+:\d+: game (\d+): (\w+): ", line)
            if m and m.group(3) != "warning":
                failing[(m.group(1), int(m.group(2)))] = []
        return failing

    @classmethod
    def read_places(cls, text: str) -> Places:
        # Every line but the summary is at a place: the status's (unless the
        # game is ok, which has no fault) and each warning's.
        places: Places = {}
        for line in text.splitlines():
            m = re.match(r"(.+?):(\d+):(\d+): game (\d+): (\w+): ", line)
            if m is None:
                continue
            listed = places.setdefault((m.group(1), int(m.group(4))), [])
            if m.group(5) != Status.OK.value:
                listed.append((m.group(5), int(m.group(2)), int(m.group(3))))
        return places


def summary_line(counts: Counter[str], seconds: float, *, warned: int = 0, interrupted: bool = False) -> str:
    """``12 games: 10 ok, 2 illegal in 0.31 s (39 games/s)``.

    ``warned`` games with a warning are counted after the statuses; an
    ``interrupted`` check says it counted only the games checked so far.
    """
    total = sum(counts.values())
    # Counts with thousands separators, as the rate has them: 12,000 games, not 12000.
    parts = [f"{counts[s.value]:,} {s.value}" for s in Status if counts[s.value]]
    rate = total / seconds if seconds > 0 else 0.0
    noun = "game" if total == 1 else "games"
    extra = f"; {warned:,} with warnings" if warned else ""
    head = f"interrupted after {total:,} {noun}" if interrupted else f"{total:,} {noun}"
    return f"{head}: {', '.join(parts) or 'none'}{extra} in {seconds:.2f} s ({rate:,.0f} games/s)"
