"""Rendering verdicts and positions as text, JSON lines and CI annotations.

Nothing here depends on the terminal: output is the same in a pipe, a
snapshot and a CI log.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Sequence

from keilref.formats import Causes, CheckOptions, Places, Summary, Writer
from keilref.values import Color, Score, format_number
from keilref.escaping import json_text, one_line, shown_name
from keilref.referee.settings import GameSetup
from keilref.referee.verdict import Status, Verdict
from keilref import wording
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


def json_line(v: Verdict) -> str:
    data = v.to_json()
    data["file"] = shown_name(v.file)  # a name that is not UTF-8 cannot be written as it is
    return json_text(data)


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


class JsonLinesWriter(Writer):
    """``--format jsonl``: a JSON object per game (see :func:`json_line`)."""

    spells = "listed"

    @classmethod
    def lines(cls, v: Verdict, options: CheckOptions) -> str:
        return json_line(v) + "\n"

    @classmethod
    def read_back(cls, text: str) -> Causes:
        failing: Causes = {}
        for line in text.splitlines():
            v = json.loads(line)
            failing[(v["file"], v["game"])] = []
        return failing

    @classmethod
    def read_places(cls, text: str) -> Places:
        places: Places = {}
        for line in text.splitlines():
            v = json.loads(line)
            listed = places.setdefault((v["file"], v["game"]), [])
            at = v["illegal"] or v["error"] or v["mismatch"]
            if at is not None:
                listed.append((v["status"], at["line"], at["column"]))
            elif v["status"] == Status.UNFINISHED.value:
                listed.append((v["status"], v["line"], 1))  # the game's start, as the text line has it
            listed += [("warning", w["line"], w["column"]) for w in v["warning_places"]]
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


def score_table(score: Score, *, half_point_in_play: bool = True) -> str:
    """The count per player, part by part, then the totals and the result."""
    rows = [(r.label, format_number(r.black), format_number(r.white)) for r in score.rows]
    rows.append(("komi", "", format_number(score.komi)))
    if half_point_in_play:
        half = (
            "0.5" if score.half_point is Color.BLACK else "",
            "0.5" if score.half_point is Color.WHITE else "",
        )
        rows.append((score.half_point_label, *half))
    width = max(10, *(len(r[0]) + 2 for r in rows))
    lines = [f"{'':<{width}}{'Black':>8}{'White':>8}"]
    lines += [f"{name:<{width}}{b:>8}{w:>8}".rstrip() for name, b, w in rows]
    lines.append("-" * (width + 16))
    lines.append(f"{'total':<{width}}{format_number(score.black):>8}{format_number(score.white):>8}")
    if score.neutral is not None:
        lines.append(f"neutral points: {score.neutral}")
    lines.append(f"result: {score.result}")
    return "\n".join(lines) + "\n"


_PIECE_WORDS = {"": "pawn placement", "K@": "king placement"}


def legal_listing(moves: Sequence[str], prefixes: Sequence[str] = ("",)) -> str:
    """The legal turns: placements on wrapped lines (by piece kind), then the others."""
    others = [m for m in moves if m in ("pass", "button")]
    lines: list[str] = []
    kinds = sorted(prefixes, key=len, reverse=True)
    for prefix in prefixes:
        wanted = [
            m
            for m in moves
            if m not in others and next(p for p in kinds if m.startswith(p)) == prefix
        ]
        label = "placement" if len(prefixes) == 1 else _PIECE_WORDS.get(prefix, f"{prefix} placement")
        lines.append(f"{len(wanted)} {label}{'' if len(wanted) == 1 else 's'}:")
        for i in range(0, len(wanted), 12):
            lines.append("  " + " ".join(wanted[i : i + 12]))
    lines.append("other: " + (" ".join(others) or "none"))
    return "\n".join(lines) + "\n"


def position_header(
    file: str,
    game: int,
    setup: GameSetup,
    turn: int,
    turns: int,
    *,
    line: tuple[int, int] | None = None,
    shown: str | None = None,
) -> str:
    """The line above a drawn position: which game (and which of its
    variations, ``line``), under what settings, after which turn of that
    line; ``shown`` is that turn with its glyphs, for an annotated one."""
    which = "" if line is None else f", {wording.line_title(line)}"
    glyphs = "" if shown is None else f", {shown}"
    return (
        f"{shown_name(file)} game {game}{which}: rules {setup.rules}, size {setup.size}, "
        f"komi {format_number(setup.komi)}, after turn {turn} of {turns}{glyphs}"
    )
