"""Small value types shared by every layer: colours, reasons, results, scores."""

from __future__ import annotations

import enum
import functools
import numbers
import re
from dataclasses import dataclass


class Color(enum.IntEnum):
    """A player, and the colour of their stones. The values index board arrays."""

    BLACK = 1
    """Black, who moves first."""
    WHITE = 2
    """White, who receives the komi."""

    # An IntEnum prints as its number since Python 3.11; a player should
    # print as ``Color.BLACK``, as its repr and a plain Enum do.
    def __str__(self) -> str:
        return f"Color.{self.name}"

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)

    @property
    def other(self) -> Color:
        """The opponent."""
        return Color(3 - self.value)

    @property
    def letter(self) -> str:
        """``B`` or ``W``, as in result strings."""
        return "B" if self is Color.BLACK else "W"


WORDS = re.compile(r"[^ \t\n\r]+")
"""The words of a list inside a tag's value (``Setup``, ``Removed``), split
at white space exactly as the record format defines it: a no-break space, a
paragraph separator or a control character is part of a word, which then
reads as no point, and is reported where it stands."""


def turn_player(turn: int, white_first: bool = False) -> Color:
    """Who plays ``turn`` (counted from 1): Black the odd turns, unless the
    game starts from a position with White to move (``white_first``), where
    White plays the odd ones. The one rule every numbering and label uses."""
    return Color.WHITE if (turn % 2 == 1) == white_first else Color.BLACK


def move_number(turn: int, white_first: bool = False) -> str:
    """``turn`` as a record numbers it: ``12.`` before Black's, ``12...`` before
    White's; a White-first game's first turn is ``1...``, its second ``2.``."""
    index = turn - 1 + white_first
    return f"{index // 2 + 1}{'.' if index % 2 == 0 else '...'}"


class Reason(enum.Enum):
    """Why a turn is illegal. The values are the words of the verdict schema;
    :data:`keilref.wording.REASONS` says each in a sentence."""

    OFF_BOARD = "off-board"
    OCCUPIED = "occupied"
    SUICIDE = "suicide"
    SUPERKO = "superko"
    PASS_BEFORE_BUTTON = "pass-before-button"
    BUTTON_TAKEN = "button-taken"
    GAME_OVER = "game-over"
    PAWN_SURROUNDS = "pawn-surrounds"
    KING_CAPTURES_NOTHING = "king-captures-nothing"
    TRIANGLE = "triangle"


def format_number(value: float) -> str:
    """Write a score or margin the way records do: ``3``, ``0.5``, ``-6``."""
    if value == int(value):
        return str(int(value))
    return repr(float(value))


class ResultKind(enum.Enum):
    """What a result token claims."""

    SCORE = "score"
    """``B+3``: the game ended by passes and was counted."""
    RESIGN = "resign"
    """``B+R``: the loser resigned."""
    TIME = "time"
    """``B+T``: the loser ran out of time."""
    FORFEIT = "forfeit"
    """``B+F``: the loser forfeited."""
    WINNER = "winner"
    """``B+``: the winner, with no margin given (the game ended by two passes)."""
    DRAW = "draw"
    """``Draw``: equal scores."""
    UNKNOWN = "unknown"
    """``*``: unknown or unfinished."""


_RESULT_RE = re.compile(r"([BW])\+(?:([RTF])|([0-9]{1,9}(?:\.[0-9]{1,9})?))?\Z")
_LETTER_KIND = {"R": ResultKind.RESIGN, "T": ResultKind.TIME, "F": ResultKind.FORFEIT}


@dataclass(frozen=True)
class Result:
    """A declared or computed result."""

    kind: ResultKind
    winner: Color | None = None
    margin: float | None = None

    @classmethod
    def parse(cls, text: str) -> Result:
        """Read a result token; raise ``ValueError`` naming it when it is not one
        (``TypeError`` when ``text`` is not a ``str``)."""
        if not isinstance(text, str):
            raise TypeError(f"a result token must be a str such as 'B+3' or 'Draw', not {type(text).__name__}")
        return _parse_result(text)

    @classmethod
    def from_scores(cls, black: float, white: float) -> Result:
        """The result of a counted game: the winner by the difference, or a draw.

        Raises ``TypeError`` for a score that is not a number, ``ValueError`` for a NaN.
        """
        for score in (black, white):
            if isinstance(score, bool) or not isinstance(score, numbers.Real):
                raise TypeError(f"a score must be a number (int, float, Fraction), not {type(score).__name__}")
            if score != score:
                raise ValueError("a score cannot be NaN")
        if black == white:
            return cls(ResultKind.DRAW)
        winner = Color.BLACK if black > white else Color.WHITE
        return cls(ResultKind.SCORE, winner, abs(black - white))

    def __str__(self) -> str:
        if self.kind is ResultKind.UNKNOWN:
            return "*"
        if self.kind is ResultKind.DRAW:
            return "Draw"
        assert self.winner is not None
        if self.kind is ResultKind.SCORE:
            assert self.margin is not None
            return f"{self.winner.letter}+{format_number(self.margin)}"
        if self.kind is ResultKind.WINNER:
            return f"{self.winner.letter}+"
        letter = {ResultKind.RESIGN: "R", ResultKind.TIME: "T", ResultKind.FORFEIT: "F"}
        return f"{self.winner.letter}+{letter[self.kind]}"


@functools.lru_cache(maxsize=1024)
def _parse_result(text: str) -> Result:
    # Remembered: a result is read several times per game (the record, the
    # verdict, its JSON), and archives hold few distinct ones. Results are
    # immutable; a text that is not one raises, and is not remembered.
    if text == "*":
        return Result(ResultKind.UNKNOWN)
    if text == "Draw":
        return Result(ResultKind.DRAW)
    m = _RESULT_RE.match(text)
    if m is None:
        raise ValueError(
            f"{text!r} is not a result (expected B+<margin>, W+<margin>, "
            "B+R, W+R, B+T, W+T, B+F, W+F, B+, W+, Draw or *)"
        )
    winner = Color.BLACK if m.group(1) == "B" else Color.WHITE
    if m.group(2):
        return Result(_LETTER_KIND[m.group(2)], winner)
    if m.group(3) is None:
        return Result(ResultKind.WINNER, winner)
    margin = float(m.group(3))
    if margin == 0:
        raise ValueError(f"{text!r} is not a result: a margin of 0 is written Draw")
    return Result(ResultKind.SCORE, winner, margin)


_SPELT_COLOURS = {"b": "B", "black": "B", "w": "W", "white": "W"}
_SPELT_KINDS = {
    "": "",
    "r": "R",
    "res": "R",
    "resign": "R",
    "resigns": "R",
    "resigned": "R",
    "resignation": "R",
    "t": "T",
    "time": "T",
    "timeout": "T",
    "f": "F",
    "forfeit": "F",
    "forfeits": "F",
    "forfeited": "F",
}
_END = r"(?=[ \t\r\n{;]|\Z)"
# A colour, a '+' (spaces around it allowed) and what follows it, as people type them.
_SPELT_RESULT = re.compile(r"(b|w|black|white)[ \t]*\+[ \t]*([0-9]{1,9}(?:[.,][0-9]{1,9})?|[a-z]*)" + _END, re.I)
_SPELT_WORDS = {
    **dict.fromkeys(("draw", "drawn", "jigo", "1/2-1/2", "½-½", "0.5-0.5"), ("Draw",)),
    **dict.fromkeys(("resign", "resigns", "resigned", "resignation"), ("B+R", "W+R")),
    **dict.fromkeys(("time", "timeout"), ("B+T", "W+T")),
    **dict.fromkeys(("forfeit", "forfeited"), ("B+F", "W+F")),
    # Chess's results name no colour in Keil's terms: who is "1" is a guess.
    **dict.fromkeys(("1-0", "0-1", "1:0", "0:1"), ()),
}
_SPELT_WORD = re.compile(r"[^ \t\r\n{;]+")


def meant_result(text: str) -> tuple[str, ...] | None:
    """The result tokens that ``text``, a result as people type it, most
    likely means (``text`` from the word on: the words after it may be part
    of it, as in ``B + 4.5``). ``("B+4.5",)`` for ``Black+4.5``; both colours'
    for a word that names none (``resign``: ``B+R`` or ``W+R``); ``()`` for a
    result that does not say which colour won (``1-0``); ``None`` for text
    that does not look like a result, or is one already."""
    m = _SPELT_RESULT.match(text)
    if m is not None:
        kind = _SPELT_KINDS.get(m.group(2).lower())
        if kind is None:
            kind = m.group(2).replace(",", ".") if m.group(2)[:1].isdigit() else None
        if kind is None:
            return None
        token = f"{_SPELT_COLOURS[m.group(1).lower()]}+{kind}"
        if token == m.group(0):
            return None
        try:
            _parse_result(token)
        except ValueError:
            return None  # B+0: the parser's own words say what it is
        return (token,)
    word = _SPELT_WORD.match(text)
    if word is None:
        return None
    meant = _SPELT_WORDS.get(word.group(0).lower())
    return None if meant is None or word.group(0) in meant else meant


@dataclass(frozen=True)
class ScoreRow:
    """One counted part of a score, per player (``stones``, ``territory``, ...)."""

    label: str
    black: float
    white: float


@dataclass(frozen=True)
class Score:
    """A final (or current) count, part by part.

    Each rule family names its own parts; komi and the half point are common
    to all of them, so they are kept apart and added to the totals here.
    """

    rows: tuple[ScoreRow, ...]
    """The counted parts, komi and half point excluded."""
    komi: float = 0.0
    half_point: Color | None = None
    """Who gets the extra ½: the button holder in Keil, the first to pass in Dehil."""
    half_point_label: str = "button"
    neutral: int | None = None
    """Empty points that belong to nobody, where the family has territory."""

    def part(self, label: str) -> ScoreRow:
        """The row called ``label`` (``KeyError`` if the family counts no such part)."""
        for row in self.rows:
            if row.label == label:
                return row
        raise KeyError(label)

    @property
    def black(self) -> float:
        """Black's total: every part, and the half point if Black has it."""
        half = 0.5 if self.half_point is Color.BLACK else 0.0
        return sum(r.black for r in self.rows) + half

    @property
    def white(self) -> float:
        """White's total: every part, the komi, and the half point if White has it."""
        half = 0.5 if self.half_point is Color.WHITE else 0.0
        return sum(r.white for r in self.rows) + self.komi + half

    @property
    def result(self) -> Result:
        """The result these totals give (``B+1.5``, ``Draw``)."""
        return Result.from_scores(self.black, self.white)

    @property
    def winner(self) -> Color | None:
        """Who is ahead, or ``None`` for a draw."""
        return self.result.winner

    # Keil's parts by name, for readable tests and scripts.
    @property
    def button(self) -> Color | None:
        """Keil: who holds the button (the half point), or ``None``."""
        return self.half_point

    @property
    def black_stones(self) -> int:
        """Keil: Black's stones on the board."""
        return int(self.part("stones").black)

    @property
    def white_stones(self) -> int:
        """Keil: White's stones on the board."""
        return int(self.part("stones").white)

    @property
    def black_territory(self) -> int:
        """Keil: Black's territory."""
        return int(self.part("territory").black)

    @property
    def white_territory(self) -> int:
        """Keil: White's territory."""
        return int(self.part("territory").white)
