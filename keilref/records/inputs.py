"""Which reader a file needs: ``.keil`` records, or a match of the abstract_games server.

A file is a match when its name says so (``*.match.json``, ``*.replay.json``,
``*.moves.json``) or when its first bytes are a JSON object's; anything else
is read as ``.keil`` records. A match is one game, read whole (within the
byte cap of a game), and it travels through the checking machinery as the
bytes of one game, as a ``.keil`` game does.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from typing import BinaryIO, cast

from keilref.records.abstract_games import Match, is_match_name, looks_like_match, read_match
from keilref.errors import RecordError
from keilref.records.parser import MAX_GAME_BYTES, GameBytes, read_game, split_games
from keilref.records.record import Record

__all__ = ["MatchBytes", "iter_source", "read_piece", "read_piece_match", "split_source"]

_SNIFF = 4096
"""Bytes looked at to tell a match from records."""
_MATCH_CHUNK = 1 << 16
"""Bytes asked for per read of a match: most are far smaller than a chunk of records."""


class MatchBytes(GameBytes):
    """The bytes of a file that holds one match."""

    @property
    def first_line(self) -> int:
        return 1

    @property
    def counts(self) -> bool:
        return True


def split_source(stream: BinaryIO, name: str | None = None) -> Iterator[GameBytes]:
    """The games of a file, cut but not read: a match as one piece, records as
    :func:`~keilref.records.parser.split_games` cuts them."""
    head = b""
    while len(head) < _SNIFF:
        more = stream.read(_SNIFF - len(head))
        if not more:
            break
        head += more
    if not ((name is not None and is_match_name(name)) or looks_like_match(head)):
        yield from split_games(cast(BinaryIO, _Prefixed(head, stream)))
        return
    parts, size = [head], len(head)
    while len(head) == _SNIFF:  # else the file ended within the bytes looked at
        more = stream.read(_MATCH_CHUNK)
        if not more:
            break
        size += len(more)
        if size <= MAX_GAME_BYTES:
            parts.append(more)
        else:
            parts = []  # over the cap: counted, not kept
    yield MatchBytes.whole(b"".join(parts), size) if size > MAX_GAME_BYTES else MatchBytes.whole(b"".join(parts))


def read_piece_match(piece: GameBytes, filename: str | None = None) -> tuple[Record | RecordError | None, Match | None]:
    """Read one cut game: its record (or the error reading it, or ``None`` for
    blank space between games), and for a match, the match read."""
    if not isinstance(piece, MatchBytes) or piece.piece.too_large:
        return read_game(piece, filename), None
    try:
        match = read_match(piece.data, filename)
    except RecordError as e:
        return e, None
    return match.record, match


def read_piece(piece: GameBytes, filename: str | None = None) -> Record | RecordError | None:
    """:func:`read_piece_match`'s record alone."""
    return read_piece_match(piece, filename)[0]


def iter_source(stream: BinaryIO, name: str | None = None) -> Iterator[Record | RecordError]:
    """Every game of a file, read, in order (a match is one)."""
    for piece in split_source(stream, name):
        item = read_piece(piece, name)
        if item is not None:
            yield item


class _Prefixed(io.RawIOBase):
    """A stream read again from its start, after its first bytes were taken to look at."""

    def __init__(self, head: bytes, rest: BinaryIO) -> None:
        super().__init__()
        self._head = head
        self._rest = rest

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        # Each read is the stream's own: a damaged compressed stream still
        # gives up what it read before the damage, as when it is read directly.
        if self._head:
            head, self._head = self._head, b""
            return head
        return self._rest.read(size)

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        if self._head:
            n = min(len(buffer), len(self._head))
            buffer[:n] = self._head[:n]
            self._head = self._head[n:]
            return n
        data = self._rest.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)

    def close(self) -> None:
        # The stream belongs to whoever opened it: closing this view leaves it open.
        self._head = b""
        super().close()
