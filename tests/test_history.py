"""Properties of a game's history, for every rule family.

* ``pop()`` after ``play()`` restores the full state exactly (board, superko
  history, button, captures, passes, the end of the game), the same state a
  fresh replay of the shorter game reaches.
* ``to_record()`` -> ``write_record`` -> ``parse_record`` -> ``replay()``
  gives the same turns and the same final state.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import keilref
from keilref.engine.game import Game
from keilref.records.parser import parse_record
from keilref.referee.verdict import adjudicate
from keilref.records.writer import write_record

# (rules, sizes, komi values, button settings) per rule set.
FAMILIES: dict[str, tuple[tuple[int, int], tuple[float, ...], tuple[bool | None, ...]]] = {
    "keil": ((2, 4), (0, 3, -2), (None,)),
    "keil-2019": ((2, 4), (0, 2.5, -1.5), (True, False)),
    "yugo": ((2, 5), (0, 4), (None,)),
    "dehil": ((2, 4), (0, 5), (None,)),
}


def state(game: Game) -> dict[str, Any]:
    """Everything a game holds, except the start position ``pop`` replays from."""
    return {k: v for k, v in vars(game).items() if k != "_start_state"}


def observed(game: Game) -> tuple[object, ...]:
    """What the public interface says about a position."""
    return (
        game.turn,
        game.to_move,
        game.moves,
        game.button_holder,
        game.is_over,
        game.is_final,
        dict(game.prisoners),
        game.last_captured,
        tuple(game.stone_at(p) for p in game.points()),
        game.legal_moves(),
        game.score(),
    )


@st.composite
def random_games(draw: st.DrawFn, rules: str) -> Game:
    """A game of up to 60 turns, each drawn from the legal ones (captures and ko come up on small boards)."""
    (low, high), komis, buttons = FAMILIES[rules]
    game = keilref.Game(
        size=draw(st.integers(low, high), label="size"),
        komi=draw(st.sampled_from(komis), label="komi"),
        rules=rules,
        button=draw(st.sampled_from(buttons), label="button"),
    )
    for _ in range(draw(st.integers(0, 60), label="turns")):
        legal = game.legal_moves()
        # Yugo may resume play after its first double pass; stopping there
        # half the time lets the agreement on removal come up.
        if not legal or (game.is_over and draw(st.booleans(), label="stop")):
            break
        # Passes and the button are drawn less often, so that boards fill up.
        placements = [m for m in legal if m not in ("pass", "button")]
        if placements and draw(st.integers(0, 9), label="kind") > 1:
            game.play(draw(st.sampled_from(placements), label="placement"))
        else:
            game.play(legal[-1])
    if rules == "yugo" and game.is_over and not game.is_final and draw(st.booleans(), label="removal"):
        pieces = [p for p in game.points() if game.stone_at(p) is not None]
        if pieces:
            game.agree_removal(draw(st.lists(st.sampled_from(pieces), min_size=1, max_size=3), label="removed"))
    return game


def fresh(game: Game, moves: tuple[str, ...]) -> Game:
    other = keilref.Game(
        size=game.size,
        komi=game.komi,
        rules=game.rules.name,
        button=None if game.rules.name in ("dehil", "yugo", "keil") else game.button_in_play,
    )
    other.play_all(moves)
    return other


@pytest.mark.parametrize("rules", list(FAMILIES))
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_pop_after_play_restores_the_state_of_the_shorter_game(rules: str, data: st.DataObject) -> None:
    game = data.draw(random_games(rules))
    moves = game.moves
    while game.moves:
        before_pop = state(game.copy())
        popped = game.pop()
        assert popped == moves[game.turn]
        shorter = fresh(game, moves[: game.turn])
        assert state(game) == state(shorter)
        assert observed(game) == observed(shorter)
        # Playing the turn again is legal and gives back the same state
        # (a Yugo agreement, which pop takes back, is not replayed).
        game.play(popped)
        again = state(game)
        if not before_pop.get("_removed"):
            assert again == before_pop
        game.pop()
    assert state(game) == state(fresh(game, ()))


@pytest.mark.parametrize("rules", list(FAMILIES))
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_game_written_as_a_record_replays_to_the_same_state(rules: str, data: st.DataObject) -> None:
    game = data.draw(random_games(rules))
    record = game.to_record({"Event": "property test", "Black": 'A "quoted" name'})
    text = write_record(record)
    parsed = parse_record(text)
    assert parsed == record
    again = parsed.replay()
    assert again.moves == game.moves
    assert state(again) == state(game)
    assert observed(again) == observed(game)
    # The referee agrees with what the game says of itself, without a warning.
    verdict = adjudicate(parsed, file="-", game=1)
    assert verdict.status.value == ("ok" if game.is_over else "unfinished")
    assert verdict.warnings == ()


def test_pop_on_a_new_game_is_an_index_error() -> None:
    with pytest.raises(IndexError, match="no turn to take back"):
        keilref.Game(size=3).pop()


def test_pop_takes_back_a_capture_and_the_superko_history() -> None:
    record = keilref.read_game("records/faults/illegal-superko.keil")
    game = record.replay(turn=30)
    assert not game.is_legal("e2")  # would repeat the position after turn 29
    captured = dict(game.prisoners)
    assert game.pop() == record.turns[29].move
    assert game.pop() == record.turns[28].move
    assert game.turn == 28
    assert dict(game.prisoners) == dict(record.replay(turn=28).prisoners)
    assert state(game) == state(record.replay(turn=28))
    game.play_all(t.move for t in record.turns[28:30])
    assert dict(game.prisoners) == captured
    assert not game.is_legal("e2")


def test_undo_is_pop() -> None:
    game = keilref.Game(size=3)
    game.play("c3")
    game.play("button")
    assert game.undo() == "button"
    assert game.button_holder is None
    assert game.moves == ("c3",)


def _drawn(rules: str, moves: tuple[str, ...]) -> str:
    game = keilref.Game(size=3, rules=rules)
    game.play_all(moves)
    return game.diagram()


@pytest.mark.parametrize(
    "make",
    [
        lambda: keilref.KeilGame.from_diagram(_drawn("keil", ("a1", "c3")), to_move=keilref.Color.WHITE),
        lambda: keilref.YugoGame.from_diagram(_drawn("yugo", ("a1", "c3"))),
        lambda: keilref.DehilGame.from_diagram(_drawn("dehil", ("a1", "c3"))),
    ],
    ids=["keil", "yugo", "dehil"],
)
def test_pop_returns_to_a_set_up_position_not_to_the_empty_board(make: Any) -> None:
    game = make()
    start = state(game.copy())
    first = game.legal_moves()[0]
    game.play(first)
    second = game.legal_moves()[0]
    game.play(second)
    assert game.pop() == second
    assert game.pop() == first
    assert state(game) == start
    with pytest.raises(IndexError):
        game.pop()
    # Its record starts from the diagram's position, not from the empty board.
    assert game.to_record().tag_value("Setup") == "B: a1 W: c3"
