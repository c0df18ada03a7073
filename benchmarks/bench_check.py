"""End-to-end speed of ``keilref check`` on a large archive.

Writes a seeded archive of size-7 games (about 165 turns each), then:

- parses its text once with a minimal Lark LALR grammar of 8 lines (the
  bare parse: the floor any Lark-based reader pays), and once with the
  project's own grammar, ``grammar/record.lark``, game by game as keilref
  parses a file, with keilref's parser settings, both building a tree
  (the games are cut beforehand, untimed);
- runs ``keilref check --jobs 1`` and ``--jobs 2`` on it as a user would, a
  fresh process each time, start-up included;

and prints games/s for each with the ratios the targets speak of (the
grammar's parse is reported beside the bare one, without a target): ``--jobs 1``
at least 3.0x faster than the bare parse, ``--jobs 2`` at least 1.7x faster
than ``--jobs 1``. Each ratio is given twice: from the best time of each
command, and as the median of the rounds' own ratios (the commands of one
round run back to back, so a host whose speed drifts over minutes moves both).

It also measures what two processes can do at once on this host: a fixed
loop of pure Python, one copy alone and then two copies at once, before the
first round and after the last. On a machine whose two cores are shared
with others, two copies at once do less than twice the work of one, and
that ceiling bounds what ``--jobs 2`` can show.

    python benchmarks/bench_check.py [--games 10000] [--rounds 3] [--rules keil]

``keilref`` runs as installed in the interpreter that runs this script, so
the fast build is measured by running it with that build's Python (see
"Fast build" in docs/performance.md); the first lines say which keilref was
measured: its version, its kernel and where its package is.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_parse import bare_parse, cut_games, grammar_parse
from measured import KEILREF, ROOT, installed_keilref, measuring

from keilref.engine.generate import random_games, to_record
from keilref.records.writer import write_record


def write_archive(path: Path, games: int, rules: tuple[str, ...], seed: int) -> None:
    with open(path, "w", encoding="utf-8") as f:
        for i, g in enumerate(random_games(seed, games, rules=rules, sizes=(7,), fill=1.3), 1):
            if i > 1:
                f.write("\n")
            f.write(write_record(to_record(g, event=f"bench {i}")))


def run_check(path: Path, jobs: int) -> tuple[float, float]:
    """Wall time and CPU time (all its processes) of one ``keilref check``."""
    cmd = [*KEILREF, "check", "--jobs", str(jobs), "--format", "jsonl", str(path)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        sys.exit(f"check failed ({proc.returncode}): {proc.stderr.decode()[:500]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return elapsed, cpu


_SPIN = "x = 0\nfor i in range(12_000_000):\n    x += i & 7\n"


def parallel_capacity() -> float:
    """How many times the work of one process two processes do at once here:
    2.0 on two free cores, less when the host lends them out."""

    def spin(copies: int) -> float:
        start = time.perf_counter()
        procs = [subprocess.Popen([sys.executable, "-c", _SPIN]) for _ in range(copies)]
        for proc in procs:
            proc.wait()
        return time.perf_counter() - start

    one = min(spin(1) for _ in range(2))
    two = min(spin(2) for _ in range(2))
    return 2 * one / two


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=10_000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--rules", action="append")
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    rules = tuple(args.rules or ["keil"])
    print(measuring())

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "archive.keil"
        write_archive(path, args.games, rules, args.seed)
        text = path.read_text(encoding="utf-8")
        games = cut_games(text)
        assert len(games) == args.games, len(games)
        size_mb = os.path.getsize(path) / 1e6
        print(f"archive: {args.games} games, {'/'.join(rules)}, size 7, {size_mb:.1f} MB")
        print(f"checked by: {installed_keilref()}")

        # Interleaved rounds, best of each: load from elsewhere on the machine
        # then weighs on all three alike.
        bares, grammars, serials, parallels, bare_cpus, serial_cpus = [], [], [], [], [], []
        judged = args.games >= 2000  # below, starting processes outweighs checking
        capacity = [parallel_capacity()] if judged else []
        bare_parse(games[0]), grammar_parse(games[:1])  # loading the grammars is not what is measured
        for _ in range(args.rounds):
            cpu = time.process_time()
            bares.append(_timed(lambda: bare_parse(text)))
            bare_cpus.append(time.process_time() - cpu)
            grammars.append(_timed(lambda: grammar_parse(games)))
            wall, cpu = run_check(path, 1)
            serials.append(wall)
            serial_cpus.append(cpu)
            parallels.append(run_check(path, 2)[0])
        if judged:
            capacity.append(parallel_capacity())
        bare, grammar, serial, parallel = min(bares), min(grammars), min(serials), min(parallels)
        bare_cpu, serial_cpu = min(bare_cpus), min(serial_cpus)

    n = args.games
    print(f"bare Lark parse (an 8-line grammar, whole text): {n / bare:>9,.0f} games/s  ({bare:.2f} s, in this process)")
    print(
        f"grammar/record.lark parse (game by game):        {n / grammar:>9,.0f} games/s  "
        f"({grammar:.2f} s, in this process, {grammar / bare:.2f}x the time of the bare parse)"
    )
    print(
        f"keilref check --jobs 1:                          {n / serial:>9,.0f} games/s  "
        f"({serial:.2f} s, {bare / serial:.2f}x faster than the bare parse, {grammar / serial:.2f}x faster than the record.lark parse)"
    )
    print(
        f"keilref check --jobs 2:                          {n / parallel:>9,.0f} games/s  "
        f"({parallel:.2f} s, {serial / parallel:.2f}x faster than --jobs 1)"
    )
    print(f"CPU time: bare parse {bare_cpu:.2f} s, check --jobs 1 {serial_cpu:.2f} s: {bare_cpu / serial_cpu:.2f}x")
    print(
        "rounds (bare parse, record.lark parse, --jobs 1, --jobs 2, in seconds): "
        + "; ".join(f"{b:.2f}, {g:.2f}, {s:.2f}, {p:.2f}" for b, g, s, p in zip(bares, grammars, serials, parallels))
    )
    print(
        "median of the rounds' own ratios: "
        f"--jobs 1 {statistics.median(b / s for b, s in zip(bares, serials)):.2f}x the bare parse, "
        f"--jobs 2 {statistics.median(s / p for s, p in zip(serials, parallels)):.2f}x --jobs 1"
    )
    if capacity:
        print(
            "two processes at once did "
            + " and ".join(f"{c:.2f}x" for c in capacity)
            + " the work of one (before the first round, after the last; 2.00x on two free cores)"
        )
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
