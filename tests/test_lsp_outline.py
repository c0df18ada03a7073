"""``keilref lsp``'s map of a document, through a real client over stdio:
its outline (a symbol a game, the verdict as detail), its folding ranges
and a code lens a game with its verdict, kept up as the games are edited."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

pytest.importorskip("pygls")

from lsprotocol import types as lsp  # noqa: E402

from keilref.lsp_outline import shape  # noqa: E402
from lsp_support import ROOT, Client, replacing  # noqa: E402
from test_sniffing import MATCH_TEXT  # noqa: E402

GAMES = ROOT / "records" / "games"
URI = (ROOT / "outline.keil").as_uri()
DOCUMENT = lsp.TextDocumentIdentifier(uri=URI)

MIXED = """\
; Five games, each with another status.
[Event "Winter Open"]
[Round "3"]
[Black "Ana Ruiz"]
[White "Ben Cho"]
[Rules "keil"]
[Size "4"]
[Komi "6"]
[Button "yes"]

1. d4 c5 2. e4 c4 3. d3 d5 4. e5 d6 5. c3 b4 6. e6 b3 7. b2 e7 8. f6 d7 9. f4 f3
10. e3 e2 11. d2 a2 12. c2 button 13. pass pass B+4.5

[Event "Winter Open"]
[Black "Cai Wen"]
[Rules "keil"]
[Size "5"]
[Komi "3"]
[Button "yes"]

1. e5 f3 2. c4 g6 3. e7 d2 4. d3 e3 5. f6 g5 6. f8 g8 7. e4 f4 8. f5 g7 9. f7 c2
10. d4 b2 11. b3 a2 12. c3 h9 13. f9 g9 14. e8 h8 15. e2 e1 16. e2 *

[Rules "keil"]
[Size "4"]
[Komi "6"]
[Button "yes"]

1. d4 c5 2. e4 c4 3. d3 d5 4. e5 d6 5. c3 b4 6. e6 b3 7. b2 e7 8. f6 d7 9. f4 f3
10. e3 e2 11. d2 a2 12. c2 button 13. pass pass B+5.5

[Round "4"]
[Rules "keil"]
[Size "7"]
[Komi "6"]

1. g7 h9 2. e8 hh6 *

[White "Dana Ortiz"]
[Rules "keil"]
[Size "5"]
[Komi "3"]
[Button "yes"]

1. e5 f3 *
"""


def run(body: Callable[[Client], Awaitable[None]], capabilities: lsp.ClientCapabilities | None = None) -> None:
    async def session() -> None:
        client = Client()
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
        await client.start_io(sys.executable, "-m", "keilref", "lsp", env=env)
        await client.initialize_async(
            lsp.InitializeParams(capabilities=capabilities or lsp.ClientCapabilities(), root_uri=ROOT.as_uri())
        )
        client.initialized(lsp.InitializedParams())
        try:
            await body(client)
        finally:
            await client.finish()

    asyncio.run(asyncio.wait_for(session(), 60))


TREE = lsp.ClientCapabilities(
    text_document=lsp.TextDocumentClientCapabilities(
        document_symbol=lsp.DocumentSymbolClientCapabilities(hierarchical_document_symbol_support=True)
    )
)


def span(a: int, b: int, c: int, d: int) -> tuple[int, int, int, int]:
    return a, b, c, d


def where(r: lsp.Range) -> tuple[int, int, int, int]:
    return r.start.line, r.start.character, r.end.line, r.end.character


def symbol_rows(symbols: Any) -> list[tuple[Any, ...]]:
    rows = []
    for s in symbols:
        rows.append((s.name, s.detail, s.kind, where(s.range), where(s.selection_range), symbol_rows(s.children or [])))
    return rows


def test_each_game_is_a_symbol_named_by_its_tags_with_its_verdict_as_detail() -> None:
    async def body(client: Client) -> None:
        await client.open(URI, MIXED)
        symbols = await client.text_document_document_symbol_async(lsp.DocumentSymbolParams(text_document=DOCUMENT))
        assert symbol_rows(symbols) == [
            (
                "Ana Ruiz – Ben Cho · Winter Open r3 · B+4.5",
                "ok B+4.5",
                lsp.SymbolKind.Object,
                span(0, 0, 11, 53),  # its leading comment included
                span(1, 0, 1, 21),  # its first tag's line
                [],
            ),
            (
                "Cai Wen – ? · Winter Open",
                "illegal: move 16 (Black) e2, turn 31: superko (repeats turn 29)",
                lsp.SymbolKind.Object,
                span(13, 0, 21, 68),
                span(13, 0, 13, 21),
                [],
            ),
            (
                "game 3 · B+5.5",
                "mismatch: computed B+4.5, declared B+5.5; wrong margin",
                lsp.SymbolKind.Object,
                span(23, 0, 29, 53),
                span(23, 0, 23, 14),
                [],
            ),
            (
                # A record that does not read gives its verdict no tags.
                "game 4",
                "error: found 'hh6'; expected a move, a comment or a result",
                lsp.SymbolKind.Object,
                span(31, 0, 36, 20),
                span(31, 0, 31, 11),
                [],
            ),
            (
                "? – Dana Ortiz",
                "unfinished: computed -, declared *; score so far W+3",
                lsp.SymbolKind.Object,
                span(38, 0, 44, 10),
                span(38, 0, 38, 20),
                [],
            ),
        ]
        # The details are keilref check's lines, after the game's number.
        checked = subprocess.run(
            [sys.executable, "-m", "keilref", "check", "-"], input=MIXED, capture_output=True, text=True, cwd=ROOT
        ).stdout.splitlines()
        said = [line.split(": ", 2)[2] for line in checked[:5]]
        assert [s.detail for s in symbols][1:] == said[1:]
        assert said[0] == "ok: computed B+4.5, declared B+4.5"

    run(body, TREE)


def test_a_client_without_a_tree_of_symbols_gets_the_games_each_verdict_after_its_name() -> None:
    async def body(client: Client) -> None:
        await client.open(URI, MIXED)
        symbols = await client.text_document_document_symbol_async(lsp.DocumentSymbolParams(text_document=DOCUMENT))
        assert [(s.name, s.kind, where(s.location.range)) for s in symbols] == [
            ("Ana Ruiz – Ben Cho · Winter Open r3 · B+4.5 (ok B+4.5)", lsp.SymbolKind.Object, span(0, 0, 11, 53)),
            (
                "Cai Wen – ? · Winter Open (illegal: move 16 (Black) e2, turn 31: superko (repeats turn 29))",
                lsp.SymbolKind.Object,
                span(13, 0, 21, 68),
            ),
            ("game 3 · B+5.5 (mismatch: computed B+4.5, declared B+5.5; wrong margin)", lsp.SymbolKind.Object, span(23, 0, 29, 53)),
            ("game 4 (error: found 'hh6'; expected a move, a comment or a result)", lsp.SymbolKind.Object, span(31, 0, 36, 20)),
            ("? – Dana Ortiz (unfinished: computed -, declared *; score so far W+3)", lsp.SymbolKind.Object, span(38, 0, 44, 10)),
        ]

    run(body)


ANNOTATED = (GAMES / "size5-keil-teaching-nested-variations.keil").read_text() + "\n" + (
    GAMES / "size7-keil-invasion-annotated.keil"
).read_text()


def test_games_tags_variations_and_comments_fold() -> None:
    async def body(client: Client) -> None:
        await client.open(URI, ANNOTATED)
        found = await client.text_document_folding_range_async(lsp.FoldingRangeParams(text_document=DOCUMENT))
        comment = lsp.FoldingRangeKind.Comment
        assert [(f.start_line, f.end_line, f.kind) for f in found] == [
            (0, 27, None),  # the first game, from its leading comment to its result
            (0, 1, comment),  # two ';' lines
            (2, 13, None),  # its tags
            # The variation opened at 22:44 ends its line; those at 17:15 and
            # 18:37 close on a line the main line goes on: folding them would hide it.
            (21, 22, None),
            (29, 30, comment),  # the next game's leading comment: of no game's fold
            (31, 60, None),
            (31, 43, None),
            (44, 45, comment),  # of the comments over two lines, the one that ends its line
        ]
        symbols = await client.text_document_document_symbol_async(lsp.DocumentSymbolParams(text_document=DOCUMENT))
        event = "Teaching game: variations inside variations, each replayed from the turn it replaces"
        array = lsp.SymbolKind.Array
        assert symbol_rows(symbols) == [
            (
                f"Antía Vilar – Roi Pazos · {event} r1 · B+4.5",
                "ok B+4.5",
                lsp.SymbolKind.Object,
                span(0, 0, 27, 73),
                span(2, 0, 2, 94),
                [
                    # Each variation inside the one it is written in, named as show --line takes it.
                    (
                        "variation at 17:15", None, array, span(16, 14, 17, 35), span(16, 14, 16, 15),
                        [("variation at 18:1", None, array, span(17, 0, 17, 34), span(17, 0, 17, 1), [])],
                    ),
                    ("variation at 18:37", None, array, span(17, 36, 18, 20), span(17, 36, 17, 37), []),
                    (
                        "variation at 22:44", None, array, span(21, 43, 22, 64), span(21, 43, 21, 44),
                        [("variation at 23:25", None, array, span(22, 24, 22, 63), span(22, 24, 22, 25), [])],
                    ),
                ],
            ),
            (
                "Iria Souto – Marcos Lage · Keil club championship: annotated game with full tags r5 · B+3.5",
                "ok B+3.5",
                lsp.SymbolKind.Object,
                span(31, 0, 60, 29),
                span(31, 0, 31, 63),
                [],
            ),
        ]

    run(body, TREE)

    run(body, TREE)


def test_a_variation_with_an_illegal_turn_says_which_as_its_detail() -> None:
    async def body(client: Client) -> None:
        text = (ROOT / "records" / "faults" / "warning-variation-turn-occupied.keil").read_text()
        await client.open(URI, "\n\n" + text)  # two lines down from where a file would have it
        (game,) = await client.text_document_document_symbol_async(lsp.DocumentSymbolParams(text_document=DOCUMENT))
        assert game.detail == "ok W+8.5"
        assert [(v.name, v.detail, where(v.range)) for v in game.children] == [
            ("variation at 10:53", None, span(9, 52, 10, 64)),
            ("variation at 13:15", "illegal: move 10 (White) c3, turn 20: occupied", span(12, 14, 12, 62)),
        ]

    run(body, TREE)


def lens_rows(lenses: Any) -> list[tuple[int, int, str]]:
    return [(lens.range.start.line, lens.range.start.character, lens.command.title) for lens in lenses]


def test_each_game_has_its_verdict_as_a_code_lens_kept_up_as_it_is_edited() -> None:
    async def body(client: Client) -> None:
        await client.open(URI, MIXED)
        asked = lsp.CodeLensParams(text_document=DOCUMENT)
        before = [
            (1, 0, "ok B+4.5"),  # at the first tag, under the game's leading comment
            (13, 0, "illegal at move 16"),
            (23, 0, "mismatch: computed B+4.5, declared B+5.5; wrong margin"),
            (31, 0, "error: found 'hh6'; expected a move, a comment or a result"),
            (38, 0, "unfinished: score so far W+3"),
        ]
        assert lens_rows(await client.text_document_code_lens_async(asked)) == before
        # Black's second turn on its first: asked at once, the lenses wait for the check of the edit.
        client.text_document_did_change(
            lsp.DidChangeTextDocumentParams(
                text_document=lsp.VersionedTextDocumentIdentifier(uri=URI, version=2),
                content_changes=[replacing(10, 12, 14, "d4")],
            )
        )
        after = await client.text_document_code_lens_async(asked)
        assert lens_rows(after) == [(1, 0, "illegal at move 2"), *before[1:]]
        assert all(lens.command.command == "" for lens in after)  # a title to read, no command to run
        # And back: the game passes again.
        await client.change(URI, 3, [replacing(10, 12, 14, "e4")])
        assert lens_rows(await client.text_document_code_lens_async(asked)) == before
        # A line added above moves every lens below it.
        await client.change(URI, 4, [replacing(0, 0, 0, "; one more line\n")])
        moved = [(line + 1, column, title) for line, column, title in before]
        assert lens_rows(await client.text_document_code_lens_async(asked)) == moved

    run(body)


def test_the_map_of_a_document_never_opened_is_none() -> None:
    async def body(client: Client) -> None:
        other = lsp.TextDocumentIdentifier(uri=(ROOT / "never-opened.keil").as_uri())
        assert await client.text_document_document_symbol_async(lsp.DocumentSymbolParams(text_document=other)) is None
        assert await client.text_document_folding_range_async(lsp.FoldingRangeParams(text_document=other)) is None
        assert await client.text_document_code_lens_async(lsp.CodeLensParams(text_document=other)) is None

    run(body)


def test_past_the_clients_limit_of_folding_ranges_the_games_come_first() -> None:
    limited = lsp.ClientCapabilities(
        text_document=lsp.TextDocumentClientCapabilities(folding_range=lsp.FoldingRangeClientCapabilities(range_limit=3))
    )

    async def body(client: Client) -> None:
        await client.open(URI, ANNOTATED)
        found = await client.text_document_folding_range_async(lsp.FoldingRangeParams(text_document=DOCUMENT))
        assert [(f.start_line, f.end_line, f.kind) for f in found] == [(0, 27, None), (0, 1, "comment"), (31, 60, None)]

    run(body, limited)


def test_a_games_shape_where_its_text_is_odd() -> None:
    # A variation that nothing closes runs to the game's end; a CRLF is no part of the first tag's line.
    text = '[Size "5"]\r\n[Rules "keil"]\r\n\r\n1. c3 (1. d3 d4\r\n2. e4 *\r\n'
    found = shape(text)
    assert found.head == (0, 10)
    assert found.tags == (0, 26)
    assert [(v.start, v.end, v.parent) for v in found.variations] == [(36, len(text.rstrip()), None)]
    assert found.content == (0, len(text.rstrip()))
    # Tags alone, then the next game's leading comment after a blank line: the game ends at its tags.
    tags_only = '\n[Size "5"] ; size\n; still this game\n\n; the next game\n'
    found = shape(tags_only)
    assert found.content == (1, tags_only.index("\n\n"))
    assert found.comments == ((12, tags_only.index("\n\n")), (tags_only.index("; the"), len(tags_only) - 1))
    # No tag at all: no head, and the game is its text.
    assert shape("  1. c3 d3 *  ").head is None
    assert shape("  1. c3 d3 *  ").content == (2, 12)


def test_a_match_of_abstract_games_is_one_game_whose_braces_are_no_comments() -> None:
    match = (ROOT / "club.moves.json").as_uri()
    identifier = lsp.TextDocumentIdentifier(uri=match)

    async def body(client: Client) -> None:
        await client.open(match, "\ufeff" + MATCH_TEXT)
        symbols = await client.text_document_document_symbol_async(lsp.DocumentSymbolParams(text_document=identifier))
        # From its "{" (after the byte order mark) to its last "}".
        assert symbol_rows(symbols) == [
            (
                "ana – ben",
                "unfinished: computed -, declared *; score so far W+6",
                lsp.SymbolKind.Object,
                span(0, 1, 41, 1),
                span(0, 1, 41, 1),
                [],
            )
        ]
        folds = await client.text_document_folding_range_async(lsp.FoldingRangeParams(text_document=identifier))
        assert [(f.start_line, f.end_line, f.kind) for f in folds] == [(0, 41, None)]

    run(body, TREE)


LENS_REFRESH = lsp.ClientCapabilities(
    workspace=lsp.WorkspaceClientCapabilities(code_lens=lsp.CodeLensWorkspaceClientCapabilities(refresh_support=True))
)


def test_an_editor_that_takes_a_refresh_is_asked_for_the_lenses_again_when_a_verdict_changes() -> None:
    """An editor that asks for lenses only when told is told once the check
    of an edit ends with another verdict; an edit that changes none (a
    comment) tells it nothing."""
    refreshed: asyncio.Queue[None] = asyncio.Queue()

    async def body(client: Client) -> None:
        @client.feature(lsp.WORKSPACE_CODE_LENS_REFRESH)
        def _refresh(params: Any) -> None:
            refreshed.put_nowait(None)

        await client.open(URI, MIXED)
        asked = lsp.CodeLensParams(text_document=DOCUMENT)
        assert lens_rows(await client.text_document_code_lens_async(asked))[0] == (1, 0, "ok B+4.5")
        await client.change(URI, 2, [replacing(0, 2, 6, "Six")])
        await asyncio.sleep(1.0)
        assert refreshed.empty()
        await client.change(URI, 3, [replacing(10, 12, 14, "d4")])
        await asyncio.wait_for(refreshed.get(), 10)
        assert lens_rows(await client.text_document_code_lens_async(asked))[0] == (1, 0, "illegal at move 2")

    run(body, LENS_REFRESH)
