"""Reading records from whatever a user has: a path, bytes, a file or text.

:func:`read_games` is the library's door to the parser: it turns every kind
of source into the binary stream :func:`~keilref.records.parser.iter_games` reads,
so a library user meets exactly the games, and the errors, that
``keilref check`` meets.

A match of the abstract_games server (see :mod:`keilref.records.abstract_games`),
in any of its three shapes, is read as its one game wherever records are.

Which ``str`` is text and which is a path: a ``str`` is record text when it
holds a line break, or when it starts (after white space) with ``[`` (or a
match's ``{``) and no file of that name exists. Any other ``str`` is a path. ``io.StringIO(text)``
and :class:`pathlib.Path` say which one is meant without any rule.
"""

from __future__ import annotations

import errno
import io
import os
from collections.abc import Generator, Iterator
from typing import IO, BinaryIO, cast

from keilref.errors import RecordError
from keilref.files import open_regular
from keilref.records.sniffing import iter_source
from keilref.records.record import Record
from keilref.records.sources import PathError, expand_paths, read_source

__all__ = ["RecordSource", "read_game", "read_games"]

RecordSource = str | os.PathLike[str] | bytes | bytearray | memoryview | IO[bytes] | IO[str]
"""What :func:`read_games` reads: a path, record bytes, a binary or text stream, or record text."""

_ACCEPTED = (
    "a path (str or os.PathLike), record text (str), bytes, bytearray, memoryview, "
    "or a binary or text stream (an open file, io.BytesIO, io.StringIO)"
)

_TEXT_CHUNK = 1 << 18
"""Characters taken from a text stream per read."""


def read_games(source: RecordSource) -> Iterator[Record | RecordError]:
    """The games of ``source``, one at a time, in order.

    ``source`` is a path (``str`` or :class:`os.PathLike`), the bytes of a
    record file, a binary or text stream (an open file, ``sys.stdin``,
    ``io.BytesIO``, ``io.StringIO``) or the text of records (see the module
    docstring for how a ``str`` is told apart from a path).

    Yields a :class:`~keilref.Record` per game, or the
    :class:`~keilref.RecordError` (with line and column) that stops a game
    from being read; the games after a bad one are read all the same, as
    ``keilref check`` reads them. A source without any game yields one
    error, "no game in file". Lazy: a file is opened when iteration starts,
    read a chunk at a time, and closed at its end; a stream given is left
    open. A text stream decodes its bytes itself, and its decoding errors
    are its own: pass bytes or a binary stream (``sys.stdin.buffer``) to
    have bytes that are not UTF-8 reported as a record error at their place.

    A directory is searched as ``keilref check`` searches one given on the
    command line (``*.keil`` records and abstract_games matches, hidden
    directories left out, no symbolic link followed), and the games of each
    file found are yielded in turn, in the order ``check`` reads them; the
    settings of a project (``exclude`` in ``pyproject.toml``) are the command
    line's, not read here. A directory that holds no record raises
    ``IsADirectoryError`` on the first ``next()``.

    Raises ``TypeError``, at once, for a ``source`` of any other type (the
    message lists those read). Another path is read only if it names a regular
    file: one that cannot be opened, a device (``/dev/zero``),
    a socket or a named pipe raises ``OSError`` on the first ``next()``,
    without waiting on it (open a named pipe yourself and pass the stream).
    An error reading a stream given is raised as the stream raised it.
    """
    _check_source(source)
    return _games(source)


def _check_source(source: object) -> None:
    """Raise ``TypeError`` naming what is read, for a source that is none of it."""
    if isinstance(source, (str, bytes, bytearray, memoryview, os.PathLike)):
        if isinstance(source, os.PathLike) and not isinstance(os.fspath(source), str):
            raise TypeError(f"read_games reads {_ACCEPTED}; a path of bytes is not read")
        return
    if callable(getattr(source, "read", None)):
        return
    raise TypeError(f"read_games reads {_ACCEPTED}, not {type(source).__name__}")


def _games(source: RecordSource) -> Generator[Record | RecordError, None, None]:
    if isinstance(source, (bytes, bytearray, memoryview)):
        yield from iter_source(io.BytesIO(source))
    elif isinstance(source, str) and _is_text(source):
        yield from iter_source(io.BytesIO(source.encode("utf-8", "surrogatepass")))
    elif isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        if _is_directory(path):
            yield from _directory(path)
            return
        try:
            stream = open_regular(path)
        except FileNotFoundError as e:
            raise FileNotFoundError(
                e.errno, f"{e.strerror} (to read record text, pass io.StringIO(text))", path
            ) from None
        with stream:
            yield from iter_source(stream, path)
    else:
        yield from iter_source(_binary(source), _stream_name(source))


def _is_directory(path: str) -> bool:
    try:
        return os.path.isdir(path)
    except (OSError, ValueError):
        return False  # opening it says why


def _directory(path: str) -> Iterator[Record | RecordError]:
    """The games of every record a directory search finds under ``path``,
    file by file in the order ``keilref check`` reads them: the command
    line's own walk, with its default exclusions."""
    try:
        sources = expand_paths([path])
    except PathError as e:
        # As a path that is not read: an OSError naming it, not an empty iterator.
        raise IsADirectoryError(errno.EISDIR, str(e), path) from None
    for source in sources:
        yield from read_source(source)


def read_game(source: RecordSource) -> Record:
    """The first game of ``source`` (anything :func:`read_games` reads).

    Raises the :class:`~keilref.RecordError` that stops the first game from
    being read ("no game in file" when there is none), and what
    :func:`read_games` raises: ``TypeError`` for a source of the wrong
    type, ``OSError`` for a path that is not read. Unlike python-chess's
    ``read_game``, it does not step through a stream game by game: use
    :func:`read_games` for that.
    """
    _check_source(source)
    games = _games(source)
    try:
        first = next(games)
    finally:
        games.close()
    if isinstance(first, RecordError):
        raise first
    return first


def _is_text(source: str) -> bool:
    if "\n" in source or "\r" in source:
        return True
    return source.lstrip().startswith(("[", "{")) and not os.path.exists(source)


def _stream_name(stream: IO[bytes] | IO[str]) -> str | None:
    """The file name a stream was opened with, for error messages (``None`` for others)."""
    name = getattr(stream, "name", None)
    return name if isinstance(name, str) else None


def _binary(stream: IO[bytes] | IO[str]) -> BinaryIO:
    """``stream`` as bytes: a binary stream as it is, a text stream encoded as UTF-8."""
    if isinstance(stream, io.TextIOBase) or isinstance(stream.read(0), str):
        return cast(BinaryIO, io.BufferedReader(_Utf8Encoder(cast(IO[str], stream))))
    return cast(BinaryIO, stream)


class _Utf8Encoder(io.RawIOBase):
    """A text stream read as the UTF-8 bytes of its text, a chunk at a time.

    Unpaired surrogates (text decoded with ``surrogateescape``) pass through
    as invalid UTF-8, so the parser reports them where they are.
    """

    def __init__(self, text: IO[str]) -> None:
        super().__init__()
        self._text = text
        self._pending = b""
        self._at = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        while self._at == len(self._pending):
            chunk = self._text.read(_TEXT_CHUNK)
            if not chunk:
                return 0
            self._pending = chunk.encode("utf-8", "surrogatepass")
            self._at = 0
        n = min(len(buffer), len(self._pending) - self._at)
        buffer[:n] = self._pending[self._at : self._at + n]
        self._at += n
        return n

    def close(self) -> None:
        # The text stream belongs to the caller: closing this view leaves it open.
        self._text = cast(IO[str], io.StringIO())
        super().close()
