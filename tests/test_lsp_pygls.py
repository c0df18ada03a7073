"""``keilref lsp`` on pygls 2: a document whose URI is percent-escaped is
found (pygls keeps documents under the unquoted URI), and with pygls 1 the
command says what to install rather than failing on an import."""

from __future__ import annotations

import asyncio
import subprocess
import sys

import pytest

pytest.importorskip("pygls")

from lsprotocol import types as lsp  # noqa: E402

from lsp_support import ROOT, Client  # noqa: E402

ESCAPED = (ROOT / "a game with spaces.keil").as_uri()
ILLEGAL = '[Size "5"]\n[Rules "keil"]\n[Komi "0"]\n[Button "yes"]\n\n1. c3 c3 *\n'


def test_a_percent_escaped_uri_is_checked_hovered_and_cleared() -> None:
    assert "%20" in ESCAPED

    async def session() -> None:
        client = Client()
        await client.start()
        try:
            diagnostics = await client.open(ESCAPED, ILLEGAL)
            assert diagnostics == [
                lsp.Diagnostic(
                    range=lsp.Range(start=lsp.Position(line=5, character=6), end=lsp.Position(line=5, character=8)),
                    message="game 1: illegal: move 1 (White) c3, turn 2: occupied",
                    severity=lsp.DiagnosticSeverity.Error,
                    code="illegal/occupied",
                    source="keilref",
                )
            ]
            at = lsp.HoverParams(text_document=lsp.TextDocumentIdentifier(uri=ESCAPED), position=lsp.Position(line=5, character=3))
            hover = await client.text_document_hover_async(at)
            assert hover is not None and isinstance(hover.contents, lsp.MarkupContent)
            assert hover.contents.value.startswith("**After turn 1**: White to move")
            client.arrived[ESCAPED].clear()
            client.text_document_did_close(lsp.DidCloseTextDocumentParams(text_document=lsp.TextDocumentIdentifier(uri=ESCAPED)))
            assert await client.wait(ESCAPED) == []
        finally:
            await client.finish()

    asyncio.run(asyncio.wait_for(session(), 60))


def test_with_pygls_1_the_command_says_what_to_install() -> None:
    # pygls 1 has no pygls.lsp.server: the module pygls 2's server lives in.
    code = (
        "import sys; sys.modules['pygls.lsp.server'] = None; sys.argv = ['keilref', 'lsp']; "
        "from keilref.cli import main; main()"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 2
    assert done.stderr == "keilref: the language server needs pygls 2: pip install 'keilref[lsp]'\n"
