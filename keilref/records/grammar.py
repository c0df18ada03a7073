"""The record grammar, ``grammar/record.lark``: the definition of the format,
and the reader of every game the scanner (:mod:`keilref.records.scanner`) declines.

The grammar is loaded into a Lark LALR parser (contextual lexer) once per
process. An inline transformer builds the :class:`~keilref.records.record.Record`
while the parser reduces, so no parse tree is ever built. Every fault
becomes a :class:`~keilref.errors.RecordSyntaxError` with its line and
column in the file, in words (never a Lark terminal name).

Lark is imported only when a game needs it: well-formed archives are read
by the scanner alone, and the command line starts without it.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, cast

from lark import Lark, Token, Transformer
from lark.exceptions import UnexpectedCharacters, UnexpectedInput, UnexpectedToken

from keilref import wording
from keilref.records import limits
from keilref.records.tagnames import one_typo
from keilref.values import Result, meant_result
from keilref.escaping import code_point
from keilref.errors import RecordSyntaxError
from keilref.records.record import Comment, Record, Tag, Turn, TurnKind, Variation
from keilref.records.scanner import number_text, shared_spelling, turn_from_token
from keilref.records.setup import TO_MOVE_TAG, numbers_white_first, unread_to_move

__all__ = ["UNCLOSED_COMMENT", "grammar_path", "parse_with_grammar", "record_parser", "too_many_turns"]

_GRAMMAR = "record.lark"


# --------------------------------------------------------------------------
# Loading the grammar


def grammar_path() -> Path:
    """Where ``record.lark`` is: inside the package when installed from a
    wheel (``keilref/grammar/``), else at the top of the checkout."""
    candidates = (
        Path(__file__).resolve().parents[1] / "grammar" / _GRAMMAR,
        Path(__file__).resolve().parents[2] / "grammar" / _GRAMMAR,
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
    return _parser(_BUILDER)


@functools.cache
def _checking_parser() -> Lark:
    """The grammar with :class:`_Checker` for its transformer: it finds the
    fault the record parser would report, building nothing."""
    return _parser(_CHECKER)


def _parser(transformer: _Builder) -> Lark:
    return Lark.open(
        str(grammar_path()),
        parser="lalr",
        lexer="contextual",
        propagate_positions=False,
        maybe_placeholders=True,
        transformer=transformer,
        # Seen as each is read: the nesting is refused at its 101st '(',
        # before anything after it is read.
        lexer_callbacks={"LPAR": transformer.opened, "RPAR": transformer.closed},
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

    clock_at: tuple[int, int] | None = None
    """Where the run's first ``[%clk`` stands, if any."""

    def add(self, token: Token) -> _Comments:
        self.append(_comment(token.value))
        if self.clock_at is None and "[%clk" in token.value:
            self.clock_at = _clock_place(token)
        return self


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
    line, column = token.line or 0, token.column or 0
    if "\\" in raw:
        return Tag(name, _ESCAPE.sub(r"\1", raw), _comments(comments), line, column)
    return Tag(name, raw, _comments(comments), line, column, column + m.start(2))


def _turn(token: Token, comments: tuple[Comment, ...], numbered: bool) -> Turn:
    """The turn a MOVE token spells."""
    return turn_from_token(shared_spelling(token.value), comments, numbered, token.line or 0, token.column or 0)


def _wrong_number(number: _Number, index: int) -> _Fault:
    """The error for a move number that does not name the turn after it."""
    text, line, column = number
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
        if index == _numbering.base == 1:
            message += f' ({TO_MOVE_TAG} "White": White plays the first turn)'
        elif index == 0 and _numbering.unread is not None:
            message += f" ({_numbering.unread})"

    return _Fault(message, line, column)


_Number = tuple[str, int, int]
"""A move number or numeric glyph kept to be checked later: its text, line
and column. Lark's tokens are not kept: a token costs several times that."""


def _kept(token: Token) -> _Number:
    return shared_spelling(token.value), token.line or 0, token.column or 0


class _Notes:
    """What follows a move, as the parser reduces it: numeric glyphs, comments
    and variations (comments after a variation are that variation's)."""

    __slots__ = ("clock_at", "comments", "nags", "plain", "variations")

    def __init__(self) -> None:
        self.nags: list[_Number] = []
        self.comments: list[Comment] = []
        self.clock_at: tuple[int, int] | None = None
        self.variations: list[_PendingVariation] = []
        self.plain = True
        """Only comments, and no clock among them."""

    def nag(self, token: Token) -> _Notes:
        self.nags.append(_kept(token))
        self.plain = False
        return self

    def comment(self, token: Token) -> _Notes:
        comment = _comment(token.value)
        if self.variations:
            self.variations[-1].add_after(comment)
        else:
            self.comments.append(comment)
            if self.clock_at is None and "[%clk" in token.value:
                self.clock_at = _clock_place(token)
                self.plain = False
        return self

    def variation(self, variation: _PendingVariation) -> _Notes:
        self.variations.append(variation)
        self.plain = False
        return self


def _clock_place(token: Token) -> tuple[int, int]:
    """Where ``[%clk`` stands inside the comment ``token``."""
    text: str = token.value
    offset = text.index("[%clk")
    newlines = text.count("\n", 0, offset)
    if newlines:
        return (token.line or 0) + newlines, offset - text.rindex("\n", 0, offset)
    return token.line or 0, (token.column or 0) + offset


class _PendingVariation:
    """A variation read but not yet built: its turns' numbers are checked once
    the turn it replaces has its place in the game. It holds plain values,
    never Lark's tokens, so that a game of a million variations stays small."""

    __slots__ = ("after", "column", "comments", "line", "turns")

    def __init__(self, line: int, column: int, comments: tuple[Comment, ...], turns: list[_PendingTurn | Turn]) -> None:
        self.line = line
        self.column = column
        """Where its ``(`` stands."""
        self.comments = comments
        self.turns = turns
        self.after: list[Comment] | None = None
        """Comments after its ``)``; ``None`` for none (most variations)."""

    def add_after(self, comment: Comment) -> None:
        if self.after is None:
            self.after = []
        self.after.append(comment)


class _PendingTurn:
    """A turn whose move number or variations wait for its place in its line
    (see :class:`_PendingVariation`): the turn itself is already made."""

    __slots__ = ("nags", "number", "turn", "variations")

    def __init__(
        self, turn: Turn, number: _Number | None, nags: Sequence[_Number], variations: Sequence[_PendingVariation]
    ) -> None:
        self.turn = turn
        self.number = number
        self.nags = nags
        self.variations = variations


def _nag(nag: _Number) -> str:
    """``$14`` as canonical (``$014`` reads as ``$14``)."""
    text, line, column = nag
    digits = text[1:].lstrip("0") or "0"
    if len(digits) > 3 or int(digits) > limits.MAX_NAG:
        shown = text if len(text) <= 12 else text[:9] + "..."
        message = f"numeric glyph '{shown}' is out of range: write $0 to ${limits.MAX_NAG}"
        raise _Fault(message, line, column)
    return "$" + digits


class _Numbering:
    """Where the main line's move numbers start: at Black's ``1.``, or at
    White's ``1...`` for a record whose position has White to move. Tags are
    reduced before turns, so it is known before the first number is checked."""

    base = 0
    unread: str | None = None
    """What is wrong with a ``ToMove`` that names no player: a wrong first
    move number is most likely its fault, and says so."""

    def read(self, tag: Tag) -> None:
        if tag.name == TO_MOVE_TAG:
            self.base = int(numbers_white_first(tag))
            self.unread = unread_to_move(tag)


_numbering = _Numbering()


def _built(pending: _PendingTurn, index: int) -> Turn:
    """The turn ``pending`` at ``index`` in its line (0 for Black's first),
    with its variations, which start at the same index. The nesting is
    bounded where each ``(`` is read (:meth:`_Builder.opened`)."""
    number = pending.number
    if number is not None and number[0] != number_text(index):
        raise _wrong_number(number, index)
    turn = pending.turn
    glyphs = tuple(_nag(n) for n in pending.nags)
    variations = tuple(_variation(v, index) for v in pending.variations)
    if not (glyphs or variations):
        return turn
    return dataclasses.replace(turn, glyphs=turn.glyphs + glyphs, variations=variations)


def _variation(pending: _PendingVariation, index: int) -> Variation:
    turns = tuple(
        t if type(t) is Turn else _built(t, index + i)  # type: ignore[arg-type]
        for i, t in enumerate(pending.turns)
    )
    after = () if pending.after is None else tuple(pending.after)
    return Variation(turns, pending.comments, after, pending.line, pending.column)


def _check_glyph(move: Token, glyph: Token | None) -> None:
    """Refuse a suffix glyph that does not stand directly after its move."""
    if glyph is not None and (glyph.line != move.line or glyph.column != move.end_column):
        raise _Fault(
            f"a glyph stands directly after its turn: write '{move.value}{glyph.value}'",
            glyph.line or 0,
            glyph.column or 0,
        )


class _Builder(Transformer[Token, Record]):
    """Inline transformer: Lark calls these as it reduces the rules of the
    same names (see the grammar), bottom-up and left to right."""

    def first_comment(self, children: list[Token]) -> _Comments:
        return _Comments().add(children[0])

    def next_comment(self, children: list[Any]) -> _Comments:
        return cast(_Comments, children[0]).add(children[1])

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
    """The line of the game's first tag: where a game over :data:`~limits.MAX_TURNS`
    is reported (tags are always reduced before turns)."""

    def first_tag(self, children: list[Any]) -> dict[str, Tag]:
        tag = _tag(children[0], children[1])
        self.first_line = tag.line
        _numbering.read(tag)
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
        _numbering.read(tag)
        return tags

    def turns(self, children: list[Any]) -> list[Turn]:
        return []

    def _too_many(self) -> _Fault:
        return _too_many(self.first_line)

    read = 0
    """Turns read so far in this game, variations included: the cap counts them all."""

    depth = 0
    """Variations open where the reading stands."""

    def begin(self) -> None:
        """Ready for a new game (the one builder serves every parse of the process)."""
        self.read = 0
        self.depth = 0
        _numbering.base = 0
        _numbering.unread = None

    def opened(self, token: Token) -> Token:
        """A ``(`` is read: refused at once past the nesting cap, so that a
        game of a hundred thousand ``(`` costs no more than its first 101."""
        self.depth += 1
        if self.depth > limits.MAX_VARIATION_DEPTH:
            raise _Fault(
                f"variations nested too deep: at most {limits.MAX_VARIATION_DEPTH} inside one another",
                token.line or 0,
                token.column or 0,
            )
        return token

    def closed(self, token: Token) -> Token:
        self.depth -= 1
        return token

    def _count(self) -> None:
        self.read += 1
        if self.read > limits.MAX_TURNS:
            raise self._too_many()

    def main_turn(self, children: list[Any]) -> list[Turn]:
        turns: list[Turn] = children[0]
        pending: _PendingTurn | Turn = children[1]
        if type(pending) is Turn:  # the common case: unnumbered, no glyph, no variation
            turns.append(pending)
        else:
            turns.append(_built(pending, len(turns) + _numbering.base))  # type: ignore[arg-type]
        return turns

    def turn(self, children: list[Any]) -> _PendingTurn | Turn:
        number: Token | None = children[0]
        before: _Comments | None = children[1]
        move: Token = children[2]
        glyph: Token | None = children[3]
        notes: _Notes | None = children[4]
        self._count()
        if number is None and glyph is None and (notes is None or notes.plain):
            # Nothing to check against the turn's place in its line, and
            # nothing to build later: the turn is made now.
            return _turn(move, () if notes is None else tuple(notes.comments), False)
        _check_glyph(move, glyph)
        comments = _comments(before)
        clock_at = None
        nags: Sequence[_Number] = ()
        variations: Sequence[_PendingVariation] = ()
        if notes is not None:
            comments += tuple(notes.comments)
            clock_at = notes.clock_at
            nags, variations = notes.nags, notes.variations
        if before is not None and before.clock_at is not None:
            clock_at = before.clock_at  # the first clock in the turn's comments is its clock
        turn = _turn(move, comments, number is not None)
        if glyph is not None or clock_at is not None:
            glyphs = () if glyph is None else (glyph.value,)
            turn = dataclasses.replace(turn, glyphs=glyphs, clock_at=clock_at)
        if number is None and not nags and not variations:
            return turn
        return _PendingTurn(turn, None if number is None else _kept(number), nags, variations)

    def first_nag(self, children: list[Token]) -> _Notes:
        return _Notes().nag(children[0])

    def next_nag(self, children: list[Any]) -> _Notes:
        return cast(_Notes, children[0]).nag(children[1])

    def first_note(self, children: list[Token]) -> _Notes:
        return _Notes().comment(children[0])

    def next_note(self, children: list[Any]) -> _Notes:
        return cast(_Notes, children[0]).comment(children[1])

    def first_variation(self, children: list[Any]) -> _Notes:
        return _Notes().variation(children[0])

    def next_variation(self, children: list[Any]) -> _Notes:
        return cast(_Notes, children[0]).variation(children[1])

    def variation(self, children: list[Any]) -> _PendingVariation:
        opening: Token = children[0]
        return _PendingVariation(opening.line or 0, opening.column or 0, _comments(children[1]), children[2])

    def first_line_turn(self, children: list[Any]) -> list[_PendingTurn | Turn]:
        return [children[0]]

    def next_line_turn(self, children: list[Any]) -> list[_PendingTurn | Turn]:
        line: list[_PendingTurn | Turn] = children[0]
        line.append(children[1])
        return line

    def result(self, children: list[Any]) -> tuple[Token, tuple[Comment, ...]]:
        token = children[0]
        try:
            Result.parse(token.value)
        except ValueError as e:
            raise _Fault(str(e), token.line or 0, token.column or 0) from None
        return token, _comments(children[1])


_BUILDER = _Builder()


# --------------------------------------------------------------------------
# Finding a fault without building the record
#
# A turn's move number and numeric glyphs, and those of its variations, are
# checked once the turn has its place in the main line (see ``_built``). The
# record parser keeps every variation until then; the checker keeps, for a
# turn or a line, only the checks that can be the first to fail.


_Check = tuple[_Number, int, int | None, bool]
"""One check of a pending turn, in the order ``_built`` makes them: a move
number or a numeric glyph (its text, line and column), the offset of its turn
from the turn the checks wait for, the place that turn must have for the
check to pass (``None``: no place), and whether it is a numeric glyph."""


def _number_check(number: _Number, offset: int) -> _Check:
    text = number[0]
    digits = text.rstrip(".")
    dots = len(text) - len(digits)
    place = None
    if dots in (1, 3) and digits.isdigit() and len(digits) < 12:
        index = (int(digits) - 1) * 2 + (dots == 3)
        if index >= 0 and number_text(index) == text:
            place = index - offset
    return number, offset, place, False


def _add_check(checks: list[_Check], check: _Check) -> None:
    """Add ``check`` after ``checks``, keeping only the checks that can fail
    first: whatever place the turn turns out to have, a check that always
    fails, or two that pass at different places, leave none after them a
    turn to fail; nor does a check that passes where an earlier one passes."""
    places = set()
    for kept in checks:
        if kept[2] is None:
            return
        places.add(kept[2])
    if len(places) > 1 or (check[2] is not None and check[2] in places):
        return
    checks.append(check)


def _shifted(check: _Check, by: int) -> _Check:
    number, offset, place, nag = check
    return number, offset + by, None if place is None else place - by, nag


def _run_checks(checks: Sequence[_Check], index: int) -> None:
    """Raise the fault ``_built`` would raise for checks waiting on the turn at ``index``."""
    for number, offset, place, nag in checks:
        if nag:
            _nag(number)
        elif place != index:
            raise _wrong_number(number, index + offset)


class _CheckedNotes:
    """What follows a move, as the checker reads it: the first numeric glyph
    out of range and the checks of the variations."""

    __slots__ = ("bad_nag", "checks")

    def __init__(self) -> None:
        self.bad_nag: _Number | None = None
        self.checks: list[_Check] = []

    def nag(self, token: Token) -> _CheckedNotes:
        if self.bad_nag is None:
            nag = _kept(token)
            try:
                _nag(nag)
            except _Fault:
                self.bad_nag = nag
        return self

    def variation(self, checks: Sequence[_Check]) -> _CheckedNotes:
        for check in checks:
            _add_check(self.checks, check)
        return self


class _CheckedLine(list[Turn]):
    """The main line or a variation's line as the checker reads it: its turns
    counted, and their checks. A list, always empty, so that the words of a
    fault (:func:`_pending_number`, :func:`_turns_before`) find it on the
    parser's stack where they find the record parser's list of turns."""

    __slots__ = ("checks", "turns")

    def __init__(self) -> None:
        super().__init__()
        self.turns = 0
        self.checks: list[_Check] = []

    def add(self, checks: Sequence[_Check]) -> _CheckedLine:
        for check in checks:
            _add_check(self.checks, _shifted(check, self.turns))
        self.turns += 1
        return self


class _Checker(_Builder):
    """The record parser's transformer, reduced to finding its first fault:
    every fault is raised where :class:`_Builder` raises it, and a turn or a
    line keeps only the checks that can still fail first, so a game of a
    million variations holds a handful. What it returns is no record."""

    def start(self, children: list[Any]) -> Any:
        return None

    def turns(self, children: list[Any]) -> Any:
        return _CheckedLine()

    def main_turn(self, children: list[Any]) -> Any:
        turns: _CheckedLine = children[0]
        _run_checks(children[1], turns.turns + _numbering.base)
        turns.turns += 1
        return turns

    def turn(self, children: list[Any]) -> Any:
        number: Token | None = children[0]
        move: Token = children[2]
        glyph: Token | None = children[3]
        notes: _CheckedNotes | None = children[4]
        self._count()
        _check_glyph(move, glyph)
        checks: list[_Check] = []
        if number is not None:
            checks.append(_number_check(_kept(number), 0))
        if notes is not None:
            if notes.bad_nag is not None:
                _add_check(checks, (notes.bad_nag, 0, None, True))
            for check in notes.checks:
                _add_check(checks, check)
        # A tuple, not a list: on the parser's stack a list is a line of turns.
        return tuple(checks)

    def first_nag(self, children: list[Token]) -> Any:
        return _CheckedNotes().nag(children[0])

    def next_nag(self, children: list[Any]) -> Any:
        return cast(_CheckedNotes, children[0]).nag(children[1])

    def first_note(self, children: list[Token]) -> Any:
        return _CheckedNotes()

    def next_note(self, children: list[Any]) -> Any:
        return children[0]

    def first_variation(self, children: list[Any]) -> Any:
        return _CheckedNotes().variation(children[0])

    def next_variation(self, children: list[Any]) -> Any:
        return cast(_CheckedNotes, children[0]).variation(children[1])

    def variation(self, children: list[Any]) -> Any:
        return tuple(cast(_CheckedLine, children[2]).checks)

    def first_line_turn(self, children: list[Any]) -> Any:
        return _CheckedLine().add(children[0])

    def next_line_turn(self, children: list[Any]) -> Any:
        return cast(_CheckedLine, children[0]).add(children[1])


_CHECKER = _Checker()

CHECK_FIRST_CHARS = 1_000_000
"""A game the scanner declines that is longer than this is first read by the
checker, and built only if it has no fault: a faulty game of a million
variations is then worded in the memory of a few, not of its record."""


# --------------------------------------------------------------------------
# One game


def parse_with_grammar(text: str, filename: str | None, line_offset: int, column_offset: int) -> Record:
    """Read one game's text with the grammar (CRLF already made LF), the game
    starting ``column_offset`` characters along line ``line_offset + 1`` of
    its file. Raises :class:`~keilref.errors.RecordSyntaxError`, in words.
    """
    try:
        if len(text) > CHECK_FIRST_CHARS:
            _CHECKER.begin()
            _read(_checking_parser(), text, line_offset, column_offset)
        _BUILDER.begin()
        return cast(Record, _read(record_parser(), text, line_offset, column_offset))
    except _Fault as fault:
        raise _error(fault.message, fault.line, fault.column, text, filename, line_offset, column_offset) from None
    except UnexpectedInput as e:
        message, line, column = _describe(e, text, line_offset, column_offset)
        raise _error(message, line, column, text, filename, line_offset, column_offset) from None


def _read(parser: Lark, text: str, line_offset: int, column_offset: int) -> Any:
    """What ``parser``'s transformer makes of ``text``, positions counted from its place in the file."""
    if line_offset == 0 and column_offset == 0:
        return parser.parse(text)
    interactive = parser.parse_interactive(text)
    counter = interactive.lexer_thread.state.line_ctr  # type: ignore[union-attr]
    counter.line += line_offset
    counter.line_start_pos = -column_offset
    counter.column = column_offset + 1
    return interactive.resume_parse()  # type: ignore[no-untyped-call]


def _too_many(first_line: int) -> _Fault:
    cap = limits.MAX_TURNS
    return _Fault(f"too many turns: a game may have at most {cap:,}; it was not read", first_line, 1)


def too_many_turns(text: str, filename: str | None, line_offset: int, column_offset: int, first_line: int) -> RecordSyntaxError:
    """The error for a game over :data:`~limits.MAX_TURNS` whose first tag is on
    ``first_line``, as the grammar words it: for a game the scanner found over
    the cap, without reading it again."""
    fault = _too_many(first_line)
    return _error(fault.message, fault.line, fault.column, text, filename, line_offset, column_offset)


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
    "RPAR": "')' to close the variation",
    "$END": "the end of the game",
}
_ORDER = ("TAG", "MOVE", "MOVENUM", "COMMENT", "RESULT", "RPAR", "$END")
_WORD = re.compile(r"[^ \t\n\r{;\ufeff]{1,40}")
"""A word as the grammar's tokens end: at white space (exactly WS), a comment or the end."""
# MOVE and RESULT without their lookahead: the tokens an unseen character can stop.
_MOVE_WORD = re.compile(r"(?:[A-Z]@)?[A-Za-z][0-9]{1,3}|pass|button")
_RESULT_WORD = re.compile(r"[BW]\+(?:[RTF]|[0-9]+(?:\.[0-9]+)?)?|Draw|\*")
_WHITE_SPACE = " (white space is a space, a tab or a line break)"
_RESULT_LIKE = re.compile(r"[BW]\+|draw\Z", re.I)
_RESULT_FORMS = "B+<margin>, W+<margin>, B+R, W+R, B+T, W+T, B+F, W+F, B+, W+, Draw or *"


def _expected(terminals: Iterable[str]) -> str:
    """``"a move, a comment or a result"``, from what the parser would accept.

    A move number is only mentioned where nothing but a number may follow it,
    and the end of the game only where little else may come.
    """
    wanted = set(terminals)
    if "MOVE" in wanted:
        wanted.discard("MOVENUM")
    # Glyphs and variations may follow almost any turn; a message names them
    # only through its hint, so that it says what the reader most likely meant.
    wanted -= {"GLYPH", "NAG", "LPAR"}
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
    if "MOVE" in allowed and "RESULT" not in allowed and "MOVENUM" not in allowed:
        return f"found {found}; expected a move after the move number{hint}"
    if "TAG" in allowed and "MOVE" not in allowed:
        return f'found {found}; a game starts with tags such as [Event "..."]{hint}'
    if "RESULT" not in allowed and "MOVE" not in allowed:
        return f"found {found} after the result; expected {_expected(allowed)}{hint}"
    return f"found {found}; expected {_expected(allowed)}{hint}"


_FOUND_TOKEN = {
    "MOVE": "the move",
    "MOVENUM": "the move number",
    "RESULT": "the result",
    "COMMENT": "a comment",
    "GLYPH": "the glyph",
    "NAG": "the numeric glyph",
    "LPAR": "the variation",
    "RPAR": "the word",
}


def _describe(e: UnexpectedInput, text: str, line_offset: int, column_offset: int) -> tuple[str, int, int]:
    """Message, line and column for a Lark error."""
    allowed = _acceptable(e)
    opening = _open_variation(e)
    # LALR shares the states after a turn between the main line and the
    # variations: what may follow depends on which one is open.
    if opening is None:
        allowed.discard("RPAR")
    else:
        allowed -= {"RESULT", "$END"}
    if isinstance(e, UnexpectedCharacters):
        return _describe_characters(e, text, allowed, opening is not None)
    assert isinstance(e, UnexpectedToken)
    token: Token = e.token
    if token.type == "$END" and opening is not None:
        line, column = opening.line or 0, opening.column or 0
        return "variation never closed: this '(' has no matching ')'", line, column
    if token.type == "RPAR" and "RPAR" not in allowed:
        if opening is None:
            return "found ')' with no '(' before it", token.line or 0, token.column or 0
        if "MOVENUM" in allowed:
            return "an empty variation: a variation holds at least one turn", token.line or 0, token.column or 0
    if token.type == "RESULT" and opening is not None:
        return _RESULT_IN_VARIATION, token.line or 0, token.column or 0
    if token.type == "LPAR" and "LPAR" not in allowed:
        return "found '(' where no turn stands before it: a variation follows the turn it replaces", token.line or 0, token.column or 0
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
    hint = " (a glyph stands directly after its turn, as in 'g7!')" if token.type == "GLYPH" else ""
    return _found(f"{_FOUND_TOKEN.get(token.type, 'the word')} '{token.value}'", allowed, hint), line, column


def _open_variation(e: UnexpectedInput) -> Token | None:
    """The ``(`` of the innermost variation still open where the parser stopped."""
    stack = getattr(getattr(e, "state", None), "value_stack", None) or []
    for item in reversed(stack):
        if isinstance(item, Token) and item.type == "LPAR":
            return item
    return None


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


def _describe_characters(
    e: UnexpectedCharacters, text: str, allowed: set[str], in_variation: bool
) -> tuple[str, int, int]:
    """For text that is no token at all: say what it looks like."""
    pos: int = e.pos_in_stream or 0
    line: int = e.line
    column: int = e.column
    char = text[pos]
    if char == "[":
        return _describe_tag(text, pos, line, column, allowed)
    if char == "{":
        return UNCLOSED_COMMENT, line, column
    if char == "}":
        return "found '}' with no '{' before it", line, column
    if char == "]":
        return "found ']' outside a tag", line, column
    m = _WORD.match(text, pos)
    word = m.group(0) if m else char
    unseen = _unseen(word)
    if unseen >= 0:
        # A control or space character other than white space separates
        # nothing: it is the fault when it stands where white space would.
        before = word[:unseen]
        if not before:
            return _found(code_point(word[0]), allowed, _WHITE_SPACE), line, column
        kind = "MOVE" if _MOVE_WORD.fullmatch(before) else "RESULT" if _RESULT_WORD.fullmatch(before) else None
        if kind is not None:
            # The token before it would have been read: say first what the
            # grammar would say of that token where it stands, if anything.
            fault = _token_fault(e, kind, before, allowed, line, column)
            if fault is not None:
                return fault
            message = f"found {code_point(word[unseen])} after '{before}'; expected a space, a tab or a line break"
            return message, line, column + unseen
        word = before
    if word.endswith(")") and _RESULT_WORD.fullmatch(word[:-1]):
        # A result cannot end at a ")" (it would close a variation), so "B+R)"
        # is one word: say what is wrong with the result or the ")" as if
        # they stood apart.
        if in_variation:
            return _RESULT_IN_VARIATION, line, column
        if "RESULT" in allowed:
            return "found ')' with no '(' before it", line, column + len(word) - 1
    hint = ""
    if word[:1] in "!?" and "MOVE" in allowed:
        hint = " (a glyph stands directly after its turn, as in 'g7!')"
    elif word[:1] == "$":
        hint = " (a numeric glyph is $0 to $255)"
    elif (meant := meant_result(text[pos : _line_end(text, pos)])) is not None:
        # The words after it may be part of it: "B + 4.5".
        hint = f" ({wording.result_meant(word, meant)})"
        if _RESULT_LIKE.match(word):
            hint = f" ('{word}' is not a result; {wording.result_meant(word, meant)} results are {_RESULT_FORMS})"
    elif _RESULT_LIKE.match(word):
        hint = f" ('{word}' is not a result: results are {_RESULT_FORMS})"
    elif word.isdigit():
        hint = f" (a move number ends with a dot: '{word}.' or '{word}...')"
    elif word not in _WORDS and (near := next((w for w in _WORDS if one_typo(word.lower(), w)), None)):
        hint = f" ({wording.word_meant(word, near)})"
    elif word[:1] == '"':
        hint = ' (a quoted value belongs in a tag: [Name "value"])'
    return _found(f"'{word}'", allowed, hint), line, column


def _line_end(text: str, pos: int) -> int:
    end = text.find("\n", pos)
    return len(text) if end < 0 else end


def _token_fault(
    e: UnexpectedInput, kind: str, word: str, allowed: set[str], line: int, column: int
) -> tuple[str, int, int] | None:
    """What the grammar says of the token ``word`` of terminal ``kind`` at
    ``line``:``column``, where the parser stopped: ``None`` if it would take it."""
    if kind not in allowed:
        return _found(f"{_FOUND_TOKEN[kind]} '{word}'", allowed), line, column
    if kind == "RESULT":
        try:
            Result.parse(word)
        except ValueError as error:
            return str(error), line, column
        return None
    number = _pending_number(e)
    if number is not None:
        turns = _turns_before(e, number)
        if turns is not None:
            turns += _numbering.base
        if turns is not None and number.value != number_text(turns):
            fault = _wrong_number(_kept(number), turns)
            return fault.message, fault.line, fault.column
    return None


def _turns_before(e: UnexpectedInput, number: Token) -> int | None:
    """How many turns were read before the move number ``number`` in its line (on the parser's stack)."""
    stack = getattr(getattr(e, "state", None), "value_stack", None) or []
    for i in range(len(stack) - 1, 0, -1):
        if stack[i] is number:
            turns = stack[i - 1]
            if isinstance(turns, _CheckedLine):
                return turns.turns
            return len(turns) if isinstance(turns, list) and not isinstance(turns, _Comments) else None
    return None


def _unseen(word: str) -> int:
    """Where the first character that cannot be seen stands in ``word`` (-1: none)."""
    if word.isprintable():
        return -1
    return next(i for i, c in enumerate(word) if not c.isprintable())


UNCLOSED_COMMENT = "comment never closed: this '{' has no matching '}'"
_RESULT_IN_VARIATION = "a variation holds no result: the result ends the main line"
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
_TAG_WORD = re.compile(r'[^ \t\n\r\]"]{1,40}')
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
        word = m.group(0) if m else text[i]
        unseen = _unseen(word)
        if unseen == 0:
            return code_point(word[0])
        return f"'{word[:unseen] if unseen > 0 else word}'"

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
