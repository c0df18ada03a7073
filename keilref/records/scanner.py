"""A fast reader for well-formed games, beside the Lark parser.

Almost every game in a real archive is well formed, and for those the Lark
parse is most of the cost of ``keilref check``. :func:`scan_game` reads such
a game with one compiled regular expression and a small state machine, and
builds exactly the :class:`~keilref.records.record.Record` the Lark parse builds:
the same tags, turns, comments, result, lines and columns.

Games with variations, glyphs and clocks it reads too (:func:`_scan_annotated`),
building each variation as it is read, with nothing kept but what the record
holds: the grammar's reading cost about 1.5 KB a variation, this about 330
bytes. A well-formed game past the turn cap stops the reading there
(:class:`TurnCapPassed`), so that such a game is never built whole.

It declines (returns ``None``) anything it is not sure of: a token that is
not one of the grammar's terminals, one out of place, a wrong move number, a
duplicate tag, a result that does not read, a glyph not directly after its
turn, variations nested past the cap. The caller then parses the game
with the grammar (``grammar/record.lark``), which stays the definition of
the format and the source of every error message. So the scanner can only
ever make reading faster, never change what is read or what is said about
a fault; the differential tests hold it to that.

The token patterns below are the grammar's terminals, copied verbatim (a
test holds them to the grammar's; a TAG is taken apart by a pattern with
groups): each starts with a different character
(MOVE and RESULT share ``B``, ``W`` and ``D``, but no text matches both), so
the first that matches here is the one Lark's contextual lexer picks.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from typing import cast

from keilref.records import limits
from keilref.values import Result
from keilref.records.record import Comment, DeferredTurns, Record, Tag, Turn, TurnKind, Variation, with_deferred_turns
from keilref.records.setup import TO_MOVE_TAG

__all__ = ["TurnCapPassed", "scan_game", "shared_spelling"]

_MOVE_TERMINAL = r"(?:[A-Z]@)?[A-Za-z][0-9]{1,3}(?![^ \t\n\r{;\ufeff()!?])|(?:pass|button)(?![^ \t\n\r{;\ufeff()!?])"
_MOVENUM_TERMINAL = r"[0-9]+\.+"
_COMMENT_TERMINAL = r"\{[^}]*\}|;[^\n]*"
_RESULT_TERMINAL = r"(?:[BW]\+(?:[RTF]|[0-9]+(?:\.[0-9]+)?)?|Draw|\*)(?![^ \t\n\r{;\ufeff])"
_TAG_TERMINAL = r'\[[ \t]*[A-Za-z][A-Za-z0-9_]*[ \t]*"(?:[^"\\\n]|\\["\\])*"[ \t]*\]'
_GLYPH_TERMINAL = r"(?:!!|\?\?|!\?|\?!|!|\?)(?![^ \t\n\r{;\ufeff()])"
_NAG_TERMINAL = r"\$[0-9]+(?![^ \t\n\r{;\ufeff()])"
_BLANKS_BEFORE = r"([ \t\n\r\ufeff]*)"
# Anything else starts no token, and the game is declined: the rest of the
# text in one match; or the end of the text.
_ANYTHING_ELSE = r"([^ \t\n\r\ufeff](?s:.*))|\Z"

_TOKENS = re.compile(
    f"{_BLANKS_BEFORE}(?:({_MOVE_TERMINAL})|({_MOVENUM_TERMINAL})|({_COMMENT_TERMINAL})"
    f"|({_RESULT_TERMINAL})|({_TAG_TERMINAL})|{_ANYTHING_ELSE})"
)
"""One match per token, with the blanks before it: ``findall`` then reads
the whole text in one call, no character skipped, and no match objects.

The blanks are the grammar's WS exactly (not ``\\s``, which also takes
U+001C..U+001F, U+00A0, U+2028 and others that separate nothing). Where no
token starts, the rest of the text is taken at once: a token tried at every
character of a long run that is none (``[0-9]+\\.+`` over digits with no dot)
would read the run once per character, in time that grows with its square."""
_TAG_PARTS = re.compile(r'\[[ \t]*([A-Za-z][A-Za-z0-9_]*)[ \t]*"((?:[^"\\\n]|\\["\\])*)"')
_ESCAPE = re.compile(r"\\(.)")

_PLACE, _PASS, _BUTTON = TurnKind.PLACE, TurnKind.PASS, TurnKind.BUTTON
_TURN_FIELDS = ("move", "kind", "point", "piece", "comments", "written", "numbered", "line", "column")
_ANNOTATIONS = ("glyphs", "variations", "clock_at")
"""Fields of version 2 that a game the scanner reads never has: left at their defaults."""


def _turn_maker() -> Callable[[str, TurnKind, str | None, str | None, tuple[Comment, ...], str, bool, int, int], Turn]:
    """How to make a :class:`Turn` quickly.

    A frozen dataclass sets each field through ``object.__setattr__``, which
    is most of the cost of reading a well-formed game. A slotted ``Turn``
    with no ``__post_init__`` is nothing but its slots, so the turn is made
    by filling each slot through its descriptor. The result is checked here
    against the constructor's, and the constructor is used whenever the
    class is not exactly that.
    """
    slots = vars(Turn).get("__slots__")
    if (
        tuple(f.name for f in dataclasses.fields(Turn)) != _TURN_FIELDS + _ANNOTATIONS
        or hasattr(Turn, "__post_init__")
        or slots is None
        or tuple(slots) != _TURN_FIELDS + _ANNOTATIONS
        or len(Turn.__mro__) != 2  # no base class with slots or state of its own
    ):
        return Turn
    new = object.__new__
    move_, kind_, point_, piece_, comments_, written_, numbered_, line_, column_, glyphs_, variations_, clock_ = (
        vars(Turn)[name].__set__ for name in _TURN_FIELDS + _ANNOTATIONS
    )

    def make(
        move: str,
        kind: TurnKind,
        point: str | None,
        piece: str | None,
        comments: tuple[Comment, ...],
        written: str,
        numbered: bool,
        line: int,
        column: int,
    ) -> Turn:
        turn = new(Turn)
        move_(turn, move)
        kind_(turn, kind)
        point_(turn, point)
        piece_(turn, piece)
        comments_(turn, comments)
        written_(turn, written)
        numbered_(turn, numbered)
        line_(turn, line)
        column_(turn, column)
        glyphs_(turn, ())
        variations_(turn, ())
        clock_(turn, None)
        return turn

    args = ("K@a1", _PLACE, "a1", "K", (Comment("c"),), "K@A1", True, 2, 3)
    made, built = make(*args), Turn(*args)
    if all(getattr(made, name) is getattr(built, name) for name in _TURN_FIELDS + _ANNOTATIONS) and made == built:
        return make
    return Turn


_new_turn = _turn_maker()


def _comment(text: str) -> Comment:
    if text[0] == "{":
        return Comment(text[1:-1], True)
    # As the parser does: a CR before the line end is not part of the comment.
    return Comment(text[1:].rstrip("\r"), False)


def turn_from_token(text: str, comments: tuple[Comment, ...], numbered: bool, line: int, column: int) -> Turn:
    """The turn a MOVE token spells. The grammar's transformer makes its
    turns here too, so both readers build them in one place. Lower case is
    canonical; most tokens already are, so the common case does no string work."""
    if text.islower():
        if text == "pass":
            return _new_turn(text, _PASS, None, None, comments, text, numbered, line, column)
        if text == "button":
            return _new_turn(text, _BUTTON, None, None, comments, text, numbered, line, column)
        return _new_turn(text, _PLACE, text, None, comments, text, numbered, line, column)
    if text[1] == "@":
        piece, point = text[0], text[2:].lower()
        return _new_turn(f"{piece}@{point}", _PLACE, point, piece, comments, text, numbered, line, column)
    point = text.lower()
    return _new_turn(point, _PLACE, point, None, comments, text, numbered, line, column)


def _add_tag(tags: list[Tag], names: set[str], name: str, raw: str, line: int, column: int, value_column: int) -> bool:
    """Add a tag as the parser reads it; ``False`` for a duplicate name, which the grammar words."""
    if name in names:
        return False
    names.add(name)
    if "\\" in raw:
        tags.append(Tag(name, _ESCAPE.sub(r"\1", raw), (), line, column))
    else:
        tags.append(Tag(name, raw, (), line, column, value_column))
    return True


def _clock_place(note: str, line: int, column: int) -> tuple[int, int]:
    """Where ``[%clk`` stands inside the comment ``note``, which starts at ``line``:``column``."""
    offset = note.index("[%clk")
    newlines = note.count("\n", 0, offset)
    if newlines:
        return line + newlines, offset - note.rindex("\n", 0, offset)
    return line, column + offset


def _with_tag_comments(tag: Tag, comments: list[Comment]) -> Tag:
    """The same tag with the comments after it."""
    return Tag(tag.name, tag.value, tag.comments + tuple(comments), tag.line, tag.column, tag.value_column)


def _with_turn_comments(turn: Turn, comments: list[Comment], clock_at: tuple[int, int] | None = None) -> Turn:
    """The same turn with the comments after it (after those before it, if numbered),
    and where its clock stands."""
    if clock_at is None:
        clock_at = turn.clock_at
    return Turn(
        turn.move,
        turn.kind,
        turn.point,
        turn.piece,
        turn.comments + tuple(comments),
        turn.written,
        turn.numbered,
        turn.line,
        turn.column,
        clock_at=clock_at,
    )


def scan_game(text: str, line_offset: int = 0, column_offset: int = 0) -> Record | None:
    """The record of one game's text, or ``None`` when the grammar must read it.

    ``text`` is what the parser reads (CRLF line ends already made LF);
    ``line_offset`` and ``column_offset`` place it in its file as they do
    for the parser.
    """
    record = _scan(text, line_offset, column_offset)
    if record is not None and record.tag(TO_MOVE_TAG) is not None:
        return None  # a position's first move number may be White's: the grammar counts them
    return record


def _scan(text: str, line_offset: int, column_offset: int) -> Record | None:
    plain = _scan_plain(text, line_offset, column_offset)
    if plain is not _NOT_PLAIN:
        return cast("Record | None", plain)
    tokens = _scan_tokens(text, line_offset, column_offset)
    if tokens is _ANNOTATED:
        # Every turn takes at least three characters (a move and what ends
        # it): only a longer game can pass the turn cap, and such a game is
        # read through once without making anything, so that one refused at
        # the cap has not first been built up to it.
        if len(text) > 3 * limits.MAX_TURNS and _scan_annotated(text, line_offset, column_offset, False) is None:
            return None
        return cast("Record | None", _scan_annotated(text, line_offset, column_offset))
    return cast("Record | None", tokens)


_ANNOTATED = object()
"""The game has a variation or a glyph: :func:`scan_game` reads it with :func:`_scan_annotated`."""
_ANNOTATION_STARTS = frozenset("()!?$")
_CHECKED = object()


def _scan_tokens(text: str, line_offset: int, column_offset: int) -> Record | None | object:
    """:func:`scan_game` for any game, token by token."""
    head: list[Comment] = []
    tags: list[Tag] = []
    names: set[str] = set()
    turns: list[Turn] = []
    append = turns.append
    number: str | None = None  # a move number waiting for its move
    pending: list[Comment] = []  # comments between that number and its move
    # Comments after a tag or a turn, by its index, given to it at the end:
    # a record's tags and turns are immutable, and making a new one for each
    # comment would copy a run of comments once per comment.
    tag_notes: dict[int, list[Comment]] = {}
    turn_notes: dict[int, list[Comment]] = {}
    clocks: dict[int, tuple[int, int]] = {}  # where the first [%clk of a turn's comments stands
    result: str | None = None
    result_line = result_column = 0
    result_comments: list[Comment] = []

    line = line_offset + 1
    line_start = -column_offset  # as the parser counts: column = offset - line_start + 1
    pos = 0  # where the token being read starts
    for blanks, move, num, note, res, tag, bad in _TOKENS.findall(text):
        if blanks:
            pos += len(blanks)
            if "\n" in blanks:
                line += blanks.count("\n")
                line_start = pos - len(blanks) + blanks.rfind("\n") + 1
        if move:
            if not tags or result is not None:
                return None
            index = len(turns)
            if number is None:
                # The common case, inlined: a lower-case point, unnumbered.
                if move.islower() and move != "pass" and move != "button":
                    append(_new_turn(move, _PLACE, move, None, (), move, False, line, pos - line_start + 1))
                else:
                    append(turn_from_token(move, (), False, line, pos - line_start + 1))
            else:
                if number != number_text(index):
                    return None
                append(turn_from_token(move, tuple(pending), True, line, pos - line_start + 1))
                number = None
                pending.clear()
            pos += len(move)
        elif num:
            if not tags or number is not None or result is not None:
                return None
            number = num
            pos += len(num)
        elif note:
            comment = _comment(note)
            if "[%clk" in note and result is None and (number is not None or turns):
                # The turn's clock: where it stands, for a warning about it.
                index = len(turns) if number is not None else len(turns) - 1
                if index not in clocks:
                    clocks[index] = _clock_place(note, line, pos - line_start + 1)
            if number is not None:
                pending.append(comment)
            elif result is not None:
                result_comments.append(comment)
            elif turns:
                turn_notes.setdefault(len(turns) - 1, []).append(comment)
            elif tags:
                tag_notes.setdefault(len(tags) - 1, []).append(comment)
            else:
                head.append(comment)
            if "\n" in note:  # a brace comment over several lines
                line += note.count("\n")
                line_start = pos + note.rfind("\n") + 1
            pos += len(note)
        elif res:
            if not tags or number is not None or result is not None:
                return None
            try:
                Result.parse(res)
            except ValueError:
                return None
            result, result_line, result_column = res, line, pos - line_start + 1
            pos += len(res)
        elif tag:
            if turns or number is not None or result is not None:
                return None
            m = _TAG_PARTS.match(tag)
            assert m is not None  # the same shape as the token
            column = pos - line_start + 1
            if not _add_tag(tags, names, m.group(1), m.group(2), line, column, column + m.start(2)):
                return None
            pos += len(tag)
        elif bad:
            if bad[0] in _ANNOTATION_STARTS:
                return _ANNOTATED  # a variation, a glyph: read again by _scan_annotated
            return None  # a character that starts no token here
        # else: the end of the text, after any blanks
    if not tags or number is not None or pos != len(text):
        return None
    for index, notes in tag_notes.items():
        tags[index] = _with_tag_comments(tags[index], notes)
    for index, notes in turn_notes.items():
        turns[index] = _with_turn_comments(turns[index], notes, clocks.pop(index, None))
    for index, place in clocks.items():  # a clock between a move number and its move
        turns[index] = _with_turn_comments(turns[index], [], place)
    if result is None:
        return Record(tuple(tags), tuple(turns), None, tuple(head), (), tags[0].line)
    return Record(
        tuple(tags),
        tuple(turns),
        result,
        tuple(head),
        tuple(result_comments),
        tags[0].line,
        result_line,
        result_column,
    )


class TurnCapPassed(Exception):
    """A well-formed game read past :data:`~limits.MAX_TURNS` turns (variations
    included): the reading stops there, and the caller refuses the game as
    the grammar words it, at its first tag (``first_line``)."""

    def __init__(self, first_line: int) -> None:
        super().__init__(first_line)
        self.first_line = first_line


_ANNOTATED_TOKENS = re.compile(
    f"{_BLANKS_BEFORE}(?:({_MOVE_TERMINAL})|({_MOVENUM_TERMINAL})|({_COMMENT_TERMINAL})|({_RESULT_TERMINAL})|({_TAG_TERMINAL})"
    f"|({_GLYPH_TERMINAL})|({_NAG_TERMINAL})|(\\()|(\\))|{_ANYTHING_ELSE})"
)
""":data:`_TOKENS` with the grammar's GLYPH, NAG, LPAR and RPAR terminals
(verbatim): each starts with a character no other terminal starts with."""
(
    _MOVE_GROUP, _NUMBER_GROUP, _COMMENT_GROUP, _RESULT_GROUP, _TAG_GROUP,
    _GLYPH_GROUP, _NAG_GROUP, _LPAR_GROUP, _RPAR_GROUP, _BAD_GROUP,
) = range(2, 12)

_SPELLINGS: dict[str, str] = {}


def shared_spelling(text: str) -> str:
    """One string per spelling of a move, for the turns of annotated games
    (both readers): a game of a million variations then holds a few hundred
    strings, not a million."""
    spelt = _SPELLINGS.get(text)
    if spelt is None:
        if len(_SPELLINGS) >= 4096:  # odd spellings must not grow it without end
            _SPELLINGS.clear()
        spelt = _SPELLINGS[text] = text
    return spelt


class _Line:
    """A line being read: the main line, or a variation from its ``(``.

    The last turn read stays open, taking the comments, glyphs and
    variations written after it, and is made when the line goes on or ends.
    Nothing but what the record will hold is kept, so that a game of many
    variations costs what its record costs.
    """

    __slots__ = (
        "after", "base", "before", "build", "clock", "column", "comments", "count", "glyphs", "lead",
        "line", "move", "move_column", "move_line", "number", "numbered", "turns", "variations",
    )

    def __init__(self, base: int, line: int, column: int, build: bool) -> None:
        self.build = build
        """Make the turns and variations; else only count and check them."""
        self.count = 0
        """The turns closed so far."""
        self.base = base
        """The index in the game of this line's first turn (0: Black's first)."""
        self.line = line
        self.column = column
        """Where the ``(`` stands (0 for the main line)."""
        self.lead: list[Comment] | None = None
        """Comments after the ``(``, before the first turn."""
        self.turns: list[Turn] = []
        self.number: str | None = None
        """A move number waiting for its move, and the comments after it."""
        self.before: list[Comment] | None = None
        self.move: str | None = None
        """The open turn, as written; ``None`` before the first."""
        self.move_line = self.move_column = 0
        self.numbered = False
        """Whether a move number stood before the open turn."""
        self.comments: list[Comment] | None = None
        self.glyphs: list[str] | None = None
        self.clock: tuple[int, int] | None = None
        self.variations: list[Variation | None] | None = None
        """The open turn's variations, the last one's comments after its ``)`` aside."""
        self.after: list[Comment] | None = None

    def close_turn(self) -> None:
        """Make the open turn, if any."""
        if self.move is None:
            return
        self.count += 1
        if not self.build:
            self.move = None
            self.comments = self.glyphs = self.variations = self.after = None
            self.clock = None
            return
        self._close_variation()
        comments = () if self.comments is None else tuple(self.comments)
        turn = turn_from_token(shared_spelling(self.move), comments, self.numbered, self.move_line, self.move_column)
        if self.glyphs is not None or self.variations is not None or self.clock is not None:
            turn = dataclasses.replace(
                turn,
                glyphs=() if self.glyphs is None else tuple(self.glyphs),
                variations=() if self.variations is None else cast("tuple[Variation, ...]", tuple(self.variations)),
                clock_at=self.clock,
            )
        self.turns.append(turn)
        self.move = None
        self.comments = self.glyphs = self.variations = None
        self.clock = None

    def _close_variation(self) -> None:
        """Give the last variation its comments after its ``)``."""
        if self.after is not None and self.variations and self.build:
            v = self.variations[-1]
            assert v is not None  # made, as this line is
            self.variations[-1] = Variation(v.turns, v.comments, tuple(self.after), v.line, v.column)
        self.after = None

    def add_variation(self, variation: Variation | None) -> None:
        self._close_variation()
        if self.variations is None:
            self.variations = []
        self.variations.append(variation)

    def variation(self) -> Variation | None:
        """This line, ended by its ``)``, as a variation (``None`` when not made)."""
        self.close_turn()
        if not self.build:
            return None
        lead = () if self.lead is None else tuple(self.lead)
        return Variation(tuple(self.turns), lead, (), self.line, self.column)


def _scan_annotated(text: str, line_offset: int, column_offset: int, build: bool = True) -> Record | None | object:
    """:func:`scan_game` for a game with variations or glyphs: what the
    grammar reads, built as it builds it, and declined where it finds a
    fault (or a nesting past the cap, which it words). Not ``build``, the
    game is only read through, and :data:`_CHECKED` stands for its record."""
    head: list[Comment] = []
    tags: list[Tag] = []
    names: set[str] = set()
    tag_notes: dict[int, list[Comment]] = {}
    main = _Line(0, 0, 0, build)
    lines = [main]  # the lines open, innermost last
    current = main
    read = 0  # turns, variations included
    cap = limits.MAX_TURNS
    max_depth = limits.MAX_VARIATION_DEPTH
    result: str | None = None
    result_line = result_column = 0
    result_comments: list[Comment] = []
    after_move = False  # the token before was a move: a glyph may follow it, directly

    line = line_offset + 1
    line_start = -column_offset
    pos = 0
    # One match at a time, not findall's list: the list of a million
    # variations' tokens would cost more than their record.
    for m in _ANNOTATED_TOKENS.finditer(text):
        blanks, kind = m.group(1), m.lastindex or 1
        token = m.group(kind) if kind != 1 else ""
        if blanks:
            pos += len(blanks)
            if "\n" in blanks:
                line += blanks.count("\n")
                line_start = pos - len(blanks) + blanks.rfind("\n") + 1
        column = pos - line_start + 1
        was_after_move, after_move = after_move, False
        if kind == _MOVE_GROUP:
            move = token
            if not tags or result is not None:
                return None
            read += 1
            if read > cap:
                raise TurnCapPassed(tags[0].line)
            current.close_turn()  # a no-op after a move number, which closed it
            if current.number is not None:
                if current.number != number_text(current.base + current.count):
                    return None
                current.numbered = True
                current.comments = current.before
                current.number = current.before = None
            else:
                current.numbered = False
            current.move, current.move_line, current.move_column = move, line, column
            after_move = True
            pos += len(move)
        elif kind == _NUMBER_GROUP:
            num = token
            if not tags or current.number is not None or result is not None:
                return None
            # The turn before ends here: the comments after the number, and
            # a clock among them, are the next turn's.
            current.close_turn()
            current.number = num
            pos += len(num)
        elif kind == _COMMENT_GROUP:
            note = token
            comment = _comment(note)
            if current.number is not None:
                if current.before is None:
                    current.before = []
                current.before.append(comment)
                if current.clock is None and "[%clk" in note:
                    current.clock = _clock_place(note, line, column)
            elif result is not None:
                result_comments.append(comment)
            elif current.move is not None:
                if current.variations:
                    if current.after is None:
                        current.after = []
                    current.after.append(comment)
                else:
                    if current.comments is None:
                        current.comments = []
                    current.comments.append(comment)
                    if current.clock is None and "[%clk" in note:
                        current.clock = _clock_place(note, line, column)
            elif current is not main:
                if current.lead is None:
                    current.lead = []
                current.lead.append(comment)
            elif tags:
                tag_notes.setdefault(len(tags) - 1, []).append(comment)
            else:
                head.append(comment)
            if "\n" in note:  # a brace comment over several lines
                line += note.count("\n")
                line_start = pos + note.rfind("\n") + 1
            pos += len(note)
        elif kind == _GLYPH_GROUP:
            glyph = token
            if not was_after_move or blanks:
                return None  # the grammar says where a glyph stands
            current.glyphs = [glyph]
            pos += len(glyph)
        elif kind == _NAG_GROUP:
            nag = token
            if current.move is None or current.number is not None:
                return None
            digits = nag[1:].lstrip("0") or "0"
            if len(digits) > 3 or int(digits) > limits.MAX_NAG:
                return None
            if current.glyphs is None:
                current.glyphs = []
            current.glyphs.append("$" + digits)
            pos += len(nag)
        elif kind == _LPAR_GROUP:
            if current.move is None or current.number is not None or result is not None:
                return None
            if len(lines) > max_depth:
                return None  # nested past the cap: the grammar refuses it at this '('
            current = _Line(current.base + current.count, line, column, build)
            lines.append(current)
            pos += 1
        elif kind == _RPAR_GROUP:
            if current is main or current.move is None or current.number is not None:
                return None
            lines.pop()
            finished = current.variation()
            current = lines[-1]
            current.add_variation(finished)
            pos += 1
        elif kind == _RESULT_GROUP:
            res = token
            if not tags or current is not main or main.number is not None or result is not None:
                return None
            try:
                Result.parse(res)
            except ValueError:
                return None
            main.close_turn()
            result, result_line, result_column = res, line, column
            pos += len(res)
        elif kind == _TAG_GROUP:
            tag = token
            if main.count or main.move is not None or current.number is not None or result is not None:
                return None
            parts = _TAG_PARTS.match(tag)
            assert parts is not None  # the same shape as the token
            if not _add_tag(tags, names, parts.group(1), parts.group(2), line, column, column + parts.start(2)):
                return None
            pos += len(tag)
        elif kind == _BAD_GROUP:
            return None  # a character that starts no token here
    if not tags or current is not main or main.number is not None or pos != len(text):
        return None
    main.close_turn()
    if not build:
        return _CHECKED
    for index, notes in tag_notes.items():
        tags[index] = _with_tag_comments(tags[index], notes)
    return Record(
        tuple(tags),
        tuple(main.turns),
        result,
        tuple(head),
        tuple(result_comments),
        tags[0].line,
        result_line,
        result_column,
    )


def _spelt_number(index: int) -> str:
    return f"{index // 2 + 1}." if index % 2 == 0 else f"{index // 2 + 1}..."


_NUMBERS = tuple(_spelt_number(i) for i in range(1024))
"""Precomputed for the turns of any ordinary game."""


def number_text(index: int) -> str:
    """The move number that may stand before turn ``index`` (0-based): ``N.``
    before Black's turn of move N, ``N...`` before White's. The grammar's
    transformer checks numbers with it too."""
    return _NUMBERS[index] if index < 1024 else _spelt_number(index)


# The plain path: most games are tags, then moves, move numbers and a result
# separated by nothing but spaces and line ends. Such a game is cut with
# str.split instead of the token pattern, and each distinct word is looked up
# in a table once it has been classified.
_NOT_PLAIN = object()
"""The game is not plain: :func:`scan_game` reads it token by token."""
_PLAIN_TAG = re.compile(r'[ \n]*(\[[ \t]*([A-Za-z][A-Za-z0-9_]*)[ \t]*"((?:[^"\\\n]|\\["\\])*)"[ \t]*\])')
_NOT_PLAIN_BODY = re.compile(r"[^ \n!-~]|[{;\[()!?$]")
"""A character that makes the moves section not plain: any blank but space
and line end, anything outside printable ASCII, a comment, a tag, a
variation or a glyph (found here, before the section is cut into words: a
game of a million variations would be cut whole before its first word said so)."""
_WORD_MOVE = re.compile(r"(?:[A-Z]@)?[A-Za-z][0-9]{1,3}|pass|button")
_WORD_NUMBER = re.compile(r"[0-9]+\.+")
_WORD_RESULT = re.compile(r"[BW]\+(?:[RTF]|[0-9]+(?:\.[0-9]+)?)?|Draw|\*")
# What a word is, when it stands alone between blanks: each is then exactly
# one token of the token pattern (MOVE comes first there, and no word matches
# two of these), and anything else is left to that pattern.
_POINT, _MOVE, _NUMBER, _RESULT, _UNREADABLE, _OTHER = range(6)
_WORDS: dict[str, int] = {}
_MAX_WORDS = 100_000
_MAX_WORD = 32
"""The longest word kept in the table: the table holds words, not whole games' text."""


def _word_kind(word: str) -> int:
    kind = _WORDS.get(word)
    if kind is not None:
        return kind
    if _WORD_MOVE.fullmatch(word):
        kind = _POINT if word.islower() and word != "pass" and word != "button" else _MOVE
    elif _WORD_NUMBER.fullmatch(word):
        kind = _NUMBER
    elif _WORD_RESULT.fullmatch(word):
        try:
            Result.parse(word)
            kind = _RESULT
        except ValueError:
            kind = _UNREADABLE
    else:
        kind = _OTHER
    if len(word) > _MAX_WORD:  # no move, number or result is this long: not worth keeping
        return kind
    if len(_WORDS) >= _MAX_WORDS:  # an archive of odd words must not grow this without end
        _WORDS.clear()
    _WORDS[word] = kind
    return kind


def _scan_plain(text: str, line_offset: int, column_offset: int) -> Record | None | object:
    """:func:`scan_game` for a plain game; :data:`_NOT_PLAIN` for any other.

    Declines (``None``) exactly where the token-by-token reading would.
    """
    tags: list[Tag] = []
    names: set[str] = set()
    line = line_offset + 1
    line_start = -column_offset
    pos = 0
    while True:
        m = _PLAIN_TAG.match(text, pos)
        if m is None:
            break
        start = m.start(1)
        if start > pos:
            newlines = text.count("\n", pos, start)
            if newlines:
                line += newlines
                line_start = text.rfind("\n", pos, start) + 1
        if not _add_tag(tags, names, m.group(2), m.group(3), line, start - line_start + 1, m.start(3) - line_start + 1):
            return None
        pos = m.end()
    if not tags or _NOT_PLAIN_BODY.search(text, pos):
        return _NOT_PLAIN
    read = _plain_moves(text, pos)
    if read is None or read is _NOT_PLAIN:
        return read
    moves, result = cast("tuple[tuple[str, ...], str | None]", read)
    result_line = result_column = 0
    if result is not None:
        # An accepted plain game with a result ends with it.
        offset = len(text.rstrip(" \n")) - len(result)
        newline = text.rfind("\n", pos, offset)
        result_line = line + text.count("\n", pos, offset)
        result_column = offset - (line_start if newline < 0 else newline + 1) + 1
    record = Record(tuple(tags), (), result, (), (), tags[0].line, result_line, result_column)
    return with_deferred_turns(record, _PlainTurns(moves, text, pos, line, line_start))


def _plain_moves(text: str, pos: int) -> tuple[tuple[str, ...], str | None] | None | object:
    """The moves and result of a plain game's moves section, which starts at
    ``pos``; ``None`` to decline, :data:`_NOT_PLAIN` for a section that is not
    plain after all. Places are left to :func:`_plain_turns`, for when the
    turns are wanted."""
    moves: list[str] = []
    append = moves.append
    number: str | None = None
    result: str | None = None
    # The section holds no blank but space and line end (_NOT_PLAIN_BODY), so
    # str.split, which would also cut at U+001C..U+001F, U+00A0 and others
    # that are not white space, cuts only where the grammar's WS does.
    for word in text[pos:].split():
        kind = _WORDS.get(word)
        if kind is None:
            kind = _word_kind(word)
        if kind <= _MOVE:
            if result is not None:
                return None
            if number is not None:
                index = len(moves)
                if number != number_text(index):
                    return None
                number = None
            append(word if kind == _POINT else turn_from_token(word, (), False, 0, 0).move)
        elif kind == _NUMBER:
            if number is not None or result is not None:
                return None
            number = word
        elif kind == _RESULT:
            if number is not None or result is not None:
                return None
            result = word
        elif kind == _UNREADABLE:
            return None
        else:
            return _NOT_PLAIN
    if number is not None:
        return None
    return tuple(moves), result


class _PlainTurns(DeferredTurns):
    """A plain game's turns, made from its text when first wanted."""

    __slots__ = ("_moves", "_text", "_pos", "_line", "_line_start")

    def __init__(self, moves: tuple[str, ...], text: str, pos: int, line: int, line_start: int) -> None:
        self._moves = moves
        self._text = text
        self._pos = pos
        self._line = line
        self._line_start = line_start

    @property
    def moves(self) -> tuple[str, ...]:
        return self._moves

    def turns(self) -> tuple[Turn, ...]:
        return _plain_turns(self._text, self._pos, self._line, self._line_start)


def _plain_turns(text: str, pos: int, line: int, line_start: int) -> tuple[Turn, ...]:
    """The turns of a plain moves section that :func:`_plain_moves` read,
    with their places: every word is a turn, a move number (of the turn
    after it) or the result, the order already checked there."""
    turns: list[Turn] = []
    append = turns.append
    new_turn = _new_turn
    numbered = False
    offset = pos
    first = True
    for row in text[pos:].split("\n"):
        if first:
            first = False
        else:
            line += 1
            line_start = offset
        column = offset - line_start + 1
        for word in row.split(" "):
            if word:
                kind = _WORDS.get(word)
                if kind is None:
                    kind = _word_kind(word)
                if kind == _POINT:
                    append(new_turn(word, _PLACE, word, None, (), word, numbered, line, column))
                    numbered = False
                elif kind == _MOVE:
                    append(turn_from_token(word, (), numbered, line, column))
                    numbered = False
                elif kind == _NUMBER:
                    numbered = True
            column += len(word) + 1
        offset += len(row) + 1
    return tuple(turns)
