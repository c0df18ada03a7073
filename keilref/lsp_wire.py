"""The language server's reading of its standard input: bounded and never deaf.

pygls reads a message's body in one ``read`` of whatever length its header
claims, so ``Content-Length: 99999999999999`` ends the server with a
``MemoryError``; and a body that is not a JSON-RPC object, or a request whose
parameters do not fit their type, goes unanswered (and, for some bodies,
leaves the reader answering nothing again). Here each frame is read
with bounds on its header lines and its body, each body is checked before
pygls structures it, and whatever is wrong is answered with a JSON-RPC error
(or, for a notification, which has no one to answer, dropped and logged):
the next message is read as if nothing had happened.

It hands a checked message to pygls 2's own structuring and dispatch
(``structure_message``, ``handle_message``; ``_send_data`` and
``_request_futures``, internals, are why pyproject.toml keeps pygls below
3), as its own reader (``pygls.io_.run_async``) does.

A frame whose length cannot be trusted (too large, missing, or a header line
that is not a header) is skipped up to the next ``Content-Length:`` line.
That is safe: a JSON body holds a line break only between its tokens (one in
a string is escaped), so no line of a body can end in that header.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import sys
import threading
from dataclasses import dataclass
from typing import Any, BinaryIO

__all__ = ["MAX_BODY", "MAX_HEADER_LINE", "Frame", "Frames", "handle", "serve_io"]

MAX_BODY = 256 * 1024 * 1024
"""The largest message body read, in bytes: a document's text is sent whole
in one message (escaped, so up to six times its size in JSON), and a document
over :data:`keilref.lsp.MAX_DOCUMENT` is not checked anyway."""

MAX_HEADER_LINE = 4096
"""The longest header line read; a longer one is skipped, as garbage."""

# JSON-RPC's own codes.
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
INVALID_PARAMS = -32602

_CONTENT_LENGTH = re.compile(rb"content-length[ \t]*:[ \t]*(\d{1,20})[ \t]*\r?\n", re.IGNORECASE)
# Where a frame is lost, the next one starts at this header, even after the rest of a line.
_NEXT_FRAME = re.compile(rb"content-length[ \t]*:[ \t]*\d{1,20}[ \t]*\r?\n\Z", re.IGNORECASE)
_HEADER = re.compile(rb"[!-9;-~]+[ \t]*:[^\r\n]*\r?\n")
_BLANK = (b"\r\n", b"\n")

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Frame:
    """One framed message: its body, or why it has none to be read."""

    body: bytes | None
    problem: str | None = None


class Frames:
    """The frames of a binary stream, read with bounded memory."""

    def __init__(self, stream: BinaryIO) -> None:
        self.stream = stream
        self._pending: bytes | None = None
        self._lost = False
        """Whether the last frame's end is unknown: the next starts at the next header."""

    def _line(self) -> bytes:
        """The next header line (empty at the end), at most :data:`MAX_HEADER_LINE` bytes
        (of a longer one, the rest is read and thrown away)."""
        if self._pending is not None:
            line, self._pending = self._pending, None
            return line
        line = self.stream.readline(MAX_HEADER_LINE + 1)
        if len(line) > MAX_HEADER_LINE and not line.endswith(b"\n"):
            # Too long to be a header: garbage, but it may end in the next frame's header.
            tail = line
            while line and not line.endswith(b"\n"):
                line = self.stream.readline(MAX_HEADER_LINE)
                tail = (tail + line)[-MAX_HEADER_LINE:]
            found = _NEXT_FRAME.search(tail)
            return b"\x00" + (tail[found.start() :] if found is not None else b"\n")
        return line

    def _resync(self) -> bool:
        """Skip to the next ``Content-Length`` header, at the end of a line, kept for the next frame;
        ``False`` if the stream ends first."""
        while True:
            line = self._line()
            if not line:
                return False
            found = _NEXT_FRAME.search(line)
            if found is not None:
                self._pending = line[found.start() :]
                return True

    def next(self) -> Frame | None:
        """The next frame, or ``None`` where the stream ends."""
        if self._lost and not self._resync():
            return None
        self._lost = False
        length: int | None = None
        seen = False
        while True:
            line = self._line()
            if not line:
                return None
            if line in _BLANK:
                if not seen:
                    continue  # a stray line break between messages
                if length is None:
                    self._lost = True
                    return Frame(None, "a message with no Content-Length header")
                if length > MAX_BODY:
                    self._lost = True
                    return Frame(None, f"a message of {length} bytes; the most read is {MAX_BODY}")
                body = self.stream.read(length)
                if len(body) < length:
                    return None
                return Frame(body)
            seen = True
            match = _CONTENT_LENGTH.fullmatch(line)
            if match is not None:
                length = int(match.group(1))
                continue
            found = _NEXT_FRAME.search(line)
            if found is not None:  # the rest of a body longer than it said, then the next frame
                self._pending = line[found.start() :]
                return Frame(None, "bytes between messages")
            if not _HEADER.fullmatch(line):
                self._lost = True
                return Frame(None, "a header line that is not a header")


def _error(protocol: Any, msg_id: int | str | None, code: int, message: str) -> None:
    protocol._send_data({"jsonrpc": "2.0", "id": msg_id, "error": {"code": code, "message": message}})


def _id(raw: dict[str, Any]) -> int | str | None:
    """The message's id, where it is one JSON-RPC allows (a number or a string)."""
    value = raw.get("id")
    return value if isinstance(value, (int, str)) and not isinstance(value, bool) else None


def handle(protocol: Any, frame: Frame) -> None:
    """Give one frame to pygls's protocol, or answer what is wrong with it."""
    if frame.body is None:
        logger.warning("dropped %s", frame.problem)
        _error(protocol, None, INVALID_REQUEST, f"dropped {frame.problem}")
        return
    try:
        raw = json.loads(frame.body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as e:
        _error(protocol, None, PARSE_ERROR, f"the body is not JSON in UTF-8: {e}")
        return
    if not isinstance(raw, dict):
        _error(protocol, None, INVALID_REQUEST, f"the body is a JSON {type(raw).__name__}, not an object")
        return
    msg_id = _id(raw)
    is_request = "id" in raw and "method" in raw
    method = raw.get("method")
    if raw.get("jsonrpc") != "2.0" or ("method" in raw and not isinstance(method, str)):
        if is_request or "method" not in raw:
            _error(protocol, msg_id, INVALID_REQUEST, "not a JSON-RPC 2.0 message")
        return
    if "id" in raw and msg_id is None:
        _error(protocol, None, INVALID_REQUEST, "the id is neither a number nor a string")
        return
    if "method" not in raw and msg_id not in protocol._request_futures:
        logger.warning("dropped a response to no request of ours: %r", msg_id)
        return
    try:
        message = protocol.structure_message(raw)
    except Exception as e:  # pygls says why in its log; the client is told in a line
        logger.warning("dropped a message whose parameters do not fit %s: %s", method, e)
        if is_request:
            _error(protocol, msg_id, INVALID_PARAMS, f"the parameters of {method} do not fit its type")
        return
    try:
        protocol.handle_message(message)
    except Exception:
        logger.exception("a message could not be handled")
        if is_request:
            _error(protocol, msg_id, INVALID_REQUEST, f"{method} could not be handled")


class _Stdio:
    """The transport pygls writes its messages to."""

    def __init__(self, stdin: BinaryIO, stdout: BinaryIO) -> None:
        self.stdin, self.stdout = stdin, stdout

    def write(self, data: bytes) -> None:
        self.stdout.write(data)
        self.stdout.flush()

    def close(self) -> None:
        self.stdin.close()
        self.stdout.close()


async def _read(server: Any, stream: BinaryIO, stop: threading.Event) -> None:
    frames = Frames(stream)
    loop = asyncio.get_running_loop()
    while not stop.is_set() and not stream.closed:
        frame = await loop.run_in_executor(server.thread_pool, frames.next)
        if frame is None:
            break
        handle(server.protocol, frame)


def serve_io(server: Any) -> None:
    """Run ``server`` (a pygls ``LanguageServer``) on standard input and output,
    as its ``start_io`` does, with the bounded reading above."""
    stop = threading.Event()
    server._stop_event = stop
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    server.protocol.set_writer(_Stdio(stdin, stdout))
    try:
        asyncio.run(_read(server, stdin, stop))
    except BrokenPipeError:
        logger.error("the client's end of the pipe closed")
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        server.shutdown()
