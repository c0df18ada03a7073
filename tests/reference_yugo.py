"""A literal reference implementation of Yugo, written from yugo-rules.md.

Slow and obvious on purpose: it shares no logic with ``keilref/yugo.py``. The
board is a ``dict`` from point name to ``(colour, kind)`` (kind ``"P"`` for a
pawn, ``"K"`` for a king) or ``None``. Every definition -- groups, liberties,
surrounded groups, territory -- is recomputed over the whole board whenever it
is asked for, and every rule is applied the way the document words it:

* a pawn is legal when the *number of surrounded groups* on the whole board
  is the same after the placement as before;
* a king is legal when the *number of surrounded enemy groups* is larger
  after than before; then every surrounded enemy group loses its pawns, then
  (in the position that leaves) every surrounded own group loses its pawns.

The end of the game is read from the list of turns itself, not from a pass
counter: play has *stopped* when the last two turns of the current stretch
of play are passes; a turn after that starts a new stretch (play *resumes*),
and a double pass within that stretch ends the game for good.

The tests drive this and the fast engine side by side and compare them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

BLACK = 1
WHITE = 2
PAWN = "P"
KING = "K"

Piece = tuple[int, str]
Board = dict[str, Piece | None]

# The reasons, spelled as in the rules document.
OFF_BOARD = "off-board"
OCCUPIED = "occupied"
PAWN_SURROUNDS = "pawn-surrounds"
KING_CAPTURES_NOTHING = "king-captures-nothing"
PASS_BEFORE_BUTTON = "pass-before-button"
BUTTON_TAKEN = "button-taken"
GAME_OVER = "game-over"

LETTERS = "abcdefghijklmnopqrstuvwxyz"
_POINT = re.compile(r"([a-z])([0-9]{1,3})\Z")


def other(color: int) -> int:
    return WHITE if color == BLACK else BLACK


# --- the board, from the "Board and notation" section ---------------------------


def point_name(c: int, r: int) -> str:
    """Column ``c`` from the left, row ``r`` from the bottom, both from 0."""
    return LETTERS[c] + str(r + 1)


def board_points(size: int) -> list[str]:
    return [point_name(c, r) for c in range(size) for r in range(size)]


def board_neighbours(size: int) -> dict[str, frozenset[str]]:
    """Orthogonal adjacency only: left, right, below, above."""
    out = {}
    for c in range(size):
        for r in range(size):
            near = [(c - 1, r), (c + 1, r), (c, r - 1), (c, r + 1)]
            out[point_name(c, r)] = frozenset(point_name(a, b) for a, b in near if 0 <= a < size and 0 <= b < size)
    return out


@dataclass(frozen=True)
class Token:
    """A turn token read: ``kind`` is pawn, king, pass or button; ``point`` may be off the board."""

    kind: str
    point: str | None = None


def parse_token(move: str) -> Token:
    """Read a token; ``ValueError`` when it is not a turn at all."""
    if move in ("pass", "button"):
        return Token(move)
    kind = "pawn"
    body = move
    if move.startswith("K@"):
        kind, body = "king", move[2:]
    elif move.startswith("P@"):
        body = move[2:]
    if _POINT.match(body.lower()) is None:
        raise ValueError(f"{move!r} is not a turn")
    return Token(kind, body.lower())


@dataclass(frozen=True)
class Verdict:
    """What the reference decided about one turn."""

    reason: str | None
    stripped: frozenset[str] = frozenset()
    """Points whose pawns a legal king stripped (either colour)."""
    enemy_stripped: int = 0
    own_stripped: int = 0
    groups_stripped: int = 0
    """Enemy groups that lost pawns in step 1."""


class RefYugo:
    """A game of Yugo, straight from the rules document."""

    def __init__(
        self, size: int, komi: int = 0, board: Board | None = None, to_move: int = BLACK, holder: int | None = None
    ) -> None:
        """A new game; ``board``, ``to_move`` and ``holder`` (who took the
        button) set up a position to start from. Yugo has no repetition
        rule, so nothing before the position is ever needed: play starts
        afresh, in its first stretch."""
        self.size = size
        self.komi = komi
        self.points = board_points(size)
        self.neighbours = board_neighbours(size)
        self.board: Board = dict(board) if board is not None else {p: None for p in self.points}
        assert set(self.board) == set(self.points)
        self.first = to_move
        self.history: list[str] = []
        self.holder: int | None = holder
        self.stretch_start = 0
        """Index in ``history`` where the current stretch of play began."""
        self.resumed = False
        self.agreed = False
        self.last_captured: frozenset[str] = frozenset()
        self.prisoners = {BLACK: 0, WHITE: 0}

    # --- whose turn, and the end of the game --------------------------------
    @property
    def turn(self) -> int:
        return len(self.history)

    @property
    def to_move(self) -> int:
        return self.first if len(self.history) % 2 == 0 else other(self.first)

    def double_pass_in_stretch(self) -> bool:
        stretch = self.history[self.stretch_start :]
        return len(stretch) >= 2 and stretch[-1] == "pass" and stretch[-2] == "pass"

    @property
    def stopped(self) -> bool:
        """Play stopped at the first double pass, and neither resumed nor settled by agreement."""
        return not self.resumed and not self.agreed and self.double_pass_in_stretch()

    @property
    def ended(self) -> bool:
        """Over for good: no turn may follow."""
        return self.agreed or (self.resumed and self.double_pass_in_stretch())

    @property
    def is_over(self) -> bool:
        return self.stopped or self.ended

    # --- definitions -------------------------------------------------------------
    def groups(self, board: Board | None = None) -> list[tuple[int, frozenset[str], frozenset[str]]]:
        """Every group: ``(colour, points, liberties)``."""
        board = self.board if board is None else board
        out = []
        done: set[str] = set()
        for p in self.points:
            piece = board[p]
            if piece is None or p in done:
                continue
            color = piece[0]
            members = {p}
            frontier = [p]
            while frontier:
                s = frontier.pop()
                for q in self.neighbours[s]:
                    pq = board[q]
                    if pq is not None and pq[0] == color and q not in members:
                        members.add(q)
                        frontier.append(q)
            done |= members
            libs = frozenset(q for s in members for q in self.neighbours[s] if board[q] is None)
            out.append((color, frozenset(members), libs))
        return out

    def surrounded(self, board: Board, color: int | None = None) -> list[frozenset[str]]:
        """The surrounded groups (no liberty), of one colour or both."""
        return [pts for c, pts, libs in self.groups(board) if not libs and (color is None or c == color)]

    def territories(self, board: Board | None = None) -> list[tuple[frozenset[str], int | None]]:
        """Maximal connected empty sets, each with its owner (or ``None``)."""
        board = self.board if board is None else board
        out = []
        done: set[str] = set()
        for p in self.points:
            if board[p] is not None or p in done:
                continue
            area = {p}
            frontier = [p]
            while frontier:
                s = frontier.pop()
                for q in self.neighbours[s]:
                    if board[q] is None and q not in area:
                        area.add(q)
                        frontier.append(q)
            done |= area
            touching = set()
            for s in area:
                for q in self.neighbours[s]:
                    pq = board[q]
                    if pq is not None:
                        touching.add(pq[0])
            owner = next(iter(touching)) if len(touching) == 1 else None
            out.append((frozenset(area), owner))
        return out

    def score(self) -> tuple[float, float, dict[str, float]]:
        """Both totals and each part, from the "Score" section."""
        parts: dict[str, float] = {}
        for color, name in ((BLACK, "black"), (WHITE, "white")):
            territory = sum(len(area) for area, owner in self.territories() if owner == color)
            pieces = sum(len(pts) for c, pts, libs in self.groups() if c == color and libs)
            enemy_kings = sum(
                1
                for c, pts, libs in self.groups()
                if c == other(color) and not libs
                for p in pts
                if self.board[p] == (c, KING)
            )
            parts[f"{name}_territory"] = territory
            parts[f"{name}_pieces"] = pieces
            parts[f"{name}_enemy_kings"] = enemy_kings
        parts["neutral"] = sum(len(area) for area, owner in self.territories() if owner is None)
        black = parts["black_territory"] + parts["black_pieces"] + parts["black_enemy_kings"]
        white = parts["white_territory"] + parts["white_pieces"] + parts["white_enemy_kings"] + self.komi
        if self.holder == BLACK:
            black += 0.5
        elif self.holder == WHITE:
            white += 0.5
        return black, white, parts

    # --- turns -------------------------------------------------------------------
    def empty_points(self) -> list[str]:
        return [p for p in self.points if self.board[p] is None]

    def occupied_points(self) -> list[str]:
        return [p for p in self.points if self.board[p] is not None]

    def last_liberties(self) -> list[str]:
        """Empty points that are the only liberty of some group (where kings capture)."""
        return sorted({next(iter(libs)) for _, _, libs in self.groups() if len(libs) == 1})

    def _decide(self, move: str) -> tuple[str | None, Board | None, Verdict]:
        """The reason a turn is illegal (or ``None``), the board it leaves, and what it stripped."""
        token = parse_token(move)
        if self.ended:
            return GAME_OVER, None, Verdict(GAME_OVER)
        me = self.to_move
        if token.kind == "button":
            if self.holder is not None:
                return BUTTON_TAKEN, None, Verdict(BUTTON_TAKEN)
            return None, dict(self.board), Verdict(None)
        if token.kind == "pass":
            if self.holder is None:
                return PASS_BEFORE_BUTTON, None, Verdict(PASS_BEFORE_BUTTON)
            return None, dict(self.board), Verdict(None)
        p = token.point
        assert p is not None
        if p not in self.board:
            return OFF_BOARD, None, Verdict(OFF_BOARD)
        if self.board[p] is not None:
            return OCCUPIED, None, Verdict(OCCUPIED)
        after = dict(self.board)
        if token.kind == "pawn":
            after[p] = (me, PAWN)
            if len(self.surrounded(after)) != len(self.surrounded(self.board)):
                return PAWN_SURROUNDS, None, Verdict(PAWN_SURROUNDS)
            return None, after, Verdict(None)
        after[p] = (me, KING)
        if not len(self.surrounded(after, other(me))) > len(self.surrounded(self.board, other(me))):
            return KING_CAPTURES_NOTHING, None, Verdict(KING_CAPTURES_NOTHING)
        # 1. remove every pawn of every surrounded enemy group (kings stay);
        enemy: set[str] = set()
        groups_stripped = 0
        for pts in self.surrounded(after, other(me)):
            pawns = {q for q in pts if after[q] == (other(me), PAWN)}
            groups_stripped += bool(pawns)
            enemy |= pawns
        for q in enemy:
            after[q] = None
        # 2. in the resulting position, remove every pawn of every surrounded own group.
        own: set[str] = set()
        for pts in self.surrounded(after, me):
            own |= {q for q in pts if after[q] == (me, PAWN)}
        for q in own:
            after[q] = None
        return None, after, Verdict(None, frozenset(enemy | own), len(enemy), len(own), groups_stripped)

    def check(self, move: str) -> Verdict:
        return self._decide(move)[2]

    def canonical(self, move: str) -> str:
        token = parse_token(move)
        if token.kind in ("pass", "button"):
            return token.kind
        assert token.point is not None
        return ("K@" if token.kind == "king" else "") + token.point

    def play(self, move: str) -> Verdict:
        reason, after, verdict = self._decide(move)
        if reason is not None:
            return verdict
        assert after is not None
        token = parse_token(move)
        if self.stopped:
            # "If they do not agree, play resumes": a new stretch of play begins.
            self.resumed = True
            self.stretch_start = len(self.history)
        if token.kind == "button":
            self.holder = self.to_move
        self.prisoners[self.to_move] += verdict.enemy_stripped
        self.board = after
        self.last_captured = verdict.stripped
        self.history.append(self.canonical(move))
        return verdict

    def legal_moves(self) -> list[str]:
        """Every legal turn as a set-like list (order is the engine's business)."""
        if self.ended:
            return []
        out = [p for p in self.empty_points() if self.check(p).reason is None]
        out += ["K@" + p for p in self.empty_points() if self.check("K@" + p).reason is None]
        out += [w for w in ("button", "pass") if self.check(w).reason is None]
        return out

    def agree(self, points: list[str]) -> str | None:
        """Remove the groups of the named pieces; the error message instead if not allowed."""
        if not self.stopped:
            return "a Removed agreement is only possible when play stopped at the first double pass"
        for p in points:
            if p not in self.board or self.board[p] is None:
                return f"{p!r} holds no piece"
        doomed: set[str] = set()
        for p in points:
            for _, pts, _ in self.groups():
                if p in pts:
                    doomed |= pts
        for q in doomed:
            self.board[q] = None
        self.agreed = True
        return None
