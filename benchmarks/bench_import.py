"""Matches of the abstract_games server against the same games as ``.keil``.

Plays a seeded set of legal Keil games (sides 4 to 7, as the server's menu
offers; each ended by two passes), and writes them twice: as one ``.keil``
archive, and as one raw move list (``*.moves.json``, the server's stored
rows, indented as the samples are) per game. Then times, in one process:

- *keil*: ``check`` of the archive (the baseline);
- *json*: ``check`` of the directory of move lists (every game read from
  its JSON, with places, and judged);
- *import*: ``import`` of that directory into one ``.keil`` file.

- *files*: ``check`` of the same games as one ``.keil`` file per game, to
  tell what reading many small files costs from what reading JSON costs;

and prints each as games/s and as a ratio to the baseline of the same
round. The target: import at most 1.5 times the ``.keil`` check (the
median of the rounds' ratios). The check of the JSON is reported against
both baselines, without a target.

    python benchmarks/bench_import.py [--games 10000] [--rounds 3] [--seed 2026]

It measures the keilref installed in the interpreter that runs it, and its
first line says which (version, engine kernel, package).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from measured import measuring

from keilref.engine.generate import random_game, to_record
from keilref.records.abstract_games import dump_moves
from keilref.records.record import Record, Tag
from keilref.records.sources import expand_paths
from keilref.records.writer import canonical_tags, write_records
from keilref.referee.batches import check_sources
from keilref.referee.importing import import_sources
from keilref.referee.matches import export_moves
from keilref.referee.verdict import Status

TARGET = 1.5
SIZES = (4, 5, 6, 7)


def build(games: int, seed: int, folder: Path) -> tuple[Path, Path]:
    """The archive and the directory of move lists, for the same games."""
    rng = random.Random(seed)
    records = []
    matches = folder / "matches"
    matches.mkdir()
    for i in range(games):
        game = random_game(rng, size=SIZES[i % len(SIZES)], komi=float(rng.randint(0, 12)), fill=0.8)
        base = to_record(game, event="bench")
        names = [Tag("Black", f"player{rng.randint(1, 40)}"), Tag("White", f"player{rng.randint(41, 80)}")]
        record = Record(canonical_tags((*base.tags[1:], *names)), base.turns, base.result)
        records.append(record)
        (matches / f"m{i:05d}.moves.json").write_text(dump_moves(export_moves(record)), encoding="utf-8")
    archive = folder / "archive.keil"
    archive.write_text(write_records(records), encoding="utf-8")
    files = folder / "files"
    files.mkdir()
    for i, record in enumerate(records):
        (files / f"g{i:05d}.keil").write_text(write_records([record]), encoding="utf-8")
    return archive, matches


def _timed(work: Callable[[], int]) -> tuple[float, int]:
    start = time.perf_counter()
    n = work()
    return time.perf_counter() - start, n


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=2026)
    # Off by default, as the other benchmarks: a small run on a shared host
    # says how it went without failing on noise.
    parser.add_argument("--enforce", action="store_true", help="exit 1 when the import is over its target")
    args = parser.parse_args()
    print(measuring())

    with tempfile.TemporaryDirectory(prefix="keilref-bench-") as tmp:
        folder = Path(tmp)
        t0 = time.perf_counter()
        archive, matches = build(args.games, args.seed, folder)
        print(f"{args.games} games (sides {SIZES[0]}..{SIZES[-1]}) built in {time.perf_counter() - t0:.1f} s")

        def check_keil() -> int:
            verdicts = list(check_sources(expand_paths([str(archive)]), jobs=1))
            assert all(v.status is Status.OK for v in verdicts)
            return len(verdicts)

        def check_files() -> int:
            verdicts = list(check_sources(expand_paths([str(folder / "files")]), jobs=1))
            assert all(v.status is Status.OK for v in verdicts)
            return len(verdicts)

        def check_json() -> int:
            verdicts = list(check_sources(expand_paths([str(matches)]), jobs=1))
            assert all(v.status is Status.OK for v in verdicts), {v.status for v in verdicts}
            return len(verdicts)

        def run_import() -> int:
            summary = import_sources(expand_paths([str(matches)], suffix=".match.json"))
            assert not summary.errors
            (folder / "imported.keil").write_text(write_records(i.record for i in summary.imported), encoding="utf-8")
            return len(summary.imported)

        ratios: dict[str, list[float]] = {"json": [], "import": [], "files": []}
        best: dict[str, float] = {}
        for round_ in range(1, args.rounds + 1):
            times = {}
            for name, work in (("keil", check_keil), ("files", check_files), ("json", check_json), ("import", run_import)):
                seconds, n = _timed(work)
                assert n == args.games
                times[name] = seconds
                best[name] = min(best.get(name, seconds), seconds)
            for name in ratios:
                ratios[name].append(times[name] / times["keil"])
            print(
                f"round {round_}: keil {times['keil']:.2f} s, files {times['files']:.2f} s "
                f"({ratios['files'][-1]:.2f}x), json {times['json']:.2f} s ({ratios['json'][-1]:.2f}x, "
                f"{times['json'] / times['files']:.2f}x files), import {times['import']:.2f} s "
                f"({ratios['import'][-1]:.2f}x)"
            )
        for name in ("keil", "files", "json", "import"):
            print(f"{name:>6}: best {best[name]:.2f} s, {args.games / best[name]:,.0f} games/s")
        for name, values in ratios.items():
            print(f"{name} / keil: median of rounds {statistics.median(values):.2f}x, "
                  f"best-of {best[name] / best['keil']:.2f}x")
        median = statistics.median(ratios["import"])
        print(f"import / keil: {median:.2f}x (target <= {TARGET}x): {'ok' if median <= TARGET else 'OVER'}")
        if median > TARGET and args.enforce:
            sys.exit(1)


if __name__ == "__main__":
    main()
