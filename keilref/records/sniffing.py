"""Which reader a file needs: ``.keil`` records, or a match of the abstract_games server.

A file is a match when its name says so (``*.match.json``, ``*.replay.json``,
``*.moves.json``), or when it is JSON through and through: the whole of it
one JSON object of the server's shapes (one that holds ``history``,
``frames`` or ``moves``). Anything else is read as ``.keil`` records, a
record whose first comment opens as a JSON object does included. Every
reader decides so, here: ``check``, ``show``, ``stats``, ``filter``,
``import``, the library, ``fmt`` and the language server. A match is one
game, read whole (within the byte cap of a game), and it travels through
the checking machinery as the bytes of one game, as a ``.keil`` game does.
"""

from __future__ import annotations

import codecs
import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import BinaryIO, cast

from keilref import wording
from keilref.records.abstract_games import SHAPE_KEYS, Match, is_match_name, read_match
from keilref.errors import RecordError
from keilref.records.native_cut import CutRun, cut_games
from keilref.records.parser import MAX_GAME_BYTES, GameBytes, Prefixed, read_game
from keilref.records.record import Record

__all__ = [
    "ForeignBytes",
    "MatchBytes",
    "foreign_encoding",
    "is_match",
    "iter_source",
    "match_piece",
    "read_piece",
    "read_piece_match",
    "split_source",
]

_SNIFF = 4096
"""Bytes looked at first to tell a match from records: most records are told by them."""
_JSON_BLANK = " \t\n\r"
_NEAR_END = 16
"""Characters from the end of a file's first bytes within which a JSON fault
may only be the cut (a literal or a number broken off there)."""
_SNIFFER = json.JSONDecoder(parse_int=str)
"""Reads any JSON: a number past Python's limit on converted digits is text
here, and the match reader says where it is."""
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


_FOREIGN_MARKS = (
    # UTF-32's little-endian mark starts with UTF-16's: it is looked for first.
    (codecs.BOM_UTF32_LE, "UTF-32"),
    (codecs.BOM_UTF32_BE, "UTF-32"),
    (codecs.BOM_UTF16_LE, "UTF-16"),
    (codecs.BOM_UTF16_BE, "UTF-16"),
)


def foreign_encoding(data: bytes) -> str | None:
    """``UTF-16`` or ``UTF-32`` for bytes that start with that encoding's byte
    order mark (Notepad's "Unicode" is UTF-16), else ``None``. Read as UTF-8,
    such a file would be an error at every game; every reader names the
    encoding instead, once per file."""
    for mark, name in _FOREIGN_MARKS:
        if data.startswith(mark):
            return name
    return None


@dataclass(frozen=True)
class ForeignBytes(GameBytes):
    """A file in UTF-16 or UTF-32 read as UTF-8: one game's place, whose
    reading is the one error that names the encoding."""

    encoding: str = "UTF-16"

    @classmethod
    def of(cls, encoding: str) -> ForeignBytes:
        return cls(GameBytes.whole(b"").piece, 0, encoding)


def is_match(data: bytes, name: str | None = None) -> bool:
    """Whether a file, all of whose bytes are ``data``, is read as a match of
    abstract_games (else as ``.keil`` records): the one rule every reader follows
    (see the module's words)."""
    # Its first bytes tell most files apart, without decoding a large document whole.
    decided = _decided(data[:_SNIFF], name, complete=False) if len(data) > _SNIFF else None
    if decided is None:
        decided = _decided(data, name, complete=True)
    return decided is True


def _decided(data: bytes, name: str | None, *, complete: bool) -> bool | None:
    """:func:`is_match` on a file's first bytes: ``None`` while they cannot tell."""
    if name is not None and is_match_name(name):
        return True
    if len(data) > MAX_GAME_BYTES:
        return False  # past the byte cap of a game, a file is not read whole
    try:
        text = codecs.getincrementaldecoder("utf-8")().decode(data, final=complete)
    except UnicodeDecodeError:
        return False  # JSON is UTF-8
    # A byte order mark is no part of the JSON (the match reader drops it too).
    text = text[1:] if text.startswith("\ufeff") else text
    if not text.lstrip(_JSON_BLANK).startswith("{"):
        return False
    try:
        value = _SNIFFER.decode(text)
    except json.JSONDecodeError as e:
        if complete:
            return False
        # A prefix of JSON fails only where it was cut: at its end, or in a
        # string that runs to the end. A fault before that is in the file.
        return None if e.msg.startswith("Unterminated string") or e.pos >= len(text) - _NEAR_END else False
    except (ValueError, RecursionError):
        return False  # nested past what Python reads: not read whole, so not a match
    if not complete:
        return None
    return isinstance(value, dict) and any(key in value for key in SHAPE_KEYS)


def match_piece(data: bytes, size: int | None = None) -> MatchBytes:
    """A match's bytes as one game (``size``: the file's, when more than ``data``);
    over the byte cap of a game, its bytes are counted, not kept."""
    size = len(data) if size is None else size
    return MatchBytes.whole(b"", size) if size > MAX_GAME_BYTES else MatchBytes.whole(data)


def split_source(stream: BinaryIO, name: str | None = None) -> Iterator[GameBytes]:
    """:func:`split_source_runs` with every game on its own."""
    for piece in split_source_runs(stream, name):
        assert isinstance(piece, GameBytes)
        yield piece


def split_source_runs(stream: BinaryIO, name: str | None = None, *, runs: bool = False) -> Iterator[GameBytes | CutRun]:
    """The games of a file, cut but not read: a match as one piece, records as
    :func:`~keilref.records.parser.split_games` cuts them; a file in UTF-16 or
    UTF-32 as one piece that reads as the error naming it. Which it is,
    :func:`is_match` decides: from the first bytes for most files, from the
    whole for one that is still JSON there. With ``runs``, the games the
    native code cut come many to a :class:`~keilref.records.native_cut.CutRun`."""
    head = _read(stream, _SNIFF)
    foreign = foreign_encoding(head)
    if foreign is not None:
        yield ForeignBytes.of(foreign)
        return
    complete = len(head) < _SNIFF
    decided = _decided(head, name, complete=complete)
    if decided is None:
        # Still JSON after the first look: the whole file decides, read up to
        # one byte past the cap of a game (a file past it is records).
        asked = MAX_GAME_BYTES + 1 - len(head)
        more = _read(stream, asked)
        head += more
        complete = len(more) < asked
        decided = _decided(head, name, complete=complete)  # complete, or past the cap: decided
    if not decided:
        yield from cut_games(cast(BinaryIO, Prefixed(head, stream)), runs=runs)
        return
    parts, size = [head], len(head)
    while not complete:
        more = stream.read(_MATCH_CHUNK)
        if not more:
            break
        size += len(more)
        if size <= MAX_GAME_BYTES:
            parts.append(more)
        else:
            parts = []  # over the cap: counted, not kept
    yield match_piece(b"".join(parts), size)


def _read(stream: BinaryIO, n: int) -> bytes:
    """``n`` bytes of ``stream``, fewer only at its end (a pipe gives what it has)."""
    parts: list[bytes] = []
    got = 0
    while got < n:
        more = stream.read(min(n - got, _MATCH_CHUNK))
        if not more:
            break
        parts.append(more)
        got += len(more)
    return b"".join(parts)


def read_piece_match(piece: GameBytes, filename: str | None = None) -> tuple[Record | RecordError | None, Match | None]:
    """Read one cut game: its record (or the error reading it, or ``None`` for
    blank space between games), and for a match, the match read."""
    if isinstance(piece, ForeignBytes):
        return RecordError(wording.foreign_byte_order_mark(piece.encoding), 1, 1, None, filename), None
    try:
        if not isinstance(piece, MatchBytes) or piece.piece.too_large:
            return read_game(piece, filename), None
        match = read_match(piece.data, filename)
    except RecordError as e:
        return e, None
    except Exception as e:  # noqa: BLE001
        # A reader's bug must cost one game, never the games and files after it.
        return RecordError(wording.internal_error("reading", e), piece.first_line, 1, None, filename), None
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
