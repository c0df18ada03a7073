"""What each stretch of a record's text is, for colouring it: tag names and
values, move numbers, points, ``pass`` and ``button``, results, comments and
the clocks in them, glyphs, variations' parentheses.

The words are those of the record grammar (``grammar/record.lark``): its
terminals, read from the loaded grammar, are matched one after another as
its lexer matches them, so what is coloured a point is what the referee
reads as one. Two things the grammar refuses are still named, as an editor
shows them while they are typed: a ``{`` that no ``}`` closes is a comment
to the end of the text, and a run of characters no terminal matches is
:attr:`Kind.INVALID` (the diagnostics say why).

Nothing here knows a game's verdict: which turn is illegal is the
referee's to say (:mod:`keilref.referee.marks`).
"""

from __future__ import annotations

import enum
import functools
import re
from collections.abc import Iterator
from typing import NamedTuple

from keilref.records.grammar import record_parser

__all__ = ["CLOCK", "Kind", "Piece", "pieces"]


class Kind(enum.Enum):
    """A class of token, as colour tells it; the value is its name in the
    language server's legend (:mod:`keilref.lsp_tokens`)."""

    TAG_NAME = "tagName"
    TAG_VALUE = "tagValue"
    MOVE_NUMBER = "moveNumber"
    POINT = "point"
    WORD = "word"
    """``pass`` and ``button``."""
    RESULT = "result"
    COMMENT = "comment"
    CLOCK = "clock"
    """A ``[%clk ...]`` command inside a comment."""
    GLYPH = "glyph"
    """A suffix glyph (``!?``) or a numeric one (``$14``)."""
    PARENTHESIS = "parenthesis"
    INVALID = "invalid"
    """Text no terminal of the grammar matches."""


class Piece(NamedTuple):
    """One token: its kind and where it stands, as offsets into the text."""

    kind: Kind
    start: int
    end: int


CLOCK = re.compile(r"\[%clk\b[^\]\n}]*\]?")
"""A clock command in a comment, as far as it goes on its line (``}`` ends a
``{`` comment, so it ends the clock too)."""

_TAG = re.compile(r'\[[ \t]*([A-Za-z][A-Za-z0-9_]*)[ \t]*("(?:[^"\\\n]|\\["\\])*")')
"""The name and the quoted value inside a ``TAG`` token (whose shape the terminal guarantees)."""

_WORDS = frozenset({"pass", "button"})

_SIMPLE = {
    "MOVENUM": Kind.MOVE_NUMBER,
    "RESULT": Kind.RESULT,
    "GLYPH": Kind.GLYPH,
    "NAG": Kind.GLYPH,
    "LPAR": Kind.PARENTHESIS,
    "RPAR": Kind.PARENTHESIS,
    "INVALID": Kind.INVALID,
}


@functools.cache
def _tokens() -> re.Pattern[str]:
    """The grammar's terminals as one pattern, in the order its lexer tries
    them, then what the grammar refuses: an unclosed ``{`` and a run of
    characters no terminal starts. The white space the grammar ignores is
    read before each (possessively: none is given back), so a match is a
    token; white space at the end matches alone."""
    parser = record_parser()
    ignored = [t for t in parser.terminals if t.name in parser.ignore_tokens]
    terminals = sorted(
        (t for t in parser.terminals if t.name not in parser.ignore_tokens),
        key=lambda t: (-t.priority, -t.pattern.max_width, -len(t.pattern.value), t.name),
    )
    parts = [f"(?P<{t.name}>{t.pattern.to_regexp()})" for t in terminals]
    parts.append(r"(?P<UNCLOSED>\{[^}]*)")
    parts.append(r"(?P<INVALID>[^ \t\n\r\ufeff{;()]+)")
    parts.append(r"(?P<END>\Z)")
    space = "|".join(t.pattern.to_regexp() for t in ignored)
    return re.compile(f"(?:{space})*+(?:{'|'.join(parts)})")


_new = tuple.__new__


def pieces(text: str, start: int = 0, end: int | None = None) -> Iterator[Piece]:
    """The tokens of ``text`` from ``start`` (where a token starts: the text's
    start, or a game's) to the first token at or past ``end``."""
    stop = len(text) if end is None else min(end, len(text))
    # Every character but white space starts some alternative, so the
    # matches follow one another with nothing between, as the lexer reads them.
    for m in _tokens().finditer(text, start):
        name = m.lastgroup
        assert name is not None
        begin, at = m.start(name), m.end()
        if begin >= stop or name == "END":
            return
        if name == "MOVE":
            yield _new(Piece, (Kind.WORD if text[begin:at] in _WORDS else Kind.POINT, begin, at))
        elif name == "TAG":
            tag = _TAG.match(text, begin)
            assert tag is not None  # the TAG terminal guarantees the shape
            yield _new(Piece, (Kind.TAG_NAME, tag.start(1), tag.end(1)))
            yield _new(Piece, (Kind.TAG_VALUE, tag.start(2), tag.end(2)))
        elif name == "COMMENT" or name == "UNCLOSED":
            yield from _comment(text, begin, at)
        else:
            yield _new(Piece, (_SIMPLE[name], begin, at))


def _comment(text: str, start: int, end: int) -> Iterator[Piece]:
    """A comment, cut around its clocks; a ``;`` comment's closing CR (of a
    CRLF) is the line's end, not the comment's."""
    if text[start] == ";" and text[end - 1] == "\r":
        end -= 1
    at = start
    if "[%clk" in text[start:end]:
        for clock in CLOCK.finditer(text, start, end):
            if clock.start() > at:
                yield Piece(Kind.COMMENT, at, clock.start())
            yield Piece(Kind.CLOCK, clock.start(), clock.end())
            at = clock.end()
    if end > at:
        yield Piece(Kind.COMMENT, at, end)
