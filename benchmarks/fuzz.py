"""Fuzzing every surface of keilref: seeded, deterministic, short in CI and longer on request.

Each surface is a harness in ``benchmarks/fuzzing/``, fed from one seeded
generator of its own (so that one surface's inputs never depend on how many
another one ran), and each input must hold its surface's properties:

``records``
    the reader, the referee and ``fmt`` on mutated records: no exception,
    every error located, the same games at every read size, ``fmt``
    idempotent and keeping every verdict; compression bombs refused.
``json``
    the abstract_games import and the sniffing: the server's three shapes,
    mutated as trees and as text (duplicate keys, huge numbers, deep
    nesting, odd sizes and moves), and records whose first comment starts
    with ``{``. The match reads the same named, sniffed from standard input,
    on disk and gzip-compressed; an imported match checks as the match did;
    a comment in front of a record changes no verdict.
``lsp``
    ``keilref lsp`` through a raw JSON-RPC client on its standard input and
    output: mutated and malformed frames and requests, after each session a
    well-formed request that must be answered, every request answered, the
    server never dead.
``formats``
    every ``check --format``, ``stats`` (text, JSON, standings), ``show``
    and ``score`` (text, SVG) and ``export``, on mutated records with
    hostile tags and file names: each parses as what it says it is, no line
    starts with ``::`` (but GitHub's own annotations), no inline script of
    the HTML report holds a raw ``<``, and the formats agree on the verdicts.
``writes``
    ``-o`` of every command that writes, aimed at odd targets in a scratch
    directory (an input, a link to one, a hard link, a directory holding a
    planted link, a name that collides): no input changes, nothing outside
    the target changes, a usage error writes nothing, no temporary is left.
``settings``
    random ``keilref.toml`` and ``pyproject.toml`` contents and odd trees
    (deep, looping links, named pipes, hidden and temporary-looking files):
    no traceback, a bad setting a usage error, each file judged in a walk as
    it is alone.
``scale``
    variation-heavy games (many variations, long ones, nested to and past
    the limit of 100, closed or not), each in a child process: time and
    memory within bounds of the input's size, and nesting past 100 refused
    at the 101st ``(``.
``clocks``
    malformed ``[%clk]`` commands and ``TimeControl`` tags: ``check``,
    ``stats`` and ``show`` never fail, warnings located, and ``fmt``,
    standard input and gzip keep every verdict.

What fails a run: an exception or a traceback, an input slower than
``--slow`` seconds (or a hang, stopped at four times that), memory past
``--max-mb``, a printed line starting with ``::``, a raw ``<`` in an inline
script, a file written that must not be, a request left unanswered, or two
readings that must agree and do not. The first failing input is written to
``--out`` and the run exits 1.

CI runs every surface for a minute in all (``--seconds`` is shared out by
each surface's weight), ``python benchmarks/fuzz.py --seed 1 --seconds 60``;
a longer run is ``python benchmarks/fuzz.py --seconds 3600 --seed $RANDOM``,
or one surface, ``--surface lsp --seconds 600``, or a count of inputs
instead of a time, ``--inputs 300000``. ``--keep-going`` writes the first
input of each distinct failure beside ``--out`` and carries on.
"""

from __future__ import annotations

import argparse
import importlib
import random
import re
import resource
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

from measured import measuring

from fuzzing.common import Surface
from fuzzing.mutate import seeds


SURFACES = {
    "records": "fuzzing.records:Records",
    "json": "fuzzing.json_import:JsonImport",
    "lsp": "fuzzing.lsp:LanguageServer",
    "formats": "fuzzing.formats:Formats",
    "writes": "fuzzing.writes:Writes",
    "settings": "fuzzing.settings:SettingsAndWalking",
    "scale": "fuzzing.scale:Scale",
    "clocks": "fuzzing.clocks:Clocks",
}
"""Each surface's harness, imported only when it runs."""


def _surface(name: str) -> type[Surface]:
    module, _, cls = SURFACES[name].partition(":")
    found: type[Surface] = getattr(importlib.import_module(module), cls)
    return found


class Hang(Exception):
    """An input ran past the hard time bound."""


def _hang(signum: int, frame: object) -> None:
    raise Hang("stopped: the input ran past the hard time bound")


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _signature(surface: str, exc: BaseException) -> str:
    """What tells one failure from another: the surface, the kind and the message without numbers."""
    message = re.split(r"[:;]", str(exc).split("\n", 1)[0], maxsplit=1)[0]
    return f"{surface}: {type(exc).__name__}: {re.sub(r'[0-9]+', 'N', message)[:100]}"


def main() -> int:
    names = list(SURFACES)
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--seconds", type=float, help="the whole run's budget, shared by the surfaces run "
                    "(default: 60, or none with --inputs)")
    ap.add_argument("--surface", action="append", choices=[*names, "all"], help="a surface to fuzz; repeat for several (default: all)")
    ap.add_argument("--inputs", type=int, default=0, help="stop each surface after this many inputs (0: no limit)")
    ap.add_argument("--out", type=Path, default=Path("fuzz-failure.keil"))
    ap.add_argument("--slow", type=float, default=5.0, help="seconds an input may take at most")
    ap.add_argument("--max-mb", type=float, default=2048.0, help="memory this process may reach, in MB")
    ap.add_argument("--keep-going", action="store_true", help="write each distinct failure beside --out and go on")
    args = ap.parse_args()
    if args.seconds is None:
        args.seconds = float("inf") if args.inputs else 60.0
    chosen = names if not args.surface or "all" in args.surface else [n for n in names if n in args.surface]
    print(measuring())
    known = {name: _surface(name) for name in chosen}
    pool = seeds(random.Random(args.seed))
    weights = sum(known[n].weight for n in chosen)
    signal.signal(signal.SIGALRM, _hang)
    failures: dict[str, int] = {}
    totals: list[str] = []
    scratch = tempfile.mkdtemp(prefix="keilref-fuzz-")
    try:
        for name in chosen:
            rng = random.Random(f"{args.seed}/{name}")
            work = Path(scratch) / name
            work.mkdir()
            surface = known[name](rng, list(pool), work)
            budget = args.seconds * surface.weight / weights
            started = time.perf_counter()
            cases = 0
            try:
                try:
                    surface.start(rng)
                except Exception as e:  # noqa: BLE001
                    traceback.print_exc()
                    print(f"fuzz: {name}: the checks run once failed (seed {args.seed})", file=sys.stderr)
                    if not args.keep_going:
                        return 1
                    failures[_signature(name, e)] = 1
                while time.perf_counter() - started < budget and (not args.inputs or surface.inputs < args.inputs):
                    case = surface.case(rng)
                    cases += 1
                    surface.inputs += case.inputs
                    try:
                        signal.setitimer(signal.ITIMER_REAL, 4 * args.slow * case.slow + 10)
                        try:
                            start = time.perf_counter()
                            surface.check(case, rng)
                            seconds = time.perf_counter() - start
                        finally:
                            signal.setitimer(signal.ITIMER_REAL, 0)
                        assert seconds < args.slow * case.slow, (
                            f"{len(case.data):,} bytes took {seconds:.1f} s ({case.how})"
                        )
                        rss = _rss_mb()
                        assert rss < args.max_mb or any(k.endswith("memory") for k in failures), (
                            f"memory reached {rss:,.0f} MB ({case.how}): memory"
                        )
                    except (Exception, Hang, RecursionError, MemoryError) as e:  # noqa: BLE001
                        # A harness may find several failures in one case (each format of one record).
                        found = list(e.exceptions) if isinstance(e, BaseExceptionGroup) else [e]
                        new = False
                        for one in found:
                            signature = _signature(name, one)
                            new = new or signature not in failures
                            failures[signature] = failures.get(signature, 0) + 1
                        if not new and args.keep_going:
                            continue
                        out = args.out
                        if args.keep_going:
                            out = out.with_name(f"{out.stem.split('.')[0]}-{name}-{len(failures)}{case.suffix}")
                        out.parent.mkdir(parents=True, exist_ok=True)
                        out.write_bytes(case.data)
                        for one in found:
                            traceback.print_exception(one)
                        print(f"fuzz: {name}: failure on case {cases} (seed {args.seed}): {case.how}; input written to {out}",
                              file=sys.stderr)
                        if not args.keep_going:
                            return 1
            finally:
                surface.close()
            elapsed = time.perf_counter() - started
            totals.append(f"fuzz: {name}: {surface.inputs:,} inputs ({cases:,} cases) in {elapsed:.1f} s "
                          f"({surface.inputs / elapsed:,.1f}/s)")
            print(totals[-1], flush=True)
    finally:
        # rm, not shutil.rmtree: the settings surface leaves trees past Python's recursion.
        subprocess.run(["chmod", "-R", "u+rwx", scratch], check=False)
        subprocess.run(["rm", "-rf", scratch], check=False)
    if failures:
        print(f"fuzz: {len(failures)} distinct failures (seed {args.seed}):", file=sys.stderr)
        for signature, n in failures.items():
            print(f"  {n:>6} x {signature}", file=sys.stderr)
        return 1
    print(f"fuzz: seed {args.seed}: no failure")
    return 0


if __name__ == "__main__":
    sys.exit(main())
