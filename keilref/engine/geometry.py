"""Board geometry as a pure, cached function of the board size.

Points are numbered ``0 .. n_points-1`` in column-major order (``a1``, ``a2``,
..., ``b1``, ...). Everything here is computed once per size and shared.
"""

from __future__ import annotations

import functools
import re
import string
from dataclasses import dataclass
from typing import Protocol

from keilref.errors import InvalidMoveError, wrong_type
from keilref.values import WORDS

class Geometry(Protocol):
    """What every board geometry offers the engines and diagrams."""

    @property
    def names(self) -> tuple[str, ...]: ...

    @property
    def index(self) -> dict[str, int]: ...

    def point(self, name: str) -> int: ...


MAX_HEX_SIZE = 13
_LETTERS = string.ascii_lowercase
POINT_RE = re.compile(r"([A-Za-z])([0-9]{1,3})\Z")


def split_points(text: str) -> list[str]:
    """The points of a list such as the ``Removed`` tag's ``"d4 k10"``.

    Split at white space as the record format defines it (space, tab, line
    feed, carriage return), not at whatever ``str.split`` takes for space: a
    no-break space or a control character is part of a point, which then
    reads as no point at all.
    """
    return WORDS.findall(text)


def _point_index(index: dict[str, int], name: str, example: str) -> int:
    """``index[name]``, or why ``name`` is no point: a wrong type, a malformed
    name (``InvalidMoveError``), or a name off this board (``KeyError``)."""
    try:
        return index[name]
    except (KeyError, TypeError):
        if not isinstance(name, str):
            raise wrong_type("a point", name, "a str such as g7") from None
        if POINT_RE.match(name) is None:
            raise InvalidMoveError(
                f"{name!r} is not a point (expected a letter and a row number, such as {example})"
            ) from None
        raise


@dataclass(frozen=True, eq=False)
class HexGeometry:
    """The hexagon of side ``size`` on the triangular lattice.

    ``coords[p] = (c, r)`` with 0-based column ``c`` and row ``r``; the point
    exists when ``|c - r| <= size - 1``.
    """

    size: int
    coords: tuple[tuple[int, int], ...]
    names: tuple[str, ...]
    index: dict[str, int]
    """Point name (lower or upper case) to index."""
    neighbours: tuple[tuple[int, ...], ...]
    adjacency: tuple[tuple[tuple[int, int, int], ...], ...]
    """Per point: ``(neighbour, wing1, wing2)``; an edge pair has one wing, repeated."""
    wings: dict[tuple[int, int], tuple[int, ...]]
    """Per ordered adjacent pair: its one or two wings, as on the board."""

    @property
    def n_points(self) -> int:
        return len(self.coords)

    @property
    def n_rows(self) -> int:
        return 2 * self.size - 1

    def point(self, name: str) -> int:
        """Index of ``name``; ``InvalidMoveError`` if malformed, ``KeyError`` if off the board."""
        return _point_index(self.index, name, "g7")

    def on_board(self, c: int, r: int) -> bool:
        n = self.size
        return 0 <= c < 2 * n - 1 and 0 <= r < 2 * n - 1 and abs(c - r) <= n - 1

    def row_columns(self, r: int) -> range:
        """The column indices present in row ``r`` (0-based)."""
        n = self.size
        return range(max(0, r - (n - 1)), min(2 * n - 2, r + n - 1) + 1)

    def is_edge(self, p: int) -> bool:
        return len(self.neighbours[p]) < 6


def point_name(c: int, r: int) -> str:
    return f"{_LETTERS[c]}{r + 1}"


@functools.cache
def hex_geometry(size: int) -> HexGeometry:
    """The geometry of the hexagon of side ``size`` (2..13)."""
    if not 2 <= size <= MAX_HEX_SIZE:
        raise ValueError(f"hex board size {size} is out of range (2..{MAX_HEX_SIZE})")
    n = size
    coords = [(c, r) for c in range(2 * n - 1) for r in range(2 * n - 1) if abs(c - r) <= n - 1]
    at = {cr: i for i, cr in enumerate(coords)}
    steps = ((1, 0), (1, 1), (0, 1), (-1, 0), (-1, -1), (0, -1))
    neighbours = []
    for c, r in coords:
        neighbours.append(tuple(at[(c + dc, r + dr)] for dc, dr in steps if (c + dc, r + dr) in at))
    nsets = [frozenset(ns) for ns in neighbours]
    wings: dict[tuple[int, int], tuple[int, ...]] = {}
    adjacency = []
    for p, ns in enumerate(neighbours):
        row = []
        for q in ns:
            w = tuple(sorted(nsets[p] & nsets[q]))
            # On a hexagon of side >= 2 every adjacent pair has one or two wings.
            assert 1 <= len(w) <= 2, (p, q, w)
            wings[(p, q)] = w
            row.append((q, w[0], w[-1]))
        adjacency.append(tuple(row))
    names = tuple(point_name(c, r) for c, r in coords)
    index = {name: i for i, name in enumerate(names)}
    index.update({name.upper(): i for i, name in enumerate(names)})
    return HexGeometry(
        size=n,
        coords=tuple(coords),
        names=names,
        index=index,
        neighbours=tuple(neighbours),
        adjacency=tuple(adjacency),
        wings=wings,
    )


MAX_SQUARE_SIZE = 25


@dataclass(frozen=True, eq=False)
class SquareGeometry:
    """The ``size × size`` square board with orthogonal adjacency (Yugo).

    Points are numbered column-major, like the hexagon: index ``c * size + r``
    for 0-based column ``c`` (``a`` is the leftmost) and row ``r`` (``1`` is the
    bottom row), so ``a1, a2, ..., a<n>, b1, ...``. Column letters run ``a..``
    with no letter skipped (unlike Go's habit of skipping ``i``), so every size
    up to 25 names its columns with one letter.
    """

    size: int
    coords: tuple[tuple[int, int], ...]
    """``coords[p] = (c, r)``, both 0-based."""
    names: tuple[str, ...]
    index: dict[str, int]
    """Point name (lower or upper case) to index."""
    neighbours: tuple[tuple[int, ...], ...]
    """Per point: its two to four orthogonal neighbours."""

    @property
    def n_points(self) -> int:
        return len(self.coords)

    def point(self, name: str) -> int:
        """Index of ``name``; ``InvalidMoveError`` if malformed, ``KeyError`` if off the board."""
        return _point_index(self.index, name, "d4")

    def at(self, c: int, r: int) -> int:
        """Index of the point in 0-based column ``c`` and row ``r``."""
        if not (0 <= c < self.size and 0 <= r < self.size):
            raise KeyError((c, r))
        return c * self.size + r


@functools.cache
def square_geometry(size: int) -> SquareGeometry:
    """The geometry of the square board of ``size`` points per side (2..25)."""
    if not 2 <= size <= MAX_SQUARE_SIZE:
        raise ValueError(f"square board size {size} is out of range (2..{MAX_SQUARE_SIZE})")
    n = size
    coords = tuple((c, r) for c in range(n) for r in range(n))
    neighbours = []
    for c, r in coords:
        near = ((c - 1, r), (c + 1, r), (c, r - 1), (c, r + 1))
        neighbours.append(tuple(cc * n + rr for cc, rr in near if 0 <= cc < n and 0 <= rr < n))
    names = tuple(point_name(c, r) for c, r in coords)
    index = {name: i for i, name in enumerate(names)}
    index.update({name.upper(): i for i, name in enumerate(names)})
    return SquareGeometry(size=n, coords=coords, names=names, index=index, neighbours=tuple(neighbours))
