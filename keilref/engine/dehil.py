"""Dehil (rule set ``dehil``): build groups that cut the board apart.

The rules are in ``dehil-rules.md``; ``docs/dehil.md`` states them for players.
Nothing is ever captured, there is no button and no repetition rule, so the
state is just the board, whose turn it is, the passes and who passed first.

The board is a ``bytearray`` (0 empty, 1 black, 2 white), as in
:mod:`keilref.engine.keil`. Every geometric question the triangle restriction asks
(which triangles hold a point, which pairs of triangles form an hourglass
around it, which points are edge points) is answered from tables computed
once per board size, so judging a placement only looks at the few points
within two steps of it.

Scoring needs, for every group, the number of connected areas the rest of the
board falls into once the group is removed. :func:`areas_without_each_node`
answers that for all groups at once in linear time; see its docstring for
why the answer is exact.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction

from keilref.values import Color, Reason, Score, ScoreRow
from keilref.engine.diagram import ASCII, UNICODE, parse_hex, render_hex
from keilref import wording
from keilref.records.setup import StartPosition
from keilref.errors import ConfigError, IllegalMoveError, InvalidMoveError, PositionError, not_a_turn
from keilref.engine.game import BoardGame, Group, Territory
from keilref.engine.geometry import HexGeometry, hex_geometry
from keilref.engine.rules import ButtonRule, RuleSet, find_rules, register

EMPTY = 0
PASS = -1
OFF_BOARD = -2
"""Code of a well-formed point name that is not on this board."""

Triangle = tuple[int, int]
"""The two other points of a small triangle around a given point."""
Hourglass = tuple[int, int, int, int]
"""Two triangles around a point that are point reflections of each other through it."""


# --- tables, once per board size ------------------------------------------------


@dataclass(frozen=True, eq=False)
class DehilTables:
    """Everything about the board that the rules ask, precomputed per size."""

    names: tuple[str, ...]
    neighbours: tuple[tuple[int, ...], ...]
    edge: bytes
    """1 for an edge point (fewer than six neighbours), else 0."""
    triangles: tuple[tuple[Triangle, ...], ...]
    """Per point ``p``: every small triangle holding ``p``, as its other two points."""
    hourglasses: tuple[tuple[Hourglass, ...], ...]
    """Per point ``p``: ``(a, b, a', b')`` for each pair of opposite triangles around ``p``."""
    pairs: tuple[tuple[int, int], ...]
    """Every adjacent pair once, ``p < q``."""
    codes: dict[str, int]
    """Turn token to code: a point index, or :data:`PASS`."""


@functools.cache
def dehil_tables(size: int) -> DehilTables:
    """The tables for the hexagon of side ``size``."""
    geo = hex_geometry(size)
    at = {cr: p for p, cr in enumerate(geo.coords)}
    nsets = [frozenset(ns) for ns in geo.neighbours]
    triangles = []
    hourglasses = []
    for p, ns in enumerate(geo.neighbours):
        around = tuple((a, b) for a in ns for b in ns if a < b and b in nsets[a])
        triangles.append(around)
        hourglasses.append(_hourglasses_around(p, around, geo.coords, at))
    codes = dict(geo.index)
    codes["pass"] = PASS
    return DehilTables(
        names=geo.names,
        neighbours=geo.neighbours,
        edge=bytes(int(geo.is_edge(p)) for p in range(geo.n_points)),
        triangles=tuple(triangles),
        hourglasses=tuple(hourglasses),
        pairs=tuple((p, q) for p, ns in enumerate(geo.neighbours) for q in ns if p < q),
        codes=codes,
    )


def _hourglasses_around(
    p: int,
    around: Sequence[Triangle],
    coords: Sequence[tuple[int, int]],
    at: dict[tuple[int, int], int],
) -> tuple[Hourglass, ...]:
    """Pairs of triangles at ``p`` that "lie on opposite sides of it".

    Read as: one is the other's point reflection through ``p`` (the ⧗ shape).
    Two triangles at ``p`` that share only ``p`` but stand at 120° are not
    opposite. Each pair is listed once.
    """
    pc, pr = coords[p]
    out = []
    for a, b in around:
        ra = at.get((2 * pc - coords[a][0], 2 * pr - coords[a][1]))
        rb = at.get((2 * pc - coords[b][0], 2 * pr - coords[b][1]))
        if ra is not None and rb is not None and min(a, b) < min(ra, rb):
            out.append((a, b, ra, rb))
    return tuple(out)


# --- the triangle restriction ---------------------------------------------------


def in_triangle(board: bytearray, tables: DehilTables, s: int, color: int) -> bool:
    """Is the stone at ``s`` (of ``color``) part of some triangle pattern?"""
    return any(board[a] == color and board[b] == color for a, b in tables.triangles[s])


def is_hourglass_centre(board: bytearray, tables: DehilTables, s: int, color: int) -> bool:
    """Is the stone at ``s`` (of ``color``) the centre of an hourglass pattern?"""
    return any(
        board[a] == color and board[b] == color and board[c] == color and board[d] == color
        for a, b, c, d in tables.hourglasses[s]
    )


def is_supported(board: bytearray, tables: DehilTables, t: int, tri: tuple[int, int, int], color: int) -> bool:
    """Is stone ``t`` of triangle ``tri`` adjacent to a friendly stone that is
    (i) outside ``tri`` and part of no triangle pattern, or (ii) an hourglass centre?

    Case (ii) does not require the stone to be outside ``tri``: the rules text
    puts that condition on case (i) only (where it follows anyway).
    """
    for s in tables.neighbours[t]:
        if board[s] != color:
            continue
        if s not in tri and not in_triangle(board, tables, s, color):
            return True
        if is_hourglass_centre(board, tables, s, color):
            return True
    return False


def triangle_allowed(board: bytearray, tables: DehilTables, tri: tuple[int, int, int], color: int) -> bool:
    """The two conditions on one created triangle, judged on ``board`` as it is now."""
    edge = tables.edge
    if edge[tri[0]] + edge[tri[1]] + edge[tri[2]] > 1:
        return False
    return all(edge[t] or is_supported(board, tables, t, tri, color) for t in tri)


def placement_allowed(board: bytearray, tables: DehilTables, x: int, color: int) -> bool:
    """May ``color`` place on the empty point ``x``, as far as triangles go?

    Every triangle the stone creates is judged in the position after the
    placement, so the stone is put down for the test and lifted again.
    Triangles that existed before are not judged.
    """
    board[x] = color
    try:
        for a, b in tables.triangles[x]:
            if board[a] == color and board[b] == color:
                if not triangle_allowed(board, tables, (x, a, b), color):
                    return False
        return True
    finally:
        board[x] = EMPTY


def unmakeable_triangle(board: bytearray, tables: DehilTables) -> tuple[tuple[int, int, int], int | None] | None:
    """A triangle pattern on ``board`` that no sequence of legal placements
    could have made, with the stone off the edge that nothing supports
    (``None`` when the triangle has more than one edge stone); or ``None``.

    Stones never leave a Dehil board, so what held when a triangle was made
    still holds for as long as the game lasts: it has at most one edge stone,
    and each of its other stones is beside a friendly stone outside it or an
    hourglass centre. (Whether that outside stone was in no triangle then
    cannot be told from the position, so it is not asked.)
    """
    edge = tables.edge
    for x, color in enumerate(board):
        if not color:
            continue
        for a, b in tables.triangles[x]:
            if not (x < a and x < b and board[a] == color and board[b] == color):
                continue
            tri = (x, a, b)
            if edge[x] + edge[a] + edge[b] > 1:
                return tri, None
            for t in tri:
                if not edge[t] and not any(
                    board[s] == color and (s not in tri or is_hourglass_centre(board, tables, s, color))
                    for s in tables.neighbours[t]
                ):
                    return tri, t
    return None


# --- partitions -----------------------------------------------------------------


def areas_without_each_node(adjacency: Sequence[Iterable[int]]) -> list[int]:
    """For a connected graph: how many components remain when each node is deleted.

    Tarjan's articulation-point search, iterative, in time linear in the
    graph. In a depth-first tree of a connected graph, deleting node ``v``
    leaves: one component for each child ``c`` whose subtree has no edge
    climbing above ``v`` (``low[c] >= disc[v]``), since such a subtree can
    only reach the rest through ``v``. Every other child's subtree has an
    edge to a proper ancestor of ``v``, so it joins everything outside
    ``v``'s subtree: together they are one more component, present exactly
    when ``v`` is not the root. The root has no outside, so its count is its
    number of children (all of which pass the test). A lone node leaves 0.

    Parallel edges and edges back to the parent are harmless here: they can
    only lower ``low[c]`` to ``disc[v]``, which still passes the test.
    """
    n = len(adjacency)
    disc = [-1] * n
    low = [0] * n
    pieces = [0] * n
    if n == 0:
        return pieces
    disc[0] = 0
    clock = 1
    stack = [(0, iter(adjacency[0]))]
    while stack:
        v, it = stack[-1]
        for w in it:
            if disc[w] < 0:
                disc[w] = low[w] = clock
                clock += 1
                stack.append((w, iter(adjacency[w])))
                break
            if disc[w] < low[v]:
                low[v] = disc[w]
        else:
            stack.pop()
            if stack:
                u = stack[-1][0]
                if low[v] < low[u]:
                    low[u] = low[v]
                if low[v] >= disc[u]:
                    pieces[u] += 1
    for v in range(1, n):
        pieces[v] += 1
    return pieces


@dataclass(frozen=True)
class GroupCount:
    """One group and the number of areas the board falls into without it."""

    color: int
    points: tuple[int, ...]
    """In index order, so ``points[0]`` is the group's representative."""
    areas: int

    @property
    def has_partitions(self) -> bool:
        return self.areas >= 2


def count_partitions(board: bytearray, tables: DehilTables) -> list[GroupCount]:
    """Every group, in the order of its first point, with its areas.

    Exact, in linear time: contract every group to one node and keep every
    empty point as a node of its own, joined where any of their points are
    adjacent. The board minus a group ``G`` is a union of whole other groups
    and empty points, and each group is connected in itself, so two points of
    it are connected on the board without ``G`` exactly when their nodes are
    connected in the contracted graph without ``G``'s node. The areas of
    ``G`` are thus the components left by deleting one node, which
    :func:`areas_without_each_node` gives for all nodes in one search (the
    hexagon is connected, so the contracted graph is too).
    """
    node, members, colors = _label_groups(board, tables)
    k = len(members)
    total = k
    for p in range(len(board)):
        if node[p] < 0:
            node[p] = total
            total += 1
    links: list[set[int]] = [set() for _ in range(total)]
    for p, q in tables.pairs:
        a = node[p]
        b = node[q]
        if a != b:
            links[a].add(b)
            links[b].add(a)
    pieces = areas_without_each_node(links)
    return [GroupCount(colors[g], tuple(members[g]), pieces[g]) for g in range(k)]


def _label_groups(board: bytearray, tables: DehilTables) -> tuple[list[int], list[list[int]], list[int]]:
    """Per point its group number (-1 if empty); each group's points; its colour."""
    nbrs = tables.neighbours
    node = [-1] * len(board)
    members: list[list[int]] = []
    colors: list[int] = []
    for p, color in enumerate(board):
        if not color or node[p] >= 0:
            continue
        g = len(members)
        node[p] = g
        points = [p]
        i = 0
        while i < len(points):
            for q in nbrs[points[i]]:
                if node[q] < 0 and board[q] == color:
                    node[q] = g
                    points.append(q)
            i += 1
        points.sort()
        members.append(points)
        colors.append(color)
    return node, members, colors


# --- the game ---------------------------------------------------------------------


class DehilGame(BoardGame):
    """A game of Dehil. See :class:`~keilref.engine.game.Game` for the interface.

    Dehil has no button (``button_in_play`` is False, ``button_holder`` is
    ``None``) and no captures (``prisoners`` stay 0, ``last_captured`` is empty).
    """

    geometry: HexGeometry
    captures = False
    counts_first_pass = True

    def __init__(
        self,
        size: int | None = None,
        komi: float | int | str | Fraction = 0,
        rules: str = "dehil",
        button: bool | None = None,
    ) -> None:
        ruleset = find_rules(rules)
        if ruleset.family != "dehil":
            raise ConfigError(f"rules {rules!r} are not a Dehil rule set")
        self.rules = ruleset
        self.size = ruleset.check_size(ruleset.default_size if size is None else size)
        self.komi = ruleset.check_komi(komi)
        self.button_in_play = ruleset.check_button(button)
        self.geometry = hex_geometry(self.size)
        self._tables = dehil_tables(self.size)
        self._n = self.geometry.n_points
        self._board = bytearray(self._n)
        self._to_move = 1
        self._turn = 0
        self._passes = 0
        self._over = False
        self._first_pass = 0
        self._moves: list[str] = []
        # No button and no captures in Dehil: these stay empty.
        self._holder = 0
        self._last_captured: list[int] = []
        self._prisoners = [0, 0, 0]

    @classmethod
    def from_diagram(
        cls,
        diagram: str,
        *,
        komi: float | int | str = 0,
        to_move: Color = Color.BLACK,
        rules: str = "dehil",
    ) -> DehilGame:
        """A game starting from the position drawn (``X`` black, ``O`` white, ``.`` empty).

        The position is taken as given, for study and tests: triangles on it
        are not judged (the rule only ever judges the triangles a placement creates).
        """
        size, glyphs = parse_hex(diagram)
        game = cls(size=size, komi=komi, rules=rules)
        for p, g in enumerate(glyphs):
            if g in ("X", "●"):
                game._board[p] = 1
            elif g in ("O", "○"):
                game._board[p] = 2
            elif g not in (".", "·"):
                raise ValueError(f"unknown glyph {g!r} in diagram")
        game._to_move = int(to_move)
        game._remember_start()
        return game

    def _set_up(self, position: StartPosition) -> None:
        self._place_setup(position)
        bad = unmakeable_triangle(self._board, self._tables)
        if bad is not None:
            tri, unsupported = bad
            edges = sum(self._tables.edge[t] for t in tri)
            why = wording.setup_triangle(
                self._setup_names(tri), edges, None if unsupported is None else self.points()[unsupported]
            )
            raise PositionError(wording.setup_unreachable(why))
        self._to_move = int(position.to_move)
        self._first_pass = 0 if position.first_pass is None else int(position.first_pass)
        self._remember_start()

    # --- deciding a turn ----------------------------------------------------------
    def _decode(self, move: str) -> int:
        """The code of ``move``; :class:`InvalidMoveError` if it is not a Dehil turn."""
        if not isinstance(move, str):
            raise not_a_turn(move)
        code = self._tables.codes.get(move)
        if code is not None:
            return code
        if move == "button":
            raise InvalidMoveError("'button' is not a turn in dehil: the game has no button (expected a point or 'pass')")
        try:
            self.geometry.point(move)
        except KeyError:
            return OFF_BOARD
        except InvalidMoveError:
            raise InvalidMoveError(
                f"{move!r} is not a turn in dehil (expected a point such as e5, or 'pass')"
            ) from None
        raise AssertionError("unreachable: every point on the board is in the table")

    def _reason(self, code: int) -> Reason | None:
        """Why the turn with this code is illegal now, in the order of precedence."""
        if self._over:
            return Reason.GAME_OVER
        if code == PASS:
            return None
        if code == OFF_BOARD:
            return Reason.OFF_BOARD
        if self._board[code]:
            return Reason.OCCUPIED
        if not placement_allowed(self._board, self._tables, code, self._to_move):
            return Reason.TRIANGLE
        return None

    def check(self, move: str) -> IllegalMoveError | None:
        reason = self._reason(self._decode(move))
        return None if reason is None else self._illegal(move, reason)

    def play(self, move: str) -> None:
        code = self._decode(move)
        reason = self._reason(code)
        if reason is not None:
            raise self._illegal(move, reason)
        if code == PASS:
            self._passes += 1
            if not self._first_pass:
                self._first_pass = self._to_move
            self._over = self._passes == 2
            self._moves.append("pass")
        else:
            self._board[code] = self._to_move
            self._passes = 0
            self._moves.append(self._tables.names[code])
        self._turn += 1
        self._to_move = 3 - self._to_move

    def legal_moves(self) -> list[str]:
        if self._over:
            return []
        board = self._board
        tables = self._tables
        color = self._to_move
        names = tables.names
        legal = [names[p] for p in range(self._n) if not board[p] and placement_allowed(board, tables, p, color)]
        legal.append("pass")
        return legal

    # --- state ----------------------------------------------------------------------
    @property
    def is_over(self) -> bool:
        """Both players passed in succession; no turn is legal any more."""
        return self._over

    @property
    def first_pass(self) -> Color | None:
        """The player who passed first in the game (who gets the half point)."""
        return Color(self._first_pass) if self._first_pass else None

    @property
    def position(self) -> bytes:
        """The board: one byte per point (0 empty, 1 black, 2 white)."""
        return bytes(self._board)

    # --- groups and score ----------------------------------------------------------
    def _counts(self) -> list[GroupCount]:
        return count_partitions(self._board, self._tables)

    def groups(self) -> list[Group]:
        """Groups by plain adjacency, in the order of their first point.

        Liberties do not apply in Dehil (nothing is captured), so every
        group's ``liberties`` is empty.
        """
        names = self._tables.names
        out = []
        for points, color in zip(*_label_groups(self._board, self._tables)[1:]):
            out.append(Group(Color(color), frozenset(names[p] for p in points), frozenset()))
        return out

    def partitions(self) -> list[tuple[Group, int]]:
        """Every group with the number of areas the board falls into without it."""
        names = self._tables.names
        return [
            (Group(Color(g.color), frozenset(names[p] for p in g.points), frozenset()), g.areas)
            for g in self._counts()
        ]

    def territories(self) -> list[Territory]:
        """Always empty: Dehil scores groups, not territory."""
        return []

    def score(self) -> Score:
        plus = [0, 0, 0]
        minus = [0, 0, 0]
        for g in self._counts():
            if g.has_partitions:
                plus[g.color] += len(g.points)
            else:
                minus[g.color] -= len(g.points)
        return Score(
            rows=(
                ScoreRow("groups with partitions", plus[1], plus[2]),
                ScoreRow("groups without", minus[1], minus[2]),
            ),
            komi=self.komi,
            half_point=self.first_pass,
            half_point_label="first pass",
            neutral=None,
        )

    def score_as(self, rules: str) -> Score:
        """Dehil has one rule set: ``dehil`` gives :meth:`score`, any other is a ConfigError."""
        if find_rules(rules).family != "dehil":
            raise ConfigError(f"a Dehil game cannot be scored under rules {rules!r}")
        return self.score()

    def explain_score(self) -> list[str]:
        """One line per group: colour, first point, value, its areas and what it counts.

        Black's groups first, then White's, each in board order of their first point.
        """
        names = self._tables.names
        counts = sorted(self._counts(), key=lambda g: (g.color, g.points[0]))
        return [_explain(g, names) for g in counts]

    def diagram(self, *, unicode: bool = False, territory: bool = False) -> str:
        """The board; ``territory`` changes nothing, as Dehil has no territory."""
        glyph = UNICODE if unicode else ASCII
        cells = [glyph["empty"], glyph["black"], glyph["white"]]
        return render_hex(self.geometry, [cells[t] for t in self._board], self._last_point())


def _explain(g: GroupCount, names: Sequence[str]) -> str:
    """``Black group at c3, 4 stones: has partitions (2 areas), counts +4``."""
    value = len(g.points)
    stones = "stone" if value == 1 else "stones"
    areas = "area" if g.areas == 1 else "areas"
    verdict = "has partitions" if g.has_partitions else "no partitions"
    sign = "+" if g.has_partitions else "-"
    return (
        f"{Color(g.color).name.title()} group at {names[g.points[0]]}, {value} {stones}: "
        f"{verdict} ({g.areas} {areas}), counts {sign}{value}"
    )


DEHIL = register(
    RuleSet(
        name="dehil",
        family="dehil",
        title="Dehil (Saïd Galdseid, 2024), the referee's reading of the published text",
        min_size=2,
        max_size=13,
        default_size=9,
        half_komi=False,
        button=ButtonRule.ABSENT,
        game_class=DehilGame,
    )
)
"""Dehil, on Keil's board, where groups score by cutting the board apart."""
