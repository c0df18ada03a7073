"""Rendering a position as text: the line above a drawn board, the score table
and the legal moves, as ``show``, ``score`` and ``legal`` print them."""

from __future__ import annotations

from collections.abc import Sequence

from keilref.values import Color, Score, format_number
from keilref.escaping import shown_name
from keilref.referee.settings import GameSetup
from keilref import wording


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
