"""Cutting a file into games in the fast build's native code, where it can.

The fast build (``KEILREF_COMPILE=1``) carries :mod:`keilref._native`; this
module is the one place that says whether it is used (``KEILREF_NATIVE=0``
turns it off). :func:`cut_games` cuts as :func:`~keilref.records.parser.split_games`
does, the same pieces byte for byte (a test holds them equal), as long as
the text has no comment, no ``;`` and nothing outside ASCII; from the game
where it meets one, it hands the rest of the file to ``split_games``.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import os
from collections.abc import Iterator
from dataclasses import dataclass
from types import ModuleType
from typing import BinaryIO, cast

from keilref.records.parser import CHUNK_SIZE, MAX_GAME_BYTES, GameBytes, Prefixed, split_games

def _import_native() -> ModuleType | None:
    try:
        # By name: the module exists only in the fast build, beside the package's source.
        return importlib.import_module("keilref._native")
    except ImportError:  # the pure build
        return None


_built = _import_native()


_off = 0
"""How many :func:`native_off` blocks are open."""


def native_module() -> ModuleType | None:
    """The native code, when this is the fast build, ``KEILREF_NATIVE`` is not
    ``0`` and no :func:`native_off` block is open."""
    if _built is None or _off or os.environ.get("KEILREF_NATIVE", "1") == "0":
        return None
    return _built


@contextlib.contextmanager
def native_off() -> Iterator[None]:
    """Everything within is cut and judged by Python alone (games met again
    after a worker running native code died)."""
    global _off
    _off += 1
    try:
        yield
    finally:
        _off -= 1


def is_built() -> bool:
    """Whether this installation carries the native code (the fast build)."""
    return _built is not None


_LONG_GAME_CHUNKS = 4
"""A game not yet cut after this many chunks is cut by ``split_games``, which
reads on from where it stopped instead of from the game's start."""


NATIVE_CHUNK_SIZE = 1 << 18
"""Bytes the native cut reads at a time. It cuts a whole read at once, so a
smaller read than ``split_games``'s keeps fewer cut games waiting: with it,
a check holds no more memory than with the Python cut."""


@dataclass(frozen=True)
class CutRun:
    """Whole games in a row as the native cut found them, not yet made
    into :class:`~keilref.records.parser.GameBytes`: their bytes, where the
    first starts, and how many there are. A main process hands such a run
    to a worker as it is, and the worker makes the games (:meth:`pieces`)."""

    data: bytes
    line: int
    """The line of ``data``'s first byte in its file."""
    column: int
    """The characters before it on that line."""
    first: bool
    """Whether the run starts the file."""
    games: int

    def pieces(self) -> list[GameBytes]:
        """The run's games, as the file's cut made them (a test holds the two equal)."""
        resume = None if self.first else (self.line, self.column)
        native = native_module()
        if native is None:
            return list(split_games(io.BytesIO(self.data), resume=resume))
        pieces, *_ = native.cut(self.data, 0, self.line, self.column, True, MAX_GAME_BYTES)
        return list(_games(self.data, pieces, self.first))


def _games(data: bytes | memoryview, pieces: list[tuple[int, int, int, int]], first: bool) -> Iterator[GameBytes]:
    """The games the native cut found in ``data``, as ``(begin, end, line, column)``;
    ``first``: the first of them starts the file."""
    for begin, end, line, column in pieces:
        yield GameBytes.plain(bytes(data[begin:end]), line, first, column)
        first = False


def cut_games(
    stream: BinaryIO, *, chunk_size: int | None = None, max_game_bytes: int = MAX_GAME_BYTES, runs: bool = False
) -> Iterator[GameBytes | CutRun]:
    """:func:`~keilref.records.parser.split_games` of a whole file, in native
    code where it can; with ``runs``, what the native code cut comes as
    :class:`CutRun` pieces of many games each."""
    native = native_module()
    if native is None:
        yield from split_games(stream, chunk_size=chunk_size or CHUNK_SIZE, max_game_bytes=max_game_bytes)
        return
    chunk_size = chunk_size or NATIVE_CHUNK_SIZE
    cut = native.cut
    # Appended to and trimmed in place, as split_games keeps its buffer: a
    # copy a chunk would hold the file's bytes twice over at times.
    buf = bytearray()
    start, line, column, first = 0, 1, 0, True
    while True:
        data = stream.read(chunk_size)
        eof = not data
        del buf[:start]
        buf += data
        view = memoryview(buf)
        try:
            pieces, start, line, column, status = cut(view, 0, line, column, eof, max_game_bytes)
            if runs and pieces:
                begin, _, at, offset = pieces[0]
                yield CutRun(bytes(view[begin : pieces[-1][1]]), at, offset, first, len(pieces))
                first = False
            elif pieces:
                yield from _games(view, pieces, first)
                first = False
        finally:
            view.release()
        if status == native.CUT_DONE:
            return
        if status == native.CUT_STOP or len(buf) - start > _LONG_GAME_CHUNKS * chunk_size:
            rest = Prefixed(bytes(buf[start:]), stream)
            resume = None if first else (line, column)
            yield from split_games(
                cast(BinaryIO, rest), chunk_size=chunk_size, max_game_bytes=max_game_bytes, resume=resume
            )
            return
