"""The replay: a record's turns played through the engine, as far as they are legal.

Every way keilref replays a record goes through :func:`replay`: the verdict
(:func:`~keilref.referee.verdict.adjudicate`), ``Record.replay`` and the
position commands (:func:`replay_record`). A game written back as a record
is the engine's (:mod:`keilref.engine.recording`).
"""

from __future__ import annotations

from dataclasses import dataclass

from keilref.engine.game import Game, new_game
from keilref.engine.rules import ButtonRule, find_rules
from keilref.errors import ConfigError, IllegalMoveError, InvalidMoveError, RecordError, TagError, wrong_type
from keilref.records.record import Record
from keilref.referee.settings import GameSetup, read_setup, start_game
from keilref.values import Reason

__all__ = ["IllegalTurn", "Replay", "replay", "replay_record"]


@dataclass(frozen=True)
class IllegalTurn:
    """The first illegal turn of a game."""

    turn: int
    """1-based; every turn counts (placements, passes, button turns)."""
    point: str
    """The token as written."""
    reason: str
    line: int
    column: int
    repeats_turn: int | None = None
    white_first: bool = False
    """Whether the game's first turn was White's, which decides whose turn this was."""


@dataclass
class Replay:
    """A record replayed as far as it is legal."""

    setup: GameSetup
    game: Game
    illegal: IllegalTurn | None
    complete: bool = False
    """Whether every turn of the record was played (the record ends here)."""

    @property
    def ended(self) -> bool:
        """Whether the game has ended here: for good, or stopped where its record ends."""
        return self.game.is_final or (self.game.is_over and self.complete)


def replay(
    record: Record,
    *,
    rules: str | None = None,
    stop: int | None = None,
    setup: GameSetup | None = None,
) -> Replay:
    """Play the record's turns (the first ``stop`` of them, if given).

    Raises :class:`RecordError` for bad tags or a token the rule set cannot
    read; one found during the replay says how many turns were played.
    """
    if setup is None:
        setup = read_setup(record, rules=rules)
    game = start_game(setup)
    moves = record.moves
    total = len(moves)
    if stop is not None:
        moves = moves[:stop]
    # The legal run in one call, then the turn it stopped at (if any) again,
    # through play: it fails there with its reason. Only then are the turns
    # themselves wanted, for where that one stands.
    legal = game.play_legal(moves)
    turns = record.turns[legal : len(moves)] if legal < len(moves) else ()
    play = game.play
    for number, turn in enumerate(turns, legal + 1):
        try:
            play(turn.move)
        except IllegalMoveError as e:
            return Replay(
                setup,
                game,
                IllegalTurn(number, turn.text, e.reason.value, turn.line, turn.column, e.repeats_turn, e.white_first),
            )
        except InvalidMoveError as e:
            err = RecordError(str(e), turn.line, turn.column)
            err.turns_played = number - 1
            raise err from None
    if setup.removed is not None and len(moves) == total:
        try:
            game.agree_removal(setup.removed)
        except ConfigError as e:
            err = TagError(str(e), *setup.removed_at)
            err.turns_played = len(moves)
            raise err from None
    return Replay(setup, game, None, complete=len(moves) == total)


def replay_record(record: Record, turn: int | None = None, *, rules: str | None = None) -> Game:
    """The game after the record's first ``turn`` turns (all of them by default).

    The settings come from the tags; ``rules`` replays under another rule set.
    Raises :class:`~keilref.TagError` for a bad tag and
    :class:`~keilref.RecordError` for a turn the rule set cannot read (both
    with line and column), :class:`~keilref.IllegalMoveError` (with the
    turn's number and the reason) when one of those turns is illegal, and
    ``ValueError`` for a ``turn`` outside ``0..len(record.turns)``. A Yugo
    ``Removed`` agreement is applied when all turns are replayed. A ``turn``
    that is not an ``int`` or a ``rules`` that is not a ``str`` raises ``TypeError``.
    """
    if turn is not None and (not isinstance(turn, int) or isinstance(turn, bool)):
        raise wrong_type("the turn to replay to", turn, "an int or None")
    if rules is not None:
        find_rules(rules)
    total = len(record.turns)
    if turn is not None and not 0 <= turn <= total:
        raise ValueError(f"turn {turn} is out of range: the record has {total} turns (0..{total})")
    rep = replay(record, rules=rules, stop=turn)
    bad = rep.illegal
    if bad is not None:
        move = record.turns[bad.turn - 1].move
        raise IllegalMoveError(move, Reason(bad.reason), bad.turn, bad.repeats_turn, white_first=bad.white_first)
    return rep.game
