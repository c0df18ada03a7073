"""The engine's kernel (keilref/kernel.py), compiled or not: a run against one turn at a time.

Every Keil turn goes through the kernel: ``KeilGame.play`` hands it one
turn, and the reference property tests hold that to the rules;
``KeilGame.play_legal`` hands it a whole run. Here the two must leave every
game in exactly the same state (board, turn, superko memory, prisoners,
button, passes) and stop at the same turn, on random games full of
captures, ko, superko, passes and the button, with illegal and unreadable
turns mixed in; and each turn the kernel refuses gets its reason.

With ``KEILREF_REQUIRE_COMPILED=1`` (set by CI for the fast build) the kernel
must be the compiled one, so that these tests and every other test of that
run exercise it.
"""

from __future__ import annotations

import copy
import os
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import keilref.engine.kernel
from keilref import IllegalMoveError, InvalidMoveError, KeilGame
from keilref.values import Reason
from keilref.engine.generate import random_games
from keilref.engine.kernel import SNAPSHOT_EVERY, position_after, position_key

NOISE = ("pass", "button", "pass", "z9", "a0", "xyz", "G7", "B2", "a1", "a1")
"""Turns that are often illegal or unreadable where they fall."""


def one_at_a_time(game: KeilGame, moves: list[str]) -> int:
    """How many turns ``play`` takes before the first it refuses."""
    for i, move in enumerate(moves):
        try:
            game.play(move)
        except (IllegalMoveError, InvalidMoveError):
            return i
    return len(moves)


def assert_mirrored(game: KeilGame) -> None:
    """The kernel reads the list that mirrors the board: it must be the board,
    and no group search may have left a mark behind."""
    assert game._cells == list(game._board)
    assert not any(game._marks) and len(game._marks) == len(game._board)


def assert_history(game: KeilGame) -> None:
    """The superko memory is what the game's turns make (see keilref/kernel.py):
    each turn's key is its position's, with the mover mixed in; every
    snapshot is its turn's position, and every turn rebuilds to its own;
    the table holds each turn once, where probing from its key's home slot
    finds it, and is never more than half full."""
    start = game._start()
    assert isinstance(start, KeilGame)
    replay = start.copy()
    positions = [replay.position]
    for move in game.moves:
        replay.play(move)
        positions.append(replay.position)
    turn = game.turn
    assert positions[-1] == game.position and len(positions) == turn + 1
    keys, hashes, table, snapshots = game._keys, game._hashes, game._table, game._snapshots
    first = int(start.to_move)
    stride = len(game._board)
    assert len(hashes) > turn
    for t, position in enumerate(positions):
        mover = first if t % 2 else 3 - first  # turn 0: as if the other player left the start
        expected = position_key(bytearray(position), keys) ^ (keys[0][0] if mover == 2 else 0)
        assert hashes[t] == expected, t
        rebuilt = position_after(t, snapshots, stride, game._adj, game._codes, game._moves, first, 1, game._marks)
        assert rebuilt == position, t
    assert not any(game._marks)
    assert len(snapshots) == (turn // SNAPSHOT_EVERY + 1) * stride
    for j in range(turn // SNAPSHOT_EVERY + 1):
        assert snapshots[j * stride : (j + 1) * stride] == positions[j * SNAPSHOT_EVERY]
    size = len(table)
    mask = size - 1
    assert size & mask == 0 and 2 * turn < size
    assert sorted(t for t in table if t) == list(range(1, turn + 1))
    for t in range(1, turn + 1):
        slot = hashes[t] & mask
        while table[slot] != t:
            assert table[slot], f"turn {t} is not where its key leads"
            slot = (slot + 1) & mask


def assert_same_run(moves: list[str], **settings_: object) -> int:
    fast = KeilGame(**settings_)  # type: ignore[arg-type]
    slow = KeilGame(**settings_)  # type: ignore[arg-type]
    played = fast.play_legal(moves)
    assert played == one_at_a_time(slow, moves)
    assert vars(fast) == vars(slow)
    assert fast.last_captured == slow.last_captured
    assert_mirrored(fast)
    assert_history(fast)
    if played < len(moves):
        # The turn it stopped at is refused, and refusing it changed nothing.
        with pytest.raises((IllegalMoveError, InvalidMoveError)):
            fast.play(moves[played])
        assert vars(fast) == vars(slow)
        assert_mirrored(fast)
    return played


@st.composite
def runs(draw: st.DrawFn) -> tuple[dict[str, object], list[str]]:
    rules = draw(st.sampled_from(["keil", "keil-2019"]))
    size = draw(st.integers(2, 5))
    settings_: dict[str, object] = {"size": size, "rules": rules}
    if rules == "keil-2019":
        settings_["button"] = draw(st.booleans())
    points = KeilGame(size=size).points()
    rng = random.Random(draw(st.integers(0, 2**32)))
    length = draw(st.integers(0, 4 * len(points)))
    noise = draw(st.floats(0, 0.2))
    moves = [
        rng.choice(NOISE) if rng.random() < noise else rng.choice(points)
        for _ in range(length)
    ]
    return settings_, moves


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(runs())
def test_a_run_in_one_call_is_the_same_as_one_turn_at_a_time(run: tuple[dict[str, object], list[str]]) -> None:
    settings_, moves = run
    played = assert_same_run(moves, **settings_)
    event("stopped early" if played < len(moves) else "played through")


def state(game: KeilGame) -> dict[str, object]:
    """A deep copy of what play changes (the attributes held privately)."""
    return {k: copy.deepcopy(v) for k, v in vars(game).items() if k.startswith("_")}


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(runs())
def test_the_mirror_of_the_board_follows_every_way_a_game_changes(run: tuple[dict[str, object], list[str]]) -> None:
    """And so does the superko memory (assert_history)."""
    settings_, moves = run
    game = KeilGame(**settings_)  # type: ignore[arg-type]
    half = len(moves) // 2
    game.play_legal(moves[:half])
    assert_history(game)
    before = state(game)
    legal = game.legal_moves()  # tries every point, and puts everything back
    assert_mirrored(game)
    assert state(game) == before
    twin = game.copy()
    if legal and legal[0] not in ("pass", "button"):
        twin.play(legal[0])
        assert_mirrored(twin)
        assert_history(twin)
        assert game._board != twin._board and state(game) == before
        assert_mirrored(game)
    twin.play_legal(moves[half:])
    assert_mirrored(twin)
    assert_history(twin)
    assert state(game) == before
    if twin.turn:
        last = twin.moves[-1]
        twin.pop()
        assert_mirrored(twin)
        assert_history(twin)
        twin.play(last)
        assert_history(twin)
    drawn = KeilGame.from_diagram(
        twin.diagram(), rules=str(settings_["rules"]), button=settings_.get("button"),  # type: ignore[arg-type]
        to_move=twin.to_move,
    )
    assert_mirrored(drawn)
    assert_history(drawn)
    assert drawn.position[:-1] == twin.position[:-1]
    drawn.play_legal(moves[:half])
    assert_mirrored(drawn)
    assert_history(drawn)


def test_whole_generated_games_play_through_in_one_call() -> None:
    """Long legal games, with their captures and both endings, on every size the generator uses."""
    for generated in random_games(11, 60, rules=("keil", "keil-2019"), sizes=(2, 3, 5, 7), fill=1.3):
        g = generated
        settings_: dict[str, object] = {"size": g.size, "rules": g.rules, "komi": g.komi}
        if g.rules == "keil-2019":
            settings_["button"] = g.button
        moves = list(g.moves)
        assert assert_same_run(moves, **settings_) == len(moves)
        # And a turn after the end, or onto a stone, stops it there.
        assert assert_same_run(moves + ["a1", "pass"], **settings_) >= len(moves)


def test_runs_stop_for_every_reason_a_keil_turn_can_fail() -> None:
    """Seeded runs until each way a turn can fail has stopped one; each stop
    is where one-at-a-time play stops, with the same state. A kernel that
    played an illegal turn, or stopped at a legal one, fails here."""
    wanted = {
        Reason.OFF_BOARD, Reason.OCCUPIED, Reason.SUICIDE, Reason.SUPERKO,
        Reason.PASS_BEFORE_BUTTON, Reason.BUTTON_TAKEN, Reason.GAME_OVER,
    }
    seen: set[Reason | str] = set()
    rng = random.Random(5)
    for _ in range(3000):
        rules = rng.choice(["keil", "keil-2019"])
        size = rng.choice([2, 2, 3])
        settings_: dict[str, object] = {"size": size, "rules": rules}
        if rules == "keil-2019":
            settings_["button"] = rng.random() < 0.5
        points = KeilGame(size=size).points()
        noise = rng.choice([0.05, 0.3, 0.6])
        moves = [rng.choice(NOISE) if rng.random() < noise else rng.choice(points) for _ in range(40)]
        played = assert_same_run(moves, **settings_)
        if played < len(moves):
            probe = KeilGame(**settings_)  # type: ignore[arg-type]
            probe.play_legal(moves[:played])
            try:
                probe.play(moves[played])
            except IllegalMoveError as e:
                seen.add(e.reason)
            except InvalidMoveError:
                seen.add("unreadable")
        if wanted | {"unreadable"} <= seen:
            break
    assert wanted | {"unreadable"} <= seen


def test_the_kernel_is_compiled_where_the_build_says_so() -> None:
    compiled = Path(keilref.engine.kernel.__file__).suffix != ".py"
    if os.environ.get("KEILREF_REQUIRE_COMPILED") == "1":
        assert compiled, f"the fast build is required, and the kernel is {keilref.engine.kernel.__file__}"
    elif os.environ.get("KEILREF_REQUIRE_COMPILED") == "0":
        assert not compiled, f"the pure build is required, and the kernel is {keilref.engine.kernel.__file__}"
    else:
        pytest.skip(f"no build required; the kernel is {'compiled' if compiled else 'pure Python'}")
