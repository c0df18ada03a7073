"""Peak memory of ``keilref check`` as the archive grows.

Builds archives of the given sizes (seeded size-7 games, repeated to reach
the size: the checker does the same work for a repeated game), runs
``keilref check --format jsonl`` on each (and on a gzip-compressed copy,
which is read as a stream) with the output thrown away, and
samples the resident memory of the whole process tree (the main process and
its workers) from /proc every 20 ms.

    python benchmarks/bench_memory.py [--mb 50 --mb 1000] [--jobs 2] [--no-gzip]

``--variations N`` (repeatable) measures games of variations instead: one
game of ``N`` one-turn variations of its first turn (``1. a1 (1. b1) (1. b1)
...``, 8 bytes each; past 1,000,000 turns the game is refused at the cap),
and one of ``N`` variations inside one another (refused at the 101st ``(``).

    python benchmarks/bench_memory.py --variations 100000 --variations 600000
"""

from __future__ import annotations

import argparse
import gzip
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from measured import KEILREF, ROOT, measuring

from keilref.engine.generate import random_games, to_record
from keilref.records.writer import write_record


def build(path: Path, megabytes: int, seed: int = 1) -> int:
    block = "\n".join(
        write_record(to_record(g, event=f"mem {i}"))
        for i, g in enumerate(random_games(seed, 500, sizes=(7,), fill=1.3))
    ) + "\n"
    data = block.encode("utf-8")
    target = megabytes * 1_000_000
    games = 0
    with open(path, "wb") as f:
        written = 0
        while written < target:
            f.write(data)
            written += len(data)
            games += 500
    return games


def tree_rss(pid: int) -> int:
    """Resident bytes of ``pid`` and all its descendants."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            children.setdefault(int(fields[1]), []).append(int(entry))
        except OSError:
            continue
    total = 0
    stack = [pid]
    page = os.sysconf("SC_PAGE_SIZE")
    while stack:
        p = stack.pop()
        stack.extend(children.get(p, []))
        try:
            with open(f"/proc/{p}/statm") as f:
                total += int(f.read().split()[1]) * page
        except OSError:
            continue
    return total


VARIATION_HEAD = '[Event "variations"]\n[Rules "keil"]\n[Size "7"]\n[Komi "0"]\n[Button "yes"]\n\n'


def build_variations(path: Path, shape: str, n: int) -> None:
    """One game of ``n`` variations: side by side after the first turn (``wide``) or nested (``deep``)."""
    if shape == "wide":
        moves = "1. a1 " + "(1. b1) " * n
    else:
        moves = "1. a1 " + "(b1 " * n + ")" * n
    path.write_text(VARIATION_HEAD + moves + "\n", encoding="utf-8")


def measure(path: Path, jobs: int, failing: bool = False) -> tuple[float, float]:
    cmd = [*KEILREF, "check", "--jobs", str(jobs), "--format", "jsonl", str(path)]
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=ROOT)
    peak = 0
    while proc.poll() is None:
        peak = max(peak, tree_rss(proc.pid))
        time.sleep(0.02)
    elapsed = time.perf_counter() - start
    if proc.returncode != (1 if failing else 0):
        assert proc.stderr is not None
        sys.exit(f"check failed ({proc.returncode}): {proc.stderr.read().decode()[:300]}")
    return peak / 1e6, elapsed


def gzip_copy(path: Path) -> Path:
    """``path`` compressed to ``path.gz``, a chunk at a time."""
    packed = path.with_name(path.name + ".gz")
    with open(path, "rb") as src, gzip.open(packed, "wb", compresslevel=6) as dst:
        shutil.copyfileobj(src, dst, 1 << 20)
    return packed


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mb", type=int, action="append", help="archive sizes in MB (default: 20 and 200)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--no-gzip", action="store_true", help="skip the gzip-compressed copy of each archive")
    ap.add_argument("--variations", type=int, action="append", help="measure games of this many variations instead")
    args = ap.parse_args()
    print(measuring())
    if args.variations:
        with tempfile.TemporaryDirectory() as tmp:
            for n in args.variations:
                for shape in ("wide", "deep"):
                    path = Path(tmp) / f"{shape}-{n}.keil"
                    build_variations(path, shape, n)
                    refused = shape == "deep" or n > 1_000_000
                    peak, elapsed = measure(path, args.jobs, failing=refused)
                    print(
                        f"{n:>10,} variations ({shape}, {os.path.getsize(path) / 1e6:,.1f} MB"
                        f"{', refused' if refused else ''}): peak RSS {peak:6.0f} MB (all processes), {elapsed:,.1f} s"
                    )
        return
    with tempfile.TemporaryDirectory() as tmp:
        for mb in args.mb or [20, 200]:
            path = Path(tmp) / f"archive-{mb}.keil"
            games = build(path, mb)
            text_mb = os.path.getsize(path) / 1e6
            inputs = [(path, "plain")]
            if not args.no_gzip:
                packed = gzip_copy(path)
                inputs.append((packed, f"gzip, {os.path.getsize(packed) / 1e6:,.1f} MB on disk"))
            for target, kind in inputs:
                peak, elapsed = measure(target, args.jobs)
                print(
                    f"{text_mb:>8,.0f} MB ({kind}), {games:>9,} games: peak RSS {peak:6.0f} MB "
                    f"(all processes, --jobs {args.jobs}), {elapsed:,.0f} s, {games / elapsed:,.0f} games/s"
                )
                target.unlink()


if __name__ == "__main__":
    main()
