"""Checking on a local two-worker Dask cluster against ``keilref check --jobs 2``.

Writes a seeded archive of size-7 games (about 165 turns each) spread over
``--files`` files, then times, on the same two cores:

- ``keilref check --jobs 2`` as a user runs it (a fresh process, start-up
  included);
- ``keilref.dask.check_bag(dir).compute()`` on a ``LocalCluster`` of two
  single-threaded worker processes (the cluster is started beforehand, as a
  running cluster would be; its start-up is printed apart);
- ``keilref check --scheduler ADDRESS`` on that cluster (a fresh process).

It checks that all three give the same verdicts, and prints each time with
its overhead ratio to ``--jobs 2``. Needs the ``dask`` extra.

    python benchmarks/bench_dask.py [--games 100000] [--files 20] [--rounds 1]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from measured import KEILREF, ROOT, measuring

from keilref.engine.generate import random_games, to_record
from keilref.records.writer import write_record


def write_archive(root: Path, games: int, files: int, seed: int) -> None:
    per_file = [games // files + (1 if i < games % files else 0) for i in range(files)]
    records = random_games(seed, games, rules=("keil",), sizes=(7,), fill=1.3)
    n = 0
    for i, count in enumerate(per_file):
        with open(root / f"part-{i:03d}.keil", "w", encoding="utf-8") as f:
            for j in range(count):
                n += 1
                if j:
                    f.write("\n")
                f.write(write_record(to_record(next(records), event=f"bench {n}")))


def digest(lines: list[str]) -> str:
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()[:16]


def run_cli(*args: str) -> tuple[float, list[str]]:
    cmd = [*KEILREF, "check", "--format", "jsonl", *args]
    start = time.perf_counter()
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT, text=True)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"check failed ({proc.returncode}): {proc.stderr[:500]}")
    return elapsed, proc.stdout.splitlines()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=100_000)
    ap.add_argument("--files", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--seed", type=int, default=11)
    args = ap.parse_args()
    print(measuring())
    try:
        from distributed import Client, LocalCluster

        from keilref.dask import check_bag
    except ImportError as e:
        sys.exit(f"bench_dask needs the dask extra ({e.name} is missing): pip install -e '.[dask]'")

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        start = time.perf_counter()
        write_archive(root, args.games, args.files, args.seed)
        mb = sum(p.stat().st_size for p in root.iterdir()) / 1e6
        print(
            f"archive: {args.games:,} size-7 games in {args.files} files, {mb:.1f} MB "
            f"(written in {time.perf_counter() - start:.1f} s)"
        )

        start = time.perf_counter()
        with LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=None,
            silence_logs=logging.ERROR,
        ) as cluster, Client(cluster) as client:
            print(f"cluster: 2 worker processes, 1 thread each, started in {time.perf_counter() - start:.1f} s")
            jobs2, bag, sched = [], [], []
            for _ in range(args.rounds):
                t, local = run_cli("--jobs", "2", str(root))
                jobs2.append(t)
                start = time.perf_counter()
                verdicts = check_bag(str(root)).compute()
                bag.append(time.perf_counter() - start)
                from_bag = [json.dumps(v.to_json(), ensure_ascii=False) for v in verdicts]
                t, remote = run_cli("--scheduler", cluster.scheduler_address, str(root))
                sched.append(t)
                if not (local == from_bag == remote) or len(local) != args.games:
                    sys.exit(
                        "verdicts differ: "
                        f"--jobs 2 {len(local)} {digest(local)}, check_bag {len(from_bag)} {digest(from_bag)}, "
                        f"--scheduler {len(remote)} {digest(remote)}"
                    )
            client.close()

    base = min(jobs2)
    print(f"same verdicts from all three: {args.games:,} games, digest {digest(local)}")
    print(f"keilref check --jobs 2         {base:8.2f} s  {args.games / base:8,.0f} games/s")
    for label, times in (("check_bag on 2 Dask workers", bag), ("check --scheduler (2 workers)", sched)):
        t = min(times)
        print(f"{label:<30} {t:8.2f} s  {args.games / t:8,.0f} games/s  overhead ratio {t / base:.2f}x")


if __name__ == "__main__":
    main()
