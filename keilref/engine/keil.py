"""Keil under both wordings of its rules (``keil`` and ``keil-2019``).

The board is a ``bytearray``: one byte per point (0 empty, 1 black, 2 white)
and a last byte for the button bit, so ``bytes(board)`` *is* the position the
superko rule compares. The game remembers earlier positions by a 30-bit key
a turn, and compares a position whose key it has seen with the earlier one
rebuilt in full, so no collision of keys ever decides a turn (see
:mod:`keilref.engine.kernel`).

Captures and suicide are decided with the ``keil`` links under both rule
sets. That is exact, not an approximation: ``keil-2019`` links a superset of
stone pairs, and every extra link runs through an empty wing that is itself a
liberty of both stones, so a group without liberties is the same set of
stones under either wording. The rule sets differ only in the groups they
report and in territory, which :meth:`KeilGame.groups` and
:meth:`KeilGame.territories` compute with the rule set's own links.
"""

from __future__ import annotations

import random
from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Self
from fractions import Fraction

from keilref import wording
from keilref.values import Color, Reason, Score, ScoreRow
from keilref.records.setup import StartPosition
from keilref.engine.diagram import ASCII, UNICODE, parse_hex, render_hex
from keilref.errors import ConfigError, IllegalMoveError, InvalidMoveError, PositionError, not_a_turn
from keilref.engine.game import BoardGame
from keilref.engine.geometry import HexGeometry, hex_geometry
from keilref.engine.kernel import SNAPSHOT_EVERY, advance, earlier_turn, place, position_key, take_back, territories, turn_keys
from keilref.engine.rules import ButtonRule, RuleSet, find_rules, register

EMPTY = 0
PASS = -1
BUTTON = -2


@dataclass(frozen=True)
class KeilRules(RuleSet):
    """A wording of the Keil rules."""

    loose_links: bool
    """``keil-2019``: stones link through any wing not of the other colour,
    and two empty points are always linked."""

    def stones_linked(self, color: int, w1: int, w2: int) -> bool:
        """Are two adjacent stones of ``color`` linked, given their wings' types?"""
        if self.loose_links:
            other = 3 - color
            return w1 != other or w2 != other
        return w1 == color or w2 == color


def _codes(geo: HexGeometry) -> dict[str, int]:
    codes = dict(geo.index)
    codes["pass"] = PASS
    codes["button"] = BUTTON
    return codes


_CODES: dict[int, dict[str, int]] = {}

_KEYS: dict[int, list[list[int]]] = {}


def _random_keys(stride: int) -> list[int]:
    """``3 * stride`` random numbers of 30 bits, fixed per board size so that
    every game of a size agrees.

    30 bits keep every key one digit of a Python integer, the cheapest to
    XOR and to store in an ``array("I")``. Keys only choose which earlier
    positions to compare in full, so narrow ones cost a rebuild now and then
    (about one in a thousand turns in a game of a million turns), never a
    verdict."""
    rng = random.Random(f"keil superko {stride}")
    return [rng.getrandbits(30) for _ in range(3 * stride)]


def _turn_keys(stride: int) -> list[list[int]]:
    """The superko keys for a board of ``stride`` bytes (:func:`keilref.engine.kernel.turn_keys`)."""
    keys = _KEYS.get(stride)
    if keys is None:
        keys = _KEYS[stride] = turn_keys(_random_keys(stride))
    return keys


_EMPTY_TABLE = array("I", bytes(512 * 4))
"""The superko table a game starts with: a whole game on a small board fits
in it, so most games never grow it."""

_EMPTY_HASHES = array("I", bytes((SNAPSHOT_EVERY + 1) * 4))
"""Room for the keys of the start and of the turns up to the first snapshot."""


class KeilGame(BoardGame):
    """A game of Keil. See :class:`~keilref.engine.game.Game` for the interface."""

    rules: KeilRules
    geometry: HexGeometry

    def __init__(
        self,
        size: int | None = None,
        komi: float | int | str | Fraction = 0,
        rules: str = "keil",
        button: bool | None = None,
    ) -> None:
        ruleset = find_rules(rules)
        if not isinstance(ruleset, KeilRules):
            raise ConfigError(f"rules {rules!r} are not a Keil rule set")
        self.rules = ruleset
        self.size = ruleset.check_size(ruleset.default_size if size is None else size)
        self.komi = ruleset.check_komi(komi)
        self.button_in_play = ruleset.check_button(button)
        geo = self.geometry = hex_geometry(self.size)
        codes = _CODES.get(self.size)
        if codes is None:
            codes = _CODES[self.size] = _codes(geo)
        self._codes = codes
        self._adj = geo.adjacency
        self._names = geo.names
        self._n = geo.n_points
        self._board = bytearray(self._n + 1)
        # The kernel reads points from this list, which mirrors _board: every
        # write to one is made to the other (see keilref.engine.kernel).
        self._cells = [0] * (self._n + 1)
        self._marks = [0] * (self._n + 1)
        self._to_move = 1
        self._turn = 0
        self._passes = 0
        self._over = 0  # 1 once play has stopped: an int, as the kernel keeps it
        self._holder = 0
        self._keys = _turn_keys(self._n + 1)
        self._forget_history(empty=True)
        self._prisoners = [0, 0, 0]
        self._moves: list[str] = []
        self._last_captured: list[int] = []

    # --- setting up positions (for study and tests) -----------------------
    @classmethod
    def from_diagram(
        cls,
        diagram: str,
        *,
        rules: str = "keil",
        komi: float | int | str = 0,
        to_move: Color = Color.BLACK,
        button_holder: Color | None = None,
        button: bool | None = None,
    ) -> KeilGame:
        """A game starting from the position drawn (``X`` black, ``O`` white, ``.`` empty).

        No earlier positions are remembered for superko.
        """
        size, glyphs = parse_hex(diagram)
        game = cls(size=size, komi=komi, rules=rules, button=button)
        for p, g in enumerate(glyphs):
            if g in ("X", "●"):
                game._board[p] = 1
            elif g in ("O", "○"):
                game._board[p] = 2
            elif g not in (".", "·", "x", "o"):
                raise ValueError(f"unknown glyph {g!r} in diagram")
        # Play can never reach a group without a liberty (captures and the
        # suicide rule remove them), and the engine relies on that.
        for color, members, libs in game._group_indices(KEIL):
            if not libs:
                names = " ".join(sorted(game._names[p] for p in members))
                raise ValueError(f"the diagram has a group without a liberty: {names}")
        game._to_move = int(to_move)
        if button_holder is not None:
            if not game.button_in_play:
                raise ConfigError("the button is not in play in this game")
            game._holder = int(button_holder)
            game._board[game._n] = 1
        game._cells = list(game._board)
        game._forget_history()
        game._remember_start()
        return game

    def _set_up(self, position: StartPosition) -> None:
        self._place_setup(position)
        # Play can never reach a group without a liberty (captures and the
        # suicide rule remove them), and the engine relies on that.
        for _, members, libs in self._group_indices(KEIL):
            if not libs:
                raise PositionError(wording.setup_unreachable(wording.setup_no_liberty(self._setup_names(members))))
        self._to_move = int(position.to_move)
        if position.button_taken is not None:
            if not self.button_in_play:
                holder = position.button_taken.name.capitalize()
                raise PositionError(wording.button_not_in_play(holder, self.rules.name), tag="ButtonTaken")
            self._holder = int(position.button_taken)
            self._board[self._n] = 1
        self._cells = list(self._board)
        self._forget_history(start_counts=True)
        self._remember_start()

    def _forget_history(self, empty: bool = False, start_counts: bool = False) -> None:
        """Start the superko memory afresh from the present position, which
        becomes turn 0 (:mod:`keilref.engine.kernel` says what it holds); ``empty``
        says it is the empty board, whose position key is 0."""
        key = 0 if empty else position_key(self._board, self._keys)
        self._table = _EMPTY_TABLE[:]
        self._hashes = _EMPTY_HASHES[:]
        # Turn 0's key, as if the other player had left this position
        # (kernel.turn_keys mixes White in).
        self._hashes[0] = key ^ (self._keys[0][0] if self._to_move == 1 else 0)
        self._snapshots = bytearray(self._board)
        # A set-up position is the one the player who does not move first
        # left (record format, version 3); a diagram's and the empty board
        # are at the end of nobody's turn.
        self._start_key = self._hashes[0] if start_counts else -1

    # --- playing ---------------------------------------------------------
    # Every turn is played by the kernel (keilref.engine.kernel.advance), one or a
    # whole run at a time, so the rules of a turn live in one place; what
    # follows here only says why a turn the kernel refused is not played.
    def play(self, move: str) -> None:
        if not isinstance(move, str):
            raise not_a_turn(move)
        if not self._advance((move,)):
            raise self._refusal(move)

    def play_legal(self, moves: Sequence[str]) -> int:
        return self._advance(moves if isinstance(moves, tuple) else tuple(moves))

    def _advance(self, moves: tuple[str, ...]) -> int:
        state = [self._to_move, self._turn, self._passes, self._over, self._holder]
        played, captured = advance(
            self._board,
            self._adj,
            self._codes,
            self._names,
            moves,
            state,
            self._keys,
            self._table,
            self._hashes,
            self._snapshots,
            self._prisoners,
            self._moves,
            self.button_in_play,
            self._cells,
            self._marks,
            self._start_key,
        )
        if played:
            self._to_move, self._turn, self._passes, self._over, self._holder = state
            self._last_captured = captured
        return played

    def _refusal(self, move: str) -> IllegalMoveError:
        """Why the kernel did not play ``move`` (it changed nothing); raises
        :class:`InvalidMoveError` for a token that is not a turn at all."""
        code = self._codes.get(move)
        if code is None:
            code = self._decode(move)
        if self._over:
            return self._illegal(move, Reason.GAME_OVER)
        if code == PASS:
            return self._illegal(move, Reason.PASS_BEFORE_BUTTON)
        if code == BUTTON:
            return self._illegal(move, Reason.BUTTON_TAKEN)
        b = self._board
        if b[code]:
            return self._illegal(move, Reason.OCCUPIED)
        captured: list[int] = []
        legal = place(b, self._cells, self._marks, self._adj, code, self._to_move, captured)
        earlier = self._repeats(code, captured) if legal else 0
        start = legal and not earlier and self._repeats_start(code, captured)
        take_back(b, self._cells, code, captured, 3 - self._to_move)
        if not legal:
            return self._illegal(move, Reason.SUICIDE)
        if start:
            return self._illegal(move, Reason.SUPERKO, 0)
        if not earlier:
            raise AssertionError(f"the kernel refused {move!r}, a legal turn")
        return self._illegal(move, Reason.SUPERKO, earlier)

    def _repeats(self, x: int, captured: list[int]) -> int:
        """The latest earlier turn of the player to move whose position the board
        now shows, with their stone just put on ``x`` and ``captured`` taken; 0 if none."""
        keys = self._keys
        c = self._to_move
        key = self._hashes[self._turn] ^ keys[c][x]
        for s in captured:
            key ^= keys[5 - c][s]
        return earlier_turn(
            self._board, key, self._table, self._hashes, self._snapshots,
            self._adj, self._codes, self._moves, c, self._marks,
        )

    def _repeats_start(self, x: int, captured: list[int]) -> bool:
        """Whether the board, as :meth:`_repeats` takes it, recreates the set-up
        position, and the player to move is the one who did not move first
        (for whom it counts as the position their last turn left)."""
        key = self._hashes[self._turn] ^ self._keys[self._to_move][x]
        for s in captured:
            key ^= self._keys[5 - self._to_move][s]
        start = self._snapshots[: len(self._board)]
        return key == self._start_key and self._turn % 2 == 1 and self._board == start

    def _decode(self, move: str) -> int:
        """Map a token missing from the fast table: raise the right error."""
        try:
            self.geometry.point(move)
        except KeyError:
            if self._over:
                raise self._illegal(move, Reason.GAME_OVER) from None
            raise self._illegal(move, Reason.OFF_BOARD) from None
        except InvalidMoveError:
            raise InvalidMoveError(
                f"{move!r} is not a turn (expected a point such as g7, 'pass' or 'button')"
            ) from None
        raise AssertionError("unreachable: a listed point is in the fast table")

    def check(self, move: str) -> IllegalMoveError | None:
        trial = self.copy()
        try:
            trial.play(move)
        except IllegalMoveError as e:
            return e
        return None

    def legal_moves(self) -> list[str]:
        if self._over:
            return []
        legal = []
        names = self.geometry.names
        b = self._board
        cells = self._cells
        c = self._to_move
        for p in range(self._n):
            if b[p]:
                continue
            # Each placement is tried on the board and taken back: the
            # suicide rule and superko are the kernel's, as in play, the
            # set-up position (turn 0, outside the table) included.
            captured: list[int] = []
            if (
                place(b, cells, self._marks, self._adj, p, c, captured)
                and not self._repeats(p, captured)
                and not self._repeats_start(p, captured)
            ):
                legal.append(names[p])
            take_back(b, cells, p, captured, 3 - c)
        if self.button_in_play and not self._holder:
            legal.append("button")
        else:
            legal.append("pass")
        return legal

    def copy(self) -> Self:
        other = super().copy()
        other._table = self._table[:]
        other._hashes = self._hashes[:]
        other._snapshots = bytearray(self._snapshots)
        other._cells = list(self._cells)
        other._marks = [0] * len(self._marks)
        return other

    # --- state -----------------------------------------------------------
    @property
    def is_over(self) -> bool:
        return bool(self._over)

    @property
    def position(self) -> bytes:
        """The exact position: one byte per point, then the button bit."""
        return bytes(self._board)

    # --- groups, territory, score ------------------------------------------
    def _group_indices(self, rules: KeilRules | None = None) -> list[tuple[int, list[int], set[int]]]:
        b = self._board
        adj = self._adj
        rules = rules or self.rules
        done: set[int] = set()
        out = []
        for p in range(self._n):
            color = b[p]
            if not color or p in done:
                continue
            other = 3 - color
            members = [p]
            done.add(p)
            libs: set[int] = set()
            i = 0
            while i < len(members):
                s = members[i]
                i += 1
                for q, w1, w2 in adj[s]:
                    t = b[q]
                    if t == EMPTY:
                        if b[w1] != other or b[w2] != other:
                            libs.add(q)
                    elif t == color and q not in done and rules.stones_linked(color, b[w1], b[w2]):
                        done.add(q)
                        members.append(q)
            out.append((color, members, libs))
        return out

    def _territory_indices(self, rules: KeilRules | None = None) -> list[tuple[list[int], int]]:
        """Territories as (points, owner) with owner 0 for nobody."""
        return territories(self._cells, self._adj, self._n, (rules or self.rules).loose_links)

    def score(self) -> Score:
        return self._score(self.rules)

    def score_as(self, rules: str) -> Score:
        other = find_rules(rules)
        if not isinstance(other, KeilRules):
            raise ConfigError(f"rules {rules!r} are not a Keil rule set")
        return self._score(other)

    def _score(self, rules: KeilRules) -> Score:
        b = self._board
        area = [0, 0, 0]
        for points, owner in self._territory_indices(rules):
            area[owner] += len(points)
        stones = b[: self._n]
        return Score(
            rows=(
                ScoreRow("stones", stones.count(1), stones.count(2)),
                ScoreRow("territory", area[1], area[2]),
            ),
            komi=self.komi,
            half_point=self.button_holder,
            neutral=area[0],
        )

    def owner_map(self) -> list[int]:
        """Per point: 1 or 2 for a stone or owned territory, 0 for neutral."""
        owners = list(self._board[: self._n])
        for points, owner in self._territory_indices():
            for p in points:
                owners[p] = owner
        return owners

    def diagram(self, *, unicode: bool = False, territory: bool = False) -> str:
        glyph = UNICODE if unicode else ASCII
        cells = [glyph["empty"], glyph["black"], glyph["white"]]
        out = [cells[t] for t in self._board[: self._n]]
        if territory:
            self._paint_territory(out, glyph)
        return render_hex(self.geometry, out, self._last_point())


KEIL = register(
    KeilRules(
        name="keil",
        family="keil",
        title="Keil, the designer's current wording",
        min_size=2,
        max_size=13,
        default_size=7,
        half_komi=False,
        button=ButtonRule.REQUIRED,
        game_class=KeilGame,
        loose_links=False,
    )
)
"""The designer's current wording of the Keil rules: whole komi, the button always in play."""

KEIL_2019 = register(
    KeilRules(
        name="keil-2019",
        family="keil",
        title="Keil, the earlier wording (December 2019)",
        min_size=2,
        max_size=13,
        default_size=7,
        half_komi=True,
        button=ButtonRule.OPTIONAL,
        game_class=KeilGame,
        loose_links=True,
    )
)
"""The earlier wording of the Keil rules (December 2019): half komi, optional button, loose links."""
