"""A raw JSON-RPC client for ``python -m keilref lsp``: bytes written to its
standard input as they are, framed messages read back with a timeout, so a
test can send what no well-behaved client would."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

ROOT = Path(__file__).resolve().parent.parent


def frame(body: bytes) -> bytes:
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def message(payload: Any) -> bytes:
    return frame(json.dumps(payload).encode("utf-8"))


class RawServer:
    """``keilref lsp`` in a subprocess, spoken to byte by byte."""

    def __init__(self, root: Path = ROOT, command: Sequence[str] | None = None) -> None:
        """``root``: the checkout whose keilref runs (a benchmark compares two);
        ``command``: run that instead, as it is, from ``root`` (a benchmark runs
        the keilref installed in its Python)."""
        env = dict(os.environ)
        if command is None:
            command = [sys.executable, "-m", "keilref", "lsp"]
            env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(root), os.environ.get("PYTHONPATH")]))
        self.process = subprocess.Popen(
            list(command),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=root,
            env=env,
        )
        self.received: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self.others: list[dict[str, Any]] = []
        self.next_id = 1000
        assert self.process.stdout is not None
        threading.Thread(target=self._read, args=(self.process.stdout,), daemon=True).start()

    def _read(self, out: IO[bytes]) -> None:
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    self.received.put(None)
                    return
                if line == b"\r\n":
                    break
                name, _, value = line.decode("ascii").partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            assert length is not None
            self.received.put(json.loads(out.read(length)))

    def send(self, data: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def notify(self, method: str, params: Any) -> None:
        self.send(message({"jsonrpc": "2.0", "method": method, "params": params}))

    def request(self, method: str, params: Any) -> int:
        self.next_id += 1
        self.send(message({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}))
        return self.next_id

    def next(self, timeout: float = 20) -> dict[str, Any]:
        """The next message the server sends (``AssertionError`` if none in time, or if it ended)."""
        try:
            got = self.received.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"nothing from the server in {timeout} s") from None
        assert got is not None, f"the server ended: {self.stderr()}"
        return got

    def answer(self, msg_id: int | None, timeout: float = 20) -> dict[str, Any]:
        """The response to ``msg_id``; what came before it is kept in ``others``."""
        while True:
            got = self.next(timeout)
            if "method" not in got and got.get("id") == msg_id:
                return got
            self.others.append(got)

    def notification(self, method: str, timeout: float = 20) -> dict[str, Any]:
        while True:
            got = self.next(timeout)
            if got.get("method") == method:
                return got
            self.others.append(got)

    def initialize(self) -> None:
        answer = self.answer(self.request("initialize", {"processId": None, "rootUri": ROOT.as_uri(), "capabilities": {}}))
        assert "result" in answer
        self.notify("initialized", {})

    def open(self, uri: str, text: str) -> list[dict[str, Any]]:
        """Opens a document and returns its first diagnostics."""
        self.notify(
            "textDocument/didOpen",
            {"textDocument": {"uri": uri, "languageId": "keil", "version": 1, "text": text}},
        )
        while True:
            got = self.notification("textDocument/publishDiagnostics")
            if got["params"]["uri"] == uri:
                return list(got["params"]["diagnostics"])

    def hover(self, uri: str, line: int, character: int, timeout: float = 20) -> dict[str, Any]:
        position = {"line": line, "character": character}
        return self.answer(self.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": position}), timeout)

    def alive(self) -> bool:
        return self.process.poll() is None

    def stderr(self) -> str:
        if self.alive():
            return ""
        assert self.process.stderr is not None
        return self.process.stderr.read().decode("utf-8", "replace")[-4000:]

    def close(self) -> None:
        if self.alive():
            try:
                self.answer(self.request("shutdown", None), timeout=10)
                self.notify("exit", None)
                self.process.wait(10)
            except (AssertionError, OSError, subprocess.TimeoutExpired):
                self.process.kill()
        self.process.wait(10)
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            if stream is not None:
                stream.close()
