"""Replay speed of the Yugo engine: moves per second of ``Game.play``.

Plays seeded random size-13 Yugo games once (untimed): random legal pawns,
now and then a legal king (usually one once no pawn fits), the button at a
random moment, and two passes in succession at the end. Then times replaying their turns
through fresh games, best of several rounds. The literal reference
implementation in ``tests/reference_yugo.py`` replays a sample of the same
games, so the ratio between the two is measured in the same run.

    python benchmarks/bench_yugo.py [--games 40] [--rounds 5] [--size 13]
"""

from __future__ import annotations

import argparse
import random
import time
from collections import Counter

from measured import measuring, use_test_references

from keilref import Game
from keilref.engine.yugo import YugoGame

use_test_references()

KING_CHANCE = 0.08
"""How often a player who could place a king does so while pawns still fit."""
BUTTON_CHANCE = 0.02
PASS_CHANCE = 0.3
"""How often a player for whom no pawn fits passes rather than place a king."""


def random_game(rng: random.Random, size: int, stats: Counter[str]) -> list[str]:
    """One random game to its first double pass, as its list of turns.

    A player for whom no pawn fits places a king (passing now and then), so
    the game ends once both players pass in succession.
    """
    game = YugoGame(size=size)
    points = list(game.points())
    while not game.is_over:
        if game.button_holder is None and rng.random() < BUTTON_CHANCE:
            game.play("button")
            continue
        move = pick_placement(rng, game, points)
        if move is None:
            move = "button" if game.button_holder is None else "pass"
        elif move.startswith("K@"):
            stats["kings"] += 1
        game.play(move)
        stats["pawns stripped"] += len(game.last_captured)
    return list(game.moves)


def pick_placement(rng: random.Random, game: YugoGame, points: list[str]) -> str | None:
    """A random legal pawn, sometimes a king instead; ``None`` when neither fits."""
    rng.shuffle(points)
    pawn = next((p for p in points if game.stone_at(p) is None and game.is_legal(p)), None)
    if pawn is not None and rng.random() >= KING_CHANCE:
        return pawn
    if pawn is None and rng.random() < PASS_CHANCE:
        return None
    kings = [m for m in game.legal_moves() if m.startswith("K@")]
    if kings:
        return rng.choice(kings)
    return pawn


def replay_fast(games: list[list[str]], size: int) -> float:
    start = time.perf_counter()
    for moves in games:
        game = Game(size=size, komi=0, rules="yugo")
        play = game.play
        for move in moves:
            play(move)
    return time.perf_counter() - start


def replay_reference(games: list[list[str]], size: int) -> float:
    import reference_yugo as R

    start = time.perf_counter()
    for moves in games:
        ref = R.RefYugo(size)
        for move in moves:
            verdict = ref.play(move)
            assert verdict.reason is None, (move, verdict)
    return time.perf_counter() - start


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=40)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--size", type=int, default=13)
    ap.add_argument("--reference-games", type=int, default=2)
    ap.add_argument("--seed", type=int, default=2017)
    args = ap.parse_args()
    print(measuring())

    rng = random.Random(args.seed)
    stats: Counter[str] = Counter()
    games = [random_game(rng, args.size, stats) for _ in range(args.games)]
    moves = sum(len(g) for g in games)
    best = min(replay_fast(games, args.size) for _ in range(args.rounds))
    fast_rate = moves / best
    print(
        f"games:     {len(games)} size-{args.size} yugo games, {moves / len(games):.0f} turns each on average, "
        f"{stats['kings'] / len(games):.1f} kings stripping {stats['pawns stripped'] / len(games):.1f} pawns"
    )
    print(f"engine:    {fast_rate:>12,.0f} moves/s  (best of {args.rounds} rounds)")

    sample = games[: args.reference_games]
    if not sample:
        return
    ref_moves = sum(len(g) for g in sample)
    ref_rate = ref_moves / replay_reference(sample, args.size)
    print(f"reference: {ref_rate:>12,.0f} moves/s  ({len(sample)} games)")
    print(f"ratio:     {fast_rate / ref_rate:>12,.1f}x the literal reference")


if __name__ == "__main__":
    main()
