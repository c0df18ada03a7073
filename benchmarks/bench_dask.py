"""Checking on a local Dask cluster against ``keilref check --jobs N`` on the same cores.

Writes a seeded archive of size-7 games (about 165 turns each) spread over
``--files`` files (or reuses the one ``--archive`` names), then, in each of
``--rounds`` rounds, one after the other so that a busy host weighs on all
alike:

- ``keilref check --format jsonl --jobs N`` as a user runs it (a fresh
  process, start-up included): the baseline;
- ``keilref.dask.check_bag(dir).compute()``, every verdict brought to this
  process;
- ``check_bag(dir).map(json_line).to_textfiles(out)``, each worker writing
  its partition's jsonl lines;
- ``keilref check --format jsonl --scheduler ADDRESS`` (a fresh process);
- ``keilref.dask.check_dataframe(dir).to_parquet(out)``, each worker writing
  its partitions;
- ``keilref check --format parquet --jobs N -o out`` (a fresh process), the
  verdict table written without a cluster.

Each cluster run has a ``LocalCluster`` of its own, of N single-threaded
worker processes, started beforehand as a running cluster would be, so that
each worker's peak resident memory is that run's. Every
way must give the same verdicts (the Parquet table is read back and held to
the jsonl, game for game); each time is given with its ratio to the baseline
of the same round (above 0.8 is the aim), and the median ratio over rounds.

    python benchmarks/bench_dask.py [--games 100000] [--files 20] [--jobs 2] [--rounds 3] [--archive DIR]

The archive repeats at most ``--unique`` generated games (generating is
slower than checking), each copy under its own ``Event`` tag.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import logging
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from measured import KEILREF, ROOT, measuring

from keilref.engine.generate import random_games, to_record
from keilref.formats.jsonl import json_line
from keilref.records.writer import write_record

_PLACEHOLDER = "\x00event\x00"


def write_archive(root: Path, games: int, files: int, seed: int, unique: int = 10_000) -> None:
    per_file = [games // files + (1 if i < games % files else 0) for i in range(files)]
    records = random_games(seed, min(games, unique), rules=("keil",), sizes=(7,), fill=1.3)
    texts = [write_record(to_record(g, event=_PLACEHOLDER)) for g in records]
    n = 0
    for i, count in enumerate(per_file):
        with open(root / f"part-{i:03d}.keil", "w", encoding="utf-8") as f:
            for j in range(count):
                if j:
                    f.write("\n")
                f.write(texts[n % len(texts)].replace(_PLACEHOLDER, f"bench {n + 1}"))
                n += 1


def digest(lines: list[str]) -> str:
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()[:16]


# This process's own peak is read from VmHWM, which starts afresh at exec:
# ru_maxrss would carry over the benchmark's own size from the fork.
_PEAK = (
    "import atexit, resource, sys; "
    "own = lambda: next(int(ln.split()[1]) for ln in open('/proc/self/status') if ln.startswith('VmHWM:')); "
    "atexit.register(lambda: print('peak-kb', max(own(), resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss), file=sys.stderr)); "
    "sys.argv = ['keilref', *sys.argv[1:]]; from keilref.cli import main; main()"
)


def run_cli(*args: str, fmt: str = "jsonl") -> tuple[float, list[str], int]:
    """The time, the output's lines, and the largest process's peak memory (KB): a ``--jobs`` worker's, or the writer's."""
    cmd = [KEILREF[0], "-P", "-c", _PEAK, "check", "--format", fmt, *args]
    start = time.perf_counter()
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT, text=True)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"check failed ({proc.returncode}): {proc.stderr[:500]}")
    peak = [int(ln.split()[1]) for ln in proc.stderr.splitlines() if ln.startswith("peak-kb ")]
    return elapsed, proc.stdout.splitlines(), peak[-1] if peak else 0


def _peak_kb() -> int:
    """This process's peak resident memory (KB) since :func:`_reset_peak`."""
    with open("/proc/self/status", encoding="ascii") as f:
        return next(int(ln.split()[1]) for ln in f if ln.startswith("VmHWM:"))


def on_cluster(jobs: int, run: Callable[[str], Any]) -> tuple[float, Any, int]:
    """``run(address)`` timed on a fresh cluster (started beforehand, as a
    running cluster would be), and its largest worker's peak memory (KB)."""
    from distributed import Client, LocalCluster

    with LocalCluster(
        n_workers=jobs,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address=None,
        silence_logs=logging.ERROR,
    ) as cluster, Client(cluster) as client:
        start = time.perf_counter()
        result = run(cluster.scheduler_address)
        elapsed = time.perf_counter() - start
        peak = max(client.run(_peak_kb).values())
    return elapsed, result, peak


FACTS = ("file", "game", "status", "rules", "size", "komi", "turns", "declared", "computed")
"""The facts the verdict table and the jsonl line name alike."""


def parquet_lines(out: Path, jsonl: list[str]) -> list[str]:
    """The jsonl lines, each marked where the Parquet table does not hold its game's facts once."""
    import pyarrow.parquet as pq

    rows = pq.read_table(out, columns=[*FACTS, "illegal"]).to_pylist()
    by_place = {(r["file"], r["game"]): r for r in rows}
    if len(by_place) != len(rows) or len(rows) != len(jsonl):
        return [f"{len(rows)} rows, {len(by_place)} games"]
    got = []
    for line in jsonl:
        v = json.loads(line)
        row = by_place.get((v["file"], v["game"]))
        same = row is not None and all(row[k] == v[k] for k in FACTS)
        same = same and (row["illegal"] or {}).get("reason") == (v["illegal"] or {}).get("reason")
        got.append(line if same else f"differs: {line}")
    return got


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=100_000)
    ap.add_argument("--files", type=int, default=20)
    ap.add_argument("--jobs", type=int, default=2, help="worker processes, for --jobs and the cluster alike")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--unique", type=int, default=10_000, help="generated games, repeated to make --games")
    ap.add_argument("--archive", type=Path, help="where the archive is kept (written if missing), else a temporary folder")
    ap.add_argument("--skip", action="append", default=[], choices=["bag", "scheduler", "dataframe", "parquet"])
    args = ap.parse_args()
    print(measuring())
    if "dataframe" not in args.skip and not all(importlib.util.find_spec(m) for m in ("pandas", "pyarrow", "keilref.arrow")):
        print("check_dataframe left out: pandas, pyarrow or keilref.arrow is missing (pip install -e '.[dask]')")
        args.skip.append("dataframe")
    if "parquet" not in args.skip and not importlib.util.find_spec("pyarrow"):
        print("check --format parquet left out: pyarrow is missing (pip install -e '.[arrow]')")
        args.skip.append("parquet")
    print(f"host: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the start")
    try:
        import distributed  # noqa: F401

        from keilref.dask import check_bag
    except ImportError as e:
        sys.exit(f"bench_dask needs the dask extra ({e.name} is missing): pip install -e '.[dask]'")

    with tempfile.TemporaryDirectory() as tmp:
        root = args.archive or Path(tmp) / "archive"
        root.mkdir(parents=True, exist_ok=True)
        if not any(root.glob("*.keil")):
            start = time.perf_counter()
            write_archive(root, args.games, args.files, args.seed, args.unique)
            print(f"archive written in {time.perf_counter() - start:.1f} s")
        mb = sum(p.stat().st_size for p in root.glob("*.keil")) / 1e6
        print(f"archive: {root}, {len(list(root.glob('*.keil')))} files, {mb:.1f} MB")

        times: dict[str, list[float]] = {}
        ratios: dict[str, list[float]] = {}
        peaks: dict[str, int] = {}
        games = 0

        def took(label: str, t: float, peak: int, base: float) -> None:
            times.setdefault(label, []).append(t)
            ratios.setdefault(label, []).append(base / t)
            peaks[label] = max(peaks.get(label, 0), peak)

        jobs = args.jobs
        for r in range(args.rounds):
            base, local, peak = run_cli("--jobs", str(jobs), str(root))
            games = len(local)
            took(f"check --jobs {jobs}", base, peak, base)
            compared = {}
            if "bag" not in args.skip:
                t, verdicts, peak = on_cluster(jobs, lambda _: check_bag(str(root)).compute())
                took("check_bag(...).compute()", t, peak, base)
                compared["check_bag"] = [json.dumps(v.to_json(), ensure_ascii=False) for v in verdicts]
                parts = Path(tmp) / f"lines-{r}"
                t, _, peak = on_cluster(jobs, lambda _: check_bag(str(root)).map(json_line).to_textfiles(f"{parts}/*.jsonl"))
                took("check_bag -> jsonl parts", t, peak, base)
                files = sorted(parts.iterdir(), key=lambda p: int(p.stem))
                compared["check_bag -> jsonl parts"] = [ln for p in files for ln in p.read_text(encoding="utf-8").splitlines()]
            if "scheduler" not in args.skip:
                t, (_, remote, _), peak = on_cluster(jobs, lambda address: run_cli("--scheduler", address, str(root)))
                took("check --scheduler", t, peak, base)
                compared["--scheduler"] = remote
            if "dataframe" not in args.skip:
                from keilref.dask import check_dataframe

                out = Path(tmp) / f"verdicts-{r}.parquet"
                t, _, peak = on_cluster(jobs, lambda _: check_dataframe(str(root)).to_parquet(out, write_index=False))
                took("check_dataframe -> Parquet", t, peak, base)
                compared["check_dataframe"] = parquet_lines(out, local)
            if "parquet" not in args.skip:
                out = Path(tmp) / f"table-{r}.parquet"
                t, _, peak = run_cli("--jobs", str(jobs), "-o", str(out), str(root), fmt="parquet")
                took("check --format parquet", t, peak, base)
                compared["check --format parquet"] = parquet_lines(out, local)
            for label, lines in compared.items():
                if lines != local:
                    sys.exit(f"verdicts differ: --jobs {len(local)} {digest(local)}, {label} {len(lines)} {digest(lines)}")
            print(f"round {r + 1}: " + ", ".join(f"{k} {v[-1]:.2f} s" for k, v in times.items()), flush=True)

    print(f"same verdicts every way: {games:,} games, digest {digest(local)}")
    print(f"{'':<28} {'best':>8} {'games/s':>9} {'speed vs --jobs (each round; median)':<40} peak RSS per worker")
    for label, ts in times.items():
        t = min(ts)
        each = " ".join(f"{x:.2f}" for x in ratios[label])
        print(
            f"{label:<28} {t:7.2f}s {games / t:9,.0f}  {each} ; {statistics.median(ratios[label]):.2f}x"
            f"{'':<8} {peaks[label] / 1024:6.0f} MB"
        )


if __name__ == "__main__":
    main()
