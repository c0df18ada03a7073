"""Archive statistics as an SVG picture: win rates by komi, and game lengths.

Written with the standard library's ElementTree: the picture is a few dozen
rectangles and labels, which needs no plotting library, and keeps the
install free of one (and of its fonts, back ends and version drift). Every
number is written with a fixed precision and attributes in a fixed order,
so the same statistics give the same bytes.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from keilref.values import format_number
from keilref.referee.stats import ArchiveStats, FairKomi, GroupStats

PANEL_WIDTH = 420
PANEL_HEIGHT = 220
MARGIN_LEFT = 48
MARGIN_TOP = 34
MARGIN_BOTTOM = 40
MARGIN_RIGHT = 24
GAP = 40
LENGTH_BINS = 20
"""At most this many bars in a length histogram; wider ranges are binned."""

BLACK_FILL = "#222222"
WHITE_FILL = "#f4f4f4"
INK = "#222222"
GRID = "#bbbbbb"
FONT = "font-family:sans-serif;font-size:11px"


@dataclass(frozen=True)
class Panel:
    """One board's place in the picture: a rule set and size, and its komi groups."""

    rules: str
    size: int
    groups: tuple[GroupStats, ...]
    fair: FairKomi | None = None


def panels(stats: ArchiveStats) -> list[Panel]:
    """One per rule set and size with a finished game, in the statistics' order."""
    out: dict[tuple[str, int], list[GroupStats]] = {}
    for g in stats.groups:
        if g.rules is None or g.size is None or not g.finished:
            continue
        out.setdefault((g.rules, g.size), []).append(g)
    fair = {(f.rules, f.size): f for f in stats.fair_komi}
    return [Panel(r, s, tuple(gs), fair.get((r, s))) for (r, s), gs in out.items()]


def _n(x: float) -> str:
    """A coordinate: one decimal, no trailing zeros, never ``-0``."""
    text = f"{x:.1f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def _el(parent: ET.Element, tag: str, text: str | None = None, **attrs: str | float) -> ET.Element:
    e = ET.SubElement(parent, tag, {k.rstrip("_").replace("_", "-"): v if isinstance(v, str) else _n(v) for k, v in attrs.items()})
    if text is not None:
        e.text = text
    return e


def _games(n: int) -> str:
    return f"{n} finished game" + ("" if n == 1 else "s")


def _frame(g: ET.Element, title: str, y_labels: Sequence[tuple[float, str]]) -> None:
    """Title, horizontal grid lines with their labels, and the axes."""
    _el(g, "text", title, x=0, y=-14, style=FONT + ";font-weight:bold")
    for frac, label in y_labels:
        y = PANEL_HEIGHT * (1 - frac)
        _el(g, "line", x1=0, y1=y, x2=PANEL_WIDTH, y2=y, stroke=GRID, stroke_width=0.5)
        _el(g, "text", label, x=-6, y=y + 4, style=FONT, text_anchor="end")
    _el(g, "line", x1=0, y1=PANEL_HEIGHT, x2=PANEL_WIDTH, y2=PANEL_HEIGHT, stroke=INK, stroke_width=1)
    _el(g, "line", x1=0, y1=0, x2=0, y2=PANEL_HEIGHT, stroke=INK, stroke_width=1)


def _win_rates(g: ET.Element, panel: Panel) -> None:
    games = sum(x.finished for x in panel.groups)
    fair = panel.fair
    balance = "" if fair is None or fair.balance is None else f"; fair komi {format_number(fair.balance)}"
    _frame(
        g,
        f"{panel.rules}, size {panel.size}: wins by komi ({_games(games)}{balance})",
        [(f, f"{round(100 * f)}%") for f in (0, 0.25, 0.5, 0.75, 1)],
    )
    half = PANEL_HEIGHT / 2
    _el(g, "line", x1=0, y1=half, x2=PANEL_WIDTH, y2=half, stroke=INK, stroke_width=1, stroke_dasharray="4 3")
    slot = PANEL_WIDTH / len(panel.groups)
    bar = min(28.0, slot * 0.35)
    for i, group in enumerate(panel.groups):
        centre = slot * (i + 0.5)
        for offset, share, fill in ((-bar, group.black, BLACK_FILL), (0.0, group.white, WHITE_FILL)):
            rate = share.rate or 0.0
            x = centre + offset
            _el(g, "rect", x=x, y=PANEL_HEIGHT * (1 - rate), width=bar, height=PANEL_HEIGHT * rate,
                fill=fill, stroke=INK, stroke_width=0.8)
            iv = share.interval
            if iv is not None:
                mid = x + bar / 2
                lo, hi = PANEL_HEIGHT * (1 - iv[0]), PANEL_HEIGHT * (1 - iv[1])
                _el(g, "line", x1=mid, y1=lo, x2=mid, y2=hi, stroke="#c0392b", stroke_width=1.2)
                for y in (lo, hi):
                    _el(g, "line", x1=mid - 3, y1=y, x2=mid + 3, y2=y, stroke="#c0392b", stroke_width=1.2)
        label = f"{format_number(group.komi or 0)} ({group.finished})"
        _el(g, "text", label, x=centre, y=PANEL_HEIGHT + 14, style=FONT, text_anchor="middle")
    _el(g, "text", "komi (finished games); bars: Black, White; red: 95% interval",
        x=PANEL_WIDTH / 2, y=PANEL_HEIGHT + 30, style=FONT, text_anchor="middle")


def _length_bins(counts: Counter[int]) -> list[tuple[int, int, int]]:
    """``(first, last, games)`` per bar: one turn count per bar when they fit, else equal widths."""
    lo, hi = min(counts), max(counts)
    if hi - lo + 1 < LENGTH_BINS:
        # A narrow range is shown among its neighbours, so one bar is not the whole width.
        lo = max(0, lo - (LENGTH_BINS - (hi - lo + 1)) // 2)
        hi = lo + LENGTH_BINS - 1
    width = max(1, math.ceil((hi - lo + 1) / LENGTH_BINS))
    bins: list[tuple[int, int, int]] = []
    for start in range(lo, hi + 1, width):
        end = start + width - 1
        bins.append((start, end, sum(c for v, c in counts.items() if start <= v <= end)))
    return bins


def _lengths(g: ET.Element, panel: Panel) -> None:
    counts: Counter[int] = Counter()
    for group in panel.groups:
        for turns, n in group.lengths:
            counts[turns] += n
    if not counts:
        # Only games from a position finished here, and their lengths are not the games'.
        _frame(g, f"{panel.rules}, size {panel.size}: game length (no finished game from an empty board)", [(0.0, "0")])
        _el(g, "text", "games from a position are not counted", x=PANEL_WIDTH / 2, y=PANEL_HEIGHT / 2,
            style=FONT, text_anchor="middle")
        return
    bins = _length_bins(counts)
    top = max(n for _, _, n in bins)
    step = _nice_step(top)
    ceiling = step * math.ceil(top / step)
    _frame(
        g,
        f"{panel.rules}, size {panel.size}: game length ({_games(sum(counts.values()))})",
        [(k * step / ceiling, str(k * step)) for k in range(int(ceiling / step) + 1)],
    )
    slot = PANEL_WIDTH / len(bins)
    for i, (first, last, n) in enumerate(bins):
        height = PANEL_HEIGHT * n / ceiling
        _el(g, "rect", x=slot * i + 1, y=PANEL_HEIGHT - height, width=max(1.0, slot - 2), height=height,
            fill="#5d8aa8", stroke=INK, stroke_width=0.5)
    every = max(1, math.ceil(len(bins) / 6))
    for i, (first, last, _) in enumerate(bins):
        if i % every == 0:
            label = str(first) if first == last else f"{first}-{last}"
            _el(g, "text", label, x=slot * (i + 0.5), y=PANEL_HEIGHT + 14, style=FONT, text_anchor="middle")
    _el(g, "text", "turns", x=PANEL_WIDTH / 2, y=PANEL_HEIGHT + 30, style=FONT, text_anchor="middle")


def _nice_step(top: int) -> int:
    """A round grid step (1, 2 or 5 times a power of ten) giving at most five lines up to ``top``."""
    magnitude = 1
    while True:
        for step in (1, 2, 5):
            if step * magnitude * 5 >= top:
                return step * magnitude
        magnitude *= 10


def render(stats: ArchiveStats) -> bytes:
    """The picture as SVG bytes; the same statistics always give the same bytes."""
    rows = panels(stats)
    row_height = MARGIN_TOP + PANEL_HEIGHT + MARGIN_BOTTOM
    width = 2 * (MARGIN_LEFT + PANEL_WIDTH) + GAP + MARGIN_RIGHT
    height = max(1, len(rows)) * row_height + 10
    svg = ET.Element(
        "svg",
        {
            "xmlns": "http://www.w3.org/2000/svg",
            "width": str(width),
            "height": str(height),
            "viewBox": f"0 0 {width} {height}",
        },
    )
    _el(svg, "rect", x=0, y=0, width=width, height=height, fill="#ffffff")
    if not rows:
        _el(svg, "text", "no finished games", x=MARGIN_LEFT, y=MARGIN_TOP, style=FONT)
    for r, panel in enumerate(rows):
        y = r * row_height + MARGIN_TOP
        left = _el(svg, "g", transform=f"translate({MARGIN_LEFT},{y})")
        _win_rates(left, panel)
        right = _el(svg, "g", transform=f"translate({2 * MARGIN_LEFT + PANEL_WIDTH + GAP},{y})")
        _lengths(right, panel)
    ET.indent(svg)
    data: bytes = ET.tostring(svg, encoding="utf-8", xml_declaration=True)
    return data + b"\n"

