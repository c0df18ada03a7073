"""The errors keilref raises, split by kind.

An *invalid* move cannot even be read (``"g"``, ``"hello"``); an *illegal*
move is well formed but breaks a rule in the current position. A record that
cannot be read raises a :class:`RecordError` carrying its position.
"""

from __future__ import annotations

from keilref.values import Reason
from keilref.wording import illegal_turn


def wrong_type(what: str, value: object, accepted: str) -> TypeError:
    """The error for an argument of the wrong type: it says what is accepted, and what came."""
    return TypeError(f"{what} must be {accepted}, not {type(value).__name__}")


def _check_int(what: str, value: object) -> None:
    if not isinstance(value, int) or isinstance(value, bool):
        raise wrong_type(what, value, "an int")


def not_a_turn(move: object) -> TypeError:
    """The error for a turn given as something other than its token."""
    return wrong_type("a turn", move, "a str such as 'g7', 'pass' or 'button'")


class KeilrefError(Exception):
    """Base class of every error keilref raises on purpose."""


class ConfigError(KeilrefError, ValueError):
    """A bad game setting: unknown rule set, size out of range, bad komi."""


class PositionError(ConfigError):
    """A set-up position the game cannot start from: a point off the board or
    given twice, a piece the rules do not have, or a position no legal play
    could leave. ``line`` and ``column`` place the point at fault in its
    record (0 where the fault is the position as a whole)."""

    def __init__(self, message: str, line: int = 0, column: int = 0, tag: str = "Setup") -> None:
        self.message = message
        self.line = line
        self.column = column
        self.tag = tag
        """The tag at fault where no point is (``Setup``, ``ButtonTaken``, ``FirstPass``)."""
        super().__init__(message)

    def __reduce__(self) -> tuple[type[PositionError], tuple[object, ...]]:
        return (type(self), (self.message, self.line, self.column, self.tag))


class InvalidMoveError(KeilrefError, ValueError):
    """A turn token that is not a move at all (malformed point, unknown word)."""


class IllegalMoveError(KeilrefError, ValueError):
    """A well-formed turn that the rules forbid in the current position.

    ``IllegalMoveError(move, reason, turn, repeats_turn=None)`` raises
    ``TypeError`` unless ``move`` is a ``str``, ``reason`` a
    :class:`~keilref.Reason` and the turns ``int``.
    """

    def __init__(
        self,
        move: str,
        reason: Reason,
        turn: int,
        repeats_turn: int | None = None,
        *,
        white_first: bool = False,
    ) -> None:
        if not isinstance(move, str):
            raise wrong_type("an illegal move", move, "a str")
        if not isinstance(reason, Reason):
            raise wrong_type("the reason of an illegal move", reason, "a keilref.Reason")
        _check_int("the turn of an illegal move", turn)
        if repeats_turn is not None:
            _check_int("the turn an illegal move repeats", repeats_turn)
        self.move = move
        self.reason = reason
        self.turn = turn
        self.repeats_turn = repeats_turn
        self.white_first = white_first
        """Whether the game's first turn was White's (a set-up position), so
        that the message names the right player."""
        self._args = (move, reason, turn, repeats_turn)
        super().__init__(illegal_turn(turn, move, reason.value, repeats_turn, white_first))

    def __reduce__(self) -> tuple[type[IllegalMoveError], tuple[object, ...], dict[str, object]]:
        # Errors cross process boundaries in parallel checking.
        return (type(self), self._args, {"white_first": self.white_first})


class RecordError(KeilrefError, ValueError):
    """A record that cannot be read. Carries the place of the fault.

    ``line`` and ``column`` are 1-based and count from the start of the file.
    ``source_line`` is the offending line, for the caret display.
    ``RecordError(message, line, column, source_line=None, filename=None)``
    raises ``TypeError`` unless the message is a ``str``, the place ``int``
    and the others ``str`` or ``None``.
    """

    def __init__(
        self,
        message: str,
        line: int,
        column: int,
        source_line: str | None = None,
        filename: str | None = None,
    ) -> None:
        if not isinstance(message, str):
            raise wrong_type("a record error's message", message, "a str")
        _check_int("a record error's line", line)
        _check_int("a record error's column", column)
        for what, value in (("source line", source_line), ("file name", filename)):
            if value is not None and not isinstance(value, str):
                raise wrong_type(f"a record error's {what}", value, "a str or None")
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
            # Never past the line's end: a column made by hand may be anything.
            caret = " " * min(max(self.column - 1, 0), len(self.source_line)) + "^"
            text += f"\n    {self.source_line}\n    {caret}"
        return text


class RecordSyntaxError(RecordError):
    """The text breaks the record grammar (or is not valid UTF-8)."""


class TagError(RecordError):
    """A tag whose value is invalid, reported at the tag."""
