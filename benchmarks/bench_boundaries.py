"""Reading at the input's edges: time per MB at two sizes, and peak memory.

Three shapes, each at a size and at four times it (the time per MB should
stay about the same: linear growth):

* one game holding one long closed comment (over 10 MB it is a game over
  the cap: scanned to its end, never held);
* one game of many commented turns (under the 10 MB cap: parsed and replayed);
* many games, each with an unclosed ``{`` (every one an error, none hiding
  the next).

Each size is checked by ``keilref check --jobs 1`` in a child process; its
peak RSS comes from ``getrusage`` of the children. Full size:
``--mb 25`` (100 MB comment, 10 MB game, 200,000 games at the larger size).
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def comment_file(path: Path, mb: float) -> int:
    with path.open("wb") as f:
        f.write(b'[Event "long comment"]\n[Size "3"]\n1. c3 {')
        block = (b"a long comment line that goes on " * 30 + b"\n")
        n = int(mb * 1_000_000) // len(block)
        for _ in range(n):
            f.write(block)
        f.write(b"} *\n\n[Size \"3\"]\n1. c3 *\n")
    return path.stat().st_size


def game_file(path: Path, mb: float) -> int:
    # Turns on a size-13 board: legal, each with a comment, until the size.
    turns = []
    size = 0
    points = [f"{c}{r}" for c in "abcdefghijklm" for r in range(1, 14)]
    i = 0
    while size < mb * 1_000_000 and i < 80:
        t = f"{points[i * 3 % len(points)]} {{turn {i}}} "
        turns.append(t)
        size += len(t)
        i += 1
    filler = "{" + "x" * 60 + "} "
    body = "".join(turns)
    extra = int(mb * 1_000_000) - len(body) - 200
    with path.open("w", encoding="utf-8") as f:
        f.write('[Event "one big game"]\n[Rules "keil"]\n[Size "13"]\n\n')
        f.write(body)
        f.write((filler + "\n") * max(extra // (len(filler) + 1), 0))
        f.write("*\n")
    return path.stat().st_size


def unclosed_file(path: Path, games: int) -> int:
    with path.open("w", encoding="utf-8") as f:
        for i in range(games):
            f.write(f'[Event "{i}"]\n[Size "3"]\n1. c3 {{forgot to close\n\n')
    return path.stat().st_size


def run(path: Path) -> tuple[float, int, str]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "keilref", "check", "--jobs", "1", "--format", "jsonl", str(path)],
        capture_output=True,
        text=True,
    )
    seconds = time.perf_counter() - start
    rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    if proc.returncode not in (0, 1) or "Traceback" in proc.stderr:
        raise SystemExit(f"check failed on {path}: {proc.stderr[-500:]}")
    statuses = sorted({line.split('"status": "')[1].split('"')[0] for line in proc.stdout.splitlines()})
    return seconds, max(rss, before), ",".join(statuses)


def long_keil_moves(size: int, turns: int, seed: int = 1) -> list[str]:
    """The moves of a legal Keil game of ``turns`` turns, played at random.

    Black takes the button first; then each turn is a random point that the
    rules allow, or a pass when none is. Filling their own eyes, players
    keep capturing each other's groups, so games run long: on size 13 they
    run well past 100,000 turns.
    """
    import random

    from keilref import KeilGame

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
                raise SystemExit(f"the random game ended at turn {game.turn}; choose another seed")
            game.play(rng.choice(legal[:-1]) if len(legal) > 1 else legal[-1])
    return list(game.moves)


def superko_bytes_per_turn(size: int = 13, turns: int = 20_000) -> None:
    """Print the memory a Keil game holds per turn (its superko memory and its
    moves), from ``tracemalloc``: the game replayed to ``turns`` turns and to
    twice that, so the fixed costs cancel."""
    import tracemalloc

    from keilref import KeilGame

    moves = long_keil_moves(size, 2 * turns)
    tracemalloc.start()
    game = KeilGame(size=size)
    game.play_legal(moves[:turns])
    at_n = tracemalloc.get_traced_memory()[0]
    game.play_legal(moves[turns:])
    at_2n = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    assert game.turn == 2 * turns
    per_turn = (at_2n - at_n) / turns
    print(f"superko memory, size {size}: {per_turn:.1f} bytes per turn (turns {turns:,} to {2 * turns:,})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mb", type=float, default=25.0, help="the smaller size, in MB (the larger is 4x)")
    ap.add_argument("--superko-turns", type=int, default=20_000, help="turns of the game whose memory is measured (and twice that)")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="keilref-bench-"))
    try:
        shapes = [
            ("closed comment", lambda p, k: comment_file(p, args.mb * k)),
            ("one game (capped at 10 MB)", lambda p, k: game_file(p, min(args.mb * k / 10, 9.9))),
            ("unclosed comments", lambda p, k: unclosed_file(p, int(args.mb * k * 2000))),
        ]
        print("shape                         size MB   seconds   s/MB    peak RSS MB  statuses")
        for name, make in shapes:
            for k in (1, 4):
                path = work / "input.keil"
                nbytes = make(path, k)
                seconds, rss_kb, statuses = run(path)
                mb = nbytes / 1e6
                print(f"{name:<29} {mb:8.1f} {seconds:9.2f} {seconds / mb:7.3f} {rss_kb / 1024:12.0f}  {statuses}")
                path.unlink()
    finally:
        for p in work.iterdir():
            p.unlink()
        os.rmdir(work)
    print("(peak RSS: the largest child so far; time per MB about equal at both sizes means linear)")
    superko_bytes_per_turn(turns=args.superko_turns)


if __name__ == "__main__":
    main()
