"""The fast build's native path against the same build without it (the mypyc build).

Writes a seeded archive of size-7 Keil games (about 165 turns each), then,
round after round, runs ``keilref check --jobs 1`` with the native path on
and off (``KEILREF_NATIVE=0``: the mypyc kernel and the Python referee) in
the JSON lines and text formats, and ``--jobs 2`` in JSON lines, each a
fresh process, start-up included, one after the other so that the host's
load weighs on both alike. It prints games per CPU-second (all processes of
a run), the ratios the targets speak of, the main process's own share of
``--jobs 2`` per game, and whether the outputs of the two paths are the same
bytes (they must be).

    python benchmarks/bench_native.py [--games 10000] [--rounds 3]

Run it with the fast build's Python (``KEILREF_COMPILE=1 pip install .``);
with the pure build there is no native path and it says so.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from bench_check import write_archive
from measured import ROOT, measuring

from keilref.referee.native import is_built

_SELF = (
    "import atexit, resource, sys\n"
    "def said():\n"
    "    r = resource.getrusage(resource.RUSAGE_SELF)\n"
    "    sys.stderr.write(f'main process CPU: {r.ru_utime + r.ru_stime}\\n')\n"
    "atexit.register(said)\n"
    "from keilref.cli import main\n"
    "sys.argv = ['keilref', *sys.argv[1:]]\n"
    "main()\n"
)
"""``keilref`` run so that its main process says its own CPU time as it ends."""


def run(path: Path, *, native: bool, fmt: str, jobs: int) -> tuple[float, float, bytes]:
    """CPU time of all the run's processes, the main process's own, and its output."""
    env = {**os.environ, "KEILREF_NATIVE": "1" if native else "0"}
    cmd = [sys.executable, "-P", "-c", _SELF, "check", "--jobs", str(jobs), "--format", fmt, str(path)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(cmd, capture_output=True, env=env, cwd=ROOT)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(f"check failed ({done.returncode}): {done.stderr.decode()[:500]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    own = float(re.findall(rb"main process CPU: ([0-9.]+)", done.stderr)[-1])
    return cpu, own, re.sub(rb"in [0-9.]+ s \([0-9,]+ games/s\)", b"in T", done.stdout)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=10_000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    print(measuring())
    if not is_built():
        print("this keilref has no native path (the pure build): nothing to compare")
        return
    runs = {
        "jsonl --jobs 1": ("jsonl", 1),
        "text --jobs 1": ("text", 1),
        "jsonl --jobs 2": ("jsonl", 2),
    }
    cpu: dict[tuple[str, bool], list[float]] = {(k, n): [] for k in runs for n in (True, False)}
    own: dict[tuple[str, bool], list[float]] = {(k, n): [] for k in runs for n in (True, False)}
    same = True
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "archive.keil"
        write_archive(path, args.games, ("keil",), args.seed)
        print(f"archive: {args.games} games, keil, size 7, {path.stat().st_size / 1e6:.1f} MB")
        for _ in range(args.rounds):
            for name, (fmt, jobs) in runs.items():
                outputs = []
                for native in (True, False):
                    c, o, out = run(path, native=native, fmt=fmt, jobs=jobs)
                    cpu[(name, native)].append(c)
                    own[(name, native)].append(o)
                    outputs.append(out)
                same &= outputs[0] == outputs[1]
    n = args.games
    ratios = {}
    for name in runs:
        on, off = min(cpu[(name, True)]), min(cpu[(name, False)])
        ratios[name] = statistics.median(b / a for a, b in zip(cpu[(name, True)], cpu[(name, False)]))
        print(
            f"{name}: native {n / on:>8,.0f} games per CPU-second ({on:.2f} s), "
            f"without {n / off:>7,.0f} ({off:.2f} s): {off / on:.2f}x (median of the rounds' ratios {ratios[name]:.2f}x)"
        )
    parent = min(own[("jsonl --jobs 2", True)])
    print(f"main process of --jobs 2 with the native path: {parent:.2f} s CPU, {parent / n * 1e6:.1f} us a game, start-up included")
    print(f"outputs of the two paths: {'the same bytes' if same else 'DIFFERENT'}")
    print(f"rounds (CPU s, native/without): " + "; ".join(
        f"{name} " + ", ".join(f"{a:.2f}/{b:.2f}" for a, b in zip(cpu[(name, True)], cpu[(name, False)])) for name in runs
    ))
    print(f"load average at the end: {' '.join(f'{x:.1f}' for x in os.getloadavg())} (cores: {os.cpu_count()})")
    if not same:
        sys.exit("the native path and the Python referee wrote different output")
    if n < 2000:
        print(f"targets: not judged on {n} games; run with the default 10,000")
        return
    best = n / min(cpu[("jsonl --jobs 1", True)])
    verdicts = [
        f">= 20,000 games per CPU-second: {'meets' if best >= 20_000 else 'MISSES'} ({best:,.0f})",
        f"jsonl >= 5x without: {'meets' if ratios['jsonl --jobs 1'] >= 5 else 'MISSES'}",
        f"text >= 4x without: {'meets' if ratios['text --jobs 1'] >= 4 else 'MISSES'}",
    ]
    print("targets: " + "; ".join(verdicts))


if __name__ == "__main__":
    main()
