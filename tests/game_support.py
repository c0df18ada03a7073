"""Long games and the memory they hold, for the superko tests and bench_boundaries."""

from __future__ import annotations

import random
import tracemalloc

from keilref import KeilGame


def long_game(size: int, turns: int, seed: int = 1) -> KeilGame:
    """A legal Keil game of ``turns`` turns played at random: Black takes the
    button, then each turn is a random point the rules allow, or a pass when
    none is. Players fill their own eyes, so captures go on and on: on size
    13 games run well past 100,000 turns."""
    rng = random.Random(seed)
    game = KeilGame(size=size)
    game.play("button")
    points = game.points()
    while game.turn < turns:
        for _ in range(50):
            if game.play_legal((points[rng.randrange(len(points))],)):
                break
        else:
            legal = game.legal_moves()
            if not legal:
                raise RuntimeError(f"seed {seed}: the random game ended at turn {game.turn}; choose another seed")
            game.play(rng.choice(legal[:-1]) if len(legal) > 1 else legal[-1])
    return game


def bytes_per_turn(size: int, turns: int, seed: int = 1) -> float:
    """The memory a Keil game holds per turn (its superko memory and its
    moves), by ``tracemalloc``: the growth from ``turns`` turns of a long
    game to twice as many, so that the game's fixed costs cancel."""
    moves = list(long_game(size, 2 * turns, seed).moves)
    tracemalloc.start()
    try:
        game = KeilGame(size=size)
        if game.play_legal(moves[:turns]) != turns:
            raise RuntimeError("the long game did not replay")
        at_n = tracemalloc.get_traced_memory()[0]
        if game.play_legal(moves[turns:]) != turns:
            raise RuntimeError("the long game did not replay")
        at_2n = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    return (at_2n - at_n) / turns
