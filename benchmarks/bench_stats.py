"""``keilref stats`` against ``keilref check`` on the same archive.

Both replay every game exactly with the same worker processes; stats only
tallies the verdicts instead of printing them. Writes a seeded archive of
size-7 games (about 165 turns each), runs each command as a user would (a
fresh process, start-up included, the best of ``--rounds``) and prints the
ratio the target speaks of: stats within 1.2 times the time of check.

    python benchmarks/bench_stats.py [--games 100000] [--rounds 1] [--jobs N]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_check import write_archive
from measured import KEILREF, ROOT, measuring

TARGET = 1.2


def timed_run(args: list[str]) -> float:
    cmd = [*KEILREF, *args]
    start = time.perf_counter()
    proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=ROOT)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"{' '.join(args[:1])} failed ({proc.returncode}): {proc.stderr.decode()[:500]}")
    return elapsed


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=100_000)
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--archive", type=Path, help="Use (or create once) this archive instead of a temporary one.")
    args = ap.parse_args()
    print(measuring())

    with tempfile.TemporaryDirectory() as tmp:
        path = args.archive or Path(tmp) / "archive.keil"
        if not path.exists():
            write_archive(path, args.games, ("keil",), args.seed)
        size_mb = os.path.getsize(path) / 1e6
        print(f"archive: {args.games} games, keil, size 7, {size_mb:.1f} MB; --jobs {args.jobs}")
        jobs = ["--jobs", str(args.jobs)]
        check = stats = float("inf")
        for _ in range(args.rounds):
            # Interleaved, so that a change in the machine's load hits both alike.
            check = min(check, timed_run(["check", "--format", "jsonl", *jobs, str(path)]))
            stats = min(stats, timed_run(["stats", "--format", "json", *jobs, str(path)]))

    n = args.games
    print(f"keilref check: {n / check:>9,.0f} games/s  ({check:.2f} s)")
    print(f"keilref stats: {n / stats:>9,.0f} games/s  ({stats:.2f} s, {stats / check:.2f}x the time of check)")
    if n < 2000:
        print(f"target: not judged on {n} games; run with the default 100,000")
        return
    verdict = "meets" if stats <= TARGET * check else "MISSES"
    print(f"target: stats within {TARGET}x the time of check: {verdict}")


if __name__ == "__main__":
    main()
