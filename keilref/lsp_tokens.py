"""Semantic tokens for the language server: a record's words
(:mod:`keilref.records.highlight`) as LSP's token types, its illegal turns
(:mod:`keilref.referee.marks`) with the ``illegal`` modifier.

Standard LSP types stand for the classes they fit, so an editor colours a
record with its own theme and no grammar installed; a variation's
parentheses have no standard type and are ``parenthesis``. The legend, and
the TextMate scope of each class (``editors/keil.tmLanguage.json``), are in
``docs/editors.md``.
"""

from __future__ import annotations

import asyncio
import bisect
import itertools
import re
from array import array
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from lsprotocol import types as lsp

from keilref.records.highlight import Kind, Piece, pieces

__all__ = ["BATCH", "LEGEND", "WHOLE_AT_MOST", "MODIFIERS", "SCOPES", "TYPES", "Highlights", "Located", "located", "lsp_line_starts"]

TYPES: dict[Kind, str] = {
    Kind.TAG_NAME: lsp.SemanticTokenTypes.Property.value,
    Kind.TAG_VALUE: lsp.SemanticTokenTypes.String.value,
    Kind.MOVE_NUMBER: lsp.SemanticTokenTypes.Number.value,
    Kind.POINT: lsp.SemanticTokenTypes.Variable.value,
    Kind.WORD: lsp.SemanticTokenTypes.Keyword.value,
    Kind.RESULT: lsp.SemanticTokenTypes.EnumMember.value,
    Kind.COMMENT: lsp.SemanticTokenTypes.Comment.value,
    Kind.CLOCK: lsp.SemanticTokenTypes.Decorator.value,
    Kind.GLYPH: lsp.SemanticTokenTypes.Operator.value,
    Kind.PARENTHESIS: "parenthesis",
}
"""The LSP token type of each class; text no terminal matches gets none
(its diagnostic marks it)."""

SCOPES: dict[Kind, tuple[str, ...]] = {
    Kind.TAG_NAME: ("entity.name.tag.keil",),
    Kind.TAG_VALUE: ("string.quoted.double.keil",),
    Kind.MOVE_NUMBER: ("constant.numeric.move-number.keil",),
    Kind.POINT: ("variable.other.point.keil",),
    Kind.WORD: ("keyword.other.turn.keil",),
    Kind.RESULT: ("constant.language.result.keil",),
    Kind.COMMENT: ("comment.block.keil", "comment.line.semicolon.keil"),
    Kind.CLOCK: ("storage.type.annotation.clock.keil",),
    Kind.GLYPH: ("keyword.operator.glyph.keil",),
    Kind.PARENTHESIS: ("punctuation.section.variation.begin.keil", "punctuation.section.variation.end.keil"),
    Kind.INVALID: ("invalid.illegal.keil",),
}
"""The scopes of each class in the TextMate grammar ``editors/keil.tmLanguage.json``
(a comment is a block or a line, a parenthesis opens or closes): the
grammar's tokens land where the semantic tokens put the same class."""

MODIFIERS = ("illegal",)
"""``illegal``: a turn the referee refuses (the main line's first illegal
turn, each variation's first)."""

LEGEND = lsp.SemanticTokensLegend(token_types=list(dict.fromkeys(TYPES.values())), token_modifiers=list(MODIFIERS))

_INDEX = {kind: LEGEND.token_types.index(name) for kind, name in TYPES.items()}
_ILLEGAL = 1 << MODIFIERS.index("illegal")
_LSP_LINE_END = re.compile(r"\r\n?|\n")


class Located:
    """Tokens as LSP places them, in its relative encoding: five numbers a
    token (line and start from the token before, length, type, modifiers),
    one line each (a comment over several lines is one token a line)."""

    def __init__(self, data: list[int]) -> None:
        self.data = data

    def encoded(self) -> list[int]:
        return self.data

    def rows(self) -> list[tuple[int, int, int, int, int]]:
        """Each token as ``(line, character, length, type, modifiers)``."""
        rows = []
        line = character = 0
        data = self.data
        for i in range(0, len(data), 5):
            delta, start, length, kind, modifiers = data[i : i + 5]
            line += delta
            character = start if delta else character + start
            rows.append((line, character, length, kind, modifiers))
        return rows


WHOLE_AT_MOST = 8 * 1024 * 1024
"""The longest document, in characters, whose tokens are sent whole (some
15,000 games, two million tokens): of a longer one, only ranges, so the
server never holds hundreds of megabytes of numbers for it."""

BATCH = 20_000
"""Tokens encoded at a time before the server answers what else was asked."""

_OVER_LINES = frozenset({Kind.COMMENT, Kind.TAG_VALUE})
"""The classes whose token may hold a line end (a tag's value a lone CR)."""
_TURNS = frozenset({Kind.POINT, Kind.WORD})
_INFO = {kind: (index, kind in _TURNS, kind in _OVER_LINES) for kind, index in _INDEX.items()}
"""What the encoder asks of each class with a type, in one look-up a token."""


def located(
    text: str,
    found: Iterable[Piece],
    illegal: frozenset[int] = frozenset(),
    encoding: str = lsp.PositionEncodingKind.Utf16,
    starts: array[int] | None = None,
    since: int = 0,
) -> Located:
    """The tokens ``found`` in ``text`` as LSP places them, counting columns in
    ``encoding``'s units; a point or word that starts at an offset in
    ``illegal`` has the ``illegal`` modifier. ``starts``: where each of the
    text's LSP lines starts, if known; of a token over several lines, the
    lines that end by ``since`` are left out."""
    encoder = _Encoder(text, illegal, encoding, starts, since)
    encoder.feed(found)
    return Located(encoder.data)


class _Safe:
    """The places of a text where its tokens can be read again from: each
    line start (after a line feed) that no comment spans, with how many
    tokens come before it and the place of the last of them."""

    def __init__(self) -> None:
        self.offsets = array("q")
        self.rows = array("q")
        self.lines = array("q")
        self.characters = array("q")

    def add(self, offset: int, rows: int, line: int, character: int) -> None:
        self.offsets.append(offset)
        self.rows.append(rows)
        self.lines.append(line)
        self.characters.append(character)

    def head(self, count: int) -> _Safe:
        """The first ``count`` places."""
        kept = _Safe()
        kept.offsets, kept.rows = self.offsets[:count], self.rows[:count]
        kept.lines, kept.characters = self.lines[:count], self.characters[:count]
        return kept


class _Encoder:
    """LSP's numbers for tokens fed in the text's order, a batch at a time
    (a document of 10,000 games has more than a million tokens: the server
    answers other requests between batches). A few steps a token.

    Tracking, it notes the places a later text can be read again from
    (:class:`_Safe`); watching, it stops at the first such place where the
    tokens of an older text, which ends as this one does, go on unchanged."""

    def __init__(
        self,
        text: str,
        illegal: frozenset[int],
        encoding: str,
        starts: array[int] | None = None,
        since: int = 0,
        *,
        track: bool = False,
    ) -> None:
        self.text = text
        self.illegal = illegal
        self.encoding = encoding
        self.starts = lsp_line_starts(text) if starts is None else starts
        self.since = since
        self.units = _counter(text, encoding)
        self.plain = encoding == lsp.PositionEncodingKind.Utf32 or text.isascii()
        self.data: list[int] = []
        self.line, self.line_start, self.next_start = -1, 0, 0
        self.last_line = self.last_character = 0
        self.safe: _Safe | None = None
        self.next_safe = len(text) + 1
        """The next line start to note (past the text: none)."""
        if track:
            self.safe = _Safe()
            self.safe.add(0, 0, 0, 0)
            self.next_safe = _next_line(text, 0)
        self.watch: Callable[[int], int | None] | None = None
        self.watch_from = len(text) + 1
        self.resynced: tuple[int, int] | None = None
        """Where the watch found the older text's tokens again: the place, and its index in the older text's places."""

    def feed(self, found: Iterable[Piece]) -> int:
        """Encode the tokens ``found``; how many there were."""
        text, starts, units, illegal, plain = self.text, self.starts, self.units, self.illegal, self.plain
        data = self.data
        add = data.extend
        lines = len(starts)
        line, line_start, next_start = self.line, self.line_start, self.next_start
        last_line, last_character = self.last_line, self.last_character
        next_safe = self.next_safe
        count = 0
        for kind, start, end in found:
            count += 1
            while next_safe <= start:
                safe = self.safe
                assert safe is not None  # only a tracking encoder has a place to note
                safe.add(next_safe, len(data) // 5, last_line, last_character)
                if next_safe >= self.watch_from and self.watch is not None:
                    again = self.watch(next_safe)
                    if again is not None:
                        self.resynced = next_safe, again
                        self.last_line, self.last_character = last_line, last_character
                        return count
                next_safe = _next_line(text, next_safe)
            info = _INFO.get(kind)
            if info is None:
                continue
            index, turn, over_lines = info
            if start >= next_start or start < line_start:
                line = bisect.bisect_right(starts, start) - 1
                line_start = starts[line]
                next_start = starts[line + 1] if line + 1 < lines else len(text) + 1
            modifiers = _ILLEGAL if turn and start in illegal else 0
            if over_lines:
                for row_line, begin, stop in _lines(text, starts, line, start, end):
                    if stop <= self.since:
                        continue
                    character = units(starts[row_line], begin)
                    delta = row_line - last_line
                    add((delta, character - last_character if delta == 0 else character, units(begin, stop), index, modifiers))
                    last_line, last_character = row_line, character
                while next_safe < end:  # a line start inside a comment is no place to read from
                    next_safe = _next_line(text, next_safe)
                continue
            if plain:
                character, length = start - line_start, end - start
            else:
                character, length = units(line_start, start), units(start, end)
            if line == last_line:
                add((0, character - last_character, length, index, modifiers))
            else:
                add((line - last_line, character, length, index, modifiers))
            last_line, last_character = line, character
        self.line, self.line_start, self.next_start = line, line_start, next_start
        self.last_line, self.last_character = last_line, last_character
        self.next_safe = next_safe
        return count


def _next_line(text: str, after: int) -> int:
    """Where the line after the one ``after`` stands in starts (past the text: none)."""
    found = text.find("\n", after) + 1
    return found if found else len(text) + 1


def lsp_line_starts(text: str) -> array[int]:
    """Where each LSP line of ``text`` starts (LF, CRLF and CR end one)."""
    starts = array("q", [0])
    starts.extend(m.end() for m in _LSP_LINE_END.finditer(text))
    return starts


def _lines(text: str, starts: array[int], line: int, start: int, end: int) -> Iterator[tuple[int, int, int]]:
    """The pieces of ``start:end`` on each LSP line from ``line``, without
    their line ends; none for an empty one."""
    while start < end:
        following = starts[line + 1] if line + 1 < len(starts) else len(text)
        stop = min(end, following)
        ending = _LSP_LINE_END.search(text, start, stop)
        visible = ending.start() if ending is not None else stop
        if visible > start:
            yield line, start, visible
        start, line = stop, line + 1


def _counter(text: str, encoding: str) -> Callable[[int, int], int]:
    """How many of the client's units ``text[a:b]`` is."""
    if encoding == lsp.PositionEncodingKind.Utf32 or text.isascii():
        return lambda a, b: b - a
    if encoding == lsp.PositionEncodingKind.Utf8:
        return lambda a, b: len(text[a:b].encode("utf-8", "surrogatepass"))
    return lambda a, b: len(text[a:b].encode("utf-16-le", "surrogatepass")) // 2



def _same_start(a: Sequence[object], b: Sequence[object], most: int) -> int:
    """How long ``a`` and ``b`` are the same from their start (at most
    ``most``), found by comparing slices: a few calls for a whole document."""
    at, step = 0, 1 << 14
    while at < most:
        stop = min(most, at + step)
        if a[at:stop] != b[at:stop]:
            while stop - at > 1:  # the first difference is in at:stop
                middle = (at + stop) // 2
                if a[at:middle] == b[at:middle]:
                    at = middle
                else:
                    stop = middle
            return at
        at = stop
    return most


def _same_end(a: Sequence[object], b: Sequence[object], most: int) -> int:
    """How long ``a`` and ``b`` are the same at their end (at most ``most``)."""
    la, lb = len(a), len(b)
    at, step = 0, 1 << 14
    while at < most:
        stop = min(most, at + step)
        if a[la - stop : la - at] != b[lb - stop : lb - at]:
            while stop - at > 1:
                middle = (at + stop) // 2
                if a[la - middle : la - at] == b[lb - middle : lb - at]:
                    at = middle
                else:
                    stop = middle
            return at
        at = stop
    return most


@dataclass
class _Whole:
    """A document's tokens as last encoded, without marks: what the next
    text's are made from."""

    text: str
    encoding: str
    starts: array[int]
    data: list[int]
    safe: _Safe


@dataclass
class _Sent:
    result_id: str
    data: list[int]


@dataclass
class Highlights:
    """The tokens last sent for each document, for the next delta; and the
    whole document's, from which those of its next text are made: after an
    edit, its words are read again only from the line start before the edit
    to the first line start after it where the old tokens go on unchanged."""

    sent: dict[str, _Sent] = field(default_factory=dict)
    whole: dict[str, _Whole] = field(default_factory=dict)
    marks: dict[str, frozenset[int]] = field(default_factory=dict)
    """The illegal turns last marked in each document's tokens."""
    counter: int = 0
    most: int = WHOLE_AT_MOST

    async def full(
        self, uri: str, text: str, illegal: frozenset[int], encoding: str, starts: array[int] | None = None
    ) -> lsp.SemanticTokens | None:
        """Every token of the document, encoded :data:`BATCH` tokens at a
        time, other requests answered between batches; ``None`` for a
        document longer than :attr:`most` (the editor asks for ranges)."""
        if len(text) > self.most:
            self.forget(uri)
            return None
        self.marks[uri] = illegal
        starts = lsp_line_starts(text) if starts is None else starts
        whole = self.whole.get(uri)
        if whole is None or whole.encoding != encoding:
            whole = await _encode(_Encoder(text, frozenset(), encoding, starts, track=True), pieces(text))
        elif whole.text is not text:
            whole = await _update(whole, text, starts)
        self.whole[uri] = whole
        data = _marked(whole, illegal)
        return lsp.SemanticTokens(data=data, result_id=self._keep(uri, data))

    def range(
        self,
        uri: str,
        text: str,
        span: tuple[int, int, int],
        illegal: frozenset[int],
        encoding: str,
        starts: array[int] | None = None,
    ) -> lsp.SemanticTokens:
        """The tokens that reach into ``start:end``, read from ``first`` (where
        a token starts, at or before ``start``): ``span`` is the three."""
        first, start, end = span
        self.marks[uri] = illegal
        found = (piece for piece in pieces(text, first, end) if piece.end > start)
        return lsp.SemanticTokens(data=located(text, found, illegal, encoding, starts, start).encoded())

    async def delta(
        self,
        uri: str,
        previous: str,
        text: str,
        illegal: frozenset[int],
        encoding: str,
        starts: array[int] | None = None,
    ) -> lsp.SemanticTokens | lsp.SemanticTokensDelta | None:
        """What changed since the tokens sent as ``previous``: one edit of the
        numbers between their common start and their common end; every
        token when ``previous`` is not the last sent."""
        before = self.sent.get(uri)
        tokens = await self.full(uri, text, illegal, encoding, starts)
        if tokens is None or before is None or before.result_id != previous:
            return tokens
        old, new = before.data, tokens.data
        most = min(len(old), len(new))
        head = _same_start(old, new, most)
        tail = _same_end(old, new, most - head)
        edits = []
        if head < len(old) - tail or head < len(new) - tail:
            edits.append(
                lsp.SemanticTokensEdit(start=head, delete_count=len(old) - tail - head, data=new[head : len(new) - tail])
            )
        return lsp.SemanticTokensDelta(edits=edits, result_id=tokens.result_id)

    def restart(self, uri: str, text: str, offset: int) -> int:
        """A place at or before ``offset`` where the words of ``text`` can be
        read from: of the places of the document's last encoded text, the
        last before both ``offset`` and the first difference between the two
        texts (the text's start if none)."""
        whole = self.whole.get(uri)
        if whole is None:
            return 0
        if whole.text is not text:
            offset = min(offset, _same_start(whole.text, text, min(len(whole.text), len(text))))
        k = bisect.bisect_right(whole.safe.offsets, offset) - 1
        return whole.safe.offsets[k] if k >= 0 else 0

    def stale(self, uri: str, illegal: frozenset[int]) -> bool:
        """Whether the tokens last sent for the document marked other turns."""
        return uri in self.marks and self.marks[uri] != illegal

    def forget(self, uri: str) -> None:
        self.sent.pop(uri, None)
        self.whole.pop(uri, None)
        self.marks.pop(uri, None)

    def _keep(self, uri: str, data: list[int]) -> str:
        self.counter += 1
        result_id = str(self.counter)
        self.sent[uri] = _Sent(result_id, data)
        return result_id


async def _encode(encoder: _Encoder, found: Iterator[Piece]) -> _Whole:
    """Feed the encoder every token, a batch at a time, until the text or its
    watch ends."""
    while encoder.feed(itertools.islice(found, BATCH)) == BATCH and encoder.resynced is None:
        await asyncio.sleep(0)
    assert encoder.safe is not None
    return _Whole(encoder.text, encoder.encoding, encoder.starts, encoder.data, encoder.safe)


async def _update(whole: _Whole, text: str, starts: array[int]) -> _Whole:
    """The tokens of ``text``, made from those of the older text ``whole``:
    read again from the last place before the first difference, up to the
    first place past the last one where the older tokens are found again."""
    old, safe = whole.text, whole.safe
    most = min(len(old), len(text))
    head = _same_start(old, text, most)
    tail = _same_end(old, text, most - head)
    shift = len(text) - len(old)
    k = bisect.bisect_right(safe.offsets, head) - 1
    restart = safe.offsets[k]
    encoder = _Encoder(text, frozenset(), whole.encoding, starts, track=True)
    encoder.data = whole.data[: 5 * safe.rows[k]]
    encoder.last_line, encoder.last_character = safe.lines[k], safe.characters[k]
    encoder.safe = safe.head(k + 1)
    encoder.next_safe = _next_line(text, restart)

    def again(place: int) -> int | None:
        j = bisect.bisect_left(safe.offsets, place - shift)
        return j if j < len(safe.offsets) and safe.offsets[j] == place - shift else None

    encoder.watch, encoder.watch_from = again, len(text) - tail
    new = await _encode(encoder, pieces(text, restart))
    if encoder.resynced is None:
        return new
    place, j = encoder.resynced
    rows_before = safe.rows[j]
    rows_now = len(new.data) // 5
    lines_shift = (bisect.bisect_right(starts, place) - 1) - (bisect.bisect_right(whole.starts, place - shift) - 1)
    rest = whole.data[5 * rows_before :]
    if rest:
        # The first older token after the place: its line from the token before it, now a new one.
        rest[0] = safe.lines[j] + rest[0] + lines_shift - encoder.last_line
    new.data += rest
    for m in range(j + 1, len(safe.offsets)):
        moved = safe.rows[m] != rows_before  # a token since the place: its line moved with the text
        new.safe.add(
            safe.offsets[m] + shift,
            safe.rows[m] - rows_before + rows_now,
            safe.lines[m] + lines_shift if moved else encoder.last_line,
            safe.characters[m] if moved else encoder.last_character,
        )
    return new


def _marked(whole: _Whole, illegal: frozenset[int]) -> list[int]:
    """The document's tokens with its illegal turns marked: each found by
    reading its line again from the place before it."""
    if not illegal:
        return whole.data
    data = list(whole.data)
    safe, text = whole.safe, whole.text
    turn_types = {_INDEX[Kind.POINT], _INDEX[Kind.WORD]}
    for offset in illegal:
        k = bisect.bisect_right(safe.offsets, offset) - 1
        if k < 0:
            continue
        before = located(text, pieces(text, safe.offsets[k], offset), encoding=whole.encoding, starts=whole.starts)
        row = safe.rows[k] + len(before.data) // 5
        following = next(pieces(text, offset), None)
        if following is not None and following.start == offset and row < len(data) // 5 and data[5 * row + 3] in turn_types:
            data[5 * row + 4] |= _ILLEGAL
    return data
