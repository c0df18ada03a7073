"""Reading ``.keil`` record files: text -> :class:`~keilref.records.record.Record`.

Two layers:

* :func:`parse_record` reads the text of one game. The scanner
  (:mod:`keilref.records.scanner`) reads a well-formed game; whatever it declines,
  the grammar (:mod:`keilref.records.grammar`) reads, and says in words what is
  wrong. Both build the same records.
* :func:`iter_games` reads a file of many games as a stream: a cheap
  byte-level scanner cuts it into games (respecting comments and quoted tag
  values), and each game is decoded and parsed on its own. Memory stays about
  one game whatever the file's size, and one broken game does not stop the
  ones after it.

Every fault a user can make becomes a :class:`~keilref.errors.RecordError`
with a line and a column counted from the start of the file.
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable, Iterator
import dataclasses
from dataclasses import dataclass
from typing import BinaryIO, Self

from keilref.errors import RecordError, RecordSyntaxError
from keilref.records import limits
from keilref.records.record import Record
from keilref.records.scanner import TurnCapPassed, scan_game

__all__ = [
    "CHUNK_SIZE",
    "GameBytes",
    "MAX_GAME_BYTES",
    "MAX_TURNS",
    "iter_games",
    "parse_games",
    "parse_record",
    "read_game",
    "split_games",
]

CHUNK_SIZE = 1 << 20
"""Bytes asked of the stream per read by :func:`iter_games`."""

MAX_GAME_BYTES = limits.MAX_GAME_BYTES
MAX_TURNS = limits.MAX_TURNS
"""The caps, as :mod:`keilref.records.limits` states them (read there at run time)."""


# --------------------------------------------------------------------------
# One game


_CR_LF = re.compile(r"\r+\n")


def parse_record(text: str, *, filename: str | None = None, line_offset: int = 0) -> Record:
    """Read the text of one game.

    ``line_offset`` is the number of lines before ``text`` in its file, so
    that every position (and every error) is counted from the start of the
    file. A leading byte order mark is skipped; CRLF line ends are read as LF.
    Raises :class:`~keilref.errors.RecordSyntaxError`.
    """
    if text.startswith("\ufeff"):
        text = text[1:]
    return _parse_game(text, filename, line_offset, 0)


def _parse_game(text: str, filename: str | None, line_offset: int, column_offset: int) -> Record:
    """:func:`parse_record`, for a game that may start part way along its
    first line (``column_offset`` characters in)."""
    if "\r" in text:
        text = _CR_LF.sub("\n", text)
    # Well-formed games take the fast path; the grammar reads the rest and
    # says what is wrong (keilref.records.scanner declines whatever it is not sure of).
    try:
        record = scan_game(text, line_offset, column_offset)
    except TurnCapPassed as passed:
        raise _over_the_cap(text, filename, line_offset, column_offset, passed.first_line) from None
    if record is None:
        from keilref.records.grammar import parse_with_grammar  # only for games the scanner declines

        return parse_with_grammar(text, filename, line_offset, column_offset)
    if len(record.moves) > limits.MAX_TURNS:
        raise _over_the_cap(text, filename, line_offset, column_offset, record.line)
    return record


def _over_the_cap(text: str, filename: str | None, line_offset: int, column_offset: int, first_line: int) -> RecordError:
    """A game over the turn cap, refused as the grammar words it, without
    reading it again: the scanner read it whole, or read well-formed turns
    past the cap and stopped there."""
    from keilref.records.grammar import too_many_turns

    return too_many_turns(text, filename, line_offset, column_offset, first_line)


# --------------------------------------------------------------------------
# Files of many games


@dataclass(frozen=True)
class _Piece:
    """The bytes of one game as cut from a file."""

    data: bytes
    line: int
    """The line of ``data[0]`` in the file."""
    empty: bool
    """Nothing but white space and (closed) comments."""
    first: bool
    """The first piece of the file."""
    size: int = 0
    """The game's length in bytes; when over the cap, ``data`` is empty."""
    head_line: int = 0
    """For a game over the cap: the line of its first tag (or of its start)."""
    tail: tuple[bool, int] = (False, 0)
    """For a game over the cap: whether it holds a line break, and how many
    characters follow its last one (or it all)."""
    cut_by_tag: int = 0
    """The line of the tag line that ended an unclosed ``{`` comment of this
    game, or 0: the comment then probably lacks its ``}``."""

    @property
    def too_large(self) -> bool:
        """Over the cap: not kept, so not parsed."""
        return self.size != len(self.data)


_SPECIAL = re.compile(rb"[\[{;]")
# White space as the grammar sees it (its WS: space, tab, line feed, carriage
# return and the byte order mark), in UTF-8, so that the splitter and the
# parser agree on what separates tokens. Any other character, a form feed or
# a no-break space included, is something to read: a game of its own if it
# stands between games, and an error at that character.
_BLANK_BYTES = re.compile(rb"(?:[ \t\n\r]|\xef\xbb\xbf)*")
_BLANK_LEADS = b"\xef"
"""First bytes of the multi-byte blanks (the byte order mark): a chunk may end part way through one."""
_BOM = b"\xef\xbb\xbf"
_FIRST_TAG = re.compile(rb"^(?:[ \t]|\xef\xbb\xbf)*\[", re.MULTILINE)

# A tag from its '[' to its ']' or the end of its line, quotes respected, so
# that a '{', ';' or ']' inside a value is not taken for anything else. Read
# as three runs (before the value, in it, after it), each resumed where the
# last read stopped: where a read ends can never change where a tag ends.
_TAG_RUNS = (
    re.compile(rb'[^\]\n"]*'),
    re.compile(rb'(?:[^"\\\n]|\\[^\n])*'),
    re.compile(rb"[^\]\n]*"),
)

# The three runs in one, for the common case of a whole tag in the bytes read:
# a match ends at the ']' where the runs would end, having looked at the same
# bytes, so where reads fall still changes nothing.
_WHOLE_TAG = re.compile(rb'\[[^\]\n"]*(?:"(?:[^"\\\n]|\\[^\n])*"[^\]\n]*)?\]')

# A tag line inside a comment: ``[Name "value"]`` at the start of a line,
# after blanks (the grammar's TAG). Matched state by state, so that a search
# cut by a read resumes where it stopped instead of starting again.
_LINE_DEAD, _LINE_LEAD, _LINE_OPEN, _LINE_NAME, _LINE_GAP, _LINE_VALUE, _LINE_CLOSE = range(7)
_LINE_NEXT = re.compile(rb"\n[ \t]*(?:\[|\Z)")
_LINE_RUNS = {
    _LINE_LEAD: re.compile(rb"[ \t]*"),
    _LINE_OPEN: re.compile(rb"[ \t]*"),
    _LINE_NAME: re.compile(rb"[A-Za-z0-9_]*"),
    _LINE_GAP: re.compile(rb"[ \t]*"),
    _LINE_VALUE: re.compile(rb'(?:[^"\\\n]|\\["\\])*'),
    _LINE_CLOSE: re.compile(rb"[ \t]*"),
}
_LETTERS = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
_NOT_CONTINUATION = bytes(range(0x80)) + bytes(range(0xC0, 0x100))


def _chars(data: bytes | bytearray) -> int:
    """Characters in UTF-8 bytes, counted so that any split adds up."""
    return len(data) - len(data.translate(None, _NOT_CONTINUATION))


class _Splitter:
    """Cuts a byte stream into games, holding about one game in memory.

    A game starts at a ``[`` at top level (not in a comment or a tag value)
    once the game before it has had something other than tags, or at a tag
    line (``[Name "value"]`` at the start of a line) inside a ``{`` comment:
    that comment then probably lacks its ``}``. The scanner jumps from one
    ``[``, ``{`` or ``;`` to the next with a compiled regex, so the moves
    themselves are only ever looked at by C code, and every search resumes
    where the last read stopped: time is linear in the input, and where the
    reads fall changes nothing.

    Positions are offsets in the file; ``buf`` holds the bytes from ``base``
    on, and is trimmed to the start of the current game before each read. A
    game longer than ``max_bytes`` is not kept: it is scanned to its end
    (to find the next game) holding only what the scan still needs.
    """

    def __init__(self, stream: BinaryIO, chunk_size: int, max_bytes: int) -> None:
        self.stream = stream
        self.chunk_size = chunk_size
        self.max_bytes = max_bytes
        self.buf = bytearray()  # appended to in place: reading a long game stays linear
        self.base = 0
        self.eof = False
        self.no_close: tuple[int, int, bool] = (0, 0, False)
        """No '}' in ``[lo, hi)``; if the flag is set, one at ``hi``: so that many
        unclosed comments do not each search the same bytes for a '}'."""
        # The current game.
        self.start = 0
        self.keep = 0
        self.too_large = False
        self.dropped_lines = 0
        self.dropped_tail = (False, 0)

    @property
    def end(self) -> int:
        return self.base + len(self.buf)

    def _reached(self, position: int) -> None:
        """Everything before ``position`` belongs to the current game."""
        self.keep = position
        if position - self.start > self.max_bytes:
            self.too_large = True

    def _more(self) -> bool:
        """Drop the bytes no longer needed, then read a chunk.
        ``False`` at the end of the file."""
        if self.eof:
            return False
        if self.start > self.base:
            del self.buf[: self.start - self.base]
            self.base = self.start
        if self.too_large and self.keep > self.base:
            # Past the cap: what the scan has passed is counted, not kept.
            dropped = self.buf[: self.keep - self.base]
            newline = dropped.rfind(b"\n")
            self.dropped_lines += dropped.count(b"\n")
            if newline >= 0:
                self.dropped_tail = (True, _chars(dropped[newline + 1 :]))
            else:
                self.dropped_tail = (self.dropped_tail[0], self.dropped_tail[1] + _chars(dropped))
            del self.buf[: self.keep - self.base]
            self.base = self.keep
        data = self.stream.read(self.chunk_size)
        if not data:
            self.eof = True
            return False
        self.buf += data
        return True

    def _blank_end(self, begin: int) -> int:
        """Where the white space (and byte order marks) from ``begin`` end."""
        m = _BLANK_BYTES.match(self.buf, begin - self.base)
        assert m is not None  # the pattern matches the empty string
        return m.end() + self.base

    def _blank(self, begin: int, end: int) -> bool:
        """Only white space (or byte order marks) between the two offsets?"""
        return _BLANK_BYTES.fullmatch(self.buf, begin - self.base, end - self.base) is not None

    def _line_of(self, line: int, position: int) -> int:
        lo = max(self.start, self.base) - self.base
        return line + self.dropped_lines + self.buf.count(b"\n", lo, position - self.base)

    def pieces(self, line: int = 1, first: bool = True) -> Iterator[_Piece]:
        """The pieces, the stream starting at ``line`` of its file; not
        ``first``, it starts where a game of the file starts (a cut resumed
        there cuts the rest as the whole file's cut does)."""
        while first and len(self.buf) < 3 and self._more():
            pass
        # A byte order mark is one only at the start of the file; elsewhere it is white space.
        if first and self.buf.startswith(_BOM):
            del self.buf[:3]
            self.base = 3
        self.start = self.keep = self.base  # where the current game starts
        i = self.start  # where scanning resumes
        tokens = False  # the current game has had something other than tags
        content = False  # ... or at least a tag or a broken comment
        head = 0  # the line of the current game's first tag, once seen

        def cut(end: int, cut_by_tag: int = 0) -> _Piece:
            nonlocal line, tokens, content, first, head
            lo, hi = max(self.start, self.base) - self.base, end - self.base
            size = end - self.start
            if size > self.max_bytes:
                kept = self.buf[lo:hi]
                newline = kept.rfind(b"\n")
                if newline >= 0:
                    tail = (True, _chars(kept[newline + 1 :]))
                else:
                    tail = (self.dropped_tail[0], self.dropped_tail[1] + _chars(kept))
                piece = _Piece(b"", line, not content, first, size, head or line, tail, cut_by_tag)
            else:
                piece = _Piece(bytes(self.buf[lo:hi]), line, not content, first, size, 0, (False, 0), cut_by_tag)
            line = self._line_of(line, end)
            self.start = self.keep = end
            self.too_large = False
            self.dropped_lines = 0
            self.dropped_tail = (False, 0)
            tokens, content, first, head = False, False, False, 0
            return piece

        while True:
            m = _SPECIAL.search(self.buf, i - self.base)
            if m is None:
                end = self.end
                if not tokens:
                    blank_end = self._blank_end(i)
                    rest = self.buf[blank_end - self.base : blank_end - self.base + 3]
                    if rest and (self.eof or end - blank_end >= 3 or rest[0] not in _BLANK_LEADS):
                        tokens = content = True
                        i = end
                    else:
                        i = blank_end  # maybe a blank cut in two by the chunk: wait
                else:
                    i = end
                if self.eof:
                    break
                self._reached(i)
                self._more()
                continue
            j = m.start() + self.base
            if not tokens and not self._blank(i, j):
                tokens = content = True
            c = self.buf[j - self.base]
            if c == 0x5B:  # '['
                if tokens:
                    yield cut(j)
                if not head:
                    head = self._line_of(line, j)
                content = True
                i = self._skip_tag(j)
            elif c == 0x7B:  # '{'
                close, tag_line = self._comment_end(j)
                if close is not None:
                    i = close + 1
                    continue
                content = True
                if tag_line is None:
                    i = self.end
                    break
                # A tag line inside the comment: the '}' is probably missing,
                # and the next game starts at that line.
                yield cut(tag_line, self._line_of(line, tag_line))
                i = tag_line
            else:  # ';'
                i = self._line_end(j)
        if self.start < self.end or first:
            yield cut(self.end)

    def _skip_tag(self, j: int) -> int:
        """The offset just after the tag at ``j`` (or at its line's end, if
        broken), reading on until the tag is complete."""
        whole = _WHOLE_TAG.match(self.buf, j - self.base)
        if whole is not None:
            return whole.end() + self.base
        state, p = 0, j + 1
        while True:
            m = _TAG_RUNS[state].match(self.buf, p - self.base)
            assert m is not None  # every run matches the empty string
            e = m.end() + self.base
            if e < self.end:
                c = self.buf[e - self.base]
                if c == 0x0A:  # '\n': a broken tag ends with its line
                    return e
                if state == 1:
                    if c == 0x22:  # the closing '"'
                        state, p = 2, e + 1
                        continue
                    if e + 1 < self.end:  # a '\' before the line's end
                        state, p = 2, e
                        continue
                    p = e  # a '\' at the end of the bytes read: wait for the next
                elif c == 0x5D:  # ']'
                    return e + 1
                else:  # the opening '"'
                    state, p = 1, e + 1
                    continue
            else:
                p = e
            self._reached(p)
            if not self._more():
                return self.end

    def _line_end(self, j: int) -> int:
        """The offset after the end of the line holding ``j``."""
        searched = j
        while True:
            newline = self.buf.find(b"\n", searched - self.base)
            if newline >= 0:
                return newline + self.base + 1
            searched = self.end
            self._reached(searched)
            if not self._more():
                return self.end

    def _comment_end(self, j: int) -> tuple[int | None, int | None]:
        """Where the comment opened at ``j`` closes, reading on as needed.

        Returns ``(offset of '}', None)``; or ``(None, start of the tag line)``
        when a whole tag line comes before any ``}``; or ``(None, None)``
        when the file ends first.
        """
        searched = j + 1
        state, p, line_start = _LINE_DEAD, j + 1, j + 1
        while True:
            limit = self._find_close(searched)
            close = limit if limit >= 0 else -1
            if limit < 0:
                limit = self.end
            state, p, line_start, found = self._tag_line(state, p, line_start, limit)
            if found:
                return None, line_start
            if close >= 0:
                return limit, None
            searched = self.end
            self._reached(p if state == _LINE_DEAD else line_start)
            if not self._more():
                return None, None

    def _find_close(self, q: int) -> int:
        """The offset of the first '}' at or after ``q`` in the bytes read, or -1."""
        lo, hi, found = self.no_close
        begin = hi if lo <= q <= hi else q
        if found and lo <= q <= hi:
            return hi
        r = self.buf.find(b"}", begin - self.base)
        if r >= 0:
            self.no_close = (q, r + self.base, True)
            return r + self.base
        self.no_close = (q, self.end, False)
        return -1

    def _tag_line(self, state: int, p: int, line_start: int, limit: int) -> tuple[int, int, int, bool]:
        """Match tag lines in ``[p, limit)``, from ``state``; the first whole
        one found gives ``found``, else the state to resume from."""
        buf, base = self.buf, self.base
        while p < limit:
            if state == _LINE_DEAD:
                m = _LINE_NEXT.search(buf, p - base, limit - base)
                if m is None:
                    return state, limit, line_start, False
                line_start = m.start() + 1 + base
                p = m.end() + base
                state = _LINE_OPEN if buf[m.end() - 1] == 0x5B else _LINE_LEAD
                continue
            run = _LINE_RUNS[state].match(buf, p - base, limit - base)
            assert run is not None
            e = run.end() + base
            if e >= limit:
                return state, e, line_start, False
            c = buf[e - base]
            if state == _LINE_LEAD:
                state = _LINE_OPEN if c == 0x5B else _LINE_DEAD
            elif state == _LINE_OPEN:
                state = _LINE_NAME if c in _LETTERS else _LINE_DEAD
            elif state == _LINE_NAME:
                state = _LINE_GAP if c in (0x20, 0x09) else _LINE_VALUE if c == 0x22 else _LINE_DEAD
                if state == _LINE_GAP:
                    p = e
                    continue
            elif state == _LINE_GAP:
                state = _LINE_VALUE if c == 0x22 else _LINE_DEAD
            elif state == _LINE_VALUE:
                if c == 0x5C and e + 1 >= limit:  # a '\' at the end of what is read
                    return state, e, line_start, False
                state = _LINE_CLOSE if c == 0x22 else _LINE_DEAD
            else:  # _LINE_CLOSE
                if c == 0x5D:
                    return state, e + 1, line_start, True
                state = _LINE_DEAD
            p = e if state == _LINE_DEAD else e + 1
        return state, p, line_start, False


def _decode(piece: _Piece, column_offset: int, filename: str | None) -> tuple[str, RecordError | None]:
    """The text of a game, and an error if it is not valid UTF-8."""
    try:
        return piece.data.decode("utf-8"), None
    except UnicodeDecodeError as e:
        data = piece.data
        line_start = data.rfind(b"\n", 0, e.start) + 1
        line_end = data.find(b"\n", e.start)
        if line_end < 0:
            line_end = len(data)
        before = data[line_start : e.start].decode("utf-8", "replace")
        column = len(before) + 1 + (column_offset if line_start == 0 else 0)
        source = data[line_start:line_end].decode("utf-8", "replace").rstrip("\r")
        if line_start == 0 and column_offset:
            source = " " * column_offset + source
        bad = data[e.start]
        error = RecordSyntaxError(
            f"the text is not valid UTF-8 here (byte 0x{bad:02x}): re-save the file as UTF-8, "
            "or read it with --encoding (such as --encoding cp1252)",
            piece.line + data.count(b"\n", 0, e.start),
            column,
            source,
            filename,
        )
        return data.decode("utf-8", "replace"), error


@dataclass(frozen=True)
class GameBytes:
    """One game's raw bytes as cut from its file, not yet decoded or parsed.

    Cutting is cheap and parsing is not, so a file is cut in one process and
    the games can be parsed in others (see :mod:`keilref.referee.batches`).
    """

    piece: _Piece
    column_offset: int
    """The column of the first byte, when the game starts mid-line."""

    @classmethod
    def plain(cls, data: bytes, line: int, first: bool, column_offset: int) -> GameBytes:
        """A whole game as a cut makes one (not empty, not over the cap, not
        cut by a tag): what a cut that needs no more than that makes of each
        game, the quickest way (see :func:`_plain_maker`)."""
        return _plain_game(data, line, first, column_offset)

    @classmethod
    def whole(cls, data: bytes, size: int | None = None) -> Self:
        """A whole file as one game, for a format read in one piece; given a
        ``size`` over the cap (and no ``data``), it reads as too large."""
        return cls(_Piece(data, 1, False, True, len(data) if size is None else size, 1), 0)

    @property
    def data(self) -> bytes:
        return self.piece.data

    @property
    def first_line(self) -> int:
        """Where the game starts: the line of its first tag, as :attr:`Record.line`
        says for a game that parses (else its first line that is not blank)."""
        if self.piece.too_large:
            return self.piece.head_line
        data = self.piece.data
        tag = _FIRST_TAG.search(data)
        if tag is not None:
            start = tag.start()
        else:
            blanks = _BLANK_BYTES.match(data)
            assert blanks is not None  # the pattern matches the empty string
            start = blanks.end()
        return self.piece.line + data.count(b"\n", 0, start)

    @property
    def counts(self) -> bool:
        """Whether this is a game (or the "no game in file" error), not space between games."""
        return not self.piece.empty or self.piece.first

    def moved(self, lines: int) -> GameBytes:
        """The same game ``lines`` further down its file (up, when negative)."""
        p = self.piece
        head = p.head_line + lines if p.head_line else 0
        by_tag = p.cut_by_tag + lines if p.cut_by_tag else 0
        piece = _Piece(p.data, p.line + lines, p.empty, p.first, p.size, head, p.tail, by_tag)
        return GameBytes(piece, self.column_offset)


def _plain_maker() -> Callable[[bytes, int, bool, int], GameBytes]:
    """How :meth:`GameBytes.plain` makes a game: a frozen dataclass sets each
    field through ``object.__setattr__``, most of the cost of a cut game, so
    its fields are given to its ``__dict__`` at once; checked here against
    the constructors, which are used whenever the classes are not plain
    dataclasses holding just those fields."""
    fields = tuple(f.name for f in dataclasses.fields(_Piece))
    plain_classes = all(
        hasattr(cls, "__dict__") and not hasattr(cls, "__post_init__") and not vars(cls).get("__slots__")
        for cls in (_Piece, GameBytes)
    )

    def construct(data: bytes, line: int, first: bool, column_offset: int) -> GameBytes:
        return GameBytes(_Piece(data, line, False, first, len(data)), column_offset)

    if not plain_classes or fields != ("data", "line", "empty", "first", "size", "head_line", "tail", "cut_by_tag"):
        return construct
    new = object.__new__
    no_tail = (False, 0)

    def make(data: bytes, line: int, first: bool, column_offset: int) -> GameBytes:
        piece = new(_Piece)
        piece.__dict__.update(
            data=data, line=line, empty=False, first=first, size=len(data), head_line=0, tail=no_tail, cut_by_tag=0
        )
        game = new(GameBytes)
        game.__dict__.update(piece=piece, column_offset=column_offset)
        return game

    if make(b"[x]", 3, True, 2) == construct(b"[x]", 3, True, 2):
        return make
    return construct


_plain_game = _plain_maker()


class Prefixed(io.RawIOBase):
    """A stream read again from its start, after its first bytes were taken
    to look at (or bytes already read, then the rest of the stream)."""

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
            n = len(self._head) if size is None or size < 0 else size
            head, self._head = self._head[:n], self._head[n:]
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


def split_games(
    stream: BinaryIO,
    *,
    chunk_size: int = CHUNK_SIZE,
    max_game_bytes: int = MAX_GAME_BYTES,
    resume: tuple[int, int] | None = None,
) -> Iterator[GameBytes]:
    """Cut a record file into games without parsing them, ``chunk_size`` bytes at a time.

    A game longer than ``max_game_bytes`` is not kept (its :class:`GameBytes`
    reads as an error); the games after it are cut all the same.

    ``resume`` is ``(line, column_offset)`` of a stream that starts where a
    game of its file starts, not the first: the line of its first byte, and
    the characters before it on that line. The games are then cut and
    placed as the whole file's cut has them from there on
    (:mod:`keilref.records.cutting` cuts an edited document again so).
    """
    line, column_offset = (1, 0) if resume is None else resume
    pieces = _Splitter(stream, chunk_size, max_game_bytes).pieces(line, first=resume is None)
    for piece in pieces:
        yield GameBytes(piece, column_offset)
        if piece.too_large:
            newline, tail = piece.tail
            column_offset = tail if newline else column_offset + tail
            continue
        data = piece.data
        last = data.rfind(b"\n")
        tail = len(data[last + 1 :].decode("utf-8", "replace"))
        column_offset = tail if last >= 0 else column_offset + tail


def read_game(game: GameBytes, filename: str | None = None) -> Record | RecordError | None:
    """Decode and parse one cut game; ``None`` for blank space between games."""
    piece = game.piece
    if piece.too_large:
        return RecordError(
            f"game too large: {piece.size:,} bytes, over the limit of {MAX_GAME_BYTES:,} a game may have; "
            "it was not read",
            piece.head_line,
            1,
            None,
            filename,
        )
    text, error = _decode(piece, game.column_offset, filename)
    if error is not None:
        return error
    if piece.empty:
        return RecordError("no game in file", 1, 1, None, filename) if piece.first else None
    try:
        return _parse_game(text, filename, piece.line - 1, game.column_offset)
    except RecordError as e:
        from keilref.records.grammar import UNCLOSED_COMMENT  # the grammar worded e, so it is loaded

        if piece.cut_by_tag and e.message == UNCLOSED_COMMENT:
            e.message = f"{UNCLOSED_COMMENT} before the tag on line {piece.cut_by_tag} (a '}}' is probably missing)"
            e.args = (e.message,)
        return e


def iter_games(
    stream: BinaryIO,
    filename: str | None = None,
    *,
    chunk_size: int = CHUNK_SIZE,
    max_game_bytes: int = MAX_GAME_BYTES,
) -> Iterator[Record | RecordError]:
    """Read the games of a record file, one at a time, from a binary stream.

    Yields a :class:`Record` per game, or the :class:`RecordError` that stops
    it; the games after a broken one are read all the same. The stream is
    read ``chunk_size`` bytes at a time and about one game is held in memory.
    A file without any game yields one error, "no game in file", at 1:1.
    """
    for game in split_games(stream, chunk_size=chunk_size, max_game_bytes=max_game_bytes):
        item = read_game(game, filename)
        if item is not None:
            yield item


def parse_games(text: str, filename: str | None = None) -> list[Record | RecordError]:
    """Every game in ``text`` (see :func:`iter_games`)."""
    data = text.encode("utf-8", "surrogatepass")
    return list(iter_games(io.BytesIO(data), filename))
