"""A real LSP client for the tests and the benchmark: pygls's own, talking
to ``python -m keilref lsp`` over stdio."""

from __future__ import annotations

import asyncio
import os
import sys
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from lsprotocol import types as lsp
from pygls.lsp.client import LanguageClient

ROOT = Path(__file__).resolve().parent.parent


class Client(LanguageClient):
    """Keeps what the server sends unasked: diagnostics and log lines."""

    def __init__(self, capabilities: lsp.ClientCapabilities | None = None) -> None:
        super().__init__("keilref-tests", "1")
        self.capabilities = lsp.ClientCapabilities() if capabilities is None else capabilities
        self.diagnostics: dict[str, list[lsp.Diagnostic]] = {}
        self.arrived: dict[str, asyncio.Event] = defaultdict(asyncio.Event)
        self.logs: list[str] = []

        @self.feature(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def _published(params: lsp.PublishDiagnosticsParams) -> None:
            self.diagnostics[params.uri] = list(params.diagnostics)
            self.arrived[params.uri].set()

        @self.feature(lsp.WINDOW_LOG_MESSAGE)
        def _logged(params: lsp.LogMessageParams) -> None:
            self.logs.append(params.message)

    async def start(self, command: Sequence[str] | None = None) -> None:
        """Start this checkout's server, or ``command`` as it is (a benchmark
        starts the keilref installed in its Python)."""
        if command is None:
            env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
            await self.start_io(sys.executable, "-m", "keilref", "lsp", env=env)
        else:
            await self.start_io(*command)
        await self.initialize_async(
            lsp.InitializeParams(capabilities=self.capabilities, root_uri=ROOT.as_uri())
        )
        self.initialized(lsp.InitializedParams())

    async def finish(self) -> None:
        await self.shutdown_async(None)
        self.exit(None)
        await self.stop()

    async def open(self, uri: str, text: str, timeout: float = 60) -> list[lsp.Diagnostic]:
        self.arrived[uri].clear()
        self.text_document_did_open(
            lsp.DidOpenTextDocumentParams(text_document=lsp.TextDocumentItem(uri=uri, language_id="keil", version=1, text=text))
        )
        return await self.wait(uri, timeout)

    async def change(self, uri: str, version: int, edits: list[Any], timeout: float = 60) -> list[lsp.Diagnostic]:
        self.arrived[uri].clear()
        self.text_document_did_change(
            lsp.DidChangeTextDocumentParams(
                text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=version), content_changes=edits
            )
        )
        return await self.wait(uri, timeout)

    async def wait(self, uri: str, timeout: float = 60) -> list[lsp.Diagnostic]:
        await asyncio.wait_for(self.arrived[uri].wait(), timeout)
        return self.diagnostics[uri]


def initialize_in_process(server: Any, params: lsp.InitializeParams) -> None:
    """Do to ``server`` (a ``KeilServer`` spoken to in process) what a
    client's ``initialize`` does: pygls runs its handler as a generator,
    which yields only to a handler of the server's own (it has none)."""
    for _ in server.protocol.lsp_initialize(params):
        raise AssertionError("the server handles initialize itself")


def replacing(line: int, character: int, end_character: int, text: str) -> lsp.TextDocumentContentChangePartial:
    """An incremental change of one line's span."""
    return lsp.TextDocumentContentChangePartial(
        range=lsp.Range(start=lsp.Position(line=line, character=character), end=lsp.Position(line=line, character=end_character)),
        text=text,
    )
