"""A record's lines of play: the main line and its variations, as a tree of turns.

A variation's first turn replaces the turn it follows, so it is played from
the position before that turn, with the history of its own line for
superko: the main line's positions up to the branch, then its own turns.
:func:`variation_faults` judges every variation so; :class:`Node` lets a
user walk the tree and replay any node, as ``chess.pgn.GameNode`` does
(``node.variations[0]`` is the main continuation, the others alternatives).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from keilref import wording
from keilref.engine.game import Game, new_game
from keilref.engine.rules import ButtonRule, find_rules
from keilref.errors import IllegalMoveError, InvalidMoveError, RecordError
from keilref.records.record import Record, Turn, Variation
from keilref.referee.replay import IllegalTurn, Replay
from keilref.referee.settings import GameSetup, read_setup, start_game

__all__ = ["Node", "VariationFault", "find_line", "replay_node", "tree", "variation_faults", "variation_places"]


@dataclass(frozen=True)
class VariationFault(IllegalTurn):
    """The first turn of a variation that cannot be played where it stands:
    an illegal turn (``reason`` may also say why the token is not a turn of
    these rules), and where its variation opens."""

    opened_at: tuple[int, int] = (0, 0)
    """Where the variation's ``(`` stands: its name."""

    @property
    def message(self) -> str:
        return wording.variation_illegal(
            self.opened_at, self.turn, self.point, self.reason, self.repeats_turn, self.white_first
        )


def _fresh(setup: GameSetup) -> Game:
    return start_game(setup)


def has_variations(record: Record) -> bool:
    """Whether any turn of the record has a variation (without reading turns a
    reader deferred: a game read that way has none)."""
    return record.annotated and any(t.variations for t in record.turns)


def variation_faults(record: Record, setup: GameSetup) -> list[VariationFault]:
    """Each variation's first unplayable turn, in the order the variations open.

    Variations are judged up to the main line's first illegal turn: those of
    that turn still stand (they replace it), those after it have no position.
    """
    if not has_variations(record):
        return []
    faults: list[VariationFault] = []
    game = _fresh(setup)
    for index, turn in enumerate(record.turns):
        for variation in turn.variations:
            _judge(game.copy(), variation, index, faults)
        try:
            game.play(turn.move)
        except (IllegalMoveError, InvalidMoveError):
            break
    faults.sort(key=lambda f: f.opened_at)
    return faults


def _judge(game: Game, variation: Variation, index: int, faults: list[VariationFault]) -> None:
    for number, turn in enumerate(variation.turns, index + 1):
        for inner in turn.variations:
            _judge(game.copy(), inner, number - 1, faults)
        try:
            game.play(turn.move)
        except IllegalMoveError as e:
            at = (variation.line, variation.column)
            faults.append(
                VariationFault(
                    number, turn.text, e.reason.value, turn.line, turn.column, e.repeats_turn, e.white_first, at
                )
            )
            return
        except InvalidMoveError as e:
            at = (variation.line, variation.column)
            faults.append(
                VariationFault(
                    number, turn.text, str(e), turn.line, turn.column, white_first=game.white_first, opened_at=at
                )
            )
            return


class Node:
    """A turn in the tree of a record's lines; the root stands before the first turn.

    ``variations`` are the turns that may follow this node: the first
    continues this node's line, the others are alternatives to it, in the
    order written.
    """

    __slots__ = ("_setup", "parent", "ply", "turn", "variation", "variations")

    def __init__(self, parent: Node | None, turn: Turn | None, variation: Variation | None, setup: GameSetup) -> None:
        self.parent = parent
        self.turn = turn
        """``None`` at the root."""
        self.variation = variation
        """The variation this node's line belongs to; ``None`` on the main line."""
        self.ply: int = 0 if parent is None else parent.ply + 1
        """Turns from the start of the game to this node (the referee's turn number)."""
        self.variations: list[Node] = []
        self._setup = setup

    @property
    def move(self) -> str | None:
        """The turn's token (``g7``, ``pass``); ``None`` at the root."""
        return None if self.turn is None else self.turn.move

    def is_mainline(self) -> bool:
        """Whether every node from the root to this one is a first variation."""
        node: Node | None = self
        while node is not None and node.parent is not None:
            if node.parent.variations[0] is not node:
                return False
            node = node.parent
        return True

    def starts_variation(self) -> bool:
        """Whether this node is the first turn of an alternative line."""
        return self.parent is not None and self.parent.variations[0] is not self

    def mainline(self) -> Iterator[Node]:
        """The nodes after this one, always following the first variation."""
        node = self
        while node.variations:
            node = node.variations[0]
            yield node

    def path(self) -> list[Node]:
        """The nodes from the first turn to this one."""
        nodes = []
        node: Node | None = self
        while node is not None and node.parent is not None:
            nodes.append(node)
            node = node.parent
        return nodes[::-1]

    def game(self) -> Game:
        """The game after this node's turn, replayed from the start along its path.

        Raises :class:`~keilref.IllegalMoveError` (or
        :class:`~keilref.InvalidMoveError`) for the first turn on the path
        that cannot be played.
        """
        game = _fresh(self._setup)
        for node in self.path():
            assert node.turn is not None
            game.play(node.turn.move)
        return game

    @property
    def setup(self) -> GameSetup:
        """The game's settings, as read from its tags."""
        return self._setup

    def line_name(self) -> str:
        """``main``, or where this node's variation opens: ``12:8``."""
        return "main" if self.variation is None else f"{self.variation.line}:{self.variation.column}"

    def __repr__(self) -> str:
        if self.turn is None:
            return "<Node root>"
        start = self._setup.start
        white_first = start is not None and start.white_first
        return f"<Node {wording.turn_name(self.ply, self.turn.text, white_first)} ({self.line_name()} line)>"


def tree(record: Record, *, rules: str | None = None) -> Node:
    """The root of the record's tree of lines. Settings come from the tags
    (``rules`` overrides as everywhere); a bad tag raises
    :class:`~keilref.TagError`."""
    setup = read_setup(record, rules=rules)
    root = Node(None, None, None, setup)
    _attach(root, record.turns, None, setup)
    return root


def _attach(parent: Node, turns: tuple[Turn, ...], variation: Variation | None, setup: GameSetup) -> None:
    node = parent
    for turn in turns:
        child = Node(node, turn, variation, setup)
        node.variations.append(child)
        for alternative in turn.variations:
            _attach(node, alternative.turns, alternative, setup)
        node = child


def find_line(root: Node, name: str) -> Node:
    """The first node of the variation named ``LINE:COLUMN`` (where its ``(``
    stands), or the root's first turn for ``main``. ``KeyError`` if none."""
    if name == "main":
        if not root.variations:
            raise KeyError(name)
        return root.variations[0]
    stack = [root]
    while stack:
        node = stack.pop()
        for child in node.variations:
            if child.starts_variation() and child.line_name() == name:
                return child
            stack.append(child)
    raise KeyError(name)


def variation_places(root: Node) -> list[tuple[int, int]]:
    """Where every variation of the tree opens (its ``(``), in the order of the file."""
    found = []
    stack = [root]
    while stack:
        node = stack.pop()
        for child in node.variations:
            if child.starts_variation() and child.variation is not None:
                found.append((child.variation.line, child.variation.column))
            stack.append(child)
    return sorted(found)


def replay_node(node: Node) -> tuple[Replay, Node | None]:
    """The position after ``node``, played from the start along its path as
    far as it is legal, and the node of the first illegal turn (``None`` when
    every turn was legal): the replay of any line, as :func:`replay` is of
    the main line. A token the rules cannot read raises :class:`RecordError`.

    The record is taken to end at the end of the node's line (a Yugo
    ``Removed`` agreement belongs to the main line's end alone, and is not
    applied here).
    """
    game = _fresh(node.setup)
    for step in node.path():
        turn = step.turn
        assert turn is not None
        try:
            game.play(turn.move)
        except IllegalMoveError as e:
            bad = IllegalTurn(
                step.ply, turn.text, e.reason.value, turn.line, turn.column, e.repeats_turn, e.white_first
            )
            return Replay(node.setup, game, bad), step
        except InvalidMoveError as e:
            err = RecordError(str(e), turn.line, turn.column)
            err.turns_played = step.ply - 1
            raise err from None
    return Replay(node.setup, game, None, complete=not node.variations), None
