"""Typed game records: what a ``.keil`` file says, before any rule is applied.

Positions (``line``, ``column``, 1-based, counted from the start of the file)
and how a token was spelt are kept for messages but left out of equality, so
that ``parse(write(r)) == r`` compares meaning only.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from keilref.game import Game


class TurnKind(enum.Enum):
    """The kinds of turn a record can hold."""

    PLACE = "place"
    """A stone (or, in Yugo, a pawn or king) placed on a point."""
    PASS = "pass"
    """``pass``."""
    BUTTON = "button"
    """``button``: the player to move takes the button."""


@dataclass(frozen=True, slots=True)
class Comment:
    """A comment as written, without its delimiters."""

    text: str
    brace: bool = True
    """``{...}`` when true, ``; ...`` to the end of the line when false."""


@dataclass(frozen=True, slots=True)
class Tag:
    """A tag pair ``[Name "value"]``; ``value`` has its escapes resolved."""

    name: str
    value: str
    comments: tuple[Comment, ...] = ()
    """Comments written after this tag, before the next token."""
    line: int = field(default=0, compare=False)
    column: int = field(default=0, compare=False)


@dataclass(frozen=True, slots=True)
class Turn:
    """One turn of the moves section."""

    move: str
    """Canonical token: ``g7`` (lower case), ``pass``, ``button``, ``K@d4``."""
    kind: TurnKind
    point: str | None = None
    """The point of a placement, lower case; ``None`` for pass and button."""
    piece: str | None = None
    """``K`` or ``P`` when the record named a piece kind (Yugo); else ``None``."""
    comments: tuple[Comment, ...] = ()
    """Comments written after this turn, before the next turn or result."""
    written: str = field(default="", compare=False)
    """The token exactly as written (``G7``)."""
    numbered: bool = field(default=False, compare=False)
    """Whether a move number stood before this turn."""
    line: int = field(default=0, compare=False)
    column: int = field(default=0, compare=False)

    @property
    def text(self) -> str:
        """The token as written, falling back to the canonical one."""
        return self.written or self.move

    @staticmethod
    def of(move: str) -> Turn:
        """The turn a game's move token stands for (``g7``, ``K@d4``, ``pass``, ``button``)."""
        if move == "pass":
            return Turn(move, TurnKind.PASS)
        if move == "button":
            return Turn(move, TurnKind.BUTTON)
        piece, _, point = move.rpartition("@")
        return Turn(move, TurnKind.PLACE, point=point, piece=piece or None)


@dataclass(frozen=True, slots=True)
class Record:
    """One game of a record file."""

    tags: tuple[Tag, ...] = ()
    """In the order written, unknown ones included."""
    turns: tuple[Turn, ...] = ()
    result: str | None = None
    """The result token at the end of the moves, as written (``B+0.5``, ``*``)."""
    head_comments: tuple[Comment, ...] = ()
    """Comments before the first tag."""
    result_comments: tuple[Comment, ...] = ()
    """Comments after the result token."""
    line: int = field(default=0, compare=False)
    """Where the game starts in its file."""
    result_line: int = field(default=0, compare=False)
    result_column: int = field(default=0, compare=False)

    def tag(self, name: str) -> Tag | None:
        """The tag named ``name`` (names are unique within a game), or ``None``."""
        for t in self.tags:
            if t.name == name:
                return t
        return None

    def tag_value(self, name: str) -> str | None:
        """The value of the tag named ``name``, or ``None``."""
        t = self.tag(name)
        return None if t is None else t.value

    def replay(self, turn: int | None = None, *, rules: str | None = None) -> Game:
        """The :class:`~keilref.Game` after the first ``turn`` turns (all by default).

        Settings come from the tags (``rules`` overrides the ``Rules`` tag).
        Raises :class:`~keilref.RecordError` for a bad tag or turn token,
        :class:`~keilref.IllegalMoveError` for an illegal turn among those
        replayed (``record.replay(turn=e.turn - 1)`` gives the position
        before it) and ``ValueError`` for a ``turn`` out of range.
        """
        from keilref.history import replay_record

        return replay_record(self, turn, rules=rules)
