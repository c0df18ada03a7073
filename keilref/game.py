"""The game interface every rule family implements.

``Game(size=7, komi=6, rules="keil")`` returns an instance of the class the
named rule set registers, so callers never need to know the family.
"""

from __future__ import annotations

import abc
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from keilref.core import Color, Score
from keilref.errors import IllegalMoveError
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
    piece_prefixes: tuple[str, ...] = ("",)
    """Prefixes a placement may carry: ``("",)`` for stones, ``("", "K@")`` in Yugo."""

    def __new__(cls, *args: Any, **kwargs: Any) -> Game:
        if cls is Game:
            cls = find_rules(kwargs.get("rules", "keil")).game_class
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


def new_game(
    rules: str = "keil",
    size: int | None = None,
    komi: float | int | str = 0,
    button: bool | None = None,
) -> Game:
    """``Game(...)`` spelled as a function: the class comes from the registry."""
    game_class = find_rules(rules).game_class
    return game_class(size=size, komi=komi, rules=rules, button=button)
