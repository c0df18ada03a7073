"""End-to-end speed of ``keilref check`` on a large archive.

Writes a seeded archive of size-7 games (about 165 turns each), then:

- parses its text once with a minimal Lark LALR grammar (the bare parse:
  the floor any Lark-based reader pays);
- runs ``keilref check --jobs 1`` and ``--jobs 2`` on it as a user would, a
  fresh process each time, start-up included;

and prints games/s for each with the ratios the targets speak of: ``--jobs 1``
at least 3.0x faster than the bare parse, ``--jobs 2`` at least 1.7x faster
than ``--jobs 1``.

    python benchmarks/bench_check.py [--games 10000] [--rounds 3] [--rules keil]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_parse import bare_parse  # noqa: E402

from keilref.generate import random_games, to_record  # noqa: E402
from keilref.writer import write_record  # noqa: E402


def write_archive(path: Path, games: int, rules: tuple[str, ...], seed: int) -> None:
    with open(path, "w", encoding="utf-8") as f:
        for i, g in enumerate(random_games(seed, games, rules=rules, sizes=(7,), fill=1.3), 1):
            if i > 1:
                f.write("\n")
            f.write(write_record(to_record(g, event=f"bench {i}")))


def run_check(path: Path, jobs: int) -> float:
    cmd = [sys.executable, "-m", "keilref", "check", "--jobs", str(jobs), "--format", "jsonl", str(path)]
    start = time.perf_counter()
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"check failed ({proc.returncode}): {proc.stderr.decode()[:500]}")
    return elapsed


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=10_000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--rules", action="append")
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    rules = tuple(args.rules or ["keil"])

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "archive.keil"
        write_archive(path, args.games, rules, args.seed)
        text = path.read_text(encoding="utf-8")
        size_mb = os.path.getsize(path) / 1e6
        print(f"archive: {args.games} games, {'/'.join(rules)}, size 7, {size_mb:.1f} MB")

        # Interleaved rounds, best of each: load from elsewhere on the machine
        # then weighs on all three alike.
        bares, serials, parallels = [], [], []
        for _ in range(args.rounds):
            bares.append(_timed(lambda: bare_parse(text)))
            serials.append(run_check(path, 1))
            parallels.append(run_check(path, 2))
        bare, serial, parallel = min(bares), min(serials), min(parallels)

    n = args.games
    print(f"bare Lark parse:        {n / bare:>9,.0f} games/s  ({bare:.2f} s, in this process)")
    print(f"keilref check --jobs 1: {n / serial:>9,.0f} games/s  ({serial:.2f} s, {bare / serial:.2f}x faster than the bare parse)")
    print(f"keilref check --jobs 2: {n / parallel:>9,.0f} games/s  ({parallel:.2f} s, {serial / parallel:.2f}x faster than --jobs 1)")
    print(f"load average at the end: {' '.join(f'{x:.1f}' for x in os.getloadavg())} (cores: {os.cpu_count()})")
    if n < 2000:
        # Below this, starting processes weighs more than checking: no fair verdict.
        print(f"targets: not judged on {n} games; run with the default 10,000")
        return
    ok1 = "meets" if bare / serial >= 3.0 else "MISSES"
    ok2 = "meets" if serial / parallel >= 1.7 else "MISSES"
    print(f"targets: --jobs 1 >= 3.0x faster than the bare parse: {ok1}; --jobs 2 >= 1.7x faster than --jobs 1: {ok2}")


def _timed(fn: object) -> float:
    start = time.perf_counter()
    fn()  # type: ignore[operator]
    return time.perf_counter() - start


if __name__ == "__main__":
    main()
