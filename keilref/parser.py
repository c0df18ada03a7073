"""Reading ``.keil`` record files: text -> :class:`~keilref.record.Record`.

Two layers:

* :func:`parse_record` reads the text of one game with the Lark grammar
  ``grammar/record.lark`` (LALR, contextual lexer). An inline transformer
  builds the records while the parser reduces, so no parse tree is ever
  built: that is what makes the parser about as fast as a bare grammar.
* :func:`iter_games` reads a file of many games as a stream: a cheap
  byte-level scanner cuts it into games (respecting comments and quoted tag
  values), and each game is decoded and parsed on its own. Memory stays about
  one game whatever the file's size, and one broken game does not stop the
  ones after it.

Every fault a user can make becomes a :class:`~keilref.errors.RecordError`
with a line and a column counted from the start of the file, and a message
in words (never a Lark terminal name).
"""

from __future__ import annotations

import functools
import io
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, cast

from lark import Lark, Token, Transformer
from lark.exceptions import UnexpectedCharacters, UnexpectedInput, UnexpectedToken

import keilref
from keilref.core import Result
from keilref.errors import RecordError, RecordSyntaxError
from keilref.record import Comment, Record, Tag, Turn, TurnKind
from keilref.scanner import number_text, scan_game, turn_from_token

__all__ = [
    "CHUNK_SIZE",
    "GameBytes",
    "MAX_GAME_BYTES",
    "MAX_TURNS",
    "grammar_path",
    "iter_games",
    "parse_games",
    "parse_record",
    "read_game",
    "record_parser",
    "split_games",
]

CHUNK_SIZE = 1 << 20
"""Bytes asked of the stream per read by :func:`iter_games`."""

MAX_GAME_BYTES = 10_000_000
"""The most bytes one game may have (10 MB). A longer game is an ``error`` at
its first line, is never held in memory, and the games after it are read."""

MAX_TURNS = 1_000_000
"""The most turns one game may have. A longer game is an ``error`` at its
first line, so that memory stays bounded by this and the byte cap."""

_GRAMMAR = "record.lark"


# --------------------------------------------------------------------------
# Loading the grammar


def grammar_path() -> Path:
    """Where ``record.lark`` is: inside the package when installed from a
    wheel (``keilref/grammar/``), else at the top of the checkout."""
    candidates = (
        Path(keilref.__file__).parent / "grammar" / _GRAMMAR,
        Path(__file__).resolve().parent.parent / "grammar" / _GRAMMAR,
    )
    for path in candidates:
        if path.is_file():
            return path
    raise FileNotFoundError(
        "cannot find the record grammar; looked for " + " and ".join(str(p) for p in candidates)
    )


@functools.cache
def record_parser() -> Lark:
    """The record parser, built once per process.

    Positions come from the tokens themselves, so ``propagate_positions`` is
    off; the inline transformer returns a :class:`Record` from ``parse``.
    """
    return Lark.open(
        str(grammar_path()),
        parser="lalr",
        lexer="contextual",
        propagate_positions=False,
        maybe_placeholders=True,
        transformer=_Builder(),
    )


# --------------------------------------------------------------------------
# Building records while parsing


class _Fault(Exception):
    """A fault the transformer finds; :func:`parse_record` adds the source line
    and the file name, which the transformer does not know."""

    def __init__(self, message: str, line: int, column: int) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column


_TAG_PARTS = re.compile(r'\[[ \t]*([A-Za-z][A-Za-z0-9_]*)[ \t]*"((?:[^"\\\n]|\\["\\])*)"')
_ESCAPE = re.compile(r"\\(.)")
_WORDS = {"pass": TurnKind.PASS, "button": TurnKind.BUTTON}


class _Comments(list[Comment]):
    """A run of comments as the parser reduces it (told apart from the turns
    and tags, which are plain lists and dicts, on the parser's stack)."""


@functools.lru_cache(maxsize=1024)
def _comment(text: str) -> Comment:
    # Cached: a game that repeats a comment a million times holds one object.
    if text[0] == "{":
        return Comment(text[1:-1], True)
    # A ';' comment runs to the end of the line; a CR left by a final CRLF-less
    # line end is not part of it.
    return Comment(text[1:].rstrip("\r"), False)


def _comments(run: _Comments | None) -> tuple[Comment, ...]:
    return tuple(run) if run else ()


def _tag(token: Token, comments: _Comments | None) -> Tag:
    m = _TAG_PARTS.match(token.value)
    assert m is not None  # the TAG terminal guarantees the shape
    name, raw = m.group(1), m.group(2)
    value = _ESCAPE.sub(r"\1", raw) if "\\" in raw else raw
    return Tag(name, value, _comments(comments), token.line or 0, token.column or 0)


def _turn(token: Token, comments: tuple[Comment, ...], numbered: bool) -> Turn:
    """The turn a MOVE token spells."""
    return turn_from_token(token.value, comments, numbered, token.line or 0, token.column or 0)


def _wrong_number(token: Token, index: int) -> _Fault:
    """The error for a move number that does not name the turn after it."""
    text: str = token.value
    digits = text.rstrip(".")
    dots = len(text) - len(digits)
    right = number_text(index)
    if dots not in (1, 3):
        message = (
            f"malformed move number '{text}': write '{digits}.' before Black's turn "
            f"or '{digits}...' before White's (here: '{right}')"
        )
    else:
        whose = "Black's" if index % 2 == 0 else "White's"
        message = (
            f"wrong move number '{text}': the turn after it is {whose} turn of move "
            f"{index // 2 + 1}, numbered '{right}'"
        )
    return _Fault(message, token.line or 0, token.column or 0)


class _Builder(Transformer[Token, Record]):
    """Inline transformer: Lark calls these as it reduces the rules of the
    same names (see the grammar), bottom-up and left to right."""

    def first_comment(self, children: list[Token]) -> _Comments:
        return _Comments((_comment(children[0].value),))

    def next_comment(self, children: list[Any]) -> _Comments:
        run: _Comments = children[0]
        run.append(_comment(children[1].value))
        return run

    def start(self, children: list[Any]) -> Record:
        tags: dict[str, Tag] = children[1]
        turns: list[Turn] = children[2]
        result: tuple[Token, tuple[Comment, ...]] | None = children[3]
        first = next(iter(tags.values()))
        head = _comments(children[0])
        if result is None:
            return Record(tuple(tags.values()), tuple(turns), None, head, (), first.line)
        token, after = result
        line, column = token.line or 0, token.column or 0
        return Record(tuple(tags.values()), tuple(turns), token.value, head, after, first.line, line, column)

    first_line = 0
    """The line of the game's first tag: where a game over :data:`MAX_TURNS`
    is reported (tags are always reduced before turns)."""

    def first_tag(self, children: list[Any]) -> dict[str, Tag]:
        tag = _tag(children[0], children[1])
        self.first_line = tag.line
        return {tag.name: tag}

    def next_tag(self, children: list[Any]) -> dict[str, Tag]:
        tags: dict[str, Tag] = children[0]
        tag = _tag(children[1], children[2])
        if tag.name in tags:
            earlier = tags[tag.name]
            raise _Fault(
                f"duplicate tag '{tag.name}': a game names each tag once "
                f"(first on line {earlier.line})",
                tag.line,
                tag.column,
            )
        tags[tag.name] = tag
        return tags

    def turns(self, children: list[Any]) -> list[Turn]:
        return []

    def _too_many(self) -> _Fault:
        return _Fault(f"too many turns: a game may have at most {MAX_TURNS:,}; it was not read", self.first_line, 1)

    def turn(self, children: list[Any]) -> list[Turn]:
        turns: list[Turn] = children[0]
        if len(turns) >= MAX_TURNS:
            raise self._too_many()
        turns.append(_turn(children[1], _comments(children[2]), False))
        return turns

    def numbered_turn(self, children: list[Any]) -> list[Turn]:
        # A move number must name the turn after it: ``N.`` before Black's
        # turn of move N, ``N...`` before White's.
        turns: list[Turn] = children[0]
        number: Token = children[1]
        index = len(turns)
        if index >= MAX_TURNS:
            raise self._too_many()
        if number.value != number_text(index):
            raise _wrong_number(number, index)
        before, after = children[2], children[4]
        if before is None and after is None:
            turns.append(_turn(children[3], (), True))
            return turns
        turns.append(_turn(children[3], _comments(before) + _comments(after), True))
        return turns

    def result(self, children: list[Any]) -> tuple[Token, tuple[Comment, ...]]:
        token = children[0]
        try:
            Result.parse(token.value)
        except ValueError as e:
            raise _Fault(str(e), token.line or 0, token.column or 0) from None
        return token, _comments(children[1])


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
    # says what is wrong (keilref.scanner declines whatever it is not sure of).
    record = scan_game(text, line_offset, column_offset)
    if record is not None and len(record.moves) <= MAX_TURNS:  # the grammar words the cap
        return record
    try:
        parser = record_parser()
        if line_offset == 0 and column_offset == 0:
            return cast(Record, parser.parse(text))
        interactive = parser.parse_interactive(text)
        counter = interactive.lexer_thread.state.line_ctr  # type: ignore[union-attr]
        counter.line += line_offset
        counter.line_start_pos = -column_offset
        counter.column = column_offset + 1
        return cast(Record, interactive.resume_parse())  # type: ignore[no-untyped-call]
    except _Fault as fault:
        raise _error(fault.message, fault.line, fault.column, text, filename, line_offset, column_offset) from None
    except UnexpectedInput as e:
        message, line, column = _describe(e, text, line_offset, column_offset)
        raise _error(message, line, column, text, filename, line_offset, column_offset) from None


def _error(
    message: str,
    line: int,
    column: int,
    text: str,
    filename: str | None,
    line_offset: int,
    column_offset: int,
) -> RecordSyntaxError:
    index = line - line_offset - 1
    lines = text.split("\n")
    source = lines[index] if 0 <= index < len(lines) else None
    if source is not None and index == 0 and column_offset:
        source = " " * column_offset + source
    return RecordSyntaxError(message, line, column, source, filename)


# --------------------------------------------------------------------------
# Error messages in words


_THINGS = {
    "TAG": "a tag",
    "MOVE": "a move",
    "MOVENUM": "a move number",
    "COMMENT": "a comment",
    "RESULT": "a result",
    "$END": "the end of the game",
}
_ORDER = ("TAG", "MOVE", "MOVENUM", "COMMENT", "RESULT", "$END")
_WORD = re.compile(r"[^\s{;\ufeff]{1,40}")
_RESULT_LIKE = re.compile(r"[BW]\+|draw\Z", re.I)
_RESULT_FORMS = "B+<margin>, W+<margin>, B+R, W+R, B+T, W+T, B+F, W+F, Draw or *"


def _expected(terminals: Iterable[str]) -> str:
    """``"a move, a comment or a result"``, from what the parser would accept.

    A move number is only mentioned where nothing but a number may follow it,
    and the end of the game only where little else may come.
    """
    wanted = set(terminals)
    if "MOVE" in wanted:
        wanted.discard("MOVENUM")
    if wanted & {"TAG", "MOVE", "RESULT"}:
        wanted.discard("$END")
    words = [_THINGS[t] for t in _ORDER if t in wanted]
    if not words:
        return "nothing more"
    if len(words) == 1:
        return words[0]
    return ", ".join(words[:-1]) + " or " + words[-1]


def _acceptable(e: UnexpectedInput) -> set[str]:
    """The terminals the parser would have taken where it stopped."""
    state = getattr(e, "state", None)
    try:
        actions = state.parse_conf.parse_table.states[state.position]  # type: ignore[union-attr]
        return {name for name in actions if name.isupper()}
    except AttributeError:
        expected = getattr(e, "expected", None) or getattr(e, "allowed", None) or ()
        return set(expected)


def _eof_position(text: str, line_offset: int, column_offset: int) -> tuple[int, int]:
    last = text.rfind("\n")
    line = line_offset + text.count("\n") + 1
    column = len(text) - last if last >= 0 else column_offset + len(text) + 1
    return line, column


def _found(found: str, allowed: set[str], hint: str = "") -> str:
    """``found X; expected Y``, worded for where the parser stood."""
    if "MOVE" in allowed and "RESULT" not in allowed:
        return f"found {found}; expected a move after the move number{hint}"
    if "TAG" in allowed and "MOVE" not in allowed:
        return f'found {found}; a game starts with tags such as [Event "..."]{hint}'
    if "RESULT" not in allowed and "MOVE" not in allowed:
        return f"found {found} after the result; expected {_expected(allowed)}{hint}"
    return f"found {found}; expected {_expected(allowed)}{hint}"


_FOUND_TOKEN = {"MOVE": "the move", "MOVENUM": "the move number", "RESULT": "the result", "COMMENT": "a comment"}


def _describe(e: UnexpectedInput, text: str, line_offset: int, column_offset: int) -> tuple[str, int, int]:
    """Message, line and column for a Lark error."""
    allowed = _acceptable(e)
    if isinstance(e, UnexpectedCharacters):
        return _describe_characters(e, text, allowed)
    assert isinstance(e, UnexpectedToken)
    token: Token = e.token
    if token.type == "$END":
        number = _pending_number(e)
        if number is not None:
            message = f"the game ends after the move number '{number.value}': expected a move"
            return message, number.line or 0, number.column or 0
        line, column = _eof_position(text, line_offset, column_offset)
        return _found("the end of the text" if "TAG" in allowed else "the end of the game", allowed), line, column
    line, column = token.line or 0, token.column or 0
    if token.type == "TAG":
        message = "found a tag after the moves; tags come before the moves"
        if "MOVE" not in allowed and "RESULT" not in allowed:
            message += f" (expected {_expected(allowed)})"
        return message, line, column
    return _found(f"{_FOUND_TOKEN.get(token.type, 'the word')} '{token.value}'", allowed), line, column


def _pending_number(e: UnexpectedInput) -> Token | None:
    """The move number still waiting for its move when the text ended."""
    state = getattr(e, "state", None)
    stack = getattr(state, "value_stack", None) or []
    for item in reversed(stack):
        if isinstance(item, Token) and item.type == "MOVENUM":
            return item
        if isinstance(item, _Comments):
            continue
        if isinstance(item, (list, dict)):  # the turns (or tags) before it
            break
    return None


def _describe_characters(e: UnexpectedCharacters, text: str, allowed: set[str]) -> tuple[str, int, int]:
    """For text that is no token at all: say what it looks like."""
    pos: int = e.pos_in_stream or 0
    line: int = e.line
    column: int = e.column
    char = text[pos]
    if char == "[":
        return _describe_tag(text, pos, line, column, allowed)
    if char == "{":
        return _UNCLOSED, line, column
    if char == "}":
        return "found '}' with no '{' before it", line, column
    if char == "]":
        return "found ']' outside a tag", line, column
    m = _WORD.match(text, pos)
    word = m.group(0) if m else char
    if not word.isprintable():
        word = word.encode("unicode_escape").decode("ascii")
    hint = ""
    if _RESULT_LIKE.match(word):
        hint = f" ('{word}' is not a result: results are {_RESULT_FORMS})"
    elif word.isdigit():
        hint = f" (a move number ends with a dot: '{word}.' or '{word}...')"
    elif word.lower() in _WORDS and word not in _WORDS:
        hint = f" (write '{word.lower()}' in lower case)"
    elif word[:1] == '"':
        hint = ' (a quoted value belongs in a tag: [Name "value"])'
    return _found(f"'{word}'", allowed, hint), line, column


_UNCLOSED = "comment never closed: this '{' has no matching '}'"
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
_TAG_WORD = re.compile(r'[^\s\]"]{1,40}')
_BLANKS = re.compile(r"[ \t]*")


def _describe_tag(text: str, pos: int, line: int, column: int, allowed: set[str]) -> tuple[str, int, int]:
    """Say what is wrong with the malformed tag at ``pos`` (a ``[``).

    Tags lie on one line, so every position here is on the tag's line.
    Truncation (the text ends inside the tag) is reported at the ``[``.
    """
    end_of_text = ("the text ends inside this tag", line, column)

    def at(i: int, message: str) -> tuple[str, int, int]:
        if i >= len(text):
            return end_of_text
        return message, line, column + (i - pos)

    def shown(i: int) -> str:
        if text[i] == "\n":
            return "the end of the line"
        m = _TAG_WORD.match(text, i)
        return f"'{m.group(0) if m else text[i]}'"

    i = _BLANKS.match(text, pos + 1).end()  # type: ignore[union-attr]
    name = _NAME.match(text, i)
    if i >= len(text):
        return end_of_text
    if name is None:
        return at(i, f"found {shown(i)}; expected a tag name (a letter, then letters, digits or _)")
    i = _BLANKS.match(text, name.end()).end()  # type: ignore[union-attr]
    if i >= len(text):
        return end_of_text
    if text[i] != '"':
        return at(i, f"found {shown(i)}; expected a tag value in double quotes")
    opening = i
    i += 1
    while True:
        if i >= len(text):
            return end_of_text
        c = text[i]
        if c == '"':
            break
        if c == "\n":
            return at(opening, "tag value not closed: a value ends with '\"' on the same line")
        if c == "\\":
            if i + 1 >= len(text):
                return end_of_text
            if text[i + 1] not in '"\\':
                if text[i + 1] == "\n":
                    return at(opening, "tag value not closed: a value ends with '\"' on the same line")
                return at(i, f"unknown escape '\\{text[i + 1]}' in a tag value: only \\\" and \\\\ are escapes")
            i += 2
            continue
        i += 1
    i = _BLANKS.match(text, i + 1).end()  # type: ignore[union-attr]
    if i >= len(text):
        return end_of_text
    if text[i] != "]":
        return at(i, f"found {shown(i)}; expected ']' to close the tag")
    # The tag is well formed: it is where it stands that is wrong.
    return f"found a tag after the moves; tags come before the moves (expected {_expected(allowed)})", line, column


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
# White space as the grammar sees it (str.isspace, and the byte order mark),
# in UTF-8, so that the scanner and the parser agree on what separates tokens.
_BLANK_BYTES = re.compile(
    rb"(?:[ \t\n\r\f\v\x1c-\x1f]|\xc2[\x85\xa0]|\xe1\x9a\x80|\xe2\x80[\x80-\x8a\xa8\xa9\xaf]"
    rb"|\xe2\x81\x9f|\xe3\x80\x80|\xef\xbb\xbf)*"
)
_BLANK_LEADS = b"\xc2\xe1\xe2\xe3\xef"
"""First bytes of the multi-byte blanks: a chunk may end part way through one."""
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

    def pieces(self) -> Iterator[_Piece]:
        while len(self.buf) < 3 and self._more():
            pass
        if self.buf.startswith(_BOM):
            del self.buf[:3]
            self.base = 3
        self.start = self.keep = self.base  # where the current game starts
        line = 1  # the line of ``start``
        i = self.start  # where scanning resumes
        tokens = False  # the current game has had something other than tags
        content = False  # ... or at least a tag or a broken comment
        first = True
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
            f"the text is not valid UTF-8 here (byte 0x{bad:02x})",
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
    the games can be parsed in others (see :mod:`keilref.check`).
    """

    piece: _Piece
    column_offset: int
    """The column of the first byte, when the game starts mid-line."""

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
        m = _FIRST_TAG.search(data)
        start = m.start() if m is not None else len(data) - len(data.lstrip())
        return self.piece.line + data.count(b"\n", 0, start)

    @property
    def counts(self) -> bool:
        """Whether this is a game (or the "no game in file" error), not space between games."""
        return not self.piece.empty or self.piece.first


def split_games(
    stream: BinaryIO, *, chunk_size: int = CHUNK_SIZE, max_game_bytes: int = MAX_GAME_BYTES
) -> Iterator[GameBytes]:
    """Cut a record file into games without parsing them, ``chunk_size`` bytes at a time.

    A game longer than ``max_game_bytes`` is not kept (its :class:`GameBytes`
    reads as an error); the games after it are cut all the same.
    """
    column_offset = 0
    for piece in _Splitter(stream, chunk_size, max_game_bytes).pieces():
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
        if piece.cut_by_tag and e.message == _UNCLOSED:
            e.message = f"{_UNCLOSED} before the tag on line {piece.cut_by_tag} (a '}}' is probably missing)"
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
