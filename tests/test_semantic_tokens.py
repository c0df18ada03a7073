"""Semantic tokens through a real LSP client: every class of a record where
the record grammar reads it, the illegal turns marked, in full, by range and
as a delta after an edit."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

pytest.importorskip("pygls")

from lsprotocol import types as lsp  # noqa: E402

from lsp_support import ROOT, Client, replacing  # noqa: E402
from semantic_support import Row, decoded, painted  # noqa: E402

URI = (ROOT / "highlighted.keil").as_uri()

ANNOTATED = """\
; Clocks, glyphs, variations and a turn refused in one: every class.
[Event "Keil café"]
[Rules "keil"]
[Size "4"]
[Komi "3"]
[Button "yes"]
[TimeControl "300+5"]

1. a4 {[%clk 0:04:58]} b4! {captures a4 [%clk 0:04:55] \U0001d11e} 2. c4?! $14
d7 (2... d6 $2 {or here} (2... c4)) 3. d6 ; three
3... d6 *
"""

ANNOTATED_PAINTED = """\
; Clocks, glyphs, variations and a turn refused in one: every class.
CCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCC
[Event "Keil café"]
 TTTTT VVVVVVVVVVV
[Rules "keil"]
 TTTTT VVVVVV
[Size "4"]
 TTTT VVV
[Komi "3"]
 TTTT VVV
[Button "yes"]
 TTTTTT VVVVV
[TimeControl "300+5"]
 TTTTTTTTTTT VVVVVVV


1. a4 {[%clk 0:04:58]} b4! {captures a4 [%clk 0:04:55] \U0001d11e} 2. c4?! $14
NN PP CLLLLLLLLLLLLLLC PPG CCCCCCCCCCCCCLLLLLLLLLLLLLLCCCC NN PPGG GGG
d7 (2... d6 $2 {or here} (2... c4)) 3. d6 ; three
PP pNNNN PP GG CCCCCCCCC pNNNN XXpp NN PP CCCCCCC
3... d6 *
NNNN XX R

"""

CORNER_KO_PAINTED = """\
[Event "Captures and a ko fought by the rules on size 5"]
 TTTTT VVVVVVVVVVVVVVVVVVVVVVVVVVVVVVVVVVVVVVVVVVVVVVVVV
[Site "Lugo"]
 TTTT VVVVVV
[Date "2026.06.20"]
 TTTT VVVVVVVVVVVV
[Round "2"]
 TTTTT VVV
[Black "Uxia Rial"]
 TTTTT VVVVVVVVVVV
[White "Breixo Mato"]
 TTTTT VVVVVVVVVVVVV
[Rules "keil"]
 TTTTT VVVVVV
[Size "5"]
 TTTT VVV
[Komi "3"]
 TTTT VVV
[Button "yes"]
 TTTTTT VVVVV
[Result "W+5.5"]
 TTTTTT VVVVVVV


1. e5 f3 2. c4 g6 3. e7 d2 4. d3 e3 5. f6 g5 6. f8 g8 7. e4 f4 8. f5 g7 9. f7 c2
NN PP PP NN PP PP NN PP PP NN PP PP NN PP PP NN PP PP NN PP PP NN PP PP NN PP PP
10. d4 b2 11. b3 a2 12. c3 h9 13. f9 g9 14. e8 h8 15. e2
NNN PP PP NNN PP PP NNN PP PP NNN PP PP NNN PP PP NNN PP
{Black invades the corner} 15... e1 {captures e2: a ko. Black may not
CCCCCCCCCCCCCCCCCCCCCCCCCC NNNNN PP CCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCC
retake at once, since that would repeat the position after turn 29.} 16. h7
CCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCC NNN PP
{a ko threat: i9 would capture five stones} 16... i7 {captures h7} 17. e2
CCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCC NNNNN PP CCCCCCCCCCCCC NNN PP
{retakes the ko, legal now that the board has changed} 17... c1 18. h6 i6
CCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCC NNNNN PP NNN PP PP
{captures h6} 19. button e1 {White retakes, again after an exchange elsewhere}
CCCCCCCCCCCCC NNN KKKKKK PP CCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCC
20. pass e2 {and fills the ko} 21. pass pass W+5.5
NNN KKKK PP CCCCCCCCCCCCCCCCCC NNN KKKK KKKK RRRRR

"""


class TokenClient(Client):  # type: ignore[misc]
    """A client that says it takes a refresh of the tokens, and counts them."""

    def __init__(self, encodings: list[lsp.PositionEncodingKind] | None = None) -> None:
        super().__init__()
        self.encodings = encodings
        self.encoding: str | None = None
        self.legend: lsp.SemanticTokensLegend | None = None
        self.options: lsp.SemanticTokensOptions | None = None
        self.refreshed = asyncio.Event()

        @self.feature(lsp.WORKSPACE_SEMANTIC_TOKENS_REFRESH)
        def _refresh(params: Any) -> None:
            self.refreshed.set()

    async def initialize_async(self, params: lsp.InitializeParams) -> lsp.InitializeResult:
        params.capabilities = lsp.ClientCapabilities(
            workspace=lsp.WorkspaceClientCapabilities(
                semantic_tokens=lsp.SemanticTokensWorkspaceClientCapabilities(refresh_support=True)
            ),
            general=lsp.GeneralClientCapabilities(position_encodings=self.encodings),
        )
        result: lsp.InitializeResult = await super().initialize_async(params)
        self.encoding = result.capabilities.position_encoding
        provider = result.capabilities.semantic_tokens_provider
        assert isinstance(provider, lsp.SemanticTokensOptions)
        self.options, self.legend = provider, provider.legend
        return result

    def rows(self, tokens: lsp.SemanticTokens) -> list[Row]:
        assert self.legend is not None
        return decoded(tokens.data, self.legend.token_types, self.legend.token_modifiers)

    async def full(self, uri: str = URI) -> lsp.SemanticTokens:
        params = lsp.SemanticTokensParams(text_document=lsp.TextDocumentIdentifier(uri=uri))
        tokens: lsp.SemanticTokens = await self.text_document_semantic_tokens_full_async(params)
        return tokens


def run(body: Callable[[TokenClient], Awaitable[None]], encodings: list[lsp.PositionEncodingKind] | None = None) -> None:
    async def session() -> None:
        client = TokenClient(encodings)
        await client.start()
        try:
            await body(client)
        finally:
            await client.finish()

    asyncio.run(asyncio.wait_for(session(), 60))


def close(client: TokenClient, uri: str = URI) -> None:
    client.text_document_did_close(lsp.DidCloseTextDocumentParams(text_document=lsp.TextDocumentIdentifier(uri=uri)))


def test_the_legend_and_what_is_offered() -> None:
    async def body(client: TokenClient) -> None:
        assert client.legend is not None and client.options is not None
        assert list(client.legend.token_types) == [
            "property", "string", "number", "variable", "keyword", "enumMember",
            "comment", "decorator", "operator", "parenthesis",
        ]
        assert list(client.legend.token_modifiers) == ["illegal"]
        assert client.options.range is True
        assert client.options.full == lsp.SemanticTokensFullDelta(delta=True)

    run(body)


def test_a_whole_record() -> None:
    text = (ROOT / "records" / "games" / "size5-keil-corner-ko.keil").read_text(encoding="utf-8")

    async def body(client: TokenClient) -> None:
        await client.open(URI, text)
        assert painted(text, client.rows(await client.full())) == CORNER_KO_PAINTED

    run(body)


def test_every_class_and_the_illegal_turns() -> None:
    """Clocks inside comments, glyphs of both kinds, nested variations, a
    character outside the BMP (two UTF-16 units), and the illegal turns of
    the main line and of a variation marked."""

    async def body(client: TokenClient) -> None:
        await client.open(URI, ANNOTATED)
        assert painted(ANNOTATED, client.rows(await client.full())) == ANNOTATED_PAINTED

    run(body)


def test_a_range_inside_a_comment() -> None:
    """A range that starts inside a comment of several lines gets that
    comment's lines as comment: the words are read from the game's start."""
    text = (ROOT / "records" / "games" / "size5-keil-corner-ko.keil").read_text(encoding="utf-8")

    async def body(client: TokenClient) -> None:
        await client.open(URI, text)
        whole = client.rows(await client.full())
        asked = lsp.Range(start=lsp.Position(line=15, character=3), end=lsp.Position(line=17, character=0))
        params = lsp.SemanticTokensRangeParams(text_document=lsp.TextDocumentIdentifier(uri=URI), range=asked)
        rows = client.rows(await client.text_document_semantic_tokens_range_async(params))
        assert rows == [row for row in whole if row[0] in (15, 16)]
        assert rows[0] == (15, 0, 68, "comment", ())

    run(body)


def test_a_delta_after_an_edit_and_the_marks_refreshed() -> None:
    """After an edit that makes the illegal turn legal: the server asks the
    editor to ask again (the marks changed), and the delta from the tokens
    it had makes the new ones."""

    async def body(client: TokenClient) -> None:
        await client.open(URI, ANNOTATED)
        before = await client.full()
        assert any("illegal" in row[4] for row in client.rows(before) if row[0] == 10)
        client.refreshed.clear()
        await client.change(URI, 2, [replacing(10, 5, 7, "a1")])
        await asyncio.wait_for(client.refreshed.wait(), 10)
        params = lsp.SemanticTokensDeltaParams(
            text_document=lsp.TextDocumentIdentifier(uri=URI), previous_result_id=before.result_id or ""
        )
        delta = await client.text_document_semantic_tokens_full_delta_async(params)
        assert isinstance(delta, lsp.SemanticTokensDelta) and delta.edits
        data = list(before.data)
        for edit in sorted(delta.edits, key=lambda e: e.start, reverse=True):
            data[edit.start : edit.start + edit.delete_count] = edit.data or []
        after = await client.full()
        assert data == list(after.data)
        rows = client.rows(after)
        assert [row for row in rows if row[0] == 10] == [
            (10, 0, 4, "number", ()), (10, 5, 2, "variable", ()), (10, 8, 1, "enumMember", ()),
        ]
        # A result id that is not the last sent gets every token.
        params.previous_result_id = "stale"
        again = await client.text_document_semantic_tokens_full_delta_async(params)
        assert isinstance(again, lsp.SemanticTokens) and again.data == after.data

    run(body)


def test_columns_in_the_units_the_editor_chose() -> None:
    """An editor that counts columns in UTF-8 bytes gets the tokens after
    'é' (two bytes) and a clef (four) where its bytes put them."""
    text = '[Event "é"] 1. a4 {\U0001d11e} b4\n'

    async def body(client: TokenClient) -> None:
        assert client.encoding == lsp.PositionEncodingKind.Utf8
        await client.open(URI, text)
        assert client.rows(await client.full()) == [
            (0, 1, 5, "property", ()),
            (0, 7, 4, "string", ()),
            (0, 13, 2, "number", ()),
            (0, 16, 2, "variable", ()),
            (0, 19, 6, "comment", ()),
            (0, 26, 2, "variable", ()),
        ]

    run(body, [lsp.PositionEncodingKind.Utf8])


def test_a_document_never_opened_has_no_tokens() -> None:
    async def body(client: TokenClient) -> None:
        assert await client.full((ROOT / "never-opened.keil").as_uri()) is None

    run(body)
