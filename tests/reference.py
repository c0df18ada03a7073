"""A literal reference implementation of Keil, written from keil-rules.md.

Slow and obvious on purpose: it shares no logic with ``keilref/keil.py``. The
board is a ``dict`` from point name to type, every question (links, groups,
liberties, captures, territory, the repetition of positions) is answered by
recomputing it from the definitions in the rules document, on the whole board,
every time. Even the coordinates are rebuilt here from the document's formula
(the tests check that they agree with ``keilref.engine.geometry``).

The tests drive this and the fast engine side by side and compare them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

EMPTY = 0
BLACK = 1
WHITE = 2

RULE_SETS = ("keil", "keil-2019")

# The reasons, spelled as in the rules document ("report the first of: ...").
OFF_BOARD = "off-board"
OCCUPIED = "occupied"
SUICIDE = "suicide"
SUPERKO = "superko"
PASS_BEFORE_BUTTON = "pass-before-button"
BUTTON_TAKEN = "button-taken"
GAME_OVER = "game-over"

_POINT = re.compile(r"([a-z])([0-9]+)\Z")


def other(color: int) -> int:
    return WHITE if color == BLACK else BLACK


# --- the board, from the "Board" and "Coordinates" sections ----------------


def point_name(c: int, r: int) -> str:
    return "abcdefghijklmnopqrstuvwxyz"[c] + str(r + 1)


def on_board(size: int, c: int, r: int) -> bool:
    """Column ``c`` and row ``r`` (from 0) name a point when ``|c - r| <= n-1``."""
    return 0 <= c <= 2 * size - 2 and 0 <= r <= 2 * size - 2 and abs(c - r) <= size - 1


def board_points(size: int) -> dict[str, tuple[int, int]]:
    return {
        point_name(c, r): (c, r)
        for c in range(2 * size - 1)
        for r in range(2 * size - 1)
        if on_board(size, c, r)
    }


def board_neighbours(size: int) -> dict[str, frozenset[str]]:
    """Neighbours of ``(c, r)``: ``(c±1, r)``, ``(c, r±1)``, ``(c+1, r+1)``, ``(c-1, r-1)``."""
    out = {}
    for name, (c, r) in board_points(size).items():
        steps = [(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, -1)]
        out[name] = frozenset(
            point_name(c + dc, r + dr) for dc, dr in steps if on_board(size, c + dc, r + dr)
        )
    return out


def parse_point(size: int, move: str) -> str | None:
    """The point a token names, or ``None`` when the point is off the board.

    Raises ``ValueError`` for a token that is not a point at all.
    """
    m = _POINT.match(move)
    if m is None:
        raise ValueError(f"{move!r} is not a point")
    c = ord(m.group(1)) - ord("a")
    r = int(m.group(2)) - 1
    if not on_board(size, c, r):
        return None
    return point_name(c, r)


@dataclass(frozen=True)
class Verdict:
    """What the rules say about one turn in the current state."""

    reason: str | None
    """``None`` when the turn is legal."""
    repeats_turn: int | None = None
    board: dict[str, int] | None = None
    """The board after the turn, when legal."""
    captured: frozenset[str] = frozenset()


class RefKeil:
    """One game of Keil, recomputed from the definitions at every step."""

    def __init__(
        self,
        size: int,
        komi: float = 0,
        rules: str = "keil",
        button: bool = True,
        *,
        board: dict[str, int] | None = None,
        to_move: int = BLACK,
        holder: int | None = None,
        setup: bool = False,
    ) -> None:
        """A new game; ``board``, ``to_move`` and ``holder`` set up a position
        to start from. As a diagram (``setup`` false) it counts for nobody.
        As a record's setup (``setup`` true, record-format.md, "Superko from
        a position") it is the position at the end of the last turn of the
        player who does *not* play first, turn 0; the earlier history is
        unknown, so nothing else is compared."""
        if rules not in RULE_SETS:
            raise ValueError(rules)
        self.size = size
        self.komi = komi
        self.rules = rules
        self.button_in_play = button
        self.neighbours = board_neighbours(size)
        self.points = sorted(self.neighbours)
        self._wings: dict[tuple[str, str], frozenset[str]] = {}
        self.board: dict[str, int] = {p: EMPTY for p in self.points}
        if board is not None:
            assert set(board) == set(self.points)
            self.board = dict(board)
        self.first = to_move
        assert holder is None or button
        self.button_taken = holder is not None
        self.holder: int | None = holder
        # One entry per turn played: (player, move, position at the end of the turn).
        self.history: list[tuple[int, str, tuple[tuple[int, ...], bool]]] = []
        # The setup position, with the player whose turn 0 left it (None: nobody's).
        self.start = self.position_of(self.board, self.button_taken)
        self.start_left_by: int | None = other(to_move) if setup else None
        self.last_captured: frozenset[str] = frozenset()
        self.prisoners = {BLACK: 0, WHITE: 0}

    # --- state -------------------------------------------------------------
    @property
    def to_move(self) -> int:
        """Black moves first (unless set up otherwise); turns alternate."""
        return self.first if len(self.history) % 2 == 0 else other(self.first)

    @property
    def turn(self) -> int:
        return len(self.history)

    @property
    def is_over(self) -> bool:
        """Two passes on consecutive turns end the game."""
        moves = [m for _, m, _ in self.history]
        return any(moves[i] == "pass" and moves[i + 1] == "pass" for i in range(len(moves) - 1))

    def position_of(self, board: dict[str, int], button_taken: bool) -> tuple[tuple[int, ...], bool]:
        """A position is the board plus one bit: has the button been taken."""
        return (tuple(board[p] for p in self.points), button_taken)

    def empty_points(self) -> list[str]:
        return [p for p in self.points if self.board[p] == EMPTY]

    def occupied_points(self) -> list[str]:
        return [p for p in self.points if self.board[p] != EMPTY]

    # --- linking -------------------------------------------------------------
    def wings(self, p: str, q: str) -> frozenset[str]:
        """The points adjacent to both ``p`` and ``q``."""
        key = (p, q)
        if key not in self._wings:  # a cache only: the set never changes
            self._wings[key] = self.neighbours[p] & self.neighbours[q]
        return self._wings[key]

    def linked(self, board: dict[str, int], p: str, q: str) -> bool:
        assert q in self.neighbours[p]
        tp, tq = board[p], board[q]
        wing_types = [board[w] for w in self.wings(p, q)]
        if self.rules == "keil":
            # "linked when one of their wings has the same type as at least
            # one of the two points"
            return any(t == tp or t == tq for t in wing_types)
        # keil-2019
        if tp == EMPTY and tq == EMPTY:
            return True  # two empty points: always linked
        if tp != EMPTY and tq != EMPTY:
            if tp != tq:
                raise AssertionError("stones of different colours are never asked about")
            color = tp
        else:
            color = tp if tp != EMPTY else tq
        # same-colour stones, or a stone and an empty point: linked iff a wing
        # is *not* of the other colour
        return any(t != other(color) for t in wing_types)

    # --- groups, liberties, territory -------------------------------------
    def groups(self, board: dict[str, int] | None = None) -> list[tuple[int, frozenset[str], frozenset[str]]]:
        """Every group on ``board`` as ``(colour, stones, liberties)``."""
        board = self.board if board is None else board
        seen: set[str] = set()
        out = []
        for p in self.points:
            color = board[p]
            if color == EMPTY or p in seen:
                continue
            stones = {p}
            frontier = [p]
            while frontier:
                s = frontier.pop()
                for q in self.neighbours[s]:
                    if board[q] == color and q not in stones and self.linked(board, s, q):
                        stones.add(q)
                        frontier.append(q)
            seen |= stones
            out.append((color, frozenset(stones), self.liberties(board, stones)))
        return out

    def liberties(self, board: dict[str, int], stones: set[str] | frozenset[str]) -> frozenset[str]:
        """Empty points linked to at least one of the stones."""
        return frozenset(
            q
            for s in stones
            for q in self.neighbours[s]
            if board[q] == EMPTY and self.linked(board, s, q)
        )

    def group_of(self, board: dict[str, int], point: str) -> tuple[int, frozenset[str], frozenset[str]]:
        for g in self.groups(board):
            if point in g[1]:
                return g
        raise AssertionError(f"no stone on {point}")

    def territories(self, board: dict[str, int] | None = None) -> list[tuple[frozenset[str], int | None]]:
        """Every territory as ``(points, owner)``; owner ``None`` for nobody."""
        board = self.board if board is None else board
        seen: set[str] = set()
        out = []
        for p in self.points:
            if board[p] != EMPTY or p in seen:
                continue
            area = {p}
            frontier = [p]
            while frontier:
                s = frontier.pop()
                for q in self.neighbours[s]:
                    if board[q] == EMPTY and q not in area and self.linked(board, s, q):
                        area.add(q)
                        frontier.append(q)
            seen |= area
            colours = {
                board[q]
                for s in area
                for q in self.neighbours[s]
                if board[q] != EMPTY and self.linked(board, s, q)
            }
            # Belongs to a player when every stone linked to it is theirs, and
            # (the referee's interpretation) there is at least one such stone.
            owner = colours.pop() if len(colours) == 1 else None
            out.append((frozenset(area), owner))
        return out

    def score(self) -> tuple[float, float, dict[str, float]]:
        """``(black, white, parts)``: stones + territory, komi, ½ for the button."""
        parts: dict[str, float] = {
            "black_stones": sum(1 for p in self.points if self.board[p] == BLACK),
            "white_stones": sum(1 for p in self.points if self.board[p] == WHITE),
            "black_territory": 0,
            "white_territory": 0,
            "neutral": 0,
        }
        for area, owner in self.territories():
            key = {BLACK: "black_territory", WHITE: "white_territory", None: "neutral"}[owner]
            parts[key] += len(area)
        black = parts["black_stones"] + parts["black_territory"] + (0.5 if self.holder == BLACK else 0)
        white = parts["white_stones"] + parts["white_territory"] + self.komi + (0.5 if self.holder == WHITE else 0)
        return black, white, parts

    # --- turns -------------------------------------------------------------
    def check(self, move: str) -> Verdict:
        """Decide ``move`` from the rules, without changing the game."""
        if self.is_over:
            return Verdict(GAME_OVER)
        player = self.to_move
        if move == "button":
            if not self.button_in_play or self.button_taken:
                return Verdict(BUTTON_TAKEN)
            return Verdict(None, board=dict(self.board))
        if move == "pass":
            if self.button_in_play and not self.button_taken:
                return Verdict(PASS_BEFORE_BUTTON)
            return Verdict(None, board=dict(self.board))
        point = parse_point(self.size, move)
        if point is None:
            return Verdict(OFF_BOARD)
        if self.board[point] != EMPTY:
            return Verdict(OCCUPIED)
        board = dict(self.board)
        board[point] = player
        # 1. remove every enemy group that has no liberty (judged all at once,
        #    on the board right after the placement)
        dead = [
            stones
            for color, stones, libs in self.groups(board)
            if color == other(player) and not libs
        ]
        captured = frozenset().union(*dead) if dead else frozenset()
        for s in captured:
            board[s] = EMPTY
        # 2. the group of the placed stone must have a liberty
        if not self.group_of(board, point)[2]:
            return Verdict(SUICIDE)
        # 3. the position must differ from the position at the end of every one
        #    of your own previous turns
        new = self.position_of(board, self.button_taken)
        repeats = [
            number
            for number, (who, _, position) in enumerate(self.history, start=1)
            if who == player and position == new
        ]
        if player == self.start_left_by and self.start == new:
            repeats.append(0)
        if repeats:
            return Verdict(SUPERKO, repeats_turn=max(repeats))
        return Verdict(None, board=board, captured=captured)

    def play(self, move: str, verdict: Verdict | None = None) -> Verdict:
        """Play ``move`` if legal; ``verdict`` is ``check(move)`` when already known."""
        if verdict is None:
            verdict = self.check(move)
        if verdict.reason is not None:
            return verdict
        player = self.to_move
        assert verdict.board is not None
        self.board = verdict.board
        if move == "button":
            self.button_taken = True
            self.holder = player
        self.last_captured = verdict.captured
        self.prisoners[player] += len(verdict.captured)
        self.history.append((player, move, self.position_of(self.board, self.button_taken)))
        return verdict

    def legal_moves(self) -> list[str]:
        moves = [p for p in self.points if self.check(p).reason is None]
        moves += [m for m in ("button", "pass") if self.check(m).reason is None]
        return moves
