"""The playouts benchmark plays real games: each ends by two passes, every turn
is legal, and its count is the one a fresh ``Game`` gives for the same turns."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType

import pytest

from keilref import Game

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    # Last on the path: the benchmark's helpers, never a keilref of their own.
    sys.path.append(str(BENCHMARKS))
    try:
        return importlib.import_module("bench_playouts")
    finally:
        sys.path.remove(str(BENCHMARKS))


def test_playouts_end_and_count_as_a_fresh_game(bench: ModuleType) -> None:
    played = bench.playouts(7, 2)
    assert len(played) == 2
    for playout in played:
        game = Game(size=7)
        for move in playout.moves:
            assert not game.is_over
            game.play(move)
        assert game.is_over
        assert playout.moves[-2:] == ("pass", "pass")
        assert playout.moves.count("button") == 1
        assert playout.score == game.score()


def test_taking_turns_back_and_again_leaves_the_same_games(bench: ModuleType) -> None:
    again = bench.playouts(7, 2, undo=5)
    assert [p.moves for p in again] == [p.moves for p in bench.playouts(7, 2, undo=0)]
    assert [p.score for p in again] == [p.score for p in bench.playouts(7, 2, undo=0)]
    assert again[0].moves != again[1].moves
