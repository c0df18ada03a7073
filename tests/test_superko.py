"""The superko memory: small per turn, and exact whatever its keys.

A game keeps a short key a turn and rebuilds an earlier position in full
whenever a new position's key matches its turn's (keilref/kernel.py). Keys
narrowed here to a few bits make most positions share a key with others,
and with no bits at all every position shares every other's, so every
lookup meets collisions: every decision (the reason, and for superko the
turn repeated) must still be the literal reference's, or a dictionary of
whole positions', and every verdict on the records the same as with the
real keys.
"""

from __future__ import annotations

import random
import sys
from array import array
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

# The checkout root (for keilref, when it is not installed) and this folder (for reference).
for _path in (Path(__file__).resolve().parent.parent, Path(__file__).resolve().parent):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

import reference as R  # noqa: E402
from game_support import bytes_per_turn, long_game  # noqa: E402
from test_kernel import assert_history  # noqa: E402
from test_reference import (  # noqa: E402
    assert_same_analysis,
    assert_same_legal_moves,
    configs,
    draw_move,
    new_pair,
    play_long_game,
    step,
)

import keilref.engine.keil  # noqa: E402
from keilref import KeilGame, check_file  # noqa: E402
from keilref.values import Reason  # noqa: E402
from keilref.engine.kernel import earlier_turn, free_slot, position_key  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


@contextmanager
def weak_keys(bits: int) -> Iterator[None]:
    """Games made inside get keys of ``bits`` random bits (0: every key is 0,
    so every position shares every other's key)."""
    saved = keilref.engine.keil._random_keys, keilref.engine.keil._KEYS

    def narrow(stride: int) -> list[int]:
        rng = random.Random(stride)
        return [rng.getrandbits(bits) for _ in range(3 * stride)]

    keilref.engine.keil._random_keys = narrow
    keilref.engine.keil._KEYS = {}
    try:
        yield
    finally:
        keilref.engine.keil._random_keys, keilref.engine.keil._KEYS = saved


# --- memory --------------------------------------------------------------------------


def test_the_superko_memory_holds_well_under_100_bytes_a_turn() -> None:
    """Measured as the growth from 4,000 to 8,000 turns of one size-13 game, so
    the game's fixed costs cancel; whole positions took about 570 bytes a turn."""
    per_turn = bytes_per_turn(13, 4000, seed=1)
    assert 8 < per_turn < 100, per_turn  # 8: the list of moves alone


def superko_oracle(game: KeilGame, seen: dict[tuple[int, bytes], int]) -> dict[str, int | None]:
    """Per placement the rules allow but for superko: the turn it would repeat,
    or ``None``; from ``seen``, the mover's positions by their bytes, as the
    engine kept them before (position -> the latest turn that left it)."""
    bare = KeilGame.from_diagram(
        game.diagram(), rules=game.rules.name, to_move=game.to_move, button_holder=game.button_holder
    )
    out: dict[str, int | None] = {}
    for point in bare.legal_moves()[:-1]:  # no history: only suicide rules a point out
        trial = bare.copy()
        trial.play(point)
        out[point] = seen.get((int(game.to_move), trial.position))
    return out


@pytest.mark.parametrize("bits", [30, 6])
def test_long_games_decide_superko_as_whole_positions_would(bits: int) -> None:
    """3,000 turns on size 5: past many snapshots and several doublings of the
    table (with 6-bit keys, every lookup meets a crowd of collisions). At
    checkpoints, every placement is judged as a dictionary of whole positions
    would judge it, and a refusal names the latest turn repeated."""
    moves = long_game(5, 3000, seed=3).moves
    with weak_keys(bits):
        game = KeilGame(size=5)
        seen: dict[tuple[int, bytes], int] = {}
        refusals = 0
        for move in moves:
            if game.turn % 250 == 125:
                expected = superko_oracle(game, seen)
                legal = game.legal_moves()
                assert legal[:-1] == [p for p, repeats in expected.items() if repeats is None], game.turn
                for point, repeats in expected.items():
                    if repeats is not None:
                        error = game.check(point)
                        assert error is not None and error.reason is Reason.SUPERKO
                        assert error.repeats_turn == repeats
                        refusals += 1
            mover = int(game.to_move)
            game.play(move)
            seen[mover, game.position] = game.turn
        assert len(game._table) >= 8192  # grown from 512, four times at least
        assert_history(game)
    assert refusals > 0


# --- keys that collide: every decision stays the reference's ------------------------------


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(config=configs(sizes=(2, 4)), bits=st.sampled_from([0, 1, 2, 3]), data=st.data())
def test_colliding_keys_change_no_decision(
    config: tuple[int, str, float, bool], bits: int, data: st.DataObject
) -> None:
    size, rules, komi, button = config
    with weak_keys(bits):
        eng, ref = new_pair(size, rules, komi, button)
        for _ in range(data.draw(st.integers(1, 90), label="turns")):
            verdict = step(eng, ref, draw_move(data, ref))
            event(f"decision: {verdict.reason or 'legal'}")
            if data.draw(st.integers(0, 9), label="checkpoint") == 0:
                assert_same_legal_moves(eng, ref)
        assert_same_analysis(eng, ref)
        assert_same_legal_moves(eng, ref)
        assert_history(eng)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), bits=st.sampled_from([1, 3]))
def test_colliding_keys_change_no_decision_over_long_games(seed: int, bits: int) -> None:
    """Games to their end on size 3, full of ko and longer cycles."""
    rng = random.Random(seed)
    stats: Counter[str] = Counter()
    with weak_keys(bits):
        eng, _ = play_long_game(rng, 3, R.RULE_SETS[seed % 2], 0, True, stats, every=50, fill_until=rng.randrange(150))
        assert_history(eng)
    event("superko" if stats[R.SUPERKO] else "no superko")


@pytest.mark.parametrize("bits", [0, 2])
def test_colliding_keys_give_the_same_verdicts_on_every_record(bits: int) -> None:
    paths = sorted((ROOT / "records").rglob("*.keil"))
    assert len(paths) > 10
    expected = {path: check_file(path) for path in paths}
    with weak_keys(bits):
        for path in paths:
            assert check_file(path) == expected[path], path
    superko = [v for vs in expected.values() for v in vs if v.illegal and v.illegal.reason == "superko"]
    assert superko  # the records do exercise superko


def test_of_equal_earlier_positions_the_latest_turn_is_named() -> None:
    """A player can leave one position at several turns (a placement, then
    passes); a placement that repeats it names the latest. Checked on the
    kernel's lookup itself, over a memory filled by hand: Black leaves
    ``{a1}`` at turns 1, 3 and 5, everyone passing after the placement."""
    game = KeilGame(size=2, rules="keil-2019", button=False)
    played = ["a1", "pass", "pass", "pass", "pass", "pass"]
    stride = len(game._board)
    keys = game._keys
    position = bytearray(stride)
    position[game.geometry.point("a1")] = 1
    hashes = array("I", bytes(4 * (len(played) + 1)))
    table = array("I", bytes(4 * 64))
    hashes[0] = keys[0][0]  # the start, as if White left it
    for turn in range(1, len(played) + 1):
        mover = 1 if turn % 2 else 2
        hashes[turn] = position_key(position, keys) ^ (keys[0][0] if mover == 2 else 0)
        table[free_slot(table, hashes[turn])] = turn
    snapshots = bytearray(stride)  # the empty start
    marks = [0] * stride
    found = earlier_turn(
        position, hashes[1], table, hashes, snapshots, game._adj, game._codes, played, 1, marks
    )
    assert found == 5
    white = earlier_turn(
        position, hashes[2], table, hashes, snapshots, game._adj, game._codes, played + ["pass"], 2, marks
    )
    assert white == 6
