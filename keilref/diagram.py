"""Board pictures that render and parse back, so tests read as diagrams.

A hexagon is drawn with the top row first. Each line starts with its row
number, then the row's points in column order, one glyph each, separated by
spaces. A point ``(c, r)`` sits at ``x = 2c - r``, so the two neighbours in
the row above sit diagonally left and right of it. Column letters stand just
beyond the lower edges, where the next point of each column would be.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from keilref.geometry import HexGeometry, hex_geometry

ASCII = {"black": "X", "white": "O", "empty": ".", "black_area": "x", "white_area": "o"}
UNICODE = {"black": "●", "white": "○", "empty": "·", "black_area": "x", "white_area": "o"}
_GLYPH = re.compile(r"[^\s()]")


def render_hex(geo: HexGeometry, glyphs: Sequence[str], mark: int | None = None) -> str:
    """Draw ``glyphs[p]`` for each point ``p``; ``mark`` is bracketed, as ``(X)``."""
    n = geo.size
    width = 2 * (2 * n - 1) + 3
    rows: dict[int, list[str]] = {}
    at = {cr: i for i, cr in enumerate(geo.coords)}
    for r in range(2 * n - 1):
        rows[r] = [" "] * width
    letters: dict[int, list[tuple[int, str]]] = {r: [] for r in range(-1, 2 * n - 1)}
    for c in range(2 * n - 1):
        low = max(0, c - (n - 1))
        letters[low - 1].append((2 * c - (low - 1) + n - 1, chr(ord("a") + c)))
    for r in range(2 * n - 1):
        line = rows[r]
        for c in geo.row_columns(r):
            x = 2 * c - r + n - 1
            p = at[(c, r)]
            line[x + 1] = glyphs[p]
            if p == mark:
                line[x] = "("
                line[x + 2] = ")"
        for x, letter in letters[r]:
            # One space more than a point would have, so a letter never reads as a point.
            line[x + 2] = letter
    out = []
    for r in range(2 * n - 2, -1, -1):
        out.append(f"{r + 1:>2} " + "".join(rows[r]).rstrip())
    bottom = [" "] * width
    for x, letter in letters[-1]:
        bottom[x + 1] = letter
    out.append("   " + "".join(bottom).rstrip())
    return "\n".join(out) + "\n"


def parse_hex(text: str) -> tuple[int, list[str]]:
    """Read a hexagon diagram back: ``(size, glyph per point index)``.

    Row numbers and column letters are optional; without row numbers, give
    only the board rows (top row first).
    """
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if any(ln.lstrip()[:1].isdigit() for ln in lines):
        lines = [re.sub(r"^\s*\d+", "", ln) for ln in lines if ln.lstrip()[:1].isdigit()]
    if len(lines) % 2 == 0 or len(lines) < 3:
        raise ValueError(f"a hexagon diagram has an odd number of rows (at least 3), not {len(lines)}")
    n = (len(lines) + 1) // 2
    geo = hex_geometry(n)
    at = {cr: i for i, cr in enumerate(geo.coords)}
    glyphs = ["."] * geo.n_points
    for i, line in enumerate(lines):
        r = 2 * n - 2 - i
        cols = geo.row_columns(r)
        found = _GLYPH.findall(line)
        if len(found) < len(cols):
            raise ValueError(f"row {r + 1} has {len(found)} points, expected {len(cols)}")
        for c, g in zip(cols, found):
            glyphs[at[(c, r)]] = g
    return n, glyphs
