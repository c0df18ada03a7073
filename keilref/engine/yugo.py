"""Yugo (rule set ``yugo``): pawns and kings on a square board.

The rules are in ``yugo-rules.md``. A pawn may not change the number of
surrounded groups; a king must add a surrounded enemy group, then strips the
pawns of every surrounded enemy group and, after that, of every surrounded
group of its own. Kings are never removed during play.

The board is two ``bytearray``s: ``_board`` holds the colour per point (0
empty, 1 black, 2 white), ``_king`` a 1 where that piece is a king. Group
questions only ever need colours, so the flood fills read one array.

Why counting locally is exact
-----------------------------
Both placement rules compare a count of surrounded groups over the whole
board before and after the placement at ``x``. Only groups adjacent to ``x``
can change:

* a group not adjacent to ``x`` keeps its members and its liberties (``x`` was
  not one of them), so its surround status is unchanged;
* every group adjacent to ``x`` had ``x`` as a liberty, so none of them was
  surrounded before;
* own groups adjacent to ``x`` merge with it into one group; enemy groups
  adjacent to ``x`` keep their members and lose the liberty ``x``.

So a pawn leaves the count unchanged exactly when neither the new group of
``x`` nor any adjacent enemy group is left without a liberty (the count can
only grow), and a king raises the count of surrounded enemy groups exactly
when at least one adjacent enemy group is left without a liberty. Each such
question is a flood fill that stops at the first liberty it meets.

Why the stripping is local too
------------------------------
The stripping steps speak of *every* surrounded group. They are local thanks
to an invariant: **no surrounded group holds a pawn**. It holds on the empty
board; a pawn creates no surrounded group and joins none (a group adjacent to
the empty ``x`` has a liberty); passes and the button change nothing; removal
by agreement only empties points. After a king move, step 1 leaves every
surrounded enemy group without pawns, and enemy groups with pawns were not
surrounded and only gain liberties in step 2; step 2 does the same for the
mover's groups. So while the invariant holds, step 1 strips exactly the
adjacent enemy groups the king surrounded (older surrounded groups are kings
only), and step 2 can only strip the king's own group: other own groups with
pawns were not surrounded, are not adjacent to ``x`` and only gain liberties
in step 1.

A position set up with :meth:`YugoGame.from_diagram` may break the invariant
(a surrounded group of pawns drawn on the board). Such a game is marked
unclean and its king moves scan the whole board literally, which restores
the invariant, so the fast path takes over after its first king move.
"""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction
from typing import Self

from keilref.values import Color, Reason, Score, ScoreRow
from keilref.engine.diagram import SQUARE_ASCII, SQUARE_UNICODE, parse_square, render_square
from keilref import wording
from keilref.records.setup import StartPosition
from keilref.errors import ConfigError, IllegalMoveError, InvalidMoveError, PositionError, not_a_turn
from keilref.engine.game import BoardGame
from keilref.engine.geometry import SquareGeometry, split_points, square_geometry
from keilref.engine.rules import ButtonRule, RuleSet, find_rules, register

EMPTY = 0
PASS = -1
BUTTON = -2

# The phases of the end of the game. ``STOPPED`` is the only phase in which
# both a resumption and an agreement on removal are still possible.
PLAYING = 0
"""No double pass yet."""
STOPPED = 1
"""Play stopped at the first double pass: the position counts unless play resumes."""
RESUMED = 2
"""Play resumed after the first double pass; the next double pass is final."""
OVER = 3
"""Over for good: a second double pass, or groups removed by agreement."""

_STOP_MESSAGE = "a Removed agreement is only possible when play stopped at the first double pass"

# Glyphs that from_diagram reads, as (colour, king).
_DIAGRAM_PIECES: dict[str, tuple[int, int]] = {
    "X": (1, 0),
    "●": (1, 0),
    "O": (2, 0),
    "○": (2, 0),
    "K": (1, 1),
    "♚": (1, 1),
    "Q": (2, 1),
    "♔": (2, 1),
}
_DIAGRAM_EMPTY = frozenset({".", "·", "x", "o"})


def _codes(geo: SquareGeometry) -> dict[str, int]:
    """Every token this board accepts, mapped to a code.

    ``0 <= code < n`` places a pawn on point ``code``; ``n <= code < 2n`` places
    a king on point ``code - n``; ``PASS`` and ``BUTTON`` are the other turns.
    One dictionary look-up then decodes any well-formed on-board token.
    """
    n = geo.n_points
    codes: dict[str, int] = {"pass": PASS, "button": BUTTON}
    for name, p in geo.index.items():
        codes[name] = p
        codes["P@" + name] = p
        codes["K@" + name] = n + p
    return codes


_CODES: dict[int, dict[str, int]] = {}


class YugoGame(BoardGame):
    """A game of Yugo. See :class:`~keilref.engine.game.Game` for the interface.

    Placements are ``d4`` or ``P@d4`` for a pawn and ``K@d4`` for a king (the
    point in either case, the prefix as written here). Canonical notation,
    as :attr:`moves` gives it, is ``d4`` and ``K@d4``.
    """

    geometry: SquareGeometry

    piece_prefixes = ("", "K@")

    def __init__(
        self,
        size: int | None = None,
        komi: float | int | str | Fraction = 0,
        rules: str = "yugo",
        button: bool | None = None,
    ) -> None:
        ruleset = find_rules(rules)
        if ruleset.family != "yugo":
            raise ConfigError(f"rules {rules!r} are not a Yugo rule set")
        self.rules = ruleset
        self.size = ruleset.check_size(ruleset.default_size if size is None else size)
        self.komi = ruleset.check_komi(komi)
        self.button_in_play = ruleset.check_button(button)
        geo = self.geometry = square_geometry(self.size)
        codes = _CODES.get(self.size)
        if codes is None:
            codes = _CODES[self.size] = _codes(geo)
        self._codes = codes
        self._adj = geo.neighbours
        self._names = geo.names
        self._n = geo.n_points
        self._board = bytearray(self._n)
        self._king = bytearray(self._n)
        self._to_move = 1
        self._turn = 0
        self._passes = 0
        self._phase = PLAYING
        self._holder = 0
        self._clean = True
        """The invariant of the module docstring holds: no surrounded group has a pawn."""
        self._prisoners = [0, 0, 0]
        self._moves: list[str] = []
        self._last_captured: list[int] = []
        self._removed: list[int] = []
        self._resumed = False

    # --- setting up positions (for study and tests) -----------------------
    @classmethod
    def from_diagram(
        cls,
        diagram: str,
        *,
        rules: str = "yugo",
        komi: float | int | str = 0,
        to_move: Color = Color.BLACK,
        button_holder: Color | None = None,
    ) -> YugoGame:
        """A game starting from the position drawn.

        Glyphs: ``X``/``O`` pawns, ``K``/``Q`` Black's and White's kings, ``.``
        empty (the Unicode glyphs of :data:`~keilref.engine.diagram.SQUARE_UNICODE` and
        the territory marks ``x``/``o``, read as empty, are accepted too).
        """
        size, glyphs = parse_square(diagram)
        game = cls(size=size, komi=komi, rules=rules)
        for p, g in enumerate(glyphs):
            piece = _DIAGRAM_PIECES.get(g)
            if piece is not None:
                game._board[p], game._king[p] = piece
            elif g not in _DIAGRAM_EMPTY:
                raise ValueError(f"unknown glyph {g!r} in diagram")
        game._to_move = int(to_move)
        game._holder = 0 if button_holder is None else int(button_holder)
        game._clean = not any(
            not game._king[p] for _, members, libs in game._group_indices() if not libs for p in members
        )
        game._remember_start()
        return game

    def _set_up(self, position: StartPosition) -> None:
        for p in self._place_setup(position):
            self._king[p] = 1
        # Every placement leaves no surrounded group with a pawn (a pawn may
        # surround nothing; a king's captures remove them).
        for _, members, libs in self._group_indices():
            if not libs and any(not self._king[p] for p in members):
                why = wording.setup_surrounded_pawns(self._setup_names(members))
                raise PositionError(wording.setup_unreachable(why))
        self._to_move = int(position.to_move)
        self._holder = 0 if position.button_taken is None else int(position.button_taken)
        self._remember_start()

    # --- playing ---------------------------------------------------------
    def play(self, move: str) -> None:
        if not isinstance(move, str):
            raise not_a_turn(move)
        code = self._codes.get(move)
        if code is None:
            code = self._decode(move)
        if self._phase == OVER:
            raise self._illegal(move, Reason.GAME_OVER)
        n = self._n
        if code >= n:
            self._play_king(code - n, move)
        elif code >= 0:
            self._play_pawn(code, move)
        elif code == PASS:
            self._pass(move)
        else:
            self._take_button(move)

    def _decode(self, move: str) -> int:
        """Map a token missing from the fast table: raise the right error."""
        name = move[2:] if move[:2] in ("K@", "P@") else move
        try:
            self.geometry.point(name)
        except KeyError:
            reason = Reason.GAME_OVER if self._phase == OVER else Reason.OFF_BOARD
            raise self._illegal(move, reason) from None
        except InvalidMoveError:
            raise InvalidMoveError(
                f"{move!r} is not a turn (expected a point such as d4, P@d4 for a pawn, "
                "K@d4 for a king, 'pass' or 'button')"
            ) from None
        raise AssertionError("unreachable: every on-board token is in the fast table")

    def _probe(self, start: int, color: int) -> tuple[set[int], bool]:
        """Flood ``start``'s group until its first liberty: ``(seen, surrounded)``.

        When the group is surrounded, ``seen`` is the whole group; otherwise it
        is part of it (enough to skip re-probing the same group from another
        neighbour).
        """
        b = self._board
        adj = self._adj
        stack = [start]
        seen = {start}
        while stack:
            for q in adj[stack.pop()]:
                t = b[q]
                if t == EMPTY:
                    return seen, False
                if t == color and q not in seen:
                    seen.add(q)
                    stack.append(q)
        return seen, True

    def _pawn_surrounds(self, x: int, c: int) -> bool:
        """Would a pawn of ``c`` on the empty ``x`` leave some group surrounded?

        Only the groups adjacent to ``x`` can change (module docstring), and the
        count can only grow, so it is unchanged iff none of them is surrounded.
        Most adjacent groups have a liberty right beside the stone next to
        ``x``; that is checked first, and only the rest are flooded.
        """
        b = self._board
        adj = self._adj
        b[x] = c
        o = 3 - c
        own_liberty = False
        surrounds = False
        for q in adj[x]:
            t = b[q]
            if t == EMPTY:
                own_liberty = True
            elif t == o:
                for r in adj[q]:
                    if b[r] == EMPTY:
                        break
                else:
                    if self._probe(q, o)[1]:
                        surrounds = True
                        break
        if not (surrounds or own_liberty):
            surrounds = self._probe(x, c)[1]
        b[x] = EMPTY
        return surrounds

    def _king_targets(self, x: int, c: int) -> list[set[int]]:
        """The enemy groups a king of ``c`` on the empty ``x`` would leave surrounded.

        Empty exactly when the king is illegal: the enemy groups not adjacent to
        ``x`` keep their status, and the adjacent ones were not surrounded.
        """
        b = self._board
        b[x] = c
        o = 3 - c
        targets: list[set[int]] = []
        checked: set[int] = set()
        adj = self._adj
        for q in adj[x]:
            if b[q] == o and q not in checked:
                if any(b[r] == EMPTY for r in adj[q]):
                    continue  # a liberty right beside q: its group is not surrounded
                seen, surrounded = self._probe(q, o)
                checked |= seen
                if surrounded:
                    targets.append(seen)
        b[x] = EMPTY
        return targets

    def _play_pawn(self, x: int, move: str) -> None:
        if self._board[x]:
            raise self._illegal(move, Reason.OCCUPIED)
        c = self._to_move
        if self._pawn_surrounds(x, c):
            raise self._illegal(move, Reason.PAWN_SURROUNDS)
        self._board[x] = c
        self._last_captured = []
        self._passes = 0
        self._end_turn(self._names[x])

    def _play_king(self, x: int, move: str) -> None:
        b = self._board
        king = self._king
        if b[x]:
            raise self._illegal(move, Reason.OCCUPIED)
        c = self._to_move
        targets = self._king_targets(x, c)
        if not targets:
            raise self._illegal(move, Reason.KING_CAPTURES_NOTHING)
        b[x] = c
        king[x] = 1
        # Step 1: strip every surrounded enemy group. While the invariant holds
        # these are the targets (older surrounded groups have no pawns).
        if self._clean:
            enemy = [p for group in targets for p in group if not king[p]]
        else:
            enemy = self._surrounded_pawns(3 - c)
        for p in enemy:
            b[p] = EMPTY
        # Step 2, in the resulting position: strip every surrounded own group.
        # While the invariant holds only the king's own group can be one.
        if self._clean:
            group, surrounded = self._probe(x, c)
            own = [p for p in group if not king[p]] if surrounded else []
        else:
            own = self._surrounded_pawns(c)
        for p in own:
            b[p] = EMPTY
        self._clean = True
        self._prisoners[c] += len(enemy)
        self._last_captured = enemy + own
        self._passes = 0
        self._end_turn("K@" + self._names[x])

    def _surrounded_pawns(self, color: int) -> list[int]:
        """The pawns of every surrounded group of ``color``, by a whole-board scan."""
        king = self._king
        return [
            p
            for group_color, members, libs in self._group_indices()
            if group_color == color and not libs
            for p in members
            if not king[p]
        ]

    def _pass(self, move: str) -> None:
        if self.button_in_play and not self._holder:
            raise self._illegal(move, Reason.PASS_BEFORE_BUTTON)
        self._last_captured = []
        self._end_turn("pass")
        self._passes += 1
        if self._passes == 2:
            self._phase = STOPPED if self._phase == PLAYING else OVER

    def _take_button(self, move: str) -> None:
        if not self.button_in_play or self._holder:
            raise self._illegal(move, Reason.BUTTON_TAKEN)
        self._holder = self._to_move
        self._last_captured = []
        self._passes = 0
        self._end_turn("button")

    def _end_turn(self, move: str) -> None:
        """Bookkeeping common to every legal turn.

        A turn after the first double pass resumes play; passes then count
        afresh, so it takes two more passes in succession to end the game.
        """
        if self._phase == STOPPED:
            self._phase = RESUMED
            self._resumed = True
            self._passes = 0
        self._turn += 1
        self._to_move = 3 - self._to_move
        self._moves.append(move)

    def check(self, move: str) -> IllegalMoveError | None:
        if not isinstance(move, str):
            raise not_a_turn(move)
        code = self._codes.get(move)
        if code is None:
            try:
                code = self._decode(move)
            except IllegalMoveError as e:
                return e
        reason = self._reason(code)
        return None if reason is None else self._illegal(move, reason)

    def _reason(self, code: int) -> Reason | None:
        """Why the decoded turn ``code`` is illegal now, in the rules' order; ``None`` if legal."""
        if self._phase == OVER:
            return Reason.GAME_OVER
        n = self._n
        if code >= 0:
            x = code % n
            if self._board[x]:
                return Reason.OCCUPIED
            if code >= n:
                return None if self._king_targets(x, self._to_move) else Reason.KING_CAPTURES_NOTHING
            return Reason.PAWN_SURROUNDS if self._pawn_surrounds(x, self._to_move) else None
        if code == PASS:
            return Reason.PASS_BEFORE_BUTTON if self.button_in_play and not self._holder else None
        return Reason.BUTTON_TAKEN if not self.button_in_play or self._holder else None

    def legal_moves(self) -> list[str]:
        """Pawn placements (``d4``), then king placements (``K@d4``), then ``button`` or ``pass``."""
        if self._phase == OVER:
            return []
        b = self._board
        c = self._to_move
        names = self.geometry.names
        empties = [p for p in range(self._n) if not b[p]]
        legal = [names[p] for p in empties if not self._pawn_surrounds(p, c)]
        legal += ["K@" + names[p] for p in empties if self._king_targets(p, c)]
        legal.append("button" if self.button_in_play and not self._holder else "pass")
        return legal

    def copy(self) -> Self:
        other = super().copy()
        other._king = bytearray(self._king)
        other._removed = list(self._removed)
        return other

    # --- the end of the game -------------------------------------------------
    def agree_removal(self, points: Iterable[str]) -> None:
        """Remove the whole group (pawns and kings) of each named piece; the game is then over.

        Only possible while play is stopped at the first double pass and has
        not resumed. ``points`` may also be the ``Removed`` tag's text
        (``"d4 k10"``). Every point is checked before anything is removed, so a
        bad agreement changes nothing.
        """
        if self._phase != STOPPED:
            why = {
                PLAYING: "play has not stopped",
                RESUMED: "play resumed after it",
                OVER: "play resumed after it" if self._resumed else "the game is already over",
            }[self._phase]
            raise ConfigError(f"{_STOP_MESSAGE} ({why})")
        if isinstance(points, str):
            points = split_points(points)
        starts = [self._removal_point(name) for name in points]
        removed: set[int] = set()
        for p in starts:
            if p not in removed:
                removed |= self._group_of(p)
        for p in removed:
            self._board[p] = EMPTY
            self._king[p] = 0
        self._removed = sorted(removed)
        self._phase = OVER

    def _removal_point(self, name: str) -> int:
        try:
            p = self.geometry.point(name)
        except (KeyError, InvalidMoveError):
            raise ConfigError(f"Removed point {name!r} is not a point of the {self.size}×{self.size} board") from None
        if not self._board[p]:
            raise ConfigError(f"Removed point {name!r} holds no piece")
        return p

    def _group_of(self, start: int) -> set[int]:
        b = self._board
        color = b[start]
        group = {start}
        stack = [start]
        while stack:
            for q in self._adj[stack.pop()]:
                if b[q] == color and q not in group:
                    group.add(q)
                    stack.append(q)
        return group

    # --- state -----------------------------------------------------------
    @property
    def is_over(self) -> bool:
        """True when play has stopped (first double pass) or ended for good."""
        return self._phase in (STOPPED, OVER)

    @property
    def is_final(self) -> bool:
        """True when no further turn is legal: a second double pass, or an agreement."""
        return self._phase == OVER

    @property
    def resumed(self) -> bool:
        """Whether play resumed after the first double pass."""
        return self._resumed

    @property
    def removed(self) -> frozenset[str]:
        """Points whose pieces were removed by agreement."""
        names = self.geometry.names
        return frozenset(names[p] for p in self._removed)

    @property
    def position(self) -> bytes:
        """One byte per point: 0 empty, 1/2 a black/white pawn, 5/6 a black/white king."""
        return bytes(t | (k << 2) for t, k in zip(self._board, self._king))

    def is_king(self, point: str) -> bool:
        """Whether ``point`` holds a king (of either colour)."""
        p = self._index(point)
        return bool(self._board[p] and self._king[p])

    def kings(self, color: Color) -> frozenset[str]:
        """The points holding ``color``'s kings."""
        names = self.geometry.names
        return frozenset(names[p] for p in range(self._n) if self._board[p] == color and self._king[p])

    # --- groups, territory, score ------------------------------------------
    def _group_indices(self) -> list[tuple[int, list[int], set[int]]]:
        """Every group as ``(colour, members, liberties)``, by a whole-board scan."""
        b = self._board
        adj = self._adj
        done: set[int] = set()
        out = []
        for p in range(self._n):
            color = b[p]
            if not color or p in done:
                continue
            members = [p]
            done.add(p)
            libs: set[int] = set()
            i = 0
            while i < len(members):
                for q in adj[members[i]]:
                    t = b[q]
                    if t == EMPTY:
                        libs.add(q)
                    elif t == color and q not in done:
                        done.add(q)
                        members.append(q)
                i += 1
            out.append((color, members, libs))
        return out

    def _territory_indices(self) -> list[tuple[list[int], int]]:
        """Territories as ``(points, owner)``, owner 0 for nobody."""
        b = self._board
        adj = self._adj
        done: set[int] = set()
        out = []
        for p in range(self._n):
            if b[p] or p in done:
                continue
            area = [p]
            done.add(p)
            touching = 0
            i = 0
            while i < len(area):
                for q in adj[area[i]]:
                    t = b[q]
                    if t == EMPTY:
                        if q not in done:
                            done.add(q)
                            area.append(q)
                    else:
                        touching |= t
                i += 1
            # touching is 1 or 2 for one colour, 3 for both, 0 for none.
            out.append((area, touching if touching in (1, 2) else 0))
        return out

    def score(self) -> Score:
        area = [0, 0, 0]
        for points, owner in self._territory_indices():
            area[owner] += len(points)
        pieces = [0, 0, 0]
        enemy_kings = [0, 0, 0]
        king = self._king
        for color, members, libs in self._group_indices():
            if libs:
                pieces[color] += len(members)
            else:
                enemy_kings[3 - color] += sum(king[p] for p in members)
        return Score(
            rows=(
                ScoreRow("territory", area[1], area[2]),
                ScoreRow("pieces", pieces[1], pieces[2]),
                ScoreRow("enemy kings", enemy_kings[1], enemy_kings[2]),
            ),
            komi=self.komi,
            half_point=self.button_holder,
            neutral=area[0],
        )

    def score_as(self, rules: str) -> Score:
        other = find_rules(rules)
        if other.family != "yugo":
            raise ConfigError(f"rules {rules!r} are not a Yugo rule set")
        return self.score()

    def explain_score(self) -> list[str]:
        """The groups removed by agreement, and the surrounded groups whose kings count for the other side."""
        names = self.geometry.names
        lines = []
        if self._removed:
            lines.append("removed by agreement: " + " ".join(names[p] for p in self._removed))
        for color, members, libs in self._group_indices():
            if libs:
                continue
            kings = sorted(p for p in members if self._king[p])
            owner = Color(color)
            lines.append(
                f"{owner.name.capitalize()}'s surrounded group at {' '.join(names[p] for p in sorted(members))}: "
                f"{len(kings)} king{' counts' if len(kings) == 1 else 's count'} for {owner.other.name.capitalize()}"
            )
        return lines

    def diagram(self, *, unicode: bool = False, territory: bool = False) -> str:
        glyph = SQUARE_UNICODE if unicode else SQUARE_ASCII
        pawn = [glyph["empty"], glyph["black"], glyph["white"]]
        king = ["", glyph["black_king"], glyph["white_king"]]
        out = [king[t] if k else pawn[t] for t, k in zip(self._board, self._king)]
        if territory:
            self._paint_territory(out, glyph)
        return render_square(self.geometry, out, self._last_point())


YUGO = register(
    RuleSet(
        name="yugo",
        family="yugo",
        title="Yugo (Luis Bolaños Mures, 2017)",
        min_size=2,
        max_size=25,
        default_size=13,
        half_komi=False,
        button=ButtonRule.REQUIRED,
        game_class=YugoGame,
        agreed_removal=True,
    )
)
"""Yugo, Keil's elder sibling on a square board, with pawns and kings."""
