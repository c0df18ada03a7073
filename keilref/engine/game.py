"""The game interface every rule family implements.

``Game(size=7, komi=6, rules="keil")`` returns an instance of the class the
named rule set registers, so callers never need to know the family.

``Game`` is an ordinary class, not an abstract one, so that a user's
``keilref.Game(...)`` type-checks; the interface is enforced instead when a
family's class is first instantiated (:func:`_missing_methods`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Self

from keilref.values import Color, Reason, Score, format_number
from keilref.errors import IllegalMoveError, InvalidMoveError, PositionError, wrong_type
from keilref.engine.geometry import Geometry
from keilref.engine.rules import ButtonRule, RuleSet, find_rules
from keilref import wording
from keilref.records.setup import BUTTON_TAKEN_TAG, FIRST_PASS_TAG, StartPosition
from keilref.wording import may_resume

if TYPE_CHECKING:
    from keilref.records.record import Record


@dataclass(frozen=True)
class Group:
    """A group as the rule set links it, with its liberties."""

    color: Color
    points: frozenset[str]
    liberties: frozenset[str]


@dataclass(frozen=True)
class Territory:
    """A territory (linked empty points) and who owns it, if anybody."""

    points: frozenset[str]
    owner: Color | None



class Game:
    """A game in progress under one rule set.

    ``Game(size=7, komi=6, rules="keil", button=None)`` starts a game on the
    empty board and returns the class the rule set registers (a
    :class:`~keilref.KeilGame`, :class:`~keilref.YugoGame` or
    :class:`~keilref.DehilGame`):

    * ``size``: points per side (``None``: the rule set's default);
    * ``komi``: added to White's score, a number or its record text (``"6.5"``);
    * ``rules``: a registered rule set name (``keil``, ``keil-2019``, ``yugo``, ``dehil``);
    * ``button``: whether the button is in play (``None``: the rule set's
      default; only ``keil-2019`` allows ``False``).

    A bad setting raises :class:`~keilref.ConfigError`, and a setting of
    the wrong type (``size="7"``, ``button="yes"``) a ``TypeError`` naming
    the types accepted.

    Turns are given in record notation: a point such as ``"g7"``, ``"pass"``
    or ``"button"``. :meth:`play` raises :class:`~keilref.InvalidMoveError`
    for a token that is not a move, :class:`~keilref.IllegalMoveError`
    (with its ``reason``) for one the rules forbid and ``TypeError`` for a
    turn that is not a ``str``; the game is unchanged then.
    :meth:`pop` takes the last turn back, :meth:`to_record` writes the game
    as a record.
    """

    rules: RuleSet
    size: int
    komi: float
    button_in_play: bool
    captures: bool = True
    """Whether stones can ever leave the board (not in Dehil)."""
    piece_prefixes: tuple[str, ...] = ("",)
    """Prefixes a placement may carry: ``("",)`` for stones, ``("", "K@")`` in Yugo."""
    counts_first_pass: bool = False
    """Whether the rules count who passed first (Dehil's half point), so that
    a position may say who did (``FirstPass``)."""

    def __new__(
        cls,
        size: int | None = None,
        komi: float | int | str | Fraction = 0,
        rules: str = "keil",
        button: bool | None = None,
    ) -> Game:
        if cls is Game:
            cls = find_rules(rules).game_class
        if cls not in _COMPLETE:
            missing = _missing_methods(cls)
            if missing:
                raise TypeError(f"{cls.__name__} does not implement Game: {', '.join(missing)}")
            _COMPLETE.add(cls)
        return super().__new__(cls)

    # --- playing ---------------------------------------------------------
    def play(self, move: str) -> None:
        """Play one turn, or raise without changing anything."""
        raise NotImplementedError

    def check(self, move: str) -> IllegalMoveError | None:
        """The error :meth:`play` would raise for a well-formed ``move``, or ``None``."""
        raise NotImplementedError

    def is_legal(self, move: str) -> bool:
        """Whether :meth:`play` would accept the well-formed ``move`` now."""
        return self.check(move) is None

    def legal_moves(self) -> list[str]:
        """Every legal turn: placements in point order, then ``button`` or ``pass``."""
        raise NotImplementedError

    def play_all(self, moves: Iterable[str]) -> None:
        """Play the turns in order; stops at the first that raises."""
        for move in moves:
            self.play(move)

    def play_legal(self, moves: Sequence[str]) -> int:
        """Play the turns in order up to the first that :meth:`play` refuses,
        and return how many were played. Nothing is raised: play the next
        turn to learn why it fails. The game is then exactly as if each turn
        had been played with :meth:`play`; a family may do it faster."""
        played = 0
        for move in moves:
            try:
                self.play(move)
            except (IllegalMoveError, InvalidMoveError):
                break
            played += 1
        return played

    def copy(self) -> Game:
        """An independent game in the same state, history included."""
        raise NotImplementedError

    def pop(self) -> str:
        """Take the last turn back and return it (``IndexError`` if there is none).

        Exact for every family: the game is replayed from its start without
        that turn, so the superko history, the button, the captures and the
        passes are those of the shorter game. That costs a replay (about a
        millisecond for a long game); for searching, :meth:`copy` is cheaper.
        A Yugo agreement on removal made after that turn goes with it.
        """
        moves = self.moves
        if not moves:
            raise IndexError("no turn to take back: no turn has been played")
        start = self._start()
        shorter = start.copy()
        for move in moves[:-1]:
            shorter.play(move)
        state = vars(shorter)
        state["_start_state"] = start
        vars(self).clear()
        vars(self).update(state)
        return moves[-1]

    def undo(self) -> str:
        """The same as :meth:`pop`: take the last turn back and return it."""
        return self.pop()

    def _start(self) -> Game:
        """The game before its first turn: a set-up position, or the empty board."""
        start: Game | None = vars(self).get("_start_state")
        if start is not None:
            return start
        rules = self.rules
        button = None if rules.button is ButtonRule.ABSENT else self.button_in_play
        return type(self)(size=self.size, komi=self.komi, rules=rules.name, button=button)

    def _place_setup(self, position: StartPosition) -> list[int]:
        """Put the position's stones on the empty board (``self._board``), each
        checked on the board, given once, and a piece the rules have; the
        points of the kings among them, by index. A ``ButtonTaken`` or
        ``FirstPass`` the rules say nothing of is refused at its tag. A family
        then checks that play could leave the position and sets who moves."""
        board: bytearray = vars(self)["_board"]
        index = self.geometry.index  # type: ignore[attr-defined]
        pieces = "K@" in self.piece_prefixes
        kings: list[int] = []
        seen: set[int] = set()
        for color, placed in position.stones():
            p = index.get(placed.point)
            if p is None:
                raise PositionError(wording.setup_off_board(placed.point, self.size), placed.line, placed.column)
            if p in seen:
                raise PositionError(wording.setup_twice(placed.point), placed.line, placed.column)
            if not pieces and (placed.king or placed.written.startswith("P@")):
                what = wording.setup_king if placed.king else wording.setup_pawn
                raise PositionError(what(placed.point, self.rules.name), placed.line, placed.column)
            if placed.king:
                kings.append(p)
            seen.add(p)
            board[p] = int(color)
        for name, holder in ((BUTTON_TAKEN_TAG, position.button_taken), (FIRST_PASS_TAG, position.first_pass)):
            refusal = position_tag_refusal(self.rules, name)
            if holder is not None and refusal is not None:
                raise PositionError(refusal, tag=name)
        vars(self)["_start_position"] = position
        return kings

    def _setup_names(self, points: Iterable[int]) -> str:
        names = self.points()
        return " ".join(sorted((names[p] for p in points), key=lambda n: (n[0], int(n[1:]))))

    @classmethod
    def from_position(
        cls,
        position: StartPosition | str,
        *,
        size: int | None = None,
        komi: float | int | str | Fraction = 0,
        rules: str | None = None,
        button: bool | None = None,
        to_move: Color | str | None = None,
        button_taken: Color | str | None = None,
        first_pass: Color | str | None = None,
    ) -> Game:
        """A game that starts from a set-up position instead of the empty board.

        ``position`` is a :class:`~keilref.StartPosition` (``record.setup``)
        or a ``Setup`` tag's text, ``"B: a1 b1 W: c3"`` (``K@e4`` for a Yugo
        king); ``to_move``, ``button_taken`` and ``first_pass`` (Dehil) give
        the other tags of a position, as colours or as their words
        (``"White"``), and override those of a ``StartPosition``. The other
        settings are as for ``Game(...)`` (``rules`` defaults to the class's
        own, ``keil`` for ``Game``).

        Superko treats the position as the one left by the last turn of the
        player who does not move first; earlier history is unknown and not
        compared. Raises :class:`~keilref.PositionError` for a point off the
        board or given twice, a king where the rules have none, or a
        position no legal play could leave, and :class:`~keilref.TagError`
        for a value that does not read.
        """
        if isinstance(position, str):
            position = StartPosition.parse(position)
        elif not isinstance(position, StartPosition):
            raise wrong_type("a position", position, "a keilref.StartPosition or a Setup tag's text")
        position = position.replaced(to_move=to_move, button_taken=button_taken, first_pass=first_pass)
        settings: dict[str, object] = {"size": size, "komi": komi, "button": button}
        if rules is not None or cls is Game:
            settings["rules"] = rules or "keil"
        game = cls(**settings)  # type: ignore[arg-type]
        game._set_up(position)
        return game

    def _set_up(self, position: StartPosition) -> None:
        """Put the position on the empty board before any turn (the family's own rules check it)."""
        raise PositionError(f"rules {self.rules.name!r} cannot start from a set-up position")

    @property
    def start_position(self) -> StartPosition | None:
        """The position the game started from (:meth:`from_position`), or
        ``None`` for the empty board with Black to move."""
        start: StartPosition | None = vars(self).get("_start_position")
        return start

    @property
    def white_first(self) -> bool:
        """Whether the game's first turn was White's (a set-up position)."""
        start = self.start_position
        return start is not None and start.to_move is Color.WHITE

    def _illegal(self, move: str, reason: Reason, repeats_turn: int | None = None) -> IllegalMoveError:
        """The error for ``move``, the next turn, which the rules forbid for ``reason``."""
        return IllegalMoveError(move, reason, self.turn + 1, repeats_turn, white_first=self.white_first)

    def _remember_start(self) -> None:
        """Make the present position the one :meth:`pop` replays from (set-up positions)."""
        vars(self)["_start_state"] = self.copy()

    def to_record(self, tags: Mapping[str, str] | None = None, *, result: str | None = None) -> Record:
        """The game as a record: its settings as tags, its turns, a result.

        ``tags`` adds tags such as ``{"Black": "Ana", "Event": "Club night"}``
        (a ``Rules``, ``Size``, ``Komi``, ``Button`` or ``Removed`` given
        there must agree with the game). ``result`` is the result token
        (default: the computed result once play has stopped, else ``*``).
        :func:`keilref.write_record` writes the record; reading it back and
        :meth:`~keilref.Record.replay` give this game's turns and position.
        A game that did not start from the empty board writes its position's
        tags (``Setup``, and ``ToMove``, ``ButtonTaken``, ``FirstPass`` where
        they say more than their defaults): the :attr:`start_position`, or
        the position a diagram drew. Raises ``ValueError`` for a bad tag or
        result (a position tag given in ``tags`` must say what the game's
        position says), and for a game its record would not replay: a
        diagram no legal play could leave, or a game whose turns recreate
        the diagram's position where a record's superko forbids it (the
        player who does not move first may not).
        """
        from keilref.engine.recording import game_record  # it builds on this module

        return game_record(self, tags, result=result)

    def __repr__(self) -> str:
        komi = format_number(self.komi)
        where = f"{type(self).__name__} {self.rules.name}, size {self.size}, komi {komi}, turn {self.turn}"
        player = self.to_move.name.capitalize()
        if self.is_final:
            return f"<{where}, over: {self.score().result}>"
        if self.is_over:
            return f"<{where}, stopped: {self.score().result}; {may_resume(self.to_move)}>"
        return f"<{where}, {player} to move>"

    def __str__(self) -> str:
        """The board as the text diagram, as ``str(chess.Board())`` draws one;
        ``repr`` stays the one-line summary."""
        return self.diagram()

    def _repr_html_(self) -> str:
        """The board and where play stands, for a notebook."""
        return _pictures().html(self)

    def _repr_svg_(self) -> str:
        """The board as SVG, so a game shows itself in Jupyter."""
        return _pictures().svg(self)

    # --- state -----------------------------------------------------------
    @property
    def turn(self) -> int:
        """Number of turns played so far."""
        raise NotImplementedError

    @property
    def to_move(self) -> Color:
        """The player whose turn it is (``Color.BLACK`` or ``Color.WHITE``)."""
        raise NotImplementedError

    @property
    def is_over(self) -> bool:
        """Whether play has stopped, so that the position is counted as final.

        In Keil and Dehil no turn is legal after that. Yugo lets play resume
        once after its first double pass; its ``play`` handles that.
        """
        raise NotImplementedError

    @property
    def is_final(self) -> bool:
        """Whether no turn is legal any more. Differs from :attr:`is_over` only
        where play may resume after it stopped (Yugo)."""
        return self.is_over

    @property
    def button_holder(self) -> Color | None:
        """Who took the button, or ``None`` (always ``None`` without a button)."""
        raise NotImplementedError

    @property
    def moves(self) -> tuple[str, ...]:
        """The turns played, in canonical notation."""
        raise NotImplementedError

    @property
    def last_captured(self) -> frozenset[str]:
        """Points whose stones the last turn removed."""
        raise NotImplementedError

    @property
    def prisoners(self) -> dict[Color, int]:
        """Stones each player has captured so far."""
        raise NotImplementedError

    def stone_at(self, point: str) -> Color | None:
        """The colour of the stone (or piece) on ``point``, or ``None`` if it is empty."""
        raise NotImplementedError

    def points(self) -> tuple[str, ...]:
        """Every point of the board, in index order."""
        raise NotImplementedError

    def stones(self, color: Color) -> frozenset[str]:
        """The points holding ``color``'s stones (or pieces)."""
        return frozenset(p for p in self.points() if self.stone_at(p) is color)

    def groups(self) -> list[Group]:
        """Every group on the board, as the rule set links stones."""
        raise NotImplementedError

    def territories(self) -> list[Territory]:
        """Every territory and its owner (empty where the family has none)."""
        raise NotImplementedError

    def score(self) -> Score:
        """The count of the current position (final once :attr:`is_over`)."""
        raise NotImplementedError

    def explain_score(self) -> list[str]:
        """Lines that show why the score is what it is, beyond the score table."""
        return []

    def agree_removal(self, points: Iterable[str]) -> None:
        """Remove the groups at ``points`` by agreement, ending the game (Yugo).

        Raises :class:`~keilref.ConfigError` (naming the problem) where the
        family has no such agreement or the points do not allow it.
        """
        from keilref.errors import ConfigError

        raise ConfigError(f"rules {self.rules.name!r} have no agreed removal of groups")

    def score_as(self, rules: str) -> Score:
        """The count of this position under a sibling rule set of the same family.

        Raises :class:`~keilref.ConfigError` when that makes no sense here.
        """
        from keilref.errors import ConfigError

        raise ConfigError(f"{type(self).__name__} cannot be scored under rules {rules!r}")

    def diagram(self, *, unicode: bool = False, territory: bool = False) -> str:
        """An ASCII (or Unicode) picture of the board."""
        raise NotImplementedError


_INTERFACE = tuple(
    name for name, value in vars(Game).items()
    if not name.startswith("_") and (callable(value) or isinstance(value, property))
)
_OPTIONAL = frozenset({
    "is_legal", "play_all", "play_legal", "pop", "undo", "to_record", "stones", "explain_score",
    "agree_removal", "score_as", "is_final", "from_position", "start_position", "white_first",
})
_COMPLETE: set[type] = set()
"""Game classes already found to implement the whole interface."""


def position_tag_refusal(rules: RuleSet, name: str) -> str | None:
    """Why ``rules`` refuse a position's ``ButtonTaken`` or ``FirstPass``
    tag whatever it says (as a ``Button`` tag is refused where there is no
    button), or ``None`` where they allow it."""
    if name == BUTTON_TAKEN_TAG and rules.button is ButtonRule.ABSENT:
        return wording.position_tag_not_allowed(name, rules.name, wording.NO_BUTTON)
    if name == FIRST_PASS_TAG and not rules.game_class.counts_first_pass:
        return wording.position_tag_not_allowed(name, rules.name, wording.NO_FIRST_PASS)
    return None


def _missing_methods(cls: type) -> list[str]:
    """The parts of the interface ``cls`` leaves to :class:`Game` (which only raises)."""
    return [
        name for name in _INTERFACE
        if name not in _OPTIONAL and getattr(cls, name) is vars(Game)[name]
    ]


@dataclass(frozen=True, slots=True)
class GamePictures:
    """How a :class:`Game` draws itself in a notebook, as python-chess's boards do.

    The formats draw; the engine may not import them (the layers contract,
    pyproject.toml), so they hand their drawings to it instead, through
    :mod:`keilref.conveniences`, which ``import keilref`` runs.
    """

    svg: Callable[[Game], str]
    """What :meth:`Game._repr_svg_` returns."""
    html: Callable[[Game], str]
    """What :meth:`Game._repr_html_` returns."""


_drawn_by: GamePictures | None = None


def connect(pictures: GamePictures) -> None:
    """Hand the game type the drawings of the formats."""
    global _drawn_by
    _drawn_by = pictures


def _pictures() -> GamePictures:
    if _drawn_by is None:
        # Not reached through any import: Python runs keilref/__init__.py,
        # which connects the stages, before any of its submodules.
        raise RuntimeError("keilref.engine.game is not connected to the formats: import keilref")
    return _drawn_by


class BoardGame(Game):
    """The state every array-backed engine keeps, and what follows from it.

    One byte per point in ``_board`` (0 empty, 1 black, 2 white, as
    :class:`~keilref.values.Color`), the turn count, the player to move (1 or
    2), the button holder (0 for nobody), the moves in canonical notation,
    the points the last turn emptied and the stones each player captured.
    Engines keep these up to date; the readers here are shared.
    """

    geometry: Geometry
    _board: bytearray
    _turn: int
    _to_move: int
    _holder: int
    _moves: list[str]
    _last_captured: list[int]
    _prisoners: list[int]

    @property
    def turn(self) -> int:
        return self._turn

    @property
    def to_move(self) -> Color:
        return Color(self._to_move)

    @property
    def button_holder(self) -> Color | None:
        return Color(self._holder) if self._holder else None

    @property
    def moves(self) -> tuple[str, ...]:
        return tuple(self._moves)

    @property
    def last_move(self) -> str | None:
        return self._moves[-1] if self._moves else None

    @property
    def last_captured(self) -> frozenset[str]:
        names = self.geometry.names
        return frozenset(names[p] for p in self._last_captured)

    @property
    def prisoners(self) -> dict[Color, int]:
        return {Color.BLACK: self._prisoners[1], Color.WHITE: self._prisoners[2]}

    def points(self) -> tuple[str, ...]:
        return self.geometry.names

    def copy(self) -> Self:
        """An independent game: the common state copied here, an engine's own by override."""
        other = object.__new__(type(self))
        other.__dict__.update(self.__dict__)
        other._board = bytearray(self._board)
        other._moves = list(self._moves)
        other._prisoners = list(self._prisoners)
        other._last_captured = list(self._last_captured)
        return other

    def _index(self, point: str) -> int:
        try:
            return self.geometry.point(point)
        except KeyError:
            raise ValueError(f"{point!r} is not on a board of size {self.size}") from None

    def stone_at(self, point: str) -> Color | None:
        t = self._board[self._index(point)]
        return Color(t) if t else None

    def _last_point(self) -> int | None:
        """The point of the last turn (a piece prefix such as ``K@`` dropped), if it placed."""
        if not self._moves:
            return None
        return self.geometry.index.get(self._moves[-1].rpartition("@")[2])

    def _group_indices(self) -> list[tuple[int, list[int], set[int]]]:
        """Groups as ``(colour, stones, liberties)`` by index, for :meth:`groups`."""
        raise NotImplementedError

    def _territory_indices(self) -> list[tuple[list[int], int]]:
        """Territories as ``(points, owner)`` by index (owner 0 for nobody)."""
        raise NotImplementedError

    def _paint_territory(self, out: list[str], glyph: dict[str, str]) -> None:
        """Mark owned empty points in a diagram's glyph list."""
        area = ["", glyph["black_area"], glyph["white_area"]]
        for points, owner in self._territory_indices():
            if owner:
                for p in points:
                    out[p] = area[owner]

    def groups(self) -> list[Group]:
        names = self.geometry.names
        return [
            Group(Color(color), frozenset(names[s] for s in members), frozenset(names[q] for q in libs))
            for color, members, libs in self._group_indices()
        ]

    def territories(self) -> list[Territory]:
        names = self.geometry.names
        return [
            Territory(frozenset(names[s] for s in area), Color(owner) if owner else None)
            for area, owner in self._territory_indices()
        ]


def new_game(
    rules: str = "keil",
    size: int | None = None,
    komi: float | int | str = 0,
    button: bool | None = None,
) -> Game:
    """``Game(...)`` spelled as a function: the class comes from the registry."""
    game_class = find_rules(rules).game_class
    return game_class(size=size, komi=komi, rules=rules, button=button)
