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

from keilref.engine.geometry import HexGeometry, hex_geometry

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


# --- the square board (Yugo) ---------------------------------------------------

from keilref.engine.geometry import MAX_SQUARE_SIZE, SquareGeometry, square_geometry  # noqa: E402

SQUARE_ASCII = {
    "black": "X",
    "white": "O",
    "black_king": "K",
    "white_king": "Q",
    "empty": ".",
    "black_area": "x",
    "white_area": "o",
}
"""Yugo's ASCII glyphs: pawns as the hexagon's stones, ``K`` and ``Q`` for kings
(``Q`` because White's king needs a letter other than ``K``, ``O`` and ``X``)."""
SQUARE_UNICODE = {
    "black": "●",
    "white": "○",
    "black_king": "♚",
    "white_king": "♔",
    "empty": "·",
    "black_area": "x",
    "white_area": "o",
}
"""Yugo's Unicode glyphs: filled shapes for Black and outlines for White, as the
pawns ``●``/``○``, so the kings are the filled and outlined chess kings ``♚``
(U+265A) and ``♔`` (U+2654). Each is one code point, so a diagram still reads
back one glyph per point."""


def render_square(geo: SquareGeometry, glyphs: Sequence[str], mark: int | None = None) -> str:
    """Draw ``glyphs[p]`` for each point ``p`` of a square; ``mark`` is bracketed, as ``(X)``.

    Top row first; each line is the right-aligned row number, then the row's
    glyphs from column ``a`` on, separated by spaces. A marked point takes the
    spaces either side for its brackets, so the columns stay aligned. The column
    letters stand on a line below, under their points.
    """
    n = geo.size
    width = 2 * n + 1
    out = []
    for r in range(n - 1, -1, -1):
        line = [" "] * width
        for c in range(n):
            p = c * n + r
            line[2 * c + 1] = glyphs[p]
            if p == mark:
                line[2 * c] = "("
                line[2 * c + 2] = ")"
        out.append(f"{r + 1:>2} " + "".join(line).rstrip())
    out.append("   " + " " + " ".join(chr(ord("a") + c) for c in range(n)))
    return "\n".join(out) + "\n"


def parse_square(text: str) -> tuple[int, list[str]]:
    """Read a square diagram back: ``(size, glyph per point index)``.

    Row numbers and column letters are optional; without row numbers, give
    only the board rows (top row first). With row numbers, they must count
    down from the size to 1, so a row left out is caught rather than shifting
    the board. Every row must hold exactly ``size`` glyphs.
    """
    lines = [ln for ln in text.splitlines() if ln.strip()]
    numbered = any(ln.lstrip()[:1].isdigit() for ln in lines)
    if numbered:
        rows = []
        for ln in lines:
            m = re.match(r"\s*(\d+)", ln)
            if m is not None:
                rows.append((int(m.group(1)), ln[m.end() :]))
        lines = [body for _, body in rows]
        numbers = [number for number, _ in rows]
        if numbers != list(range(len(rows), 0, -1)):
            raise ValueError(f"the row numbers of a square diagram must count down to 1, not {numbers}")
    n = len(lines)
    if not 2 <= n <= MAX_SQUARE_SIZE:
        raise ValueError(f"a square diagram has 2 to {MAX_SQUARE_SIZE} rows, not {n}")
    geo = square_geometry(n)
    glyphs = ["."] * geo.n_points
    for i, line in enumerate(lines):
        r = n - 1 - i
        found = _GLYPH.findall(line)
        if len(found) != n:
            raise ValueError(f"row {r + 1} has {len(found)} points, expected {n}")
        for c, g in enumerate(found):
            glyphs[c * n + r] = g
    return n, glyphs
