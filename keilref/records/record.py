"""Typed game records: what a ``.keil`` file says, before any rule is applied.

Positions (``line``, ``column``, 1-based, counted from the start of the file)
and how a token was spelt are kept for messages but left out of equality, so
that ``parse(write(r)) == r`` compares meaning only.
"""

from __future__ import annotations

import abc
import enum
import re
from collections.abc import Callable, Mapping
from types import MappingProxyType
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol, overload

if TYPE_CHECKING:
    from keilref.engine.game import Game
    from keilref.records.setup import StartPosition
    from keilref.referee.lines import Node


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
    value_column: int = field(default=0, compare=False)
    """Where the value's first character stands on the tag's line, when the
    value reads as written (no escape in it); else 0."""


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
    glyphs: tuple[str, ...] = ()
    """Annotation glyphs, in the order written: the suffix (``!``, ``?!``...)
    first, then the numeric ones (``$14``). They never change a verdict."""
    variations: tuple[Variation, ...] = ()
    """Alternative lines written after this turn, each replacing it."""
    clock_at: tuple[int, int] | None = field(default=None, compare=False)
    """Where the ``[%clk ...]`` command of this turn's comments stands in the file."""

    @property
    def text(self) -> str:
        """The token as written, falling back to the canonical one."""
        return self.written or self.move

    @property
    def remark(self) -> str | None:
        """What the annotator wrote after this turn, as one line: its comments
        joined, white space (line breaks included) run together, and the
        ``[%clk ...]``-style commands left out (a clock is shown as a clock);
        ``None`` when nothing is left. Not escaped: each output escapes it its own way."""
        texts = (" ".join(_COMMAND.sub(" ", c.text).split()) for c in self.comments)
        joined = " ".join(t for t in texts if t)
        return joined or None

    @property
    def clock(self) -> Clock | None:
        """The mover's time left after this turn, from a ``[%clk H:MM:SS]`` in
        the comments after it; ``None`` without one, or with one that does
        not read (:func:`find_clock` tells the two apart)."""
        found = find_clock(self.comments)
        return None if found is None else found[1]

    @staticmethod
    def of(move: str) -> Turn:
        """The turn a game's move token stands for (``g7``, ``K@d4``, ``pass``, ``button``).

        The token is not checked (:func:`~keilref.write_record` checks it);
        one that is not a ``str`` raises ``TypeError``.
        """
        if not isinstance(move, str):
            raise TypeError(f"a turn's token must be a str such as 'g7', 'pass' or 'button', not {type(move).__name__}")
        if move == "pass":
            return Turn(move, TurnKind.PASS)
        if move == "button":
            return Turn(move, TurnKind.BUTTON)
        piece, _, point = move.rpartition("@")
        return Turn(move, TurnKind.PLACE, point=point, piece=piece or None)


@dataclass(frozen=True, slots=True)
class Variation:
    """``( ... )`` after a turn: an alternative line whose first turn replaces
    that turn. Its turns may carry variations of their own."""

    turns: tuple[Turn, ...]
    comments: tuple[Comment, ...] = ()
    """Comments after the ``(``, before the first turn."""
    after: tuple[Comment, ...] = ()
    """Comments after the ``)``, before the next variation or turn."""
    line: int = field(default=0, compare=False)
    column: int = field(default=0, compare=False)
    """Where its ``(`` stands: the name a user gives the line (``show --line 12:8``)."""


@dataclass(frozen=True, slots=True)
class Clock:
    """A player's time left, as ``[%clk 0:09:58.3]`` writes it."""

    tenths: int
    """Tenths of a second; negative for a clock written with a minus sign."""

    @property
    def seconds(self) -> float:
        """The time left in seconds (``598.3``)."""
        return self.tenths / 10

    def __str__(self) -> str:
        sign, tenths = ("-", -self.tenths) if self.tenths < 0 else ("", self.tenths)
        seconds, tenth = divmod(tenths, 10)
        minutes, second = divmod(seconds, 60)
        hours, minute = divmod(minutes, 60)
        return f"{sign}{hours}:{minute:02d}:{second:02d}" + (f".{tenth}" if tenth else "")


_COMMAND = re.compile(r"\[%[A-Za-z]+\b[^\]]*\]?")
"""An embedded command (``[%clk 0:10:00]``, ``[%emt ...]``): for a program, not for the reader."""
_CLOCK_COMMAND = re.compile(r"\[%clk\b([^\]]*)\]?")
_CLOCK = re.compile(r"[ \t]*(-?)([0-9]{1,6}):([0-5][0-9]):([0-5][0-9])(?:\.([0-9]))?[ \t]*\Z")


def find_clock(comments: tuple[Comment, ...]) -> tuple[str, Clock | None] | None:
    """The first ``[%clk ...]`` command in ``comments``: its text, and the clock
    it gives, ``None`` when it does not read as ``H:MM:SS`` or ``H:MM:SS.s``.
    ``None`` when no comment holds one."""
    for comment in comments:
        if "[%clk" not in comment.text:
            continue
        m = _CLOCK_COMMAND.search(comment.text)
        if m is None:
            continue
        value = _CLOCK.match(m.group(1)) if m.group(0).endswith("]") else None
        if value is None:
            return m.group(0), None
        sign, hours, minutes, seconds, tenth = value.groups()
        tenths = ((int(hours) * 60 + int(minutes)) * 60 + int(seconds)) * 10 + int(tenth or 0)
        return m.group(0), Clock(-tenths if sign else tenths)
    return None


GLYPHS = ("!", "?", "!!", "??", "!?", "?!")
"""The suffix glyphs, written directly after a turn."""


class DeferredTurns(abc.ABC):
    """A record's turns, kept by a reader in a cheaper form until first asked for.

    Checking a game needs only its moves, and making a :class:`Turn` per
    move is a large part of reading one. A reader may therefore hand a
    :class:`Record` the moves alone, with what it needs to make the turns
    later; ``record.turns`` makes them on first use, and the record is then
    the same in every way as if they had been made at once.
    """

    __slots__ = ()

    @property
    @abc.abstractmethod
    def moves(self) -> tuple[str, ...]:
        """The turns' canonical tokens, in order."""

    @abc.abstractmethod
    def turns(self) -> tuple[Turn, ...]:
        """The turns themselves."""


class _TurnsField:
    """``Record.turns``: a tuple of turns, made from :class:`DeferredTurns` when first read."""

    @overload
    def __get__(self, record: None, owner: type | None = None) -> tuple[()]: ...
    @overload
    def __get__(self, record: Record, owner: type | None = None) -> tuple[Turn, ...]: ...
    def __get__(self, record: Record | None, owner: type | None = None) -> tuple[Turn, ...]:
        if record is None:
            return ()  # the field's default
        value = record.__dict__["_turns"]
        if isinstance(value, DeferredTurns):
            value = record.__dict__["_turns"] = value.turns()
        return value  # type: ignore[no-any-return]

    def __set__(self, record: Record, value: tuple[Turn, ...]) -> None:
        record.__dict__["_turns"] = value


@dataclass(frozen=True)
class Record:
    """One game of a record file."""

    tags: tuple[Tag, ...] = ()
    """In the order written, unknown ones included."""
    turns: _TurnsField = _TurnsField()
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

    @property
    def moves(self) -> tuple[str, ...]:
        """The turns' canonical tokens (``g7``, ``pass``, ``button``, ``K@d4``), in order:
        what a replay plays. Cheaper than :attr:`turns` when a reader deferred them."""
        value = self.__dict__["_turns"]
        if isinstance(value, DeferredTurns):
            return value.moves
        return tuple(t.move for t in value)

    @property
    def annotated(self) -> bool:
        """Whether the turns may carry variations, glyphs or clocks. ``False``
        only when a reader deferred the turns, which it does for plain games
        alone: asking costs nothing, where reading every turn would not."""
        return not isinstance(self.__dict__["_turns"], DeferredTurns)

    def mainline(self) -> tuple[Turn, ...]:
        """The turns of the main line (:attr:`turns`; each may hold variations)."""
        return self.turns

    def tree(self, *, rules: str | None = None) -> Node:
        """The root of the tree of this record's lines: walk ``node.variations``
        (the first continues the line, the others are alternatives) and call
        ``node.game()`` for the position after any turn, as with
        ``chess.pgn.GameNode``. A bad tag raises :class:`~keilref.TagError`."""
        return _above().tree(self, rules=rules)

    @property
    def headers(self) -> Mapping[str, str]:
        """The tags as a read-only mapping of name to value, in the order
        written, as ``chess.pgn.Game.headers`` holds a PGN game's."""
        return MappingProxyType({t.name: t.value for t in self.tags})

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

    @property
    def setup(self) -> StartPosition | None:
        """The position the game starts from (version 3 of the format: the
        ``Setup``, ``ToMove``, ``ButtonTaken`` and ``FirstPass`` tags), or
        ``None`` for the empty board with Black to move. A value that does
        not read raises :class:`~keilref.TagError` at its tag or point;
        whether the position fits the board and rules is checked when the
        game is replayed (:meth:`replay`)."""
        from keilref.records.setup import read_position  # it builds on this module

        return read_position(self)

    def replay(self, turn: int | None = None, *, rules: str | None = None) -> Game:
        """The :class:`~keilref.Game` after the first ``turn`` turns (all by default).

        Settings come from the tags (``rules`` overrides the ``Rules`` tag).
        Raises :class:`~keilref.RecordError` for a bad tag or turn token,
        :class:`~keilref.IllegalMoveError` for an illegal turn among those
        replayed (``record.replay(turn=e.turn - 1)`` gives the position
        before it) and ``ValueError`` for a ``turn`` out of range.
        """
        return _above().replay(self, turn, rules=rules)

    def _repr_html_(self) -> str:
        """The tags, the referee's verdict and a board to step through, for a notebook."""
        return _above().html(self)


class _Replay(Protocol):
    def __call__(self, record: Record, turn: int | None = None, *, rules: str | None = None) -> Game: ...


class _Tree(Protocol):
    def __call__(self, record: Record, *, rules: str | None = None) -> Node: ...


@dataclass(frozen=True, slots=True)
class RecordServices:
    """What a :class:`Record`'s conveniences ask of the stages above this one.

    The referee replays a record and grows its tree of lines, the formats
    draw it for a notebook; this stage may not import them (the layers
    contract, pyproject.toml), so they are handed to it instead, by
    :mod:`keilref.conveniences`, which ``import keilref`` runs.
    """

    replay: _Replay
    """What :meth:`Record.replay` returns."""
    tree: _Tree
    """What :meth:`Record.tree` returns."""
    html: Callable[[Record], str]
    """What :meth:`Record._repr_html_` returns."""


_services: RecordServices | None = None


def connect(services: RecordServices) -> None:
    """Hand the record type the work of the stages above it."""
    global _services
    _services = services


def _above() -> RecordServices:
    if _services is None:
        # Not reached through any import: Python runs keilref/__init__.py,
        # which connects the stages, before any of its submodules.
        raise RuntimeError("keilref.records.record is not connected to the stages above it: import keilref")
    return _services


def with_deferred_turns(record: Record, turns: DeferredTurns) -> Record:
    """``record`` (made with no turns) given turns to make when first read."""
    record.__dict__["_turns"] = turns
    return record
