"""Version 3 of the format: the position a game starts from.

``[Setup "B: d4 e5 W: e4"]`` puts stones on the board before the first turn,
``[ToMove "White"]`` says who plays it, ``[ButtonTaken "Black"]`` who holds
the button then and ``[FirstPass "White"]`` (Dehil) who passed first before
it. This module reads what the tags *say*, with the place of every point in
the file; whether the position fits the board and the rules is for the
referee, which knows the rule set.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from keilref import wording
from keilref.errors import TagError
from keilref.escaping import code_point
from keilref.records.record import Record, Tag
from keilref.records.tags import POSITION_TAGS
from keilref.values import WORDS, Color

__all__ = [
    "BUTTON_TAKEN_TAG",
    "FIRST_PASS_TAG",
    "POSITION_TAGS",
    "SETUP_TAG",
    "TO_MOVE_TAG",
    "Placed",
    "StartPosition",
    "canonical_setup",
    "has_position",
    "numbers_white_first",
    "unread_to_move",
    "read_position",
    "white_first",
]

SETUP_TAG = "Setup"
TO_MOVE_TAG = "ToMove"
BUTTON_TAKEN_TAG = "ButtonTaken"
FIRST_PASS_TAG = "FirstPass"
# POSITION_TAGS, the four in written order, is the tag table's (keilref.records.tags).

_PLAYERS = {"Black": Color.BLACK, "White": Color.WHITE}
_PLAYER_OR_NO: dict[str, Color | None] = {**_PLAYERS, "no": None}
_POINT = re.compile(r"(?:([KP])@)?([A-Za-z][0-9]{1,3})\Z")


@dataclass(frozen=True, slots=True)
class Placed:
    """One stone (or, in Yugo, a pawn or king) of a set-up position."""

    point: str
    """Lower case, as moves are written canonically."""
    king: bool = False
    line: int = field(default=0, compare=False)
    column: int = field(default=0, compare=False)
    """Where the point stands in the file (the tag's place when unknown)."""
    written: str = field(default="", compare=False)
    """The word as written (``P@D4``): a piece the rules lack is refused as written."""

    @property
    def token(self) -> str:
        """``d4``, or ``K@d4`` for a king: as the ``Setup`` tag writes it; a
        pawn written ``P@d4`` keeps its prefix, as a turn does, so that the
        canonical layout never makes a record that names a pawn under rules
        without pieces (an error) one that reads."""
        if self.king:
            return f"K@{self.point}"
        return f"P@{self.point}" if self.written.startswith("P@") else self.point


@dataclass(frozen=True)
class StartPosition:
    """The position a game starts from, as its tags give it."""

    black: tuple[Placed, ...] = ()
    white: tuple[Placed, ...] = ()
    to_move: Color = Color.BLACK
    button_taken: Color | None = None
    first_pass: Color | None = None

    @classmethod
    def parse(
        cls,
        setup: str,
        *,
        to_move: Color | str = Color.BLACK,
        button_taken: Color | str | None = None,
        first_pass: Color | str | None = None,
    ) -> StartPosition:
        """The position ``setup`` (a ``Setup`` tag's value, ``"B: a1 b1 W: c3"``)
        with the other tags' values given as colours or as their words
        (``"White"``; ``"no"`` or ``None`` for nobody). A value that does not
        read raises :class:`~keilref.TagError`."""
        if not isinstance(setup, str):
            raise TypeError(f"a Setup tag's text must be a str such as 'B: a1 W: c3', not {type(setup).__name__}")
        black, white = _stones(Tag(SETUP_TAG, setup))
        return cls(black, white).replaced(to_move=to_move, button_taken=button_taken, first_pass=first_pass)

    def replaced(
        self,
        *,
        to_move: Color | str | None = None,
        button_taken: Color | str | None = None,
        first_pass: Color | str | None = None,
    ) -> StartPosition:
        """This position with the tags given replaced (``None`` keeps one; ``"no"`` says nobody)."""
        return StartPosition(
            self.black,
            self.white,
            self.to_move if to_move is None else _colour(TO_MOVE_TAG, to_move, _PLAYERS) or Color.BLACK,
            self.button_taken if button_taken is None else _colour(BUTTON_TAKEN_TAG, button_taken, _PLAYER_OR_NO),
            self.first_pass if first_pass is None else _colour(FIRST_PASS_TAG, first_pass, _PLAYER_OR_NO),
        )

    def stones(self) -> tuple[tuple[Color, Placed], ...]:
        """Every stone with its colour, Black's first, in the order written."""
        return tuple((Color.BLACK, p) for p in self.black) + tuple((Color.WHITE, p) for p in self.white)

    @property
    def setup_text(self) -> str:
        """The ``Setup`` value written canonically: ``B:`` then ``W:``, each
        list sorted by letter, then by number (``a1 a2 b1 ...``)."""
        return f"B: {_listed(self.black)}W: {_listed(self.white)}".rstrip()

    def tags(self) -> tuple[tuple[str, str], ...]:
        """The position's tags as a record writes them: each one that says
        more than its default (``Setup`` always, so a position is never lost)."""
        out = [(SETUP_TAG, self.setup_text)]
        if self.to_move is not Color.BLACK:
            out.append((TO_MOVE_TAG, self.to_move.name.capitalize()))
        if self.button_taken is not None:
            out.append((BUTTON_TAKEN_TAG, self.button_taken.name.capitalize()))
        if self.first_pass is not None:
            out.append((FIRST_PASS_TAG, self.first_pass.name.capitalize()))
        return tuple(out)


def _listed(stones: tuple[Placed, ...]) -> str:
    tokens = [p.token for p in sorted(stones, key=lambda p: (p.point[0], int(p.point[1:]), p.king))]
    return "".join(f"{t} " for t in tokens)


def canonical_setup(value: str) -> str:
    """A ``Setup`` tag's value as the canonical layout writes it
    (:attr:`StartPosition.setup_text`), or ``value`` itself when it does not
    read: what a writer cannot read it does not rewrite, so nothing written
    is lost and the referee still says what is wrong with it, where."""
    try:
        black, white = _stones(Tag(SETUP_TAG, value))
    except TagError:
        return value
    return StartPosition(black, white).setup_text


def has_position(record: Record) -> bool:
    """Whether the record starts from a position: any of the tags of version 3."""
    return any(t.name in POSITION_TAGS for t in record.tags)


def white_first(record: Record) -> bool:
    """Whether the record's first turn is White's, so its first move number
    is ``1...``."""
    return numbers_white_first(record.tag(TO_MOVE_TAG))


def numbers_white_first(to_move: Tag | None) -> bool:
    """Whether a ``ToMove`` tag makes the first move number ``1...``. Read by
    the grammar before any other check of the tags: a value that is not
    exactly ``White`` numbers as Black first (and is an error of its own)."""
    return to_move is not None and to_move.value == "White"


def unread_to_move(to_move: Tag | None) -> str | None:
    """The message for a ``ToMove`` tag whose value names no player, else ``None``."""
    if to_move is None or to_move.value in _PLAYERS:
        return None
    return wording.position_value(TO_MOVE_TAG, to_move.value, tuple(_PLAYERS))


def read_position(record: Record) -> StartPosition | None:
    """The position the record's tags give, or ``None`` for the empty board
    with Black to move (no tag of version 3). A value that does not read
    raises :class:`~keilref.TagError` at the tag, or at the word in a
    ``Setup`` that is not a point."""
    if not has_position(record):
        return None
    setup = record.tag(SETUP_TAG)
    black, white = ((), ()) if setup is None else _stones(setup)
    return StartPosition(
        black,
        white,
        _tag_colour(record, TO_MOVE_TAG, _PLAYERS) or Color.BLACK,
        _tag_colour(record, BUTTON_TAKEN_TAG, _PLAYER_OR_NO),
        _tag_colour(record, FIRST_PASS_TAG, _PLAYER_OR_NO),
    )


def _tag_colour(record: Record, name: str, words: dict[str, Color] | dict[str, Color | None]) -> Color | None:
    tag = record.tag(name)
    if tag is None:
        return None
    if tag.value not in words:
        raise TagError(wording.position_value(name, tag.value, tuple(words)), tag.line, tag.column)
    return words[tag.value]


def _colour(name: str, value: Color | str | None, words: dict[str, Color] | dict[str, Color | None]) -> Color | None:
    if value is None or isinstance(value, Color):
        return value
    if not isinstance(value, str) or value not in words:
        raise TagError(wording.position_value(name, str(value), tuple(words)), 0, 0)
    return words[value]


def _stones(tag: Tag) -> tuple[tuple[Placed, ...], tuple[Placed, ...]]:
    """Black's and White's stones of a ``Setup`` tag, each placed in the file.

    A point's column is known when the value stood in the file as it reads
    (no escape before it); otherwise the tag's own place is given.
    """
    lists: dict[str, list[Placed]] = {}
    current: list[Placed] | None = None
    start = tag.value_column
    for m in WORDS.finditer(tag.value):
        word = m.group()
        line, column = (tag.line, start + m.start()) if start else (tag.line, tag.column)
        if word in ("B:", "W:"):
            if word in lists or (word == "W:" and "B:" not in lists):
                raise TagError(wording.setup_order(tag.value, word), line, column)
            current = lists[word] = []
            continue
        point = _POINT.match(word)
        if current is None or point is None:
            unseen = next((code_point(c) for c in word if not c.isprintable()), None)
            raise TagError(wording.setup_word(tag.value, word, current is None, unseen), line, column)
        king = point.group(1) == "K"
        current.append(Placed(point.group(2).lower(), king, line, column, word))
    if "W:" not in lists:
        line, column = (tag.line, start + len(tag.value)) if start else (tag.line, tag.column)
        raise TagError(wording.setup_missing(tag.value, "W:" if lists else "B:"), line, column)
    return tuple(lists["B:"]), tuple(lists["W:"])
