"""A fast reader for well-formed games, beside the Lark parser.

Almost every game in a real archive is well formed, and for those the Lark
parse is most of the cost of ``keilref check``. :func:`scan_game` reads such
a game with one compiled regular expression and a small state machine, and
builds exactly the :class:`~keilref.record.Record` the Lark parse builds:
the same tags, turns, comments, result, lines and columns.

It declines (returns ``None``) anything it is not sure of: a token that is
not one of the grammar's terminals, one out of place, a wrong move number, a
duplicate tag, a result that does not read. The caller then parses the game
with the grammar (``grammar/record.lark``), which stays the definition of
the format and the source of every error message. So the scanner can only
ever make reading faster, never change what is read or what is said about
a fault; the differential tests hold it to that.

The token patterns below are the grammar's terminals, copied verbatim (TAG
with groups added to take it apart): each starts with a different character
(MOVE and RESULT share ``B``, ``W`` and ``D``, but no text matches both), so
the first that matches here is the one Lark's contextual lexer picks.
"""

from __future__ import annotations

import re

from keilref.core import Result
from keilref.record import Comment, Record, Tag, Turn, TurnKind

__all__ = ["scan_game"]

_TOKEN = re.compile(
    r"[\s\ufeff]*(?:"
    # 1: MOVE
    r"((?:[A-Z]@)?[A-Za-z][0-9]{1,3}(?![^\s{;\ufeff])|(?:pass|button)(?![^\s{;\ufeff]))"
    # 2: MOVENUM
    r"|([0-9]+\.+)"
    # 3: COMMENT
    r"|(\{[^}]*\}|;[^\n]*)"
    # 4: RESULT
    r"|((?:[BW]\+(?:[RTF]|[0-9]+(?:\.[0-9]+)?)|Draw|\*)(?![^\s{;\ufeff]))"
    # 5: TAG, 6: its name, 7: its raw value
    r'|(\[[ \t]*([A-Za-z][A-Za-z0-9_]*)[ \t]*"((?:[^"\\\n]|\\["\\])*)"[ \t]*\])'
    r")"
)
_BLANK_TO_END = re.compile(r"[\s\ufeff]*\Z")
_ESCAPE = re.compile(r"\\(.)")

_MOVE, _MOVENUM, _COMMENT, _RESULT, _TAG = 1, 2, 3, 4, 5
_PLACE, _PASS, _BUTTON = TurnKind.PLACE, TurnKind.PASS, TurnKind.BUTTON
_NUMBERS = tuple(f"{i // 2 + 1}." if i % 2 == 0 else f"{i // 2 + 1}..." for i in range(1024))


def _comment(text: str) -> Comment:
    if text[0] == "{":
        return Comment(text[1:-1], True)
    # As the parser does: a CR before the line end is not part of the comment.
    return Comment(text[1:].rstrip("\r"), False)


def _make_turn(text: str, comments: tuple[Comment, ...], numbered: bool, line: int, column: int) -> Turn:
    if text.islower():
        if text == "pass":
            return Turn(text, _PASS, None, None, comments, text, numbered, line, column)
        if text == "button":
            return Turn(text, _BUTTON, None, None, comments, text, numbered, line, column)
        return Turn(text, _PLACE, text, None, comments, text, numbered, line, column)
    if text[1] == "@":
        piece, point = text[0], text[2:].lower()
        return Turn(f"{piece}@{point}", _PLACE, point, piece, comments, text, numbered, line, column)
    point = text.lower()
    return Turn(point, _PLACE, point, None, comments, text, numbered, line, column)


def _with_tag_comment(tag: Tag, comment: Comment) -> Tag:
    """The same tag with one more comment after it (comments are rare)."""
    return Tag(tag.name, tag.value, tag.comments + (comment,), tag.line, tag.column)


def _with_turn_comment(turn: Turn, comment: Comment) -> Turn:
    """The same turn with one more comment after it."""
    return Turn(
        turn.move,
        turn.kind,
        turn.point,
        turn.piece,
        turn.comments + (comment,),
        turn.written,
        turn.numbered,
        turn.line,
        turn.column,
    )


def scan_game(text: str, line_offset: int = 0, column_offset: int = 0) -> Record | None:
    """The record of one game's text, or ``None`` when the grammar must read it.

    ``text`` is what the parser reads (CRLF line ends already made LF);
    ``line_offset`` and ``column_offset`` place it in its file as they do
    for the parser.
    """
    head: list[Comment] = []
    tags: list[Tag] = []
    names: set[str] = set()
    turns: list[Turn] = []
    append = turns.append
    number: str | None = None  # a move number waiting for its move
    pending: tuple[Comment, ...] = ()  # comments between that number and its move
    result: str | None = None
    result_line = result_column = 0
    result_comments: list[Comment] = []

    line = line_offset + 1
    line_start = -column_offset  # as the parser counts: column = offset - line_start + 1
    pos = 0
    count = text.count
    for m in _TOKEN.finditer(text):
        if m.start() != pos:
            return None  # something between the tokens that is none of them
        pos = m.end()
        kind = m.lastindex
        start = m.start(kind)  # type: ignore[arg-type]
        newlines = count("\n", m.start(), start)
        if newlines:
            line += newlines
            line_start = text.rfind("\n", 0, start) + 1
        if kind == _MOVE:
            if not tags or result is not None:
                return None
            if number is not None:
                if number != (_NUMBERS[len(turns)] if len(turns) < 1024 else _number_text(len(turns))):
                    return None
                append(_make_turn(m.group(1), pending, True, line, start - line_start + 1))
                number, pending = None, ()
            else:
                append(_make_turn(m.group(1), (), False, line, start - line_start + 1))
        elif kind == _MOVENUM:
            if not tags or number is not None or result is not None:
                return None
            number = m.group(2)
        elif kind == _COMMENT:
            value = m.group(3)
            comment = _comment(value)
            if number is not None:
                pending += (comment,)
            elif result is not None:
                result_comments.append(comment)
            elif turns:
                turns[-1] = _with_turn_comment(turns[-1], comment)
            elif tags:
                tags[-1] = _with_tag_comment(tags[-1], comment)
            else:
                head.append(comment)
            if "\n" in value:  # a brace comment over several lines
                line += value.count("\n")
                line_start = start + value.rfind("\n") + 1
        elif kind == _RESULT:
            if not tags or number is not None or result is not None:
                return None
            result = m.group(4)
            try:
                Result.parse(result)
            except ValueError:
                return None
            result_line, result_column = line, start - line_start + 1
        else:  # _TAG
            if turns or number is not None or result is not None:
                return None
            name = m.group(6)
            if name in names:
                return None
            names.add(name)
            raw = m.group(7)
            value = _ESCAPE.sub(r"\1", raw) if "\\" in raw else raw
            tags.append(Tag(name, value, (), line, start - line_start + 1))
    if not tags or number is not None or _BLANK_TO_END.match(text, pos) is None:
        return None
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


def _number_text(index: int) -> str:
    return f"{index // 2 + 1}." if index % 2 == 0 else f"{index // 2 + 1}..."
