"""What the command line needs from the terminal and the user's typing.

Option values chosen from a list (case-insensitive, with a suggestion for a
near miss), ASCII fallbacks for streams whose encoding cannot print the
board glyphs, and the source excerpt with a caret under a fault.
"""

from __future__ import annotations

import codecs
import contextlib
import difflib
import io
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from types import FrameType, TracebackType
from collections.abc import Sequence
from typing import Any, BinaryIO, TextIO

from keilref.escaping import RunnerGuard, defused, line_window
from keilref.records.sniffing import foreign_encoding

__all__ = [
    "ChoiceError", "Interrupts", "RunnerSafeStream", "ascii_fallback", "choose", "excerpt", "runner_safe_streams",
    "workflow_commands",
]


class ChoiceError(ValueError):
    """An option value that is none of the allowed ones; the message may suggest one."""


def choose(
    value: str, choices: Sequence[str], option: str, *, near_miss: Callable[[str, str], bool] | None = None
) -> str:
    """The choice ``value`` names, ignoring case; a :class:`ChoiceError` otherwise.

    ``--format json`` is a near miss of ``jsonl``: the message says so.
    ``near_miss`` (casefolded value, casefolded choice) narrows the choices
    that may be hinted at, where a loose likeness would mislead: ``go`` is
    not ``yugo``.
    """
    for choice in choices:
        if choice.casefold() == value.casefold():
            return choice
    allowed = ", ".join(choices)
    folded = [c.casefold() for c in choices]
    if near_miss is not None:
        folded = [c for c in folded if near_miss(value.casefold(), c)]
    near = difflib.get_close_matches(value.casefold(), folded, n=1, cutoff=0.5)
    hint = ""
    if near:
        (nearest,) = (c for c in choices if c.casefold() == near[0])
        hint = f"; did you mean {nearest!r}?"
    raise ChoiceError(f"{option}: unknown value {value!r} (expected {allowed}){hint}")


_ASCII = {
    "●": "X",
    "○": "O",
    "·": ".",
    "—": "-",
    "–": "-",
    "→": "->",
    "…": "...",
    "‘": "'",
    "’": "'",
    "“": '"',
    "”": '"',
}
_HANDLER = "keilref-ascii"


def _replace(error: UnicodeError) -> tuple[str, int]:
    if not isinstance(error, UnicodeEncodeError):
        raise error
    bad = error.object[error.start : error.end]
    return "".join(_ASCII.get(ch, "?") for ch in bad), error.end


class _AsciiEncoder(codecs.IncrementalEncoder):
    def encode(self, input: str, final: bool = False) -> bytes:
        return codecs.ascii_encode(input, _HANDLER)[0]


def _ascii_codec(name: str) -> codecs.CodecInfo | None:
    if name != _HANDLER.replace("-", "_"):
        return None
    ascii_codec = codecs.lookup("ascii")
    return codecs.CodecInfo(
        name=_HANDLER,
        encode=lambda text, errors="strict": (codecs.ascii_encode(text, _HANDLER)[0], len(text)),
        decode=ascii_codec.decode,
        incrementalencoder=_AsciiEncoder,
        incrementaldecoder=ascii_codec.incrementaldecoder,
    )


_KEPT: list[TextIO] = []
"""Streams replaced by :func:`ascii_fallback`: closing them would close the terminal's."""


def ascii_fallback(*streams: TextIO) -> None:
    """Let the standard streams print what their encoding cannot as ASCII (``●`` as ``X``).

    Only characters the encoding lacks are replaced: a UTF-8 terminal still
    gets the glyphs. A stream that declares plain ASCII gets a codec of its
    own name, since the command-line library would otherwise take ASCII for a
    mistake and write UTF-8 to it regardless.
    """
    try:
        codecs.lookup_error(_HANDLER)
    except LookupError:
        codecs.register_error(_HANDLER, _replace)
        codecs.register(_ascii_codec)
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if streams and stream not in streams:
            continue
        encoding = getattr(stream, "encoding", None) or "ascii"
        try:
            plain_ascii = codecs.lookup(encoding).name == "ascii"
        except LookupError:
            continue
        if plain_ascii and isinstance(stream, io.TextIOWrapper):
            stream.flush()
            _KEPT.append(stream)
            setattr(
                sys,
                name,
                io.TextIOWrapper(stream.buffer, encoding=_HANDLER, line_buffering=stream.line_buffering),
            )
            continue
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            try:
                reconfigure(errors=_HANDLER)
            except (ValueError, OSError):
                continue


class RunnerSafeStream(io.TextIOBase):
    """Standard output or error as every command prints to it: through a
    :class:`~keilref.escaping.RunnerGuard`, so that no line starts with the
    ``::`` of a CI runner's workflow command, whichever command, format or
    message wrote it.

    Only :func:`workflow_commands` writes past it, for the format whose lines
    are a runner's commands by design. Bytes (``.buffer``: a filtered game
    verbatim, a PNG, the language server's messages) are not text lines and
    pass as they are; ``filter`` holds back a game that would run.
    """

    def __init__(self, stream: TextIO) -> None:
        super().__init__()
        self.stream = stream
        self._guard = RunnerGuard()

    def write(self, text: str) -> int:
        if not isinstance(text, str):
            # The command-line library tells a text stream by write(b"") failing.
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        self.stream.write(self._guard.feed(text))
        return len(text)

    def write_commands(self, text: str) -> None:
        """``text`` as it is: workflow commands a runner is meant to run."""
        self.stream.write(self._guard.end() + text)
        self._guard.passed(text)

    def finish(self) -> None:
        """Write what the guard holds back (a lone colon at a line start): the output ends."""
        held = self._guard.end()
        if held:
            self.stream.write(held)

    def flush(self) -> None:
        self.stream.flush()

    def close(self) -> None:
        # The terminal's stream is not this one's to close, and may be closed already.
        with contextlib.suppress(OSError, ValueError):
            self.finish()
            super().close()

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return self.stream.isatty()

    def fileno(self) -> int:
        return self.stream.fileno()

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return self.stream.encoding

    @property
    def errors(self) -> str | None:  # type: ignore[override]
        return self.stream.errors

    @property
    def buffer(self) -> BinaryIO:
        self.finish()
        self.stream.flush()  # the text before the bytes, in order
        return self.stream.buffer

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)


@contextlib.contextmanager
def runner_safe_streams() -> Iterator[None]:
    """Standard output and error through :class:`RunnerSafeStream` while a command runs."""
    guarded = {name: RunnerSafeStream(getattr(sys, name)) for name in ("stdout", "stderr")}
    for name, stream in guarded.items():
        setattr(sys, name, stream)
    try:
        yield
    finally:
        for name, stream in guarded.items():
            with contextlib.suppress(OSError, ValueError):
                stream.finish()
            if getattr(sys, name) is stream:
                setattr(sys, name, stream.stream)


def workflow_commands(stream: TextIO) -> Callable[[str], object]:
    """How a format whose lines are a CI runner's commands (GitHub annotations,
    each built escaped) writes them to ``stream``: past the guard, if it has one."""
    if isinstance(stream, RunnerSafeStream):
        return stream.write_commands
    return stream.write


WIDTH = 100
"""Longer source lines are cut around the fault, so the excerpt stays readable."""


def excerpt(path: str, line: int, column: int) -> list[str]:
    """The source line ``line`` of ``path`` and a caret under ``column``, indented.

    Empty when the file cannot be read again (standard input, a vanished
    file) or has no such line: the one-line message says everything anyway.
    """
    if path == "-" or line < 1 or column < 1:
        return []
    try:
        # Lines end at LF only (a CR before it is part of the ending), as the parser counts them.
        with open(path, "rb") as f:
            for number, raw in enumerate(f, 1):
                if number == 1 and foreign_encoding(raw) is not None:
                    return []  # UTF-16 or UTF-32: its lines are not UTF-8 text to quote
                if number == line:
                    break
            else:
                return []
    except OSError:
        return []
    if len(raw) > 1_000_000:
        return []
    text = raw.decode("utf-8", errors="replace").removeprefix("\ufeff").rstrip("\r\n")
    # A tab would put the caret off by however wide the terminal draws it: the window makes it one space.
    text, at = line_window(text, column, WIDTH)
    shown = defused(text)
    if shown != text and at > len(text) - len(text.lstrip(" ")):
        at += len(shown) - len(text)  # the caret stays under its character, after the escaped colon
    return [f"    {shown}", f"    {' ' * at}^"]


class Interrupts:
    """Ctrl-C stops at once, except inside :meth:`atomic` blocks, which finish first.

    A verdict is counted and printed as one step, so the summary of an
    interrupted check counts exactly the lines above it. Outside the main
    thread (where signals cannot be caught) this does nothing.
    """

    def __init__(self) -> None:
        self._depth = 0
        self._pending = False
        self._previous: object = None
        self._installed = False

    def __enter__(self) -> Interrupts:
        if threading.current_thread() is threading.main_thread():
            self._previous = signal.signal(signal.SIGINT, self._on_interrupt)
            self._installed = True
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._installed:
            signal.signal(signal.SIGINT, self._previous)  # type: ignore[arg-type]
            self._installed = False

    def _on_interrupt(self, signum: int, frame: FrameType | None) -> None:
        if self._depth:
            self._pending = True
        else:
            raise KeyboardInterrupt

    @contextlib.contextmanager
    def atomic(self) -> Iterator[None]:
        self._depth += 1
        try:
            yield
        finally:
            self._depth -= 1
        if self._pending and not self._depth:
            self._pending = False
            raise KeyboardInterrupt
