"""``keilref lsp`` against a hostile client, spoken to in raw bytes: every
malformed message gets a JSON-RPC error or is dropped, the server stays alive,
and the next request is answered."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

pytest.importorskip("pygls")

from keilref.lsp_wire import MAX_BODY  # noqa: E402
from lsp_raw import ROOT, RawServer, frame, message  # noqa: E402

URI = (ROOT / "hostile.keil").as_uri()
GAME = '[Size "5"]\n[Result "*"]\n\n1. c3 d3 *\n'


@pytest.fixture
def server() -> Iterator[RawServer]:
    s = RawServer()
    try:
        s.initialize()
        s.open(URI, GAME)
        yield s
    finally:
        s.close()


def still_answers(s: RawServer) -> None:
    """A hover on turn 1 is answered with its board, and the server lives."""
    answer = s.hover(URI, 3, 3)
    assert answer["result"]["contents"]["value"].startswith("**After turn 1**"), answer
    assert s.alive()


def dropped_with(s: RawServer, code: int) -> dict[str, object]:
    """The error said about a message the server could not read (no id to answer)."""
    got = s.answer(None)
    assert got["error"]["code"] == code, got
    return got


@pytest.mark.parametrize(
    "body, code",
    [
        (b"[]", -32600),
        (b"1", -32600),
        (b"null", -32600),
        (b'"text"', -32600),
        (b"abcde", -32700),
        (b"{", -32700),
        (b"\xff\xfe{}", -32700),
        (b"[" * 100_000, -32700),
        (b'{"jsonrpc": "2.0", "id": [1], "method": "textDocument/hover", "params": {}}', -32600),
    ],
)
def test_a_body_that_is_not_a_message_is_answered_with_an_error(server: RawServer, body: bytes, code: int) -> None:
    server.send(frame(body))
    dropped_with(server, code)
    still_answers(server)


def test_a_length_past_the_bound_is_refused_and_the_next_message_read(server: RawServer) -> None:
    server.send(b"Content-Length: 99999999999999\r\n\r\n{}")
    got = dropped_with(server, -32600)
    assert "99999999999999 bytes" in str(got["error"])
    still_answers(server)


def test_a_length_just_past_the_bound_is_refused_without_reading_it(server: RawServer) -> None:
    server.send(b"Content-Length: %d\r\n\r\n" % (MAX_BODY + 1) + b" " * 10_000 + b"\r\n")
    dropped_with(server, -32600)
    still_answers(server)


@pytest.mark.parametrize(
    "data",
    [
        b"Content-Type: application/json\r\n\r\n{}",  # no length
        b"garbage\r\n\r\n",  # not a header
        b"X" * 100_000 + b"\r\n\r\n",  # a header line too long to be one
        b"Content-Length: 2\r\n\r\n{}}}}",  # more body than it said
        b"Content-Length: 2\r\n\r\n{}" + b"}" * 100_000,  # much more, on the next frame's header line
    ],
)
def test_a_frame_that_cannot_be_trusted_is_skipped_to_the_next(server: RawServer, data: bytes) -> None:
    server.send(data)
    dropped_with(server, -32600)
    still_answers(server)


def test_a_notification_with_bad_parameters_is_dropped(server: RawServer) -> None:
    server.send(message({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": 5}}))
    still_answers(server)


def test_a_response_to_nothing_is_dropped(server: RawServer) -> None:
    server.send(message({"jsonrpc": "2.0", "id": 77, "result": {"x": 1}}))
    still_answers(server)


def test_a_request_that_is_not_json_rpc_2_is_answered(server: RawServer) -> None:
    server.send(message({"jsonrpc": "1.0", "id": 5, "method": "textDocument/hover", "params": {}}))
    assert server.answer(5)["error"]["code"] == -32600
    still_answers(server)


@pytest.mark.parametrize("line, character", [(-1, 0), (0, -1), (2**40, 0), (1000, 0), (3, 10**6)])
def test_a_hover_at_no_position_is_answered(server: RawServer, line: int, character: int) -> None:
    answer = server.hover(URI, line, character)
    if not (0 <= line < 2**31 and 0 <= character < 2**31):
        assert answer["error"]["code"] == -32602
        assert "Traceback" not in str(answer)
    else:
        assert answer["result"] is None
    still_answers(server)


def test_a_request_on_a_document_never_opened_is_answered_with_nothing(server: RawServer) -> None:
    never = (ROOT / "never-opened.keil").as_uri()
    assert server.hover(never, 0, 0) == {"jsonrpc": "2.0", "id": server.next_id, "result": None}
    doc = {"textDocument": {"uri": never}}
    formatting = server.request("textDocument/formatting", {**doc, "options": {"tabSize": 4, "insertSpaces": True}})
    assert server.answer(formatting)["result"] is None
    whole = {"start": {"line": 0, "character": 0}, "end": {"line": 1, "character": 0}}
    actions = server.request("textDocument/codeAction", {**doc, "range": whole, "context": {"diagnostics": []}})
    assert server.answer(actions)["result"] == []
    still_answers(server)


def test_many_bad_messages_in_one_write_are_each_answered(server: RawServer) -> None:
    server.send(frame(b"[]") + frame(b"1") + frame(b"abcde"))
    for code in (-32600, -32600, -32700):
        dropped_with(server, code)
    still_answers(server)


def test_a_handlers_exception_is_answered_without_its_traceback() -> None:
    """In process: what pygls sends when a handler raises is one line, no traceback."""
    import json
    import sys as _sys

    from pygls.exceptions import JsonRpcInternalError

    from keilref.lsp import KeilServer

    class Writer:
        def __init__(self) -> None:
            self.sent: list[bytes] = []

        def write(self, data: bytes) -> None:
            self.sent.append(data)

    server = KeilServer()
    transport = Writer()
    server.protocol.set_writer(transport)
    try:
        raise KeyError("oops")
    except KeyError:
        error = JsonRpcInternalError.of(_sys.exc_info()).to_response_error()
    server.protocol._send_response(7, None, error)
    (sent,) = transport.sent
    body = json.loads(sent.split(b"\r\n\r\n", 1)[1])
    assert body == {"jsonrpc": "2.0", "id": 7, "error": {"code": -32603, "message": "KeyError: 'oops'"}}


def test_frames_are_read_with_bounds_and_found_again() -> None:
    """In process: each frame's body, or why it has none, in order."""
    import io

    from keilref.lsp_wire import Frames

    stream = io.BytesIO(
        frame(b'{"a": 1}')
        + b"Content-Length: 99999999999999\r\n\r\n{}"
        + frame(b'{"b": 2}')
        + b"junk\r\n\r\n"
        + frame(b"[]")
        + b"\r\n"  # a stray line break between messages
        + b"X" * 10_000
        + frame(b"{}")
        + b"Content-Length: 5\r\n\r\n{}"  # the stream ends inside a body
    )
    frames = Frames(stream)
    got = []
    while (one := frames.next()) is not None:
        got.append((one.body, one.problem))
    assert got == [
        (b'{"a": 1}', None),
        (None, f"a message of 99999999999999 bytes; the most read is {MAX_BODY}"),
        (b'{"b": 2}', None),
        (None, "a header line that is not a header"),
        (b"[]", None),
        (None, "bytes between messages"),
        (b"{}", None),
    ]
