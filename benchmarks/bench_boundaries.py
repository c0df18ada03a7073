"""Reading at the input's edges: time per MB at two sizes, and peak memory.

Five shapes, each at a size and at four times it (the time per MB should
stay about the same: linear growth):

* one game holding one long closed comment (over 10 MB it is a game over
  the cap: scanned to its end, never held);
* one game of many commented turns (under the 10 MB cap: parsed and replayed);
* many games, each with an unclosed ``{`` (every one an error, none hiding
  the next);
* one game ending in a long run of digits with no dot (no token: an error);
* one game of one turn followed by many comments.

Each size is checked by ``keilref check --jobs 1`` in a child process; its
peak RSS comes from ``getrusage`` of the children. Then a compression bomb
(``--bomb-mib``, 1 GiB of spaces) as ``.zst`` and as ``.gz``: its time and
peak RSS until it is refused at its cap. Full size:
``--mb 25`` (100 MB comment, 10 MB game, 200,000 games at the larger size;
the digit run and the comments after one turn at 2.4 and 9.6 MB, under the
cap on a game).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from measured import KEILREF, ROOT, measuring, use_test_references


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


def digits_file(path: Path, mb: float) -> int:
    with path.open("w", encoding="utf-8") as f:
        f.write('[Event "a run of digits"]\n[Size "3"]\n1. c3 ')
        f.write("1" * int(mb * 1_000_000))
        f.write("\n")
    return path.stat().st_size


def comments_file(path: Path, mb: float) -> int:
    comment = "{a comment} "
    with path.open("w", encoding="utf-8") as f:
        f.write('[Event "many comments after one turn"]\n[Size "3"]\n1. c3 ')
        f.write(comment * (int(mb * 1_000_000) // len(comment)))
        f.write("*\n")
    return path.stat().st_size


def run(path: Path) -> tuple[float, int, str]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    start = time.perf_counter()
    proc = subprocess.run(
        [*KEILREF, "check", "--jobs", "1", "--format", "jsonl", str(path)],
        capture_output=True,
        text=True,
    )
    seconds = time.perf_counter() - start
    rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    if proc.returncode not in (0, 1) or "Traceback" in proc.stderr:
        raise SystemExit(f"check failed on {path}: {proc.stderr[-500:]}")
    statuses = sorted({line.split('"status": "')[1].split('"')[0] for line in proc.stdout.splitlines()})
    return seconds, max(rss, before), ",".join(statuses)


_WITH_RUSAGE = """
import json, resource, subprocess, sys, time
start = time.perf_counter()
proc = subprocess.run(sys.argv[1:], capture_output=True, text=True)
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"code": proc.returncode, "stdout": proc.stdout, "stderr": proc.stderr,
                  "seconds": time.perf_counter() - start, "rss_kb": usage.ru_maxrss}))
"""


def compression_bombs(work: Path, mib: int) -> None:
    """``mib`` MiB of spaces after one game, as .zst and as .gz: each is refused
    at its cap (1,000 times its compressed size, at least 10 MB), reading a
    chunk at a time. Each check runs under a parent of its own, so that its
    peak RSS is its own, not the largest of all the runs so far."""
    import gzip

    import zstandard

    game = (ROOT / "records" / "games" / "size5-keil-corner-ko.keil").read_bytes()
    unit = b" " * (16 << 20)
    packers = {
        ".zst": lambda data: zstandard.ZstdCompressor().compress(data),
        ".gz": lambda data: gzip.compress(data, compresslevel=9),
    }
    print(f"compression bomb ({mib} MiB of spaces)  compressed KB   seconds   peak RSS MB  verdict")
    for suffix, pack in packers.items():
        # Units repeated as frames or members: as large a bomb costs nothing more to make.
        path = work / f"bomb.keil{suffix}"
        path.write_bytes(pack(game) + pack(unit) * (mib // 16))
        out = subprocess.run(
            [sys.executable, "-c", _WITH_RUSAGE, *KEILREF, "check", "--jobs", "1", str(path)],
            capture_output=True, text=True, check=True,
        )
        got = json.loads(out.stdout)
        if got["code"] != 1 or "Traceback" in got["stderr"]:
            raise SystemExit(f"check of the {suffix} bomb failed: {got['stderr'][-500:]}")
        verdict = got["stdout"].splitlines()[0].split(": ", 1)[1]
        print(f"{suffix:<36} {path.stat().st_size / 1000:14.1f} {got['seconds']:9.2f} {got['rss_kb'] / 1024:13.0f}  {verdict}")
        path.unlink()


def superko_bytes_per_turn(size: int = 13, turns: int = 20_000) -> None:
    """Print the memory a Keil game holds per turn (its superko memory and its
    moves): the growth from ``turns`` turns of a random legal game to twice that."""
    use_test_references()
    from game_support import bytes_per_turn

    per_turn = bytes_per_turn(size, turns)
    print(f"superko memory, size {size}: {per_turn:.1f} bytes per turn (turns {turns:,} to {2 * turns:,})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mb", type=float, default=25.0, help="the smaller size, in MB (the larger is 4x)")
    ap.add_argument("--bomb-mib", type=int, default=1024, help="the decompressed size of the compression bombs, in MiB")


    ap.add_argument("--superko-turns", type=int, default=20_000, help="turns of the game whose memory is measured (and twice that)")
    args = ap.parse_args()
    print(measuring())
    work = Path(tempfile.mkdtemp(prefix="keilref-bench-"))
    try:
        shapes = [
            ("closed comment", lambda p, k: comment_file(p, args.mb * k)),
            ("one game (capped at 10 MB)", lambda p, k: game_file(p, min(args.mb * k / 10, 9.9))),
            ("unclosed comments", lambda p, k: unclosed_file(p, int(args.mb * k * 2000))),
            # One game each, so the larger size stays under the cap on a game.
            ("digit run (one game)", lambda p, k: digits_file(p, min(args.mb, 2.4) * k)),
            ("comments after a turn", lambda p, k: comments_file(p, min(args.mb, 2.4) * k)),
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
        compression_bombs(work, args.bomb_mib)
    finally:
        for p in work.iterdir():
            p.unlink()
        os.rmdir(work)
    print("(peak RSS: the largest child so far; time per MB about equal at both sizes means linear)")
    superko_bytes_per_turn(turns=args.superko_turns)


if __name__ == "__main__":
    main()
