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

import bisect
import re
from array import array
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from lsprotocol import types as lsp

from keilref.records.highlight import Kind, Piece, pieces

__all__ = ["LEGEND", "MODIFIERS", "SCOPES", "TYPES", "Highlights", "Located", "located", "lsp_line_starts"]

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


class Located(Sequence[tuple[int, int, int, int, int]]):
    """Tokens as LSP places them: ``(line, character, length, type, modifiers)``,
    one line each (a comment over several lines is one token a line)."""

    def __init__(self, rows: list[tuple[int, int, int, int, int]]) -> None:
        self.rows = rows

    def __len__(self) -> int:
        return len(self.rows)

    def __getitem__(self, i: int) -> tuple[int, int, int, int, int]:  # type: ignore[override]
        return self.rows[i]

    def encoded(self) -> list[int]:
        """LSP's relative encoding: each token's line and start from the one before."""
        data: list[int] = []
        line = character = 0
        for row_line, row_character, length, kind, modifiers in self.rows:
            delta = row_line - line
            data += (delta, row_character - character if delta == 0 else row_character, length, kind, modifiers)
            line, character = row_line, row_character
        return data


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
    if starts is None:
        starts = lsp_line_starts(text)
    units = _counter(text, encoding)
    rows: list[tuple[int, int, int, int, int]] = []
    for kind, start, end in found:
        index = _INDEX.get(kind)
        if index is None:
            continue
        modifiers = _ILLEGAL if start in illegal and kind in (Kind.POINT, Kind.WORD) else 0
        line = bisect.bisect_right(starts, start) - 1
        for line, begin, stop in _lines(text, starts, line, start, end):
            if stop <= since:
                continue
            rows.append((line, units(starts[line], begin), units(begin, stop), index, modifiers))
    return Located(rows)


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



@dataclass
class _Sent:
    result_id: str
    data: list[int]


@dataclass
class Highlights:
    """The tokens last sent for each document, for the next delta; and the
    whole document's, while its text and its marks are the same."""

    sent: dict[str, _Sent] = field(default_factory=dict)
    whole: dict[str, tuple[str, frozenset[int], str, list[int]]] = field(default_factory=dict)
    marks: dict[str, frozenset[int]] = field(default_factory=dict)
    """The illegal turns last marked in each document's tokens."""
    counter: int = 0

    def full(
        self, uri: str, text: str, illegal: frozenset[int], encoding: str, starts: array[int] | None = None
    ) -> lsp.SemanticTokens:
        """Every token of the document."""
        self.marks[uri] = illegal
        known = self.whole.get(uri)
        if known is not None and known[0] is text and known[1] == illegal and known[2] == encoding:
            data = known[3]
        else:
            data = located(text, pieces(text), illegal, encoding, starts).encoded()
            self.whole[uri] = (text, illegal, encoding, data)
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

    def delta(
        self,
        uri: str,
        previous: str,
        text: str,
        illegal: frozenset[int],
        encoding: str,
        starts: array[int] | None = None,
    ) -> lsp.SemanticTokens | lsp.SemanticTokensDelta:
        """What changed since the tokens sent as ``previous``: one edit of the
        numbers between their common start and their common end; every
        token when ``previous`` is not the last sent."""
        before = self.sent.get(uri)
        tokens = self.full(uri, text, illegal, encoding, starts)
        if before is None or before.result_id != previous:
            return tokens
        old, new = before.data, tokens.data
        head = 0
        most = min(len(old), len(new))
        while head < most and old[head] == new[head]:
            head += 1
        tail = 0
        while tail < most - head and old[-1 - tail] == new[-1 - tail]:
            tail += 1
        edits = []
        if head < len(old) - tail or head < len(new) - tail:
            edits.append(
                lsp.SemanticTokensEdit(start=head, delete_count=len(old) - tail - head, data=new[head : len(new) - tail])
            )
        return lsp.SemanticTokensDelta(edits=edits, result_id=tokens.result_id)

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
