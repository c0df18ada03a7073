"""The editor's quick fixes fix: every place that states what they fix, only
where asked, never a result computed under a setting in doubt; and the
hover on an illegal main-line turn shows the board before it."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import pytest

pytest.importorskip("pygls")

from lsprotocol import types as lsp  # noqa: E402

import keilref  # noqa: E402
from keilref.referee.verdict import Status, Verdict  # noqa: E402
from lsp_support import ROOT, Client  # noqa: E402

FIXTURES = sorted((ROOT / "records").rglob("*.keil")) + sorted((ROOT / "docs").glob("*.keil"))

BOTH = """[Event "both"]
[Rules "keil"]
[Size "2"]
[Komi "7"]
[Button "yes"]
[Result "B+0.5"]

1. b2 button 2. pass pass B+0.5
"""

TAG_ONLY = BOTH.replace("pass pass B+0.5", "pass pass")
MISSPELT_KOMI = BOTH.replace('[Komi "7"]', '[KOMI "7"]').replace('[Result "B+0.5"]\n', "")
# The faults the files under records/ do not hold, beside them.
MORE = {
    "both.keil": BOTH,
    "tag-only.keil": TAG_ONLY,
    "misspelt-komi.keil": MISSPELT_KOMI,
    "misspelt-event.keil": BOTH.replace("[Event", "[event").replace("B+0.5", "W+0.5"),
    "no-button.keil": BOTH.replace('[Button "yes"]\n', "").replace("B+0.5", "W+0.5"),
}


def run(body: Callable[[Client], Awaitable[None]]) -> None:
    async def session() -> None:
        client = Client()
        await client.start()
        try:
            await body(client)
        finally:
            await client.finish()

    asyncio.run(asyncio.wait_for(session(), 120))


def apply(text: str, edits: list[lsp.TextEdit]) -> str:
    """The text with the edits made, as an editor makes them (last first)."""
    offsets = [0]
    for line in text.split("\n"):
        offsets.append(offsets[-1] + len(line) + 1)

    def at(p: lsp.Position) -> int:
        return offsets[p.line] + p.character

    for edit in sorted(edits, key=lambda e: at(e.range.start), reverse=True):
        text = text[: at(edit.range.start)] + edit.new_text + text[at(edit.range.end) :]
    return text


def everywhere(text: str) -> lsp.Range:
    return lsp.Range(start=lsp.Position(line=0, character=0), end=lsp.Position(line=len(text.split("\n")), character=0))


async def actions(client: Client, uri: str, where: lsp.Range) -> list[lsp.CodeAction]:
    found = await client.text_document_code_action_async(
        lsp.CodeActionParams(
            text_document=lsp.TextDocumentIdentifier(uri=uri), range=where, context=lsp.CodeActionContext(diagnostics=[])
        )
    )
    return [a for a in found or [] if isinstance(a, lsp.CodeAction)]


def applied(text: str, uri: str, action: lsp.CodeAction) -> str:
    assert action.edit is not None and action.edit.changes is not None
    return apply(text, action.edit.changes[uri])


_RANK = {Status.OK: 0, Status.UNFINISHED: 1, Status.MISMATCH: 2, Status.ILLEGAL: 3, Status.ERROR: 4}


def badness(v: Verdict) -> tuple[int, int]:
    """How far from clean under ``check --strict``: the status, then how many faults."""
    return _RANK[v.status], len(v.faults(strict=True))


def test_every_code_action_on_every_fixture_leaves_its_game_cleaner() -> None:
    tried: list[str] = []

    async def body(client: Client) -> None:
        documents = [(p, p.read_bytes().decode("utf-8", "replace")) for p in FIXTURES]
        for path, text in documents + [(ROOT / name, text) for name, text in MORE.items()]:
            uri = path.as_uri()
            await client.open(uri, text)
            before = keilref.check_text(text, filename=str(path))
            for action in await actions(client, uri, everywhere(text)):
                after = keilref.check_text(applied(text, uri, action), filename=str(path))
                assert len(after) == len(before), (path.name, action.title)
                changed = [(b, a) for b, a in zip(before, after) if badness(a) != badness(b)]
                assert changed, (path.name, action.title)
                for b, a in changed:
                    assert badness(a) < badness(b), (path.name, action.title, b.faults(strict=True), a.faults(strict=True))
                tried.append(f"{path.name}: {action.title}")

    run(body)
    # The fixtures hold at least one fault of each kind a fix answers.
    for kind in ("Declare the result", "Renumber", "Rename tag", "Add [Button"):
        assert any(kind in t for t in tried), (kind, tried)


def test_a_result_in_the_tag_and_after_the_moves_is_declared_again_in_both() -> None:
    uri = (ROOT / "both.keil").as_uri()

    async def body(client: Client) -> None:
        await client.open(uri, BOTH)
        (action,) = await actions(client, uri, everywhere(BOTH))
        assert action.title == "Declare the result W+0.5"
        after = applied(BOTH, uri, action)
        assert after == BOTH.replace("B+0.5", "W+0.5")
        assert [v.status for v in keilref.check_text(after)] == [Status.OK]

    run(body)


def test_a_result_given_only_by_the_tag_gets_its_fix() -> None:
    uri = (ROOT / "tag-only.keil").as_uri()

    async def body(client: Client) -> None:
        await client.open(uri, TAG_ONLY)
        (action,) = await actions(client, uri, everywhere(TAG_ONLY))
        assert action.title == "Declare the result W+0.5"
        after = applied(TAG_ONLY, uri, action)
        assert after == TAG_ONLY.replace('[Result "B+0.5"]', '[Result "W+0.5"]')
        assert [v.status for v in keilref.check_text(after)] == [Status.OK]

    run(body)


def test_only_the_fixes_of_diagnostics_in_the_requested_range_are_offered() -> None:
    second = MISSPELT_KOMI.replace("komi", "second")
    text = BOTH + "\n" + second
    uri = (ROOT / "two.keil").as_uri()
    lines = text.split("\n")
    result_line = lines.index("1. b2 button 2. pass pass B+0.5")  # the first game's declared result
    typo_line = lines.index('[KOMI "7"]')

    async def body(client: Client) -> None:
        await client.open(uri, text)
        on = lambda line, character: lsp.Range(  # noqa: E731
            start=lsp.Position(line=line, character=character), end=lsp.Position(line=line, character=character)
        )
        at_result = await actions(client, uri, on(result_line, len(lines[result_line]) - 2))
        assert [a.title for a in at_result] == ["Declare the result W+0.5"]
        at_typo = await actions(client, uri, on(typo_line, 2))
        assert [a.title for a in at_typo] == ["Rename tag KOMI to Komi"]
        # The first game's Event tag has no diagnostic: nothing is offered there.
        assert await actions(client, uri, on(0, 3)) == []
        # Nor at the start of the result's line, before the token the diagnostic covers.
        assert await actions(client, uri, on(result_line, 0)) == []

    run(body)


def test_no_result_is_proposed_while_a_setting_tag_is_misspelt() -> None:
    uri = (ROOT / "komi.keil").as_uri()

    async def body(client: Client) -> None:
        await client.open(uri, MISSPELT_KOMI)
        offered = await actions(client, uri, everywhere(MISSPELT_KOMI))
        # Under komi 0 the moves give B+6.5; the tag meant komi 7.
        assert [a.title for a in offered] == ["Rename tag KOMI to Komi"]
        renamed = applied(MISSPELT_KOMI, uri, offered[0])
        assert renamed == MISSPELT_KOMI.replace("KOMI", "Komi")
        await client.open(uri + "#renamed", renamed)
        (declare,) = await actions(client, uri + "#renamed", everywhere(renamed))
        assert declare.title == "Declare the result W+0.5"

    run(body)


def test_hover_on_an_illegal_main_line_turn_shows_the_board_before_it_and_why() -> None:
    path = ROOT / "records" / "faults" / "illegal-occupied.keil"
    text = path.read_text(encoding="utf-8")
    (verdict,) = keilref.check_text(text)
    assert verdict.illegal is not None
    record = next(iter(keilref.read_games(text)))
    before = record.replay(turn=verdict.illegal.turn - 1)

    async def body(client: Client) -> None:
        await client.open(path.as_uri(), text)
        at = lsp.Position(line=verdict.illegal.line - 1, character=verdict.illegal.column - 1)
        hover = await client.text_document_hover_async(
            lsp.HoverParams(text_document=lsp.TextDocumentIdentifier(uri=path.as_uri()), position=at)
        )
        assert hover is not None and isinstance(hover.contents, lsp.MarkupContent)
        value = hover.contents.value
        assert value.startswith("**Illegal**: move 10 (White) i7, turn 20: occupied"), value
        assert f"The position before it (after turn {verdict.illegal.turn - 1}): White to move" in value
        assert before.diagram().rstrip("\n") in value
        assert f"Black {before.score().black:g}, White {before.score().white:g}" in value

    run(body)
