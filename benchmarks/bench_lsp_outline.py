"""How soon ``keilref lsp`` draws the map of a large document: its outline
(document symbols), its folding ranges and its code lenses.

Generates a seeded archive (``keilref generate -n 10000 --seed 1 --size 5``),
opens it through a raw JSON-RPC client over stdio (tests/lsp_raw.py), waits
until every game is checked, then asks for each of the three several times
and prints the time from each request being sent to its answer being read
(the answer's JSON parsed, nothing more; the outline asked for as a tree,
as editors ask): the first of each reads every
game's shape, the others find them kept. Then one game's result is edited
and the three are asked for again once its diagnostics have come.

    python benchmarks/bench_lsp_outline.py [--games 10000] [--rounds 5] [--root CHECKOUT]

The server is the keilref installed in the interpreter that runs this
script (``python -P -m keilref lsp``); ``--root`` runs a checkout's source
instead. The first lines say which.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import time
from pathlib import Path
from typing import Any

from measured import KEILREF, ROOT, installed_keilref, measuring, use_test_references

use_test_references()
from lsp_raw import RawServer  # noqa: E402

_LEFT = re.compile(r"left to check")
_ASKED = (
    ("document symbols", "textDocument/documentSymbol"),
    ("folding ranges", "textDocument/foldingRange"),
    ("code lenses", "textDocument/codeLens"),
)


def archive(games: int) -> str:
    done = subprocess.run(
        [*KEILREF, "generate", "-n", str(games), "--seed", "1", "--size", "5"],
        cwd=ROOT, capture_output=True, text=True, check=True,
    )
    return done.stdout


def checked(server: RawServer, uri: str) -> None:
    """Wait until the server says every game of the document is checked."""
    while True:
        got = server.notification("window/logMessage", timeout=600)
        if got["params"]["message"].startswith("checked") and not _LEFT.search(got["params"]["message"]):
            return


def ask(server: RawServer, method: str, uri: str) -> tuple[float, int]:
    """Seconds from the request to its answer, and how many items it held."""
    sent = time.perf_counter()
    answer = server.answer(server.request(method, {"textDocument": {"uri": uri}}), timeout=600)
    took = time.perf_counter() - sent
    result: list[Any] = answer["result"]
    return took, len(result)


def measure(games: int, rounds: int, root: Path | None) -> None:
    text = archive(games)
    uri = ((root or ROOT) / "bench-lsp-outline.keil").as_uri()
    if root is None:
        print(f"server: {installed_keilref()}")
        server = RawServer(ROOT, [*KEILREF, "lsp"])
    else:
        paths = os.pathsep.join(filter(None, [str(root), os.environ.get("PYTHONPATH")]))
        print(f"server: {installed_keilref({**os.environ, 'PYTHONPATH': paths})}")
        server = RawServer(root)
    try:
        # As VS Code and Neovim ask: the outline as a tree of symbols.
        capabilities = {"textDocument": {"documentSymbol": {"hierarchicalDocumentSymbolSupport": True}}}
        answer = server.answer(server.request("initialize", {"processId": None, "rootUri": ROOT.as_uri(), "capabilities": capabilities}))
        assert "result" in answer
        server.notify("initialized", {})
        started = time.perf_counter()
        server.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "keil", "version": 1, "text": text}})
        checked(server, uri)
        print(f"open: {games:,} games checked in {time.perf_counter() - started:.2f} s")
        report(server, uri, rounds)
        lines = text.split("\n")
        middle = lines.index(f'[Event "keilref generate --seed 1, game {games // 2 + 1}"]') + 5
        end = len(lines[middle])
        change = {"range": {"start": {"line": middle, "character": 0}, "end": {"line": middle, "character": end}},
                  "text": '[Result "B+99.5"]'}
        server.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [change]})
        checked(server, uri)
        print("after an edit of one game's result:")
        report(server, uri, rounds)
    finally:
        server.close()


def report(server: RawServer, uri: str, rounds: int) -> None:
    for name, method in _ASKED:
        times, count = [], 0
        for _ in range(rounds):
            took, count = ask(server, method, uri)
            times.append(took)
        rest = times[1:] or times
        print(f"  {name} ({count:,}): first {times[0] * 1000:.0f} ms, then median {statistics.median(rest) * 1000:.0f} ms "
              f"({min(rest) * 1000:.0f}-{max(rest) * 1000:.0f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--root", type=Path, help="a checkout whose source runs the server, instead of the installed keilref")
    args = parser.parse_args()
    print(measuring())
    measure(args.games, args.rounds, args.root.resolve() if args.root else None)


if __name__ == "__main__":
    main()
