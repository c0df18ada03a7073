"""The errors keilref raises, split by kind.

An *invalid* move cannot even be read (``"g"``, ``"hello"``); an *illegal*
move is well formed but breaks a rule in the current position. A record that
cannot be read raises a :class:`RecordError` carrying its position.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from keilref.values import Reason


class KeilrefError(Exception):
    """Base class of every error keilref raises on purpose."""


class ConfigError(KeilrefError, ValueError):
    """A bad game setting: unknown rule set, size out of range, bad komi."""


class InvalidMoveError(KeilrefError, ValueError):
    """A turn token that is not a move at all (malformed point, unknown word)."""


class IllegalMoveError(KeilrefError, ValueError):
    """A well-formed turn that the rules forbid in the current position."""

    def __init__(
        self,
        move: str,
        reason: Reason,
        turn: int,
        repeats_turn: int | None = None,
    ) -> None:
        self.move = move
        self.reason = reason
        self.turn = turn
        self.repeats_turn = repeats_turn
        self._args = (move, reason, turn, repeats_turn)
        detail = f"illegal turn {turn} ({move}): {reason.value}"
        if repeats_turn is not None:
            detail += f", repeats the position after turn {repeats_turn}"
        super().__init__(detail)

    def __reduce__(self) -> tuple[type[IllegalMoveError], tuple[object, ...]]:
        # Errors cross process boundaries in parallel checking.
        return (type(self), self._args)


class RecordError(KeilrefError, ValueError):
    """A record that cannot be read. Carries the place of the fault.

    ``line`` and ``column`` are 1-based and count from the start of the file.
    ``source_line`` is the offending line, for the caret display.
    """

    def __init__(
        self,
        message: str,
        line: int,
        column: int,
        source_line: str | None = None,
        filename: str | None = None,
    ) -> None:
        self.message = message
        self.line = line
        self.column = column
        self.source_line = source_line
        self.filename = filename
        self.turns_played: int | None = None
        """Turns replayed before the fault, when it was found in replay."""
        super().__init__(message)

    def __reduce__(self) -> tuple[type[RecordError], tuple[object, ...], dict[str, object]]:
        # Errors cross process boundaries in parallel checking.
        args = (self.message, self.line, self.column, self.source_line, self.filename)
        return (type(self), args, {"turns_played": self.turns_played})

    def __str__(self) -> str:
        where = f"{self.filename}:" if self.filename else ""
        text = f"{where}{self.line}:{self.column}: {self.message}"
        if self.source_line is not None:
            caret = " " * max(self.column - 1, 0) + "^"
            text += f"\n    {self.source_line}\n    {caret}"
        return text


class RecordSyntaxError(RecordError):
    """The text breaks the record grammar (or is not valid UTF-8)."""


class TagError(RecordError):
    """A tag whose value is invalid, reported at the tag."""
