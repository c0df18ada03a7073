"""The language server surface: ``keilref lsp`` through a raw JSON-RPC client.

The server runs as a process (the only surface that needs one), spoken to
frame by frame on its standard input. Each case is a session of frames after
the server is up: documents opened and changed with mutated records (the
characters that split lines in some readers and not others included),
requests at odd positions and on documents never opened, requests with odd
ids and params, methods it does not know, and frames that are not JSON-RPC
at all: a body that is not JSON or not an object, a header without a length,
a negative, non-numeric or absurd length, a length shorter than its body,
bytes that are not UTF-8. The properties:

* the process never dies, and after each frame a well-formed hover is
  answered in time;
* every well-formed request of the session (an object with ``jsonrpc``,
  a string ``method`` and an integer or string ``id``) is answered, by a
  result or an error;
* no answer carries a Python traceback.

A failing session's bytes are written to ``--out``, after the frames that
start the server: ``python -m keilref lsp < OUT`` replays it.
"""

from __future__ import annotations

import json
import os
import queue
import random
import re
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

from measured import KEILREF

from fuzzing.common import Case, Surface
from fuzzing.mutate import UNSEEN
from fuzzing.records import mutated
from fuzzing.settings import settings_text

from keilref import check_text

ANSWER_SECONDS = 5.0
"""How long the final request may wait for its answer (the server checks a document first)."""
SESSIONS_PER_SERVER = 20
"""Sessions before a fresh server is started: long enough to carry state, short enough to start clean."""
SPLITTERS = ["\u2028", "\u2029", "\x0c", "\x0b", "\x85", "\x1c", "\x1d", "\x1e", "\r", "\r\n"]
"""Characters that end a line for ``str.splitlines`` or for an editor, and not all for the record format."""
ODD_NUMBERS: list[Any] = [-1, 0, 1, 3, 10**9, 2**31, 2**63, -(2**31), 1.5, "0", None, True, [], {}]
ODD_IDS: list[Any] = [0, -1, 2**70, "x", "", 1.5, None, {}, [], True]


def frame(body: bytes, length: int | None = None, *, headers: bytes = b"") -> bytes:
    n = len(body) if length is None else length
    return b"Content-Length: " + str(n).encode() + b"\r\n" + headers + b"\r\n" + body


def message(method: str, params: Any, id: Any = None, *, has_id: bool = True) -> dict[str, Any]:
    out: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": params}
    if has_id:
        out["id"] = id
    return out


def describe(data: bytes, uri: str) -> str:
    """What a frame is, in a few words: failures are told apart by it."""
    head, _, body = data.partition(b"\r\n\r\n")
    m = re.search(rb"^Content-Length: *(.*)$", head, re.MULTILINE | re.IGNORECASE)
    if m is None:
        return "a header without a length"
    value = m.group(1).strip()
    if not value.isdigit():
        return f"a length of {value.decode(errors='replace')!r}"
    if int(value) > len(body):
        return "a length past its body"
    if int(value) < len(body.rstrip(b"\r\n")):
        return "a length short of its body"
    try:
        got = json.loads(body)
    except (ValueError, RecursionError):
        return "a body that is not JSON"
    if not isinstance(got, dict):
        return f"a body that is a JSON {type(got).__name__}"
    method = got.get("method")
    if not isinstance(method, str):
        return "a message without a method"
    what = f"request {method}" if "id" in got else f"notification {method}"
    if "id" in got and not (isinstance(got["id"], (int, str)) and not isinstance(got["id"], bool)):
        what += " with an odd id"
    params = got.get("params")
    if not isinstance(params, dict):
        return what + " with params not an object"
    document = params.get("textDocument")
    if isinstance(document, dict) and document.get("uri") != uri:
        what += " on a document never opened"
    spots = [params.get("position")] if "position" in params else []
    if isinstance(params.get("range"), dict):
        spots += [params["range"].get("start"), params["range"].get("end")]
    if any(not (isinstance(p, dict) and all(type(p.get(k)) is int and p[k] >= 0 for k in ("line", "character"))) for p in spots):
        what += " at an odd position"
    if b"Content-Type" in head:
        what += " with a content type"
    return what


def _offset_lsp(text: str, position: object) -> int | None:
    """Where an LSP position points in ``text``, as the protocol reads it: lines end at
    ``\\r\\n``, ``\\n`` or ``\\r``, and a character is a UTF-16 code unit."""
    if not isinstance(position, dict):
        return None
    line, character = position.get("line"), position.get("character")
    if not isinstance(line, int) or not isinstance(character, int):
        return None
    starts = [0] + [m.end() for m in re.finditer(r"\r\n|\r|\n", text)]
    if line >= len(starts):
        return None
    at, units = starts[line], 0
    while units < character and at < len(text) and text[at] not in "\r\n":
        units += 2 if ord(text[at]) > 0xFFFF else 1
        at += 1
    return at


def _offset_record(text: str, line: int, column: int) -> int:
    """Where ``check``'s line and column point: lines end at ``\\n``, a column is a code
    point, and a byte-order mark at the start is no column of the first line."""
    starts = [0] + [m.end() for m in re.finditer(r"\n", text)]
    bom = 1 if line == 1 and text.startswith("\ufeff") else 0
    return starts[min(line, len(starts)) - 1] + column - 1 + bom


def _where(text: str, offset: int) -> str:
    line = text.count("\n", 0, offset) + 1
    return f"{line}:{offset - (text.rfind(chr(10), 0, offset) + 1) + 1}"


class Server:
    """``keilref lsp`` and a thread that reads its answers."""

    def __init__(self, work: Path) -> None:
        self.log = open(work / "lsp-stderr.txt", "wb")
        self.process = subprocess.Popen(
            [*KEILREF, "lsp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log, cwd=work
        )
        self.answers: dict[Any, dict[str, Any]] = {}
        self.diagnostics: dict[str, list[Any]] = {}
        self.lock = threading.Lock()
        self.arrived: queue.Queue[dict[str, Any]] = queue.Queue()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        self.sent = bytearray()

    def _read(self) -> None:
        out = self.process.stdout
        assert out is not None
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    return
                if line in (b"\r\n", b"\n"):
                    break
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":", 1)[1])
            if length is None:
                continue
            body = out.read(length)
            try:
                got = json.loads(body)
            except ValueError:
                got = {"unreadable": body.decode("utf-8", "replace")}
            if got.get("method") == "textDocument/publishDiagnostics" and isinstance(got.get("params"), dict):
                with self.lock:
                    self.diagnostics.setdefault(str(got["params"].get("uri")), []).append(got["params"].get("diagnostics"))
            self.arrived.put(got)

    def send(self, data: bytes) -> None:
        self.sent += data
        stdin = self.process.stdin
        assert stdin is not None
        try:
            stdin.write(data)
            stdin.flush()
        except (BrokenPipeError, OSError) as e:
            raise AssertionError(f"the server stopped reading: {e}") from e

    def pump(self, seconds: float) -> bool:
        """File the next message that arrives within ``seconds``; false when none did."""
        try:
            got = self.arrived.get(timeout=seconds)
        except queue.Empty:
            return False
        if "id" in got and "method" not in got:
            self.answers[json.dumps(got["id"])] = got
            text = json.dumps(got.get("error", ""))
            assert "Traceback" not in text, f"an answer carries a traceback: {text[:300]}"
        return True

    def wait_for(self, id: Any, seconds: float) -> dict[str, Any] | None:
        key = json.dumps(id)
        end = time.monotonic() + seconds
        while key not in self.answers:
            left = end - time.monotonic()
            if left <= 0:
                return None
            if not self.pump(min(left, 0.2)) and self.process.poll() is not None:
                return None
        return self.answers[key]

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        self.log.close()


class LanguageServer(Surface):
    name = "lsp"
    weight = 1.0

    def __init__(self, rng: random.Random, pool: list[bytes], work: Path) -> None:
        super().__init__(rng, pool, work)
        self.server: Server | None = None
        self.sessions = 0
        self.next_id = 100
        self.uri = (work / "doc.keil").as_uri()
        self.opened: list[str] = []
        self.settings = False

    def _start(self, rng: random.Random) -> Server:
        # The project's settings the documents are judged under: right, wrong or not TOML at all.
        for name in ("keilref.toml", "pyproject.toml"):
            (self.work / name).unlink(missing_ok=True)
        self.settings = rng.random() < 0.5
        if self.settings:
            name = rng.choice(["keilref.toml", "pyproject.toml"])
            (self.work / name).write_bytes(settings_text(rng, name == "pyproject.toml"))
        server = Server(self.work)
        init = message("initialize", {"processId": os.getpid(), "rootUri": self.work.as_uri(), "capabilities": {}}, 1)
        server.send(frame(json.dumps(init).encode()))
        assert server.wait_for(1, 60) is not None, "the server did not answer initialize"
        server.send(frame(json.dumps(message("initialized", {}, has_id=False)).encode()))
        self.opened = []
        return server

    def _diagnosed(self, server: Server, rng: random.Random) -> None:
        """A document opened under a name of its own gets its diagnostics, on the lines
        ``check`` names (whatever characters stand before them)."""
        self.next_id += 1
        uri = (self.work / f"fresh-{self.next_id}.keil").as_uri()
        text = self._text(rng)
        if rng.random() < 0.5:
            # A character some readers end a line at, early on, and a fault on a line after it.
            i = rng.randint(0, len(text) // 3)
            text = text[:i] + rng.choice(SPLITTERS) + text[i:] + rng.choice(["\n[Bad\n", "\n1. zz *\n", "\n{open\n"])
        body = message("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "keil", "version": 1, "text": text}}, has_id=False)
        server.send(frame(json.dumps(body).encode("utf-8", "surrogatepass")))
        end = time.monotonic() + ANSWER_SECONDS
        while time.monotonic() < end:
            with server.lock:
                published = server.diagnostics.get(uri)
            if published:
                break
            server.pump(0.1)
        shown = text[:300].encode("utf-8", "surrogatepass")
        assert published, f"a document opened got no diagnostics: {shown!r}"
        starts = {_offset_lsp(text, d["range"]["start"]) for d in published[-1] if isinstance(d, dict)}
        if self.settings:
            return  # the library's verdicts would be under other rules
        for v in check_text(text.encode("utf-8", "surrogatepass"), filename="doc.keil"):
            if v.error is not None:
                at = _offset_record(text, v.error.line, v.error.column)
                assert at in starts, (
                    f"a diagnostic is not where check puts it: check says {v.error.line}:{v.error.column} "
                    f"{v.error.message[:60]!r}; the server's, read as an editor reads them: "
                    f"{sorted(_where(text, o) for o in starts if o is not None)}; {shown!r}"
                )

    def close(self) -> None:
        if self.server is not None:
            self.server.close()

    def case(self, rng: random.Random) -> Case:
        frames: list[tuple[bytes, Any]] = []
        for _ in range(rng.randint(3, 25)):
            frames.append(self._frame(rng))
        return Case(b"".join(f for f, _ in frames), ".lsp", "a session of frames", inputs=len(frames), slow=4,
                    extra={"frames": frames})

    def _id(self) -> int:
        self.next_id += 1
        return self.next_id

    def _text(self, rng: random.Random) -> str:
        text = mutated(rng, self.pool).decode("utf-8", "replace") if rng.random() < 0.7 else rng.choice(self.pool).decode("utf-8", "replace")
        if rng.random() < 0.3:
            for _ in range(rng.randint(1, 4)):
                i = rng.randint(0, len(text))
                text = text[:i] + rng.choice([*UNSEEN, "\r", "\r\n", "\x1c", "\x1d", "\x1e"]) + text[i:]
        return text

    def _uri(self, rng: random.Random) -> Any:
        return rng.choice([self.uri, self.uri, self.uri + "x", "file:///never/opened.keil", "", "not a uri", 5, None])

    def _position(self, rng: random.Random) -> Any:
        if rng.random() < 0.6:
            return {"line": rng.randint(0, 40), "character": rng.randint(0, 60)}
        return rng.choice([{"line": rng.choice(ODD_NUMBERS), "character": rng.choice(ODD_NUMBERS)}, {}, None, [], 3])

    def _frame(self, rng: random.Random) -> tuple[bytes, Any]:
        """A frame, and the id whose answer it asks for (``None`` for none)."""
        kind = rng.randrange(14)
        doc = {"uri": self._uri(rng)}
        if kind == 0:
            text = self._text(rng)
            sent = message("textDocument/didOpen", {"textDocument": {"uri": self.uri, "languageId": "keil", "version": 1, "text": text}}, has_id=False)
            return frame(json.dumps(sent).encode("utf-8", "surrogatepass")), None
        if kind == 1:
            change: dict[str, Any] = {"text": self._text(rng)[: rng.randint(0, 400)]}
            if rng.random() < 0.6:
                change["range"] = {"start": self._position(rng), "end": self._position(rng)}
            sent = message("textDocument/didChange", {"textDocument": {**doc, "version": rng.choice([2, 0, -1, None])}, "contentChanges": [change]}, has_id=False)
            return frame(json.dumps(sent).encode("utf-8", "surrogatepass")), None
        if kind == 2:
            return frame(json.dumps(message("textDocument/didClose", {"textDocument": doc}, has_id=False)).encode()), None
        if kind in (3, 4, 5):
            method, params = rng.choice(
                [
                    ("textDocument/hover", {"textDocument": doc, "position": self._position(rng)}),
                    ("textDocument/formatting", {"textDocument": doc, "options": rng.choice([{"tabSize": 4, "insertSpaces": True}, {}, None])}),
                    ("textDocument/codeAction", {"textDocument": doc, "range": {"start": self._position(rng), "end": self._position(rng)}, "context": rng.choice([{"diagnostics": []}, {}, None, {"diagnostics": [{}]}])}),
                    ("textDocument/documentSymbol", {"textDocument": doc}),
                    ("keilref/unknown", {}),
                    ("textDocument/hover", rng.choice([None, [], 5, "x", {}])),
                ]
            )
            id = self._id()
            return frame(json.dumps(message(method, params, id)).encode()), id
        if kind == 6:
            id = rng.choice(ODD_IDS)
            body = json.dumps(message("textDocument/hover", {"textDocument": {"uri": self.uri}, "position": {"line": 0, "character": 0}}, id)).encode()
            expected = id if isinstance(id, str) or (isinstance(id, int) and not isinstance(id, bool)) else None
            return frame(body), expected
        if kind == 7:
            body = rng.choice([b"abcde", b"[]", b"1", b'"x"', b"null", b"{}", b'{"jsonrpc": "2.0"}', b'{"jsonrpc": "2.0", "method": 5, "id": 3}',
                               b'{"jsonrpc": "2.0", "id": ', b"\xff\xfe{}", b'{"jsonrpc": "2.0", "method": "textDocument/hover"}',
                               b'[{"jsonrpc": "2.0", "id": 7, "method": "textDocument/hover", "params": {}}]', b"{" * 100_000, b" "])
            return frame(body), None
        if kind == 8:
            # A header that does not say how long the body is, or says it wrongly.
            body = json.dumps(message("keilref/unknown", {}, has_id=False)).encode()
            head = rng.choice([b"Content-Length: -1\r\n\r\n", b"Content-Length: abc\r\n\r\n", b"\r\n", b"X-Other: 1\r\n\r\n",
                               b"Content-Length: 99999999999999\r\n\r\n", b"Content-Length: 1e3\r\n\r\n", b"content-length: 2\r\n\r\n",
                               b"Content-Length: " + str(len(body) // 2).encode() + b"\r\n\r\n"])
            # Ended by a line end, so that a server that drops what it cannot read finds the next header.
            return head + body + b"\r\n", None
        if kind == 9:
            body = json.dumps(message("textDocument/hover", {"textDocument": {"uri": self.uri}, "position": {"line": 0, "character": 0}}, self._id())).encode()
            return frame(body, headers=rng.choice([b"Content-Type: application/vscode-jsonrpc; charset=latin-1\r\n", b"X: y\r\n", b""])), None
        if kind == 10:
            id = self._id()
            return frame(json.dumps(message("$/cancelRequest", {"id": rng.choice([id - 1, id + 5, "x"])}, has_id=False)).encode()), None
        if kind == 11:
            body = json.dumps(message("textDocument/didOpen", {"textDocument": {"uri": rng.choice([self.uri, 5, None]), "text": rng.choice([5, None, "x"])}}, has_id=False)).encode()
            return frame(body), None
        if kind == 12:
            id = self._id()
            return frame(json.dumps(message("textDocument/hover", {"textDocument": {"uri": self.uri}, "position": self._position(rng)}, id)).encode()), id
        body = json.dumps({"jsonrpc": "2.0", "id": self._id(), "result": None}).encode()
        return frame(body), None

    def check(self, case: Case, rng: random.Random) -> None:
        if self.server is None or self.server.process.poll() is not None or self.sessions >= SESSIONS_PER_SERVER:
            if self.server is not None:
                self.server.close()
            self.server = self._start(rng)
            self.sessions = 0
        self.sessions += 1
        server = self.server
        frames = case.extra["frames"]
        assert isinstance(frames, list)
        try:
            self._diagnosed(server, rng)
            for data, id in frames:
                server.send(data)
                # A well-formed request after each frame: the frame that makes the server deaf is the one named.
                final = self._id()
                hover = message("textDocument/hover", {"textDocument": {"uri": self.uri}, "position": {"line": 0, "character": 0}}, final)
                server.send(frame(json.dumps(hover).encode()))
                answer = server.wait_for(final, ANSWER_SECONDS)
                alive = server.process.poll() is None
                shown = f"{describe(data, self.uri)}: {data[:200]!r}"
                assert alive, f"the server died after {shown}; exit {server.process.returncode}"
                assert answer is not None, f"the next request was left unanswered after {shown}"
                if id is not None:
                    assert server.wait_for(id, 1) is not None, f"a request was left unanswered, {shown}"
        except BaseException:
            case.data = bytes(server.sent)
            self.server = None
            server.close()
            raise
