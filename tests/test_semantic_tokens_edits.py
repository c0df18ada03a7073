"""The semantic tokens of an edited document, made from those of its text
before the edit (keilref.lsp_tokens.Highlights), are those of its text read
whole; and the deltas between them make one from the other."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

pytest.importorskip("lsprotocol")

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from lsprotocol import types as lsp  # noqa: E402

from keilref.lsp_tokens import Highlights, located, lsp_line_starts  # noqa: E402
from keilref.records.highlight import Kind, pieces  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
URI = "file:///edited.keil"
TEXT = "".join(
    (ROOT / "records" / "games" / name).read_text(encoding="utf-8")
    for name in ("size5-keil-teaching-nested-variations.keil", "size6-keil-glyphs-on-turns.keil")
)
SNIPPETS = ["{", "}", "\n", "\r\n", "\r", ";", " ", "(", ")", "e5", "pass", "12.", "$3", "!?", "B+R",
            '[Event "x"]', "[%clk 0:01:00]", "é", "\U0001d11e", "x", "\n\n{a\nb}\n"]
ENCODINGS = [lsp.PositionEncodingKind.Utf16, lsp.PositionEncodingKind.Utf8, lsp.PositionEncodingKind.Utf32]

Edit = tuple[int, int, str]


def edited(text: str, edit: Edit) -> str:
    at, cut, inserted = edit
    at = at % (len(text) + 1)
    return text[:at] + inserted + text[at + cut :]


def whole(text: str, encoding: str, illegal: frozenset[int] = frozenset()) -> list[int]:
    return located(text, pieces(text), illegal, encoding).encoded()


def run_edits(edits: list[Edit], encoding: str) -> None:
    async def body() -> None:
        highlights = Highlights()
        text = TEXT
        sent = await highlights.full(URI, text, frozenset(), encoding)
        for edit in edits:
            text = edited(text, edit)
            delta = await highlights.delta(URI, sent.result_id or "", text, frozenset(), encoding, lsp_line_starts(text))
            expected = whole(text, encoding)
            assert isinstance(delta, lsp.SemanticTokensDelta)
            data = list(sent.data)
            for change in delta.edits:
                data[change.start : change.start + change.delete_count] = change.data or []
            assert data == expected
            made = highlights.whole[URI]
            fresh = Highlights()
            await fresh.full(URI, text, frozenset(), encoding)
            read = fresh.whole[URI]
            assert made.data == read.data
            assert (made.safe.offsets, made.safe.rows, made.safe.lines, made.safe.characters) == (
                read.safe.offsets, read.safe.rows, read.safe.lines, read.safe.characters,
            )
            sent = lsp.SemanticTokens(data=made.data, result_id=delta.result_id)

    asyncio.run(body())


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, len(TEXT)), st.integers(0, 40), st.lists(st.sampled_from(SNIPPETS), max_size=4)),
        min_size=1,
        max_size=4,
    ),
    st.sampled_from(ENCODINGS),
)
def test_edits_read_again_only_where_needed_give_the_whole_reading(edits: list[Edit], encoding: str) -> None:
    run_edits([(at, cut, "".join(inserted)) for at, cut, inserted in edits], encoding)


@pytest.mark.parametrize(
    "edit",
    [
        (0, 0, "{"),  # every token after it is now a comment
        (0, 0, "; a\n"),  # a line before the first
        (len(TEXT), 0, "\n1. e5"),  # at the end
        (300, 0, "\n\n"),  # blank lines in the moves
        (0, len(TEXT), ""),  # all of it gone
        (500, 1, "}"),
    ],
)
def test_edits_at_the_edges(edit: Edit) -> None:
    run_edits([edit, (0, 0, "")], lsp.PositionEncodingKind.Utf16)


def test_marks_are_made_on_the_tokens_read_whole() -> None:
    """The illegal turns marked after the reading: as if marked while reading."""
    text = TEXT.replace("\n", "\r\n", 3)
    turns = [p.start for p in pieces(text) if p.kind in (Kind.POINT, Kind.WORD)]
    illegal = frozenset({turns[0], turns[17], turns[-1], 5})  # 5: no turn there

    async def body() -> list[int]:
        return (await Highlights().full(URI, text, illegal, lsp.PositionEncodingKind.Utf16)).data

    assert asyncio.run(body()) == whole(text, lsp.PositionEncodingKind.Utf16, illegal)


def test_a_range_is_read_from_a_place_of_the_last_encoded_text() -> None:
    """A range asked after an edit, before the document is checked again: read
    from a line start before both the range and the edit, never from
    inside a comment."""
    text = TEXT
    comment = text.index("{captures i8 as well}")
    inside = text.index("\n", text.index("{Black retakes at once")) + 1  # a line inside no comment
    highlights = Highlights()
    asyncio.run(highlights.full(URI, text, frozenset(), lsp.PositionEncodingKind.Utf16))
    assert highlights.restart(URI, text, inside) == inside
    later = edited(text, (len(text) - 10, 0, "x"))
    assert highlights.restart(URI, later, len(later)) == text.rindex("\n", 0, len(text) - 10) + 1
    earlier = edited(text, (comment + 3, 0, "}"))
    at = highlights.restart(URI, earlier, len(earlier))
    assert at <= comment and (at == 0 or earlier[at - 1] == "\n")
    assert Highlights().restart(URI, text, 500) == 0


def test_a_document_too_long_for_whole_tokens_gets_ranges_only() -> None:
    highlights = Highlights(most=len(TEXT) - 1)

    async def body() -> None:
        assert await highlights.full(URI, TEXT, frozenset(), lsp.PositionEncodingKind.Utf16) is None
        assert await highlights.delta(URI, "1", TEXT, frozenset(), lsp.PositionEncodingKind.Utf16) is None
        assert URI not in highlights.whole

    asyncio.run(body())
    span = (0, 0, 40)
    ranged = highlights.range(URI, TEXT, span, frozenset(), lsp.PositionEncodingKind.Utf16)
    assert ranged.data == located(TEXT, pieces(TEXT, 0, 40), encoding=lsp.PositionEncodingKind.Utf16).encoded()
    assert ranged.data
