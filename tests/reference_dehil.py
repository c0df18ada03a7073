"""A literal reference implementation of Dehil, written from dehil-rules.md.

Slow and obvious on purpose: it shares no logic with ``keilref/dehil.py``.
The board is a ``dict`` from point name to type. Every question is answered by
recomputing it from the definitions in the rules document on the whole board:

- a *triangle pattern* is any three mutually adjacent stones of one colour,
  found by trying every triple of points;
- an *hourglass* is any two triangle patterns of one colour sharing exactly
  one stone, the other two stones of one being the mirror images (through the
  shared stone) of the other two stones of the other -- "on opposite sides of
  it";
- a group's *partitions* are found by lifting the group off the board and
  flood-filling what is left.

Even the coordinates are rebuilt from the formula in keil-rules.md. The tests
drive this and the fast engine side by side and compare them.
"""

from __future__ import annotations

import functools
import itertools
import re
from dataclasses import dataclass

EMPTY = 0
BLACK = 1
WHITE = 2

OFF_BOARD = "off-board"
OCCUPIED = "occupied"
TRIANGLE = "triangle"
GAME_OVER = "game-over"

_POINT = re.compile(r"([a-z])([0-9]+)\Z")


def point_name(c: int, r: int) -> str:
    return "abcdefghijklmnopqrstuvwxyz"[c] + str(r + 1)


def on_board(size: int, c: int, r: int) -> bool:
    """Column ``c`` and row ``r`` (from 0) name a point when ``|c - r| <= n-1``."""
    return 0 <= c <= 2 * size - 2 and 0 <= r <= 2 * size - 2 and abs(c - r) <= size - 1


@functools.cache
def board_points(size: int) -> dict[str, tuple[int, int]]:
    return {
        point_name(c, r): (c, r)
        for c in range(2 * size - 1)
        for r in range(2 * size - 1)
        if on_board(size, c, r)
    }


@functools.cache
def board_neighbours(size: int) -> dict[str, frozenset[str]]:
    """Neighbours of ``(c, r)``: ``(c±1, r)``, ``(c, r±1)``, ``(c+1, r+1)``, ``(c-1, r-1)``."""
    out = {}
    for name, (c, r) in board_points(size).items():
        steps = [(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, -1)]
        out[name] = frozenset(point_name(c + dc, r + dr) for dc, dr in steps if on_board(size, c + dc, r + dr))
    return out


@functools.cache
def edge_points(size: int) -> frozenset[str]:
    """Edge points: points with fewer than six neighbours."""
    return frozenset(p for p, ns in board_neighbours(size).items() if len(ns) < 6)


@functools.cache
def small_triangles(size: int) -> tuple[frozenset[str], ...]:
    """Every set of three mutually adjacent points, by trying every triple."""
    nbrs = board_neighbours(size)
    names = sorted(board_points(size))
    return tuple(
        frozenset((a, b, c))
        for a, b, c in itertools.combinations(names, 3)
        if b in nbrs[a] and c in nbrs[a] and c in nbrs[b]
    )


def parse_point(size: int, move: str) -> str | None:
    """The point a token names, ``None`` when off the board; ``ValueError`` when not a point."""
    m = _POINT.match(move.lower())
    if m is None:
        raise ValueError(f"{move!r} is not a point")
    c = ord(m.group(1)) - ord("a")
    r = int(m.group(2)) - 1
    return point_name(c, r) if on_board(size, c, r) else None


@dataclass(frozen=True)
class Verdict:
    """The decision on one turn."""

    reason: str | None
    triangles_created: int = 0
    hourglass_support: bool = False
    """A created triangle had a stone whose only support was an hourglass centre."""


class RefDehil:
    """Dehil, the rules document line by line."""

    def __init__(
        self,
        size: int,
        komi: int = 0,
        *,
        board: dict[str, int] | None = None,
        to_move: int = BLACK,
        first_pass: int | None = None,
    ) -> None:
        """A new game; ``board``, ``to_move`` and ``first_pass`` (who passed
        first before the position) set up a position to start from. The
        turns before it are unknown: none of them is a pass that a pass
        after it could follow "in succession"."""
        self.size = size
        self.komi = komi
        self.points = sorted(board_points(size), key=lambda p: board_points(size)[p])
        self.board = {p: EMPTY for p in self.points}
        if board is not None:
            assert set(board) == set(self.points)
            self.board = dict(board)
        self.to_move = to_move
        self.turn = 0
        self.history: list[str] = []
        self.first_pass: int | None = first_pass

    # --- the end: "when both players pass in succession" --------------------
    @property
    def is_over(self) -> bool:
        return len(self.history) >= 2 and self.history[-1] == "pass" and self.history[-2] == "pass"

    # --- patterns ------------------------------------------------------------
    def triangle_patterns(self, board: dict[str, int]) -> list[frozenset[str]]:
        """Three mutually adjacent stones of one colour."""
        return [t for t in small_triangles(self.size) if len({board[p] for p in t}) == 1 and board[next(iter(t))]]

    def hourglass_centres(self, board: dict[str, int]) -> set[str]:
        """Stones shared by two triangle patterns of one colour lying on opposite sides of it."""
        coords = board_points(self.size)
        centres = set()
        for t1, t2 in itertools.combinations(self.triangle_patterns(board), 2):
            shared = t1 & t2
            if len(shared) != 1:
                continue
            (centre,) = shared
            if board[next(iter(t1))] != board[next(iter(t2))]:
                continue
            cc, cr = coords[centre]
            mirrored = {(2 * cc - coords[p][0], 2 * cr - coords[p][1]) for p in t1 - shared}
            if mirrored == {coords[p] for p in t2 - shared}:
                centres.add(centre)
        return centres

    # --- the placement rule ------------------------------------------------------
    def judge_placement(self, point: str) -> Verdict:
        """The triangle restriction for a stone of the player to move on empty ``point``."""
        after = dict(self.board)
        after[point] = self.to_move
        created = [t for t in self.triangle_patterns(after) if point in t]
        if not created:
            return Verdict(None)
        in_some_triangle = set().union(*self.triangle_patterns(after))
        centres = self.hourglass_centres(after)
        nbrs = board_neighbours(self.size)
        edges = edge_points(self.size)
        used_hourglass = False
        for tri in created:
            if len(tri & edges) >= 2:
                return Verdict(TRIANGLE, len(created))
            for stone in tri - edges:
                friends = [s for s in nbrs[stone] if after[s] == self.to_move]
                lone = [s for s in friends if s not in tri and s not in in_some_triangle]
                centre = [s for s in friends if s in centres]
                if not lone and not centre:
                    return Verdict(TRIANGLE, len(created))
                used_hourglass |= not lone
        return Verdict(None, len(created), used_hourglass)

    def check(self, move: str) -> Verdict:
        """The decision on ``move``; ``ValueError`` for a token that is not a Dehil turn."""
        if move == "pass":
            return Verdict(GAME_OVER if self.is_over else None)
        point = parse_point(self.size, move)  # raises for "button" and other words
        if self.is_over:
            return Verdict(GAME_OVER)
        if point is None:
            return Verdict(OFF_BOARD)
        if self.board[point] != EMPTY:
            return Verdict(OCCUPIED)
        return self.judge_placement(point)

    def play(self, move: str) -> Verdict:
        verdict = self.check(move)
        if verdict.reason is not None:
            raise ValueError(f"illegal: {move} ({verdict.reason})")
        if move == "pass":
            if self.first_pass is None:
                self.first_pass = self.to_move
            self.history.append("pass")
        else:
            point = parse_point(self.size, move)
            assert point is not None
            self.board[point] = self.to_move
            self.history.append(point)
        self.turn += 1
        self.to_move = WHITE if self.to_move == BLACK else BLACK
        return verdict

    def legal_moves(self) -> list[str]:
        if self.is_over:
            return []
        return [p for p in self.points if self.board[p] == EMPTY and self.check(p).reason is None] + ["pass"]

    def empty_points(self) -> list[str]:
        return [p for p in self.points if self.board[p] == EMPTY]

    def occupied_points(self) -> list[str]:
        return [p for p in self.points if self.board[p] != EMPTY]

    # --- groups, partitions, score -------------------------------------------------
    def groups(self) -> list[tuple[int, frozenset[str]]]:
        """Maximal sets of same-coloured stones connected through adjacent points."""
        nbrs = board_neighbours(self.size)
        seen: set[str] = set()
        out = []
        for p in self.points:
            color = self.board[p]
            if color == EMPTY or p in seen:
                continue
            group = {p}
            frontier = [p]
            while frontier:
                s = frontier.pop()
                for q in nbrs[s]:
                    if self.board[q] == color and q not in group:
                        group.add(q)
                        frontier.append(q)
            seen |= group
            out.append((color, frozenset(group)))
        return out

    def areas_without(self, group: frozenset[str]) -> int:
        """Remove the group's points; count the connected areas of what remains."""
        nbrs = board_neighbours(self.size)
        remaining = set(self.points) - group
        areas = 0
        while remaining:
            areas += 1
            frontier = [remaining.pop()]
            while frontier:
                s = frontier.pop()
                for q in nbrs[s]:
                    if q in remaining:
                        remaining.remove(q)
                        frontier.append(q)
        return areas

    def partitions(self) -> list[tuple[int, frozenset[str], int]]:
        """Each group with the number of areas left without it."""
        return [(color, group, self.areas_without(group)) for color, group in self.groups()]

    def score(self) -> tuple[float, float, dict[str, int]]:
        """(black, white, parts): + value with partitions, - value without, ½, komi."""
        parts = {"black_plus": 0, "white_plus": 0, "black_minus": 0, "white_minus": 0}
        for color, group, areas in self.partitions():
            who = "black" if color == BLACK else "white"
            if areas >= 2:
                parts[who + "_plus"] += len(group)
            else:
                parts[who + "_minus"] -= len(group)
        black: float = parts["black_plus"] + parts["black_minus"]
        white: float = parts["white_plus"] + parts["white_minus"] + self.komi
        if self.first_pass == BLACK:
            black += 0.5
        elif self.first_pass == WHITE:
            white += 0.5
        return black, white, parts
