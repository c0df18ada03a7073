"""What a very large document costs ``keilref lsp``: time and memory.

Opens one document through a raw JSON-RPC client over stdio
(tests/lsp_raw.py) and prints the time from ``didOpen`` to the first
diagnostics, to the diagnostics of every game, the answer time of a hover
sent as soon as the first diagnostics arrive, the server's peak resident
memory (``VmHWM``) once every game is checked, and the same after a
formatting request. Linux only (it reads ``/proc``).

    python -m keilref generate -n 100000 --size 5 > big.keil
    python benchmarks/bench_lsp_large.py big.keil [--root CHECKOUT]

The server is the keilref installed in the interpreter that runs this
script (``python -P -m keilref lsp``); ``--root`` runs a checkout's source
instead (to compare before and after). The first lines say which server
ran: its version, engine kernel and package, as its own process sees them.
"""

from __future__ import annotations

import argparse
import os
import re
import time
from pathlib import Path

from measured import KEILREF, ROOT, installed_keilref, use_test_references

use_test_references()
from lsp_raw import RawServer  # noqa: E402

_LEFT = re.compile(r"left to check|not checked")


def memory(pid: int) -> dict[str, int]:
    """The process's resident memory now and at its peak, in MB."""
    out = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("VmRSS", "VmHWM"):
            out[name] = int(value.split()[0]) // 1024
    return out


def measure(path: Path, root: Path | None) -> None:
    """Open ``path`` in the installed keilref's server, or in the source of the checkout at ``root``."""
    text = path.read_text(encoding="utf-8")
    uri = ((root or ROOT) / "bench-lsp-large.keil").as_uri()
    if root is None:
        print(f"measuring the server of: {installed_keilref()}")
        server = RawServer(ROOT, [*KEILREF, "lsp"])
    else:
        # As RawServer starts it: the checkout first on the path.
        paths = os.pathsep.join(filter(None, [str(root), os.environ.get("PYTHONPATH")]))
        print(f"measuring the server of: {installed_keilref({**os.environ, 'PYTHONPATH': paths})}")
        server = RawServer(root)
    try:
        server.initialize()
        pid = server.process.pid
        print(f"{path.name}: {len(text.encode()) / 1e6:.1f} MB; idle {memory(pid)}")
        started = time.perf_counter()
        server.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "keil", "version": 1, "text": text}})
        logs: list[str] = []
        first = None
        while True:
            got = server.next(timeout=1200)
            if got.get("method") == "window/logMessage":
                logs.append(got["params"]["message"])
            elif got.get("method") == "window/showMessage":
                print(f"said: {got['params']['message']}")
            elif got.get("method") == "textDocument/publishDiagnostics":
                elapsed = time.perf_counter() - started
                log = logs[-1] if logs else ""
                print(f"{elapsed:.2f} s: {len(got['params']['diagnostics'])} diagnostics; {log}")
                if first is None:
                    first = elapsed
                    sent = time.perf_counter()
                    hover = server.hover(uri, 10, 0, timeout=1200)
                    print(f"  a hover sent then answered in {time.perf_counter() - sent:.2f} s ({'result' in hover})")
                if not _LEFT.search(log):
                    break
        done = time.perf_counter() - started
        checked = memory(pid)
        print(f"first diagnostics {first:.2f} s, every game {done:.2f} s; memory {checked}")
        sent = time.perf_counter()
        options = {"tabSize": 4, "insertSpaces": True}
        answer = server.answer(server.request("textDocument/formatting", {"textDocument": {"uri": uri}, "options": options}), 1200)
        print(f"formatting answered in {time.perf_counter() - sent:.2f} s ({len(answer.get('result') or [])} edits); memory {memory(pid)}")
    finally:
        server.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("file", type=Path)
    parser.add_argument("--root", type=Path, help="a checkout whose source runs the server, instead of the installed keilref")
    args = parser.parse_args()
    measure(args.file, args.root.resolve() if args.root else None)


if __name__ == "__main__":
    main()
