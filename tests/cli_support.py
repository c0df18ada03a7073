"""Helpers the command-line tests share: running keilref and reading its output."""

from __future__ import annotations

import re
from pathlib import Path

from typer.testing import CliRunner, Result

from keilref.cli import app

ROOT = Path(__file__).resolve().parent.parent

runner = CliRunner()

_TIMING = re.compile(r" in \d+\.\d\d s \([\d,]+ games/s\)$", re.MULTILINE)


def run(*args: str) -> Result:
    result = runner.invoke(app, list(args))
    assert "Traceback" not in result.output
    # A command ends by exiting with its code, never by an exception escaping.
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


def untimed(text: str) -> str:
    """The summary line's time and rate vary from run to run: fix them."""
    fixed, n = _TIMING.subn(" in <TIME> s (<RATE> games/s)", text)
    assert n == 1, f"expected one summary line with a timing in:\n{text}"
    return fixed


def lines_of(text: str) -> list[str]:
    return [ln for ln in text.splitlines() if ln]


def board_points(out: str) -> list[str]:
    """The glyph of every point of the diagram, row by row, top row first.

    The board size comes from the header; a row numbered ``r`` has
    ``2n - 1 - |r - n|`` points, and anything after them (the column letters
    beyond the lower edges) or around them (the brackets of the last move) is
    not a point.
    """
    size = int(re.search(r"size (\d+)", out).group(1))  # type: ignore[union-attr]
    points: list[str] = []
    for ln in out.splitlines():
        m = re.match(r"^\s*(\d+) (.*)$", ln)
        if m is None:
            continue
        r = int(m.group(1))
        n_points = 2 * size - 1 - abs(r - size)
        glyphs = re.findall(r"[^\s()]", m.group(2))
        points.extend(glyphs[:n_points])
    assert len(points) == 3 * size * (size - 1) + 1, "a diagram shows every point once"
    return points


def count_glyphs(out: str, glyphs: str) -> int:
    return sum(p in glyphs for p in board_points(out))


def table_row(out: str, name: str) -> tuple[str, str]:
    """The Black and White cells of one row of the score table ('' when empty).

    Cells are right-aligned under the words Black and White of the header.
    Row names may hold spaces (``groups with partitions``).
    """
    lines = out.splitlines()
    header = next(ln for ln in lines if ln.split() == ["Black", "White"])
    b_end = header.index("Black") + len("Black")
    w_end = header.index("White") + len("White")
    rows = [ln for ln in lines if ln == name or ln.startswith(name + " ")]
    assert len(rows) == 1, f"no single {name!r} row in:\n{out}"
    (ln,) = rows
    return ln[len(name):b_end].strip(), ln[b_end:w_end].strip()
