"""Writing records back as canonical ``.keil`` text.

Canonical means: the standard tags first in a fixed order, then a
position's tags in the table's order, then the others as they were; one tag
per line, a ``Setup`` in its canonical spelling (``B:`` then ``W:``, each
list sorted) when it reads; a blank line; the turns with their move
numbers (from ``1...`` when White plays first), filled into lines of at most
80 characters; the result. Every comment is kept where it was attached.
Writing is idempotent, and ``parse_record(write_record(r)) == r`` for every
record whose tags are in canonical order and whose ``Setup``, if any, is
canonical (for others, equal once those are put right).

A record whose text could not be read back (a ``}`` inside a brace comment,
a newline in a tag value, a turn token not in canonical form...) raises
``ValueError`` rather than being written wrong; one that is not made of
records, tags, turns and comments (a tag value that is not a ``str``...)
raises ``TypeError`` naming the part. Only ``Turn.move`` is written:
a turn's kind, point and piece are derived from it when the text is read.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from keilref.values import Result
from keilref.errors import wrong_type
from keilref.records.tags import POSITION_TAGS, STANDARD_TAGS
from keilref.records.setup import SETUP_TAG, canonical_setup, white_first
from keilref.records.limits import MAX_NAG, MAX_VARIATION_DEPTH
from keilref.records.record import GLYPHS, Comment, DeferredTurns, Record, Tag, Turn, Variation

__all__ = ["LINE_WIDTH", "STANDARD_TAGS", "canonical_tags", "write_record", "write_records"]

LINE_WIDTH = 80
"""The longest line the writer makes (a single long comment may exceed it)."""

# STANDARD_TAGS, the tags written first and their order, is the tag table's
# (keilref.records.tags); it stays importable from here. A position's tags
# follow them, in the table's order too.

_RANK = {name: i for i, name in enumerate((*STANDARD_TAGS, *POSITION_TAGS))}
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*\Z")
_MOVE = re.compile(r"(?:([A-Z])@)?([a-z][0-9]{1,3})\Z")
_RESULT = re.compile(r"(?:[BW]\+(?:[RTF]|[0-9]+(?:\.[0-9]+)?)?|Draw|\*)\Z")


def canonical_tags(tags: Iterable[Tag]) -> tuple[Tag, ...]:
    """The tags in written order: standard ones first, then a position's, then the rest as given."""
    tags = tuple(tags)
    standard = sorted((t for t in tags if t.name in _RANK), key=lambda t: _RANK[t.name])
    return (*standard, *(t for t in tags if t.name not in _RANK))


def write_record(record: Record) -> str:
    """The canonical text of one game, ending with a newline.

    Raises ``ValueError`` for a record that would not read back as itself,
    ``TypeError`` for one that is not a :class:`~keilref.Record` of tags,
    turns and comments (see the module's docstring).
    """
    _check(record)
    out = _Lines()
    for comment in record.head_comments:
        out.add_comment(comment)
    for tag in canonical_tags(record.tags):
        out.new_line()
        value = canonical_setup(tag.value) if tag.name == SETUP_TAG else tag.value
        out.add(f'[{tag.name} "{_escape(value)}"]')
        for comment in tag.comments:
            out.add_comment(comment)
    if record.turns or record.result is not None:
        out.blank_line()
        _write_moves(out, record)
    return out.text()


def write_records(records: Iterable[Record]) -> str:
    """Several games, separated by a blank line.

    In a file, comments before a game's first tag read back as comments at
    the end of the game before it; only the first game keeps its head comments.
    A game with neither turns nor a result raises ``ValueError`` unless it is
    the last: its tags would read back as the first tags of the next game.
    Raises what :func:`write_record` raises, and ``TypeError`` for
    ``records`` that are not an iterable of records.
    """
    if isinstance(records, (Record, str, bytes)) or not isinstance(records, Iterable):
        raise wrong_type("write_records' records", records, "an iterable of keilref.Record")
    texts = []
    previous: Record | None = None
    for record in records:
        if previous is not None and not previous.turns and previous.result is None:
            raise ValueError(
                "a game with neither turns nor a result cannot be followed by another game "
                "(its tags would read back as the next game's); give it a result such as *"
            )
        texts.append(write_record(record))
        previous = record
    return "\n".join(texts)


def _write_moves(out: _Lines, record: Record) -> None:
    # A record whose first turn is White's counts its turns from White's
    # half of move 1, and says so: its first number is 1... (as the readers want).
    first = 1 if white_first(record) else 0
    _write_line(out, record.turns, first, numbered=bool(first))
    if record.result is not None:
        out.add(record.result)
        for comment in record.result_comments:
            out.add_comment(comment)


def _write_line(out: _Lines, turns: Iterable[Turn], start: int, numbered: bool = False) -> None:
    """Turns from index ``start`` (0 for Black's first; 1 for White's first
    of a record where White plays first), each followed by its
    glyphs, comments and variations. Black's turns are always numbered, and
    White's after anything that stands between it and Black's move, or at
    the start of a variation (``numbered``)."""
    for index, turn in enumerate(turns, start):
        move = index // 2 + 1
        glyphs = turn.glyphs
        token = turn.move if not glyphs or glyphs[0][0] == "$" else turn.move + glyphs[0]
        if index % 2 == 0:
            out.add(f"{move}. {token}")
        elif numbered:
            out.add(f"{move}... {token}")
        else:
            out.add(token)
        for glyph in glyphs:
            if glyph[0] == "$":
                out.add(glyph)
        for comment in turn.comments:
            out.add_comment(comment)
        for variation in turn.variations:
            out.opening()
            for comment in variation.comments:
                out.add_comment(comment)
            _write_line(out, variation.turns, index, True)
            out.closing()
            for comment in variation.after:
                out.add_comment(comment)
        numbered = bool(turn.comments or turn.variations or len(glyphs) > (glyphs[0][0] != "$" if glyphs else 0))


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"')


class _Lines:
    """Fills words into lines of at most :data:`LINE_WIDTH` characters."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.current = ""
        """The line being filled, after the last newline inside a comment."""
        self.width = 0

    prefix = ""
    """An opening ``(`` written before the next word."""

    def opening(self) -> None:
        self.prefix += "("

    last = 0
    """Where the last word of the current line starts in it."""

    def closing(self) -> None:
        """``)`` right after the last word (both on the next line when the line
        is full), or alone on a line after a ``;`` comment."""
        if not self.current:
            self.add(")")
            return
        if self.width >= LINE_WIDTH and self.last > 0 and "\n" not in self.current[self.last :]:
            word = self.current[self.last :]
            self.current = self.current[: self.last - 1]
            self.new_line()
            self.add(word)
        self.current += ")"
        self.width += 1

    def add(self, word: str) -> None:
        if self.prefix:
            word, self.prefix = self.prefix + word, ""
        first, _, _ = word.partition("\n")
        if self.width and self.width + 1 + len(first) > LINE_WIDTH:
            self.new_line()
        if self.width:
            self.current += " "
            self.width += 1
        self.last = len(self.current)
        self.current += word
        last = word.rfind("\n")
        self.width = len(word) - last - 1 if last >= 0 else self.width + len(word)

    def add_comment(self, comment: Comment) -> None:
        if comment.brace:
            self.add("{" + comment.text + "}")
        else:
            self.add(";" + comment.text)
            self.new_line()

    def new_line(self) -> None:
        if self.current:
            self.lines.append(self.current)
        self.current = ""
        self.width = 0
        self.last = 0

    def blank_line(self) -> None:
        self.new_line()
        self.lines.append("")

    def text(self) -> str:
        self.new_line()
        return "\n".join(self.lines) + "\n"


def _check(record: Record) -> None:
    """Raise ``ValueError`` if the record would not read back as itself
    (``TypeError`` if it is not made of the parts a record is made of)."""
    _check_types(record)
    if not record.tags:
        raise ValueError("a record needs at least one tag")
    names: set[str] = set()
    for tag in record.tags:
        if not _NAME.match(tag.name):
            raise ValueError(f"tag name {tag.name!r} is not a letter followed by letters, digits or _")
        if tag.name in names:
            raise ValueError(f"tag {tag.name!r} appears twice")
        names.add(tag.name)
        if "\n" in tag.value:
            raise ValueError(f"the value of tag {tag.name!r} has a line break")
        _check_comments(tag.comments)
    _check_comments(record.head_comments)
    _check_line(record.turns, 0)
    if record.result is not None:
        if not _RESULT.match(record.result):
            raise ValueError(f"{record.result!r} is not a result token")
        Result.parse(record.result)
    elif record.result_comments:
        raise ValueError("comments after the result, but no result")
    _check_comments(record.result_comments)


def _check_types(record: object) -> None:
    """Raise ``TypeError`` naming the first part of ``record`` that is not what a record holds."""
    if not isinstance(record, Record):
        raise wrong_type("write_record's record", record, "a keilref.Record")
    parts: list[tuple[str, object, type]] = [
        ("a record's tags", record.tags, Tag),
        ("a record's turns", record.__dict__["_turns"], Turn),
        ("a record's head comments", record.head_comments, Comment),
        ("a record's result comments", record.result_comments, Comment),
    ]
    for what, items, kind in parts:
        if kind is Turn and isinstance(items, DeferredTurns):
            continue  # made by a reader: well formed
        if not isinstance(items, (tuple, list)):
            raise wrong_type(what, items, f"a tuple of {kind.__name__}")
        for item in items:
            if not isinstance(item, (Tag, Turn, Comment)) or not isinstance(item, kind):
                raise wrong_type(f"each of {what}", item, f"a keilref {kind.__name__}")
            _check_fields(item)
    if record.result is not None and not isinstance(record.result, str):
        raise wrong_type("a record's result", record.result, "a str or None")


def _check_fields(item: Tag | Turn | Comment) -> None:
    if isinstance(item, Tag):
        texts: tuple[tuple[str, object], ...] = (("a tag's name", item.name), ("a tag's value", item.value))
        comments: object = item.comments
    elif isinstance(item, Turn):
        texts, comments = (("a turn's move", item.move),), item.comments
    else:
        texts, comments = (("a comment's text", item.text),), ()
    for what, text in texts:
        if not isinstance(text, str):
            raise wrong_type(what, text, "a str")
    if not isinstance(comments, (tuple, list)) or not all(isinstance(c, Comment) for c in comments):
        raise wrong_type("the comments of a tag or turn", comments, "a tuple of keilref Comment")
    for comment in comments:
        _check_fields(comment)


def _check_turn(turn: Turn) -> None:
    """Only the token is written: it must read back as itself. (Kind, point
    and piece are derived from it when reading.)"""
    move = turn.move
    if move not in ("pass", "button") and not _MOVE.match(move):
        raise ValueError(f"{move!r} is not a canonical turn (g7, K@d4, pass or button)")


def _check_line(turns: Iterable[Turn], depth: int) -> None:
    for turn in turns:
        _check_turn(turn)
        _check_comments(turn.comments)
        _check_glyphs(turn)
        if turn.variations and depth >= MAX_VARIATION_DEPTH:
            raise ValueError(f"variations nested more than {MAX_VARIATION_DEPTH} deep")
        for variation in turn.variations:
            if not isinstance(variation, Variation):
                raise wrong_type("each of a turn's variations", variation, "a keilref Variation")
            if not variation.turns:
                raise ValueError("a variation needs at least one turn")
            for part in (variation.turns, variation.comments, variation.after):
                if not isinstance(part, (tuple, list)):
                    raise wrong_type("a variation's turns and comments", part, "a tuple")
            for item in variation.turns:
                if not isinstance(item, Turn):
                    raise wrong_type("each of a variation's turns", item, "a keilref Turn")
                _check_fields(item)
            for comment in (*variation.comments, *variation.after):
                if not isinstance(comment, Comment):
                    raise wrong_type("each of a variation's comments", comment, "a keilref Comment")
                _check_fields(comment)
            _check_comments(variation.comments)
            _check_comments(variation.after)
            _check_line(variation.turns, depth + 1)


_NAG = re.compile(r"\$(?:0|[1-9][0-9]{0,2})\Z")


def _check_glyphs(turn: Turn) -> None:
    glyphs = turn.glyphs
    if not isinstance(glyphs, (tuple, list)) or not all(isinstance(g, str) for g in glyphs):
        raise wrong_type("a turn's glyphs", glyphs, "a tuple of str")
    if not isinstance(turn.variations, (tuple, list)):
        raise wrong_type("a turn's variations", turn.variations, "a tuple of keilref Variation")
    for i, glyph in enumerate(glyphs):
        if glyph in GLYPHS and i == 0:
            continue
        m = _NAG.match(glyph)
        if m is None or int(glyph[1:]) > MAX_NAG:
            raise ValueError(
                f"glyph {glyph!r} of turn {turn.move!r}: a turn takes at most one of ! ? !! ?? !? ?!, "
                f"first, then numeric glyphs $0 to ${MAX_NAG}"
            )


def _check_comments(comments: Iterable[Comment]) -> None:
    for comment in comments:
        text = comment.text
        if comment.brace:
            if "}" in text or "\r\n" in text:
                raise ValueError(f"brace comment {text!r} holds '}}' or a CRLF")
        elif "\n" in text or text.endswith("\r"):
            raise ValueError(f"';' comment {text!r} runs past the end of its line")
