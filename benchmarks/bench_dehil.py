"""Speed of the Dehil engine: scoring a full board, and replaying games.

(a) Scoring. A size-11 board (331 points) is filled by a seeded random legal
    game: each player places at random among their legal placements, and
    passes when they have none, until two passes in succession end it. The
    final position is then scored many times; the best time is compared with
    the 10 ms bound. The literal reference (``tests/reference_dehil.py``),
    which lifts each group off the board and flood-fills the rest, scores the
    same board, so the two can be compared (and must agree).

(b) Replay. Seeded random size-9 games (``keilref.engine.generate``) are replayed
    through fresh games, best of several rounds, in moves per second.

    python benchmarks/bench_dehil.py [--seed 2024] [--runs 300] [--games 200] [--rounds 5]
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable

from measured import measuring, use_test_references

from keilref import Game
from keilref.engine.dehil import DehilGame
from keilref.engine.generate import GeneratedGame, random_games

use_test_references()

SCORE_BOUND_MS = 10.0


def fill_board(seed: int, size: int = 11) -> DehilGame:
    """Play random legal placements until neither player has one left."""
    rng = random.Random(seed)
    game = Game(size=size, rules="dehil")
    assert isinstance(game, DehilGame)
    while not game.is_over:
        placements = game.legal_moves()[:-1]
        game.play(rng.choice(placements) if placements else "pass")
    return game


def best_ms(func: Callable[[], object], runs: int) -> float:
    """The fastest of ``runs`` calls, in milliseconds."""
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        func()
        best = min(best, time.perf_counter() - start)
    return best * 1000


def bench_scoring(seed: int, runs: int) -> None:
    from reference_dehil import RefDehil

    game = fill_board(seed)
    stones = sum(game.stone_at(p) is not None for p in game.points())
    groups = game.partitions()
    partitioned = sum(areas >= 2 for _, areas in groups)
    print(f"(a) size-11 board, seed {seed}: {game.turn} turns, {stones} stones of {len(game.points())} points,")
    print(f"    {len(groups)} groups, {partitioned} with partitions; score {game.score().result}")
    fast = best_ms(game.score, runs)
    verdict = "within" if fast < SCORE_BOUND_MS else "OVER"
    print(f"    engine score():    {fast:8.3f} ms  (best of {runs}; bound {SCORE_BOUND_MS:.0f} ms: {verdict}, "
          f"{SCORE_BOUND_MS / fast:.0f}x headroom)")

    ref = RefDehil(game.size, int(game.komi))
    for p in game.points():
        stone = game.stone_at(p)
        ref.board[p] = 0 if stone is None else int(stone)
    ref.first_pass = None if game.first_pass is None else int(game.first_pass)
    slow = best_ms(ref.score, max(3, runs // 100))
    black, white, _ = ref.score()
    score = game.score()
    assert (black, white) == (score.black, score.white), "engine and reference disagree"
    print(f"    reference score(): {slow:8.3f} ms  ({slow / fast:.0f}x the engine; same score)")


def replay(games: list[GeneratedGame]) -> float:
    start = time.perf_counter()
    for g in games:
        game = Game(size=g.size, komi=g.komi, rules="dehil")
        play = game.play
        for move in g.moves:
            play(move)
    return time.perf_counter() - start


def bench_replay(seed: int, n_games: int, rounds: int) -> None:
    games = list(random_games(seed, n_games, rules=("dehil",), sizes=(9,)))
    moves = sum(len(g.moves) for g in games)
    best = min(replay(games) for _ in range(rounds))
    passes = sum(g.moves.count("pass") for g in games)
    print(f"(b) {len(games)} random size-9 games, {moves / len(games):.0f} turns each on average "
          f"({passes} passes in all)")
    print(f"    replay: {moves / best:12,.0f} moves/s  (best of {rounds} rounds)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument("--runs", type=int, default=300)
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    print(measuring())
    bench_scoring(args.seed, args.runs)
    bench_replay(args.seed, args.games, args.rounds)


if __name__ == "__main__":
    main()
