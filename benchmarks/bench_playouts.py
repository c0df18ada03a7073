"""Random playouts to the end through the library's :class:`~keilref.Game`: what a bot pays.

A bot calls ``Game.play``, ``legal_moves``, ``pop`` and ``score`` millions of
times. Each playout starts a game on the empty board (size 7, the Keil rules,
the button in play) and, turn after turn, plays a move drawn (seeded) from
``legal_moves()``: the placements, then the button while nobody holds it,
else a pass; two passes in a row end it. It then takes its last turns back
with ``pop``, plays them again, and scores the end with ``score``, which must
be the count it had before the take-back.

Every round plays the same seeded playouts; the best round gives playouts/s
and turns/s (the turns of the finished games; the turns taken back and
played again are work of the playout, not counted twice), in wall and CPU
time. The games' count of turns and wins depends on the seed alone, so two
builds that print different ones disagree on the rules.

    python benchmarks/bench_playouts.py [--playouts 200] [--rounds 3] [--seed 2026] [--undo 3]

It measures the keilref installed in the interpreter that runs it, and its
first line says which (version, engine kernel, package).
"""

from __future__ import annotations

import argparse
import os
import random
import time
from dataclasses import dataclass

from measured import measuring

from keilref import Color, Game, Score

SIZE = 7
UNDO = 3
"""Turns each playout takes back with ``pop`` and plays again."""


@dataclass(frozen=True)
class Playout:
    """One finished playout: its turns and the count of its end."""

    moves: tuple[str, ...]
    score: Score


def playout(rng: random.Random, *, size: int = SIZE, rules: str = "keil", undo: int = UNDO) -> Playout:
    """Play one random game to its end, take its last ``undo`` turns back and play them again, and count it."""
    game = Game(size=size, rules=rules)
    while not game.is_over:
        game.play(rng.choice(game.legal_moves()))
    counted = game.score()
    taken = [game.pop() for _ in range(min(undo, game.turn))]
    for move in reversed(taken):
        game.play(move)
    score = game.score()
    if not game.is_over or score != counted:
        raise AssertionError(f"after pop and the same turns again: over {game.is_over}, {score} against {counted}")
    return Playout(game.moves, score)


def playouts(seed: int, count: int, *, size: int = SIZE, rules: str = "keil", undo: int = UNDO) -> list[Playout]:
    """``count`` playouts from one seed: the same ones for the same seed."""
    rng = random.Random(seed)
    return [playout(rng, size=size, rules=rules, undo=undo) for _ in range(count)]


def _load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--playouts", type=int, default=200, help="playouts a round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--undo", type=int, default=UNDO, help="turns each playout takes back and plays again")
    parser.add_argument("--rules", choices=("keil", "keil-2019"), default="keil")
    args = parser.parse_args()
    print(measuring())
    print(f"load average at the start: {_load()} (cores: {os.cpu_count()})")

    best_wall = best_cpu = float("inf")
    games: list[Playout] = []
    for round_ in range(1, args.rounds + 1):
        cpu, start = time.process_time(), time.perf_counter()
        games = playouts(args.seed, args.playouts, rules=args.rules, undo=args.undo)
        wall, cpu = time.perf_counter() - start, time.process_time() - cpu
        best_wall, best_cpu = min(best_wall, wall), min(best_cpu, cpu)
        print(f"round {round_}: {wall:.2f} s ({cpu:.2f} s CPU)")

    n = args.playouts
    turns = sum(len(g.moves) for g in games)
    wins = {color: sum(g.score.result.winner is color for g in games) for color in (Color.BLACK, Color.WHITE)}
    print(
        f"{n} playouts on size {SIZE} ({args.rules}), {turns:,} turns ({turns / n:.0f} a game, "
        f"{min(len(g.moves) for g in games)}-{max(len(g.moves) for g in games)}); "
        f"Black won {wins[Color.BLACK]}, White {wins[Color.WHITE]}, drawn {n - wins[Color.BLACK] - wins[Color.WHITE]}; "
        f"each took back {args.undo} turns with pop and played them again"
    )
    print(f"best round: {n / best_wall:,.1f} playouts/s, {turns / best_wall:,.0f} turns/s ({best_wall:.2f} s)")
    print(f"per CPU-second: {n / best_cpu:,.1f} playouts, {turns / best_cpu:,.0f} turns ({best_cpu:.2f} s)")
    print(f"load average at the end: {_load()}")


if __name__ == "__main__":
    main()
