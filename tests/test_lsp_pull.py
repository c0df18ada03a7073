"""Pull diagnostics (``textDocument/diagnostic``) through a real client: the
same diagnostics a client that cannot pull is pushed, an unchanged list
answered ``unchanged``, and nothing pushed to a client that pulls."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

pytest.importorskip("pygls")

from lsprotocol import types as lsp  # noqa: E402

from keilref import lsp as keil_lsp  # noqa: E402
from lsp_support import ROOT, Client, initialize_in_process, replacing  # noqa: E402

FAULTS = ROOT / "records" / "faults"
URI = (ROOT / "pulled.keil").as_uri()
ILLEGAL = '[Size "5"]\n[Rules "keil"]\n[Komi "0"]\n[Button "yes"]\n\n1. c3 c3 *\n'
OCCUPIED = lsp.Diagnostic(
    range=lsp.Range(start=lsp.Position(line=5, character=6), end=lsp.Position(line=5, character=8)),
    message="game 1: illegal: move 1 (White) c3, turn 2: occupied",
    severity=lsp.DiagnosticSeverity.Error,
    code="illegal/occupied",
    source="keilref",
)

UNFINISHED = lsp.Diagnostic(  # the game once its second turn is legal: the record ends on '*'
    range=lsp.Range(start=lsp.Position(line=0, character=0), end=lsp.Position(line=0, character=10)),
    message="game 1: unfinished: the game did not end; score so far Draw",
    severity=lsp.DiagnosticSeverity.Information,
    code="unfinished",
    source="keilref",
)


class PullClient(Client):
    """A client that says it pulls diagnostics, as VS Code's and Neovim 0.10's do."""

    def __init__(self) -> None:
        pulling = lsp.TextDocumentClientCapabilities(diagnostic=lsp.DiagnosticClientCapabilities())
        super().__init__(lsp.ClientCapabilities(text_document=pulling))
        self.offered: lsp.ServerCapabilities | None = None

    async def initialize_async(self, params: lsp.InitializeParams) -> lsp.InitializeResult:
        result: lsp.InitializeResult = await super().initialize_async(params)
        self.offered = result.capabilities
        return result

    def opened(self, uri: str, text: str) -> None:
        """Open a document; nothing is pushed to wait for."""
        item = lsp.TextDocumentItem(uri=uri, language_id="keil", version=1, text=text)
        self.text_document_did_open(lsp.DidOpenTextDocumentParams(text_document=item))

    def changed(self, uri: str, version: int, edit: lsp.TextDocumentContentChangePartial) -> None:
        document = lsp.VersionedTextDocumentIdentifier(uri=uri, version=version)
        self.text_document_did_change(lsp.DidChangeTextDocumentParams(text_document=document, content_changes=[edit]))

    async def pull(self, uri: str = URI, previous: str | None = None) -> lsp.DocumentDiagnosticReport:
        params = lsp.DocumentDiagnosticParams(text_document=lsp.TextDocumentIdentifier(uri=uri), previous_result_id=previous)
        report: lsp.DocumentDiagnosticReport = await self.text_document_diagnostic_async(params)
        return report


def run(body: Callable[[PullClient], Awaitable[None]]) -> None:
    async def session() -> None:
        client = PullClient()
        await client.start()
        try:
            await body(client)
            assert client.diagnostics == {}  # nothing pushed to a client that pulls
        finally:
            await client.finish()

    asyncio.run(asyncio.wait_for(session(), 60))


def full(items: list[lsp.Diagnostic], result_id: str | None) -> lsp.RelatedFullDocumentDiagnosticReport:
    """A whole report as the client reads it (lsprotocol reads an array as a tuple)."""
    return lsp.RelatedFullDocumentDiagnosticReport(items=tuple(items), result_id=result_id)  # type: ignore[arg-type]


def test_the_server_offers_pull_diagnostics_of_each_document_alone() -> None:
    async def body(client: PullClient) -> None:
        assert client.offered is not None
        assert client.offered.diagnostic_provider == lsp.DiagnosticOptions(
            identifier="keilref", inter_file_dependencies=False, workspace_diagnostics=False
        )

    run(body)


def test_a_pull_answers_exactly_what_is_pushed_to_a_client_that_cannot_pull() -> None:
    texts = {URI: ILLEGAL} | {path.as_uri(): path.read_bytes().decode("utf-8", "replace") for path in sorted(FAULTS.glob("*.keil"))}

    async def body(client: PullClient) -> None:
        pushed = Client()
        await pushed.start()
        try:
            for uri, text in texts.items():
                client.opened(uri, text)
                report = await client.pull(uri)
                expected = await pushed.open(uri, text)
                assert report == full(expected, report.result_id), uri
                assert report.result_id is not None
        finally:
            await pushed.finish()
        first = await client.pull(URI)
        assert first == full([OCCUPIED], first.result_id)
        superko = await client.pull((FAULTS / "illegal-superko.keil").as_uri())
        assert isinstance(superko, lsp.RelatedFullDocumentDiagnosticReport)
        assert [d.code for d in superko.items] == ["illegal/superko"]
        assert superko.items[0].related_information  # the turn it repeats, as pushed

    run(body)


def test_an_unchanged_list_is_answered_unchanged_and_a_changed_one_whole() -> None:
    async def body(client: PullClient) -> None:
        client.opened(URI, ILLEGAL)
        first = await client.pull()
        assert first == full([OCCUPIED], first.result_id) and first.result_id is not None
        assert await client.pull(previous=first.result_id) == lsp.RelatedUnchangedDocumentDiagnosticReport(
            result_id=first.result_id
        )
        client.changed(URI, 2, replacing(5, 6, 8, "d3"))  # legal now
        fixed = await client.pull(previous=first.result_id)
        assert fixed == full([UNFINISHED], fixed.result_id) and fixed.result_id not in (None, first.result_id)
        client.changed(URI, 3, replacing(5, 0, 0, "{a note} "))  # the text changes, its diagnostics do not
        assert await client.pull(previous=fixed.result_id) == lsp.RelatedUnchangedDocumentDiagnosticReport(
            result_id=fixed.result_id
        )
        # A client that holds an older list is sent the present one whole, under its id.
        assert await client.pull(previous=first.result_id) == full([UNFINISHED], fixed.result_id)

    run(body)


def test_a_closed_document_is_pulled_empty_and_nothing_is_pushed() -> None:
    async def body(client: PullClient) -> None:
        client.opened(URI, ILLEGAL)
        assert list((await client.pull()).items) == [OCCUPIED]
        client.text_document_did_close(lsp.DidCloseTextDocumentParams(text_document=lsp.TextDocumentIdentifier(uri=URI)))
        assert await client.pull() == full([], None)
        never = (ROOT / "never-opened.keil").as_uri()
        assert await client.pull(never) == full([], None)

    run(body)


GOOD = '[Size "5"]\n[Rules "keil"]\n[Komi "0"]\n[Button "yes"]\n\n1. c3 d3 *\n\n'
BAD = GOOD.replace("c3 d3", "c3 c3")


def numbered(*texts: str) -> str:
    """The games, each made different from the others by a Round tag (the same bytes are checked once)."""
    return "".join(t.replace("[Size", f'[Round "{n}"]\n[Size') for n, t in enumerate(texts, 1))


def test_a_pull_checks_in_rounds_answering_between_them_and_ends_on_the_present_text(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """In process, one game a round: what comes between rounds runs, and an
    edit made meanwhile is what the pull answers for."""
    monkeypatch.setattr(keil_lsp, "ROUND", 0)
    server = keil_lsp.KeilServer()
    initialize_in_process(server, lsp.InitializeParams(capabilities=lsp.ClientCapabilities(), root_uri=ROOT.as_uri()))
    uri = (ROOT / "rounds.keil").as_uri()
    before, after = numbered(*[GOOD] * 6), numbered(*[GOOD] * 5, BAD)
    server.workspace.put_text_document(lsp.TextDocumentItem(uri=uri, language_id="keil", version=1, text=before))
    between: list[int] = []

    async def meanwhile() -> None:
        for n in range(3):
            between.append(len(server.documents[uri].progress.games))  # type: ignore[union-attr]
            await asyncio.sleep(0)
        change = lsp.TextDocumentContentChangeWholeDocument(text=after)
        server.workspace.update_text_document(lsp.VersionedTextDocumentIdentifier(uri=uri, version=2), change)

    async def both() -> list[lsp.Diagnostic] | None:
        pulled = asyncio.ensure_future(keil_lsp._checked_whole(server, uri))
        await asyncio.sleep(0)  # the first round
        await meanwhile()
        return await pulled

    found = asyncio.run(both())
    assert between == [1, 2, 3]  # a game a round, and this ran between them
    assert found is not None
    assert [d.range.start.line for d in found if d.code == "illegal/occupied"] == [6 + 8 * 5]
    fresh = keil_lsp.KeilServer()
    initialize_in_process(fresh, lsp.InitializeParams(capabilities=lsp.ClientCapabilities(), root_uri=ROOT.as_uri()))
    fresh.workspace.put_text_document(lsp.TextDocumentItem(uri=uri, language_id="keil", version=1, text=after))
    assert found == asyncio.run(keil_lsp._checked_whole(fresh, uri))
    assert asyncio.run(keil_lsp._checked_whole(fresh, (ROOT / "not-open.keil").as_uri())) is None
