"""How soon an edit in a large archive shows in the editor, through ``keilref lsp``.

Generates a seeded archive (``keilref generate -n 10000 --seed 1 --size 5``),
opens it through a real client over stdio (pygls's, as tests/test_lsp.py
uses), then edits one game's declared result in the middle of it several
times, and prints the time from each change being sent to its diagnostics
arriving. That time includes the server's 0.3 s wait for typing to pause
(``keilref.lsp.DEBOUNCE``), which is printed apart, and how many games each
change checked again (one, if the cache works). Then as many edits add and
remove a comment line in that game, which moves every game after it.

    python benchmarks/bench_lsp.py [--games 10000] [--edits 5]

The server is the keilref installed in the interpreter that runs this
script (``python -P -m keilref lsp``), and the first lines say which
(version, engine kernel, package), here and in the server's own process.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import statistics
import subprocess
import time

from lsprotocol import types as lsp

from measured import KEILREF, ROOT, installed_keilref, measuring, use_test_references

from keilref.lsp import DEBOUNCE

use_test_references()
from lsp_support import Client, replacing  # noqa: E402


def archive(games: int) -> str:
    done = subprocess.run(
        [*KEILREF, "generate", "-n", str(games), "--seed", "1", "--size", "5"],
        cwd=ROOT, capture_output=True, text=True, check=True,
    )
    # Without Result tags a game's result is its last token alone, so one edit changes it.
    return re.sub(r'\[Result "[^"]*"\]\n', "", done.stdout)


async def measure(games: int, edits: int) -> None:
    text = archive(games)
    lines = text.split("\n")
    middle = lines.index(f'[Event "keilref generate --seed 1, game {games // 2 + 1}"]') - 2
    uri = (ROOT / "bench-lsp.keil").as_uri()
    client = Client()
    await client.start([*KEILREF, "lsp"])
    try:
        started = time.perf_counter()
        opened = await client.open(uri, text, timeout=600)
        while "left to check" in client.logs[-1]:  # the first round's diagnostics came; the edits wait for every game's
            client.arrived[uri].clear()
            opened = await client.wait(uri, timeout=600)
        print(f"open: {games:,} games checked in {time.perf_counter() - started:.2f} s, "
              f"{len(opened)} diagnostics; {client.logs[-1]}")
        latencies = []
        original = declared = lines[middle].split()[-1]
        # A wrong result, then the right one again: the game alternates between failing and passing.
        for version in range(2, edits + 2):
            new = "B+99.5" if version % 2 == 0 else original
            end = len(lines[middle])
            sent = time.perf_counter()
            diagnostics = await client.change(uri, version, [replacing(middle, end - len(declared), end, new)])
            latencies.append(time.perf_counter() - sent)
            lines[middle] = lines[middle][: end - len(declared)] + new
            declared = new
            print(f"edit {version - 1}: {latencies[-1] * 1000:.0f} ms to {len(diagnostics)} diagnostics; {client.logs[-1]}")
        report("change to diagnostics", latencies)
        moved = []
        for version in range(edits + 2, 2 * edits + 2):
            # A line of its own before the result line, then gone again.
            change = replacing(middle, 0, 0, "{a note}\n") if version % 2 == 0 else replacing_lines(middle, middle + 1)
            sent = time.perf_counter()
            diagnostics = await client.change(uri, version, [change])
            moved.append(time.perf_counter() - sent)
            print(f"line {'added' if version % 2 == 0 else 'removed'}: {moved[-1] * 1000:.0f} ms to "
                  f"{len(diagnostics)} diagnostics; {client.logs[-1]}")
        report("a line added or removed, to diagnostics", moved)
    finally:
        await client.finish()


def replacing_lines(first: int, end: int) -> lsp.TextDocumentContentChangePartial:
    """An incremental change deleting the lines from ``first`` up to ``end`` (0-based)."""
    span = lsp.Range(start=lsp.Position(line=first, character=0), end=lsp.Position(line=end, character=0))
    return lsp.TextDocumentContentChangePartial(range=span, text="")


def report(what: str, latencies: list[float]) -> None:
    median = statistics.median(latencies)
    print(f"{what}: median {median * 1000:.0f} ms ({min(latencies) * 1000:.0f}-{max(latencies) * 1000:.0f}), "
          f"of which {DEBOUNCE * 1000:.0f} ms waiting for typing to pause, "
          f"{(median - DEBOUNCE) * 1000:.0f} ms checking and sending")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--edits", type=int, default=5)
    args = parser.parse_args()
    print(measuring())
    print(f"server: {installed_keilref()}")
    asyncio.run(measure(args.games, args.edits))


if __name__ == "__main__":
    main()
