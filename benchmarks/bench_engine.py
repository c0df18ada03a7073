"""Replay speed of the Keil engine: moves per second of ``Game.play``.

Plays seeded random size-7 games once (untimed), then times replaying their
turns through fresh games, best of several rounds. The literal reference
implementation in ``tests/reference.py`` replays a sample of the same games,
so the ratio between the two is measured in the same run.

    python benchmarks/bench_engine.py [--games 400] [--rounds 5] [--rules keil]
"""

from __future__ import annotations

import argparse
import time

from measured import measuring, use_test_references

from keilref import Game
from keilref.engine.generate import GeneratedGame, random_games


def replay_fast(games: list[GeneratedGame]) -> float:
    start = time.perf_counter()
    for g in games:
        game = Game(size=g.size, komi=g.komi, rules=g.rules, button=g.button)
        play = game.play
        for move in g.moves:
            play(move)
    return time.perf_counter() - start


def replay_reference(games: list[GeneratedGame]) -> float:
    use_test_references()
    from reference import RefKeil

    start = time.perf_counter()
    for g in games:
        ref = RefKeil(size=g.size, komi=g.komi, rules=g.rules, button=g.button)
        for move in g.moves:
            ref.play(move)
    return time.perf_counter() - start


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=400)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--rules", default="keil")
    ap.add_argument("--reference-games", type=int, default=10)
    ap.add_argument("--seed", type=int, default=2019)
    args = ap.parse_args()
    print(measuring())

    games = list(random_games(args.seed, args.games, rules=(args.rules,), sizes=(7,), fill=1.3))
    moves = sum(len(g.moves) for g in games)
    best = min(replay_fast(games) for _ in range(args.rounds))
    fast_rate = moves / best
    print(f"games: {len(games)} size-7 {args.rules} games, {moves / len(games):.0f} turns each on average")
    print(f"engine:    {fast_rate:>12,.0f} moves/s  (best of {args.rounds} rounds)")

    sample = games[: args.reference_games]
    ref_moves = sum(len(g.moves) for g in sample)
    ref_time = replay_reference(sample)
    ref_rate = ref_moves / ref_time
    print(f"reference: {ref_rate:>12,.0f} moves/s  ({len(sample)} games)")
    print(f"ratio:     {fast_rate / ref_rate:>12,.1f}x the literal reference")
    target = 220_000
    verdict = "meets" if fast_rate >= target else "MISSES"
    print(f"target:    {target:>12,} moves/s: {verdict}")


if __name__ == "__main__":
    main()
