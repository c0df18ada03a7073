"""One rule for where a character stands: the record format's lines (a line
feed ends a line, nothing else does) and columns in code points, for the CLI,
the library's index and the language server (which gives them to an editor
in LSP's lines, ended by LF, CRLF or CR, and UTF-16 columns)."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from keilref.records.positions import LineIndex, split_lines

ROOT = Path(__file__).resolve().parent.parent

# Each ends a line for str.splitlines, none for the record format; CR ends one for LSP.
ODD = ["\u2028", "\u2029", "\x0c", "\x0b", "\x85", "\x1c", "\x1d", "\x1e", "\r"]
ODD_IDS = ["U+2028", "U+2029", "FF", "VT", "NEL", "U+001C", "U+001D", "U+001E", "CR"]

SECOND = '[Size "5"]\n[Result "*"]\n\n1. c3 c3 *\n'


def documents() -> Iterator[tuple[str, str]]:
    """Two games, the first holding an odd character (in a comment, or in a
    tag value); the second has an illegal turn, its second ``c3``."""
    for char, name in zip(ODD, ODD_IDS):
        yield f"{name}-comment", f'[Size "5"]\n[Result "*"]\n\n1. c3 {{a{char}b{char}}} d3 *\n\n' + SECOND
        yield f"{name}-tag", f'[Size "5"]\n[Event "a{char}{char}b"]\n[Result "*"]\n\n1. c3 d3 *\n\n' + SECOND
    yield "CR-only", ('[Size "5"]\n[Result "*"]\n\n1. c3 d3 *\n\n' + SECOND).replace("\n", "\r")
    yield "CRLF", ('[Size "5"]\n[Result "*"]\n\n1. c3 {\u2028} d3 *\n\n' + SECOND).replace("\n", "\r\n")
    yield "astral", '[Size "5"]\n[Result "*"]\n\n1. c3 {\U0001d11e\x0c} d3 *\n\n' + SECOND.replace("c3 c3", "c3 {\U0001d11e} c3")


DOCUMENTS = dict(documents())


def illegal_offset(text: str) -> int:
    return text.rindex("c3 *")


def lsp_position(text: str, offset: int) -> tuple[int, int]:
    """Where LSP puts ``offset``, counted here without the server's code."""
    head = text[:offset]
    line = len(re.findall(r"\r\n|\r|\n", head))
    start = max(head.rfind("\n"), head.rfind("\r")) + 1
    return line, len(head[start:].encode("utf-16-le")) // 2


def test_the_index_counts_lines_at_line_feeds_only() -> None:
    text = "a\u2028b\x0cc\rd\r\ne\x85f\n\ng"
    index = LineIndex(text)
    assert len(index) == 4
    assert [index.line(n) for n in (1, 2, 3, 4)] == ["a\u2028b\x0cc\rd", "e\x85f", "", "g"]
    assert index.place(text.index("d")) == (1, 7)
    assert index.place(text.index("f")) == (2, 3)
    assert index.place(text.index("g")) == (4, 1)
    assert index.offset(2, 3) == text.index("f")
    assert index.offset(1, 99) == text.index("\r\n")  # held to the line, before its CRLF
    assert split_lines(text) == ["a\u2028b\x0cc\rd\r\n", "e\x85f\n", "\n", "g"]
    assert "".join(split_lines(text)) == text


def test_a_byte_order_mark_is_not_counted() -> None:
    index = LineIndex("\ufeffab\ncd")
    assert index.place(2) == (1, 2)
    assert index.line(1) == "ab"


@pytest.mark.parametrize("name", sorted(DOCUMENTS))
def test_the_cli_places_a_fault_where_the_index_does(name: str, tmp_path: Path) -> None:
    text = DOCUMENTS[name]
    path = tmp_path / "odd.keil"
    path.write_bytes(text.encode("utf-8"))
    done = subprocess.run(
        [sys.executable, "-m", "keilref", "check", str(path)], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 1, done.stderr
    found = re.search(r":(\d+):(\d+): game 2: illegal", done.stdout)
    assert found is not None, done.stdout
    assert (int(found.group(1)), int(found.group(2))) == LineIndex(text).place(illegal_offset(text))




@pytest.fixture(scope="module")
def server() -> Iterator[object]:
    pytest.importorskip("pygls")
    sys.path.insert(0, str(Path(__file__).parent))
    from lsp_raw import RawServer

    s = RawServer()
    try:
        s.initialize()
        yield s
    finally:
        s.close()


@pytest.mark.parametrize("name", sorted(DOCUMENTS))
def test_the_server_places_a_diagnostic_where_lsp_counts_it(name: str, server: object) -> None:
    from lsp_raw import RawServer

    assert isinstance(server, RawServer)
    text = DOCUMENTS[name]
    uri = (ROOT / f"positions-{name}.keil").as_uri()
    diagnostics = server.open(uri, text)
    illegal = [d for d in diagnostics if d["code"] == "illegal/occupied"]
    assert len(illegal) == 1, diagnostics
    offset = illegal_offset(text)
    line, character = lsp_position(text, offset)
    assert illegal[0]["range"] == {
        "start": {"line": line, "character": character},
        "end": {"line": line, "character": character + 2},
    }
    # A hover on the first c3 of the second game shows the board after it.
    first = text.rindex("c3", 0, offset)
    answer = server.hover(uri, *lsp_position(text, first))
    assert answer["result"]["contents"]["value"].startswith("**After turn 1**"), answer
    # ... and on the illegal one, the position before it, named as the turn it is.
    answer = server.hover(uri, line, character + 1)
    assert "turn 2" in answer["result"]["contents"]["value"].lower(), answer
    server.notify("textDocument/didClose", {"textDocument": {"uri": uri}})


@pytest.mark.parametrize("char", ["\u2028", "\x0c", "\x85", "\r"], ids=["U+2028", "FF", "NEL", "CR"])
def test_an_editors_change_after_an_odd_character_lands_where_it_meant(char: str, server: object) -> None:
    """The editor sends an incremental change in LSP's lines: it must be
    applied to the same characters in the server's copy."""
    from lsp_raw import RawServer

    assert isinstance(server, RawServer)
    text = f'[Size "5"]\n[Event "x{char}y"]\n[Result "*"]\n\n1. c3 {{{char}}} c3 *\n'
    uri = (ROOT / f"positions-change-{ord(char):x}.keil").as_uri()
    assert any(d["code"] == "illegal/occupied" for d in server.open(uri, text))
    offset = illegal_offset(text)
    line, character = lsp_position(text, offset)
    change = {"range": {"start": {"line": line, "character": character}, "end": {"line": line, "character": character + 2}}, "text": "d3"}
    server.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [change]})
    while True:
        got = server.notification("textDocument/publishDiagnostics")
        if got["params"]["uri"] == uri:
            break
    assert [d for d in got["params"]["diagnostics"] if d["severity"] == 1] == []  # no error: c3 d3 is legal
    fixed = text[:offset] + "d3" + text[offset + 2 :]
    assert server.hover(uri, *lsp_position(fixed, offset))["result"]["contents"]["value"].startswith("**After turn 2**")
    server.notify("textDocument/didClose", {"textDocument": {"uri": uri}})


def test_an_editors_change_is_made_where_lsp_places_it() -> None:
    """The server's copy of a document takes each change at the characters
    the editor meant, whatever odd characters stand before it."""
    pytest.importorskip("pygls")
    import random

    from lsprotocol import types as lsp

    from keilref.lsp import _Document

    rng = random.Random(29)
    alphabet = ["a", "b", " ", "\n", "\r", "\r\n", "\u2028", "\x0c", "\x85", "\x1e", "\U0001d11e", "é"]
    for _ in range(300):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 30)))
        # Offsets inside a CRLF are no place LSP can name.
        offsets = [i for i in range(len(text) + 1) if not (0 < i < len(text) and text[i - 1 : i + 1] == "\r\n")]
        a, b = sorted(rng.sample(offsets, 2) if len(offsets) > 1 else offsets * 2)
        new = rng.choice(["", "X", "\n", "Y\u2028Z", "\r"])
        document = _Document("file:///change.keil", source=text)
        start, end = (lsp.Position(line=p[0], character=p[1]) for p in (lsp_position(text, a), lsp_position(text, b)))
        document.apply_change(lsp.TextDocumentContentChangePartial(range=lsp.Range(start=start, end=end), text=new))
        assert document.source == text[:a] + new + text[b:], (text, a, b, new)
