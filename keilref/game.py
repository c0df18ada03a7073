"""The game interface every rule family implements.

``Game(size=7, komi=6, rules="keil")`` returns an instance of the class the
named rule set registers, so callers never need to know the family.
"""

from __future__ import annotations

import abc
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Self

from keilref.core import Color, Score
from keilref.errors import IllegalMoveError
from keilref.geometry import Geometry
from keilref.rules import RuleSet, find_rules


@dataclass(frozen=True)
class Group:
    """A group as the rule set links it, with its liberties."""

    color: Color
    points: frozenset[str]
    liberties: frozenset[str]


@dataclass(frozen=True)
class Territory:
    """A territory (linked empty points) and who owns it, if anybody."""

    points: frozenset[str]
    owner: Color | None


class Game(abc.ABC):
    """A game in progress under one rule set.

    Turns are given in record notation: a point such as ``"g7"``, ``"pass"``
    or ``"button"``. :meth:`play` raises :class:`~keilref.InvalidMoveError`
    for a token that is not a move and :class:`~keilref.IllegalMoveError`
    (with its ``reason``) for one the rules forbid; the game is unchanged then.
    """

    rules: RuleSet
    size: int
    komi: float
    button_in_play: bool
    captures: bool = True
    """Whether stones can ever leave the board (not in Dehil)."""
    piece_prefixes: tuple[str, ...] = ("",)
    """Prefixes a placement may carry: ``("",)`` for stones, ``("", "K@")`` in Yugo."""

    def __new__(cls, *args: Any, **kwargs: Any) -> Game:
        if cls is Game:
            # Game(size, komi, rules, button): the rules may come by position too.
            rules = kwargs["rules"] if "rules" in kwargs else args[2] if len(args) > 2 else "keil"
            cls = find_rules(rules).game_class
        return super().__new__(cls)

    # --- playing ---------------------------------------------------------
    @abc.abstractmethod
    def play(self, move: str) -> None:
        """Play one turn, or raise without changing anything."""

    @abc.abstractmethod
    def check(self, move: str) -> IllegalMoveError | None:
        """The error :meth:`play` would raise for a well-formed ``move``, or ``None``."""

    def is_legal(self, move: str) -> bool:
        return self.check(move) is None

    @abc.abstractmethod
    def legal_moves(self) -> list[str]:
        """Every legal turn: placements in point order, then ``button`` or ``pass``."""

    def play_all(self, moves: Iterable[str]) -> None:
        for move in moves:
            self.play(move)

    @abc.abstractmethod
    def copy(self) -> Game:
        """An independent game in the same state, history included."""

    # --- state -----------------------------------------------------------
    @property
    @abc.abstractmethod
    def turn(self) -> int:
        """Number of turns played so far."""

    @property
    @abc.abstractmethod
    def to_move(self) -> Color: ...

    @property
    @abc.abstractmethod
    def is_over(self) -> bool:
        """Whether play has stopped, so that the position is counted as final.

        In Keil and Dehil no turn is legal after that. Yugo lets play resume
        once after its first double pass; its ``play`` handles that.
        """

    @property
    def is_final(self) -> bool:
        """Whether no turn is legal any more. Differs from :attr:`is_over` only
        where play may resume after it stopped (Yugo)."""
        return self.is_over

    @property
    @abc.abstractmethod
    def button_holder(self) -> Color | None: ...

    @property
    @abc.abstractmethod
    def moves(self) -> tuple[str, ...]:
        """The turns played, in canonical notation."""

    @property
    @abc.abstractmethod
    def last_captured(self) -> frozenset[str]:
        """Points whose stones the last turn removed."""

    @property
    @abc.abstractmethod
    def prisoners(self) -> dict[Color, int]:
        """Stones each player has captured so far."""

    @abc.abstractmethod
    def stone_at(self, point: str) -> Color | None: ...

    @abc.abstractmethod
    def points(self) -> tuple[str, ...]:
        """Every point of the board, in index order."""

    def stones(self, color: Color) -> frozenset[str]:
        return frozenset(p for p in self.points() if self.stone_at(p) is color)

    @abc.abstractmethod
    def groups(self) -> list[Group]: ...

    @abc.abstractmethod
    def territories(self) -> list[Territory]: ...

    @abc.abstractmethod
    def score(self) -> Score:
        """The count of the current position (final once :attr:`is_over`)."""

    def explain_score(self) -> list[str]:
        """Lines that show why the score is what it is, beyond the score table."""
        return []

    def agree_removal(self, points: Iterable[str]) -> None:
        """Remove the groups at ``points`` by agreement, ending the game (Yugo).

        Raises :class:`~keilref.ConfigError` (naming the problem) where the
        family has no such agreement or the points do not allow it.
        """
        from keilref.errors import ConfigError

        raise ConfigError(f"rules {self.rules.name!r} have no agreed removal of groups")

    def score_as(self, rules: str) -> Score:
        """The count of this position under a sibling rule set of the same family.

        Raises :class:`~keilref.ConfigError` when that makes no sense here.
        """
        from keilref.errors import ConfigError

        raise ConfigError(f"{type(self).__name__} cannot be scored under rules {rules!r}")

    @abc.abstractmethod
    def diagram(self, *, unicode: bool = False, territory: bool = False) -> str:
        """An ASCII (or Unicode) picture of the board."""

    def _repr_svg_(self) -> str:
        """The board as SVG, so a game shows itself in Jupyter."""
        from keilref.svg import board

        return board(self)


class BoardGame(Game):
    """The state every array-backed engine keeps, and what follows from it.

    One byte per point in ``_board`` (0 empty, 1 black, 2 white, as
    :class:`~keilref.core.Color`), the turn count, the player to move (1 or
    2), the button holder (0 for nobody), the moves in canonical notation,
    the points the last turn emptied and the stones each player captured.
    Engines keep these up to date; the readers here are shared.
    """

    geometry: Geometry
    _board: bytearray
    _turn: int
    _to_move: int
    _holder: int
    _moves: list[str]
    _last_captured: list[int]
    _prisoners: list[int]

    @property
    def turn(self) -> int:
        return self._turn

    @property
    def to_move(self) -> Color:
        return Color(self._to_move)

    @property
    def button_holder(self) -> Color | None:
        return Color(self._holder) if self._holder else None

    @property
    def moves(self) -> tuple[str, ...]:
        return tuple(self._moves)

    @property
    def last_move(self) -> str | None:
        return self._moves[-1] if self._moves else None

    @property
    def last_captured(self) -> frozenset[str]:
        names = self.geometry.names
        return frozenset(names[p] for p in self._last_captured)

    @property
    def prisoners(self) -> dict[Color, int]:
        return {Color.BLACK: self._prisoners[1], Color.WHITE: self._prisoners[2]}

    def points(self) -> tuple[str, ...]:
        return self.geometry.names

    def copy(self) -> Self:
        """An independent game: the common state copied here, an engine's own by override."""
        other = object.__new__(type(self))
        other.__dict__.update(self.__dict__)
        other._board = bytearray(self._board)
        other._moves = list(self._moves)
        other._prisoners = list(self._prisoners)
        other._last_captured = list(self._last_captured)
        return other

    def _index(self, point: str) -> int:
        try:
            return self.geometry.point(point)
        except KeyError:
            raise ValueError(f"{point!r} is not on a board of size {self.size}") from None

    def stone_at(self, point: str) -> Color | None:
        t = self._board[self._index(point)]
        return Color(t) if t else None

    def _last_point(self) -> int | None:
        """The point of the last turn (a piece prefix such as ``K@`` dropped), if it placed."""
        if not self._moves:
            return None
        return self.geometry.index.get(self._moves[-1].rpartition("@")[2])

    def _group_indices(self) -> list[tuple[int, list[int], set[int]]]:
        """Groups as ``(colour, stones, liberties)`` by index, for :meth:`groups`."""
        raise NotImplementedError

    def _territory_indices(self) -> list[tuple[list[int], int]]:
        """Territories as ``(points, owner)`` by index (owner 0 for nobody)."""
        raise NotImplementedError

    def _paint_territory(self, out: list[str], glyph: dict[str, str]) -> None:
        """Mark owned empty points in a diagram's glyph list."""
        area = ["", glyph["black_area"], glyph["white_area"]]
        for points, owner in self._territory_indices():
            if owner:
                for p in points:
                    out[p] = area[owner]

    def groups(self) -> list[Group]:
        names = self.geometry.names
        return [
            Group(Color(color), frozenset(names[s] for s in members), frozenset(names[q] for q in libs))
            for color, members, libs in self._group_indices()
        ]

    def territories(self) -> list[Territory]:
        names = self.geometry.names
        return [
            Territory(frozenset(names[s] for s in area), Color(owner) if owner else None)
            for area, owner in self._territory_indices()
        ]


def new_game(
    rules: str = "keil",
    size: int | None = None,
    komi: float | int | str = 0,
    button: bool | None = None,
) -> Game:
    """``Game(...)`` spelled as a function: the class comes from the registry."""
    game_class = find_rules(rules).game_class
    return game_class(size=size, komi=komi, rules=rules, button=button)
