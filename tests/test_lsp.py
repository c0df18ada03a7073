"""``keilref lsp`` through a real client over stdio: pygls's, as an editor's would talk to it."""

from __future__ import annotations

import asyncio
import re
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

pytest.importorskip("pygls")

from lsprotocol import types as lsp  # noqa: E402

from keilref.formats.findings import findings  # noqa: E402
import keilref  # noqa: E402
from lsp_support import ROOT, Client, replacing  # noqa: E402

FAULTS = ROOT / "records" / "faults"
GAMES = ROOT / "records" / "games"
URI = (ROOT / "scratch.keil").as_uri()


def run(body: Callable[[Client], Awaitable[None]]) -> None:
    async def session() -> None:
        client = Client()
        await client.start()
        try:
            await body(client)
        finally:
            await client.finish()

    asyncio.run(asyncio.wait_for(session(), 60))


def generated(n: int) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "keilref", "generate", "-n", str(n), "--seed", "1", "--size", "5"],
        cwd=ROOT, capture_output=True, text=True, check=True,
    )
    return done.stdout


def apply(text: str, edits: list[lsp.TextEdit]) -> str:
    """The text with the edits made, as an editor makes them (last first)."""
    lines = text.split("\n")
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line) + 1)
    def at(p: lsp.Position) -> int:
        return offsets[p.line] + p.character
    for edit in sorted(edits, key=lambda e: at(e.range.start), reverse=True):
        text = text[: at(edit.range.start)] + edit.new_text + text[at(edit.range.end) :]
    return text


def doc(uri: str = URI) -> lsp.TextDocumentIdentifier:
    return lsp.TextDocumentIdentifier(uri=uri)


def test_a_game_that_passes_has_no_diagnostics() -> None:
    async def body(client: Client) -> None:
        assert await client.open(URI, generated(3)) == []

    run(body)


@pytest.mark.parametrize(
    "name, rule",
    [
        ("illegal-superko", "illegal/superko"),
        ("illegal-occupied", "illegal/occupied"),
        ("mismatch-wrong-margin", "mismatch"),
        ("error-wrong-move-number", "error"),
        ("tag-error-duplicate-tag", "error"),
    ],
)
def test_a_failing_game_is_an_error_in_the_words_and_place_sarif_gives(name: str, rule: str) -> None:
    path = FAULTS / f"{name}.keil"
    text = path.read_text(encoding="utf-8")
    (verdict,) = keilref.check_text(text, filename=str(path))
    (expected,) = [f for f in findings(verdict, strict=True) if f.rule != "warning"]

    async def body(client: Client) -> None:
        diagnostics = await client.open(path.as_uri(), text)
        (d,) = [d for d in diagnostics if d.code != "warning"]
        assert (d.code, d.message, d.severity, d.source) == (rule, expected.message, lsp.DiagnosticSeverity.Error, "keilref")
        assert (d.range.start.line, d.range.start.character) == (expected.line - 1, expected.column - 1)
        assert d.range.end.character > d.range.start.character

    run(body)


def test_superko_points_at_the_turn_it_repeats() -> None:
    path = FAULTS / "illegal-superko.keil"
    text = path.read_text(encoding="utf-8")

    async def body(client: Client) -> None:
        (d,) = await client.open(path.as_uri(), text)
        (related,) = d.related_information or []
        turn29 = list(keilref.read_games(text))[0].turns[28]
        assert (related.location.range.start.line, related.location.range.start.character) == (turn29.line - 1, turn29.column - 1)
        word = text.split("\n")[turn29.line - 1][turn29.column - 1 :].split()[0]
        assert related.location.range.end.character - related.location.range.start.character == len(word)

    run(body)


def test_warnings_and_an_unfinished_game_have_their_own_severities() -> None:
    text = generated(1).replace('[Komi "1"]', '[KOMI "1"]').replace('[Result "B+2.5"]\n', "")
    text = text.replace("pass\n41. pass B+2.5", "pass *")
    assert text.count("KOMI") == 1

    async def body(client: Client) -> None:
        diagnostics = await client.open(URI, text)
        by_code = {d.code: d.severity for d in diagnostics}
        assert by_code["warning"] is lsp.DiagnosticSeverity.Warning
        assert by_code["unfinished"] is lsp.DiagnosticSeverity.Information
        assert any("did you mean 'Komi'" in d.message for d in diagnostics)

    run(body)


def test_hover_on_a_turn_shows_the_board_score_captures_and_who_moves() -> None:
    path = FAULTS / "illegal-superko.keil"
    text = path.read_text(encoding="utf-8")
    record = list(keilref.read_games(text))[0]
    turn = record.turns[29]  # White's e1, which captures e2
    game = record.replay(turn=30)

    async def body(client: Client) -> None:
        await client.open(path.as_uri(), text)
        at = lsp.Position(line=turn.line - 1, character=turn.column)
        hover = await client.text_document_hover_async(lsp.HoverParams(text_document=doc(path.as_uri()), position=at))
        assert hover is not None and isinstance(hover.contents, lsp.MarkupContent)
        value = hover.contents.value
        assert game.diagram().rstrip("\n") in value
        assert "Black to move" in value and "Captured by this turn: e2" in value
        assert f"Black {game.score().black:g}, White {game.score().white:g}" in value
        nowhere = lsp.Position(line=0, character=2)
        assert await client.text_document_hover_async(lsp.HoverParams(text_document=doc(path.as_uri()), position=nowhere)) is None

    run(body)


def test_formatting_is_keilref_fmt_as_one_edit_and_nothing_for_text_that_does_not_parse() -> None:
    canonical = generated(2)
    messy = canonical.replace("\n\n[Event", "\n\n\n\n[Event").replace("1. h8 h5 ", "1.  h8   h5 ")
    assert messy != canonical
    options = lsp.FormattingOptions(tab_size=4, insert_spaces=True)

    async def body(client: Client) -> None:
        await client.open(URI, messy)
        edits = await client.text_document_formatting_async(lsp.DocumentFormattingParams(text_document=doc(), options=options))
        assert edits is not None and len(edits) == 1
        assert apply(messy, edits) == canonical
        broken = (FAULTS / "error-bad-token.keil").read_text(encoding="utf-8")
        other = (ROOT / "broken.keil").as_uri()
        await client.open(other, broken)
        assert await client.text_document_formatting_async(
            lsp.DocumentFormattingParams(text_document=doc(other), options=options)
        ) is None

    run(body)


async def fixed(client: Client, uri: str, text: str, title: str) -> str:
    """The text after the code action called ``title`` is applied."""
    await client.open(uri, text)
    everywhere = lsp.Range(start=lsp.Position(line=0, character=0), end=lsp.Position(line=len(text.split("\n")), character=0))
    actions = await client.text_document_code_action_async(
        lsp.CodeActionParams(text_document=doc(uri), range=everywhere, context=lsp.CodeActionContext(diagnostics=[]))
    )
    chosen = [a for a in actions or [] if isinstance(a, lsp.CodeAction) and a.title.startswith(title)]
    assert len(chosen) == 1, [a.title for a in actions or []]
    edit = chosen[0].edit
    assert edit is not None and edit.changes is not None
    return apply(text, edit.changes[uri])


def test_code_actions_fix_a_tag_name_a_missing_button_a_move_number_and_a_result() -> None:
    game = generated(1)

    async def body(client: Client) -> None:
        typo = game.replace('[Komi "1"]', '[KOMI "1"]')
        assert await fixed(client, URI, typo, "Rename tag KOMI") == game
        no_button = game.replace('[Button "yes"]\n', "")
        assert await fixed(client, URI, no_button, 'Add [Button "yes"]') == game
        path = FAULTS / "error-wrong-move-number.keil"
        text = path.read_text(encoding="utf-8")
        assert await fixed(client, path.as_uri(), text, "Renumber") == text.replace("4. f4", "3. f4")
        path = FAULTS / "mismatch-wrong-margin.keil"
        text = path.read_text(encoding="utf-8")
        after = await fixed(client, path.as_uri(), text, "Declare the result")
        assert after == text.replace("pass pass B+5.5", "pass pass B+4.5")
        assert [v.status.value for v in keilref.check_text(after)] == ["ok"]

    run(body)


def test_an_edit_checks_again_only_the_game_it_changed() -> None:
    # Without Result tags, a game's result is its last token alone.
    text = re.sub(r'\[Result "[^"]*"\]\n', "", generated(20))
    lines = text.split("\n")
    game6 = lines.index('[Event "keilref generate --seed 1, game 6"]')
    result5 = game6 - 2  # the last line of game 5, before the blank one, ends with its result

    async def body(client: Client) -> None:
        assert await client.open(URI, text) == []
        assert client.logs[-1] == "checked 20 of 20 games"
        # A wrong result for game 5: only it is checked again, and it is now a mismatch.
        end = len(lines[result5])
        declared = lines[result5].split()[-1]
        diagnostics = await client.change(URI, 2, [replacing(result5, end - len(declared), end, "B+99.5")])
        assert client.logs[-1] == "checked 1 of 20 games"
        (d,) = diagnostics
        assert d.code == "mismatch" and d.message.startswith("game 5: mismatch"), d.message
        assert d.range.start.line == result5
        # Lines added above move every game without changing one: none is checked, and the place follows.
        diagnostics = await client.change(URI, 3, [replacing(0, 0, 0, "{a comment}\n\n")])
        assert client.logs[-1] == "checked 1 of 20 games"  # the first game's text changed, not the others'
        (d,) = diagnostics
        assert d.range.start.line == result5 + 2

    run(body)


def test_after_edits_the_diagnostics_are_those_of_the_text_opened_afresh() -> None:
    # The last game has a warning: its message names it, game 6 or game 7 as a game splits.
    text = "".join(generated(6).rpartition('[Button "yes"]\n')[::2])
    lines = text.split("\n")
    moves2 = lines.index('[Event "keilref generate --seed 1, game 2"]') + 7
    moves3 = lines.index('[Event "keilref generate --seed 1, game 3"]') + 7
    end3 = len(lines[moves3])
    edits = [
        replacing(moves2, 0, 0, "{"),  # a comment never closed: cut at game 3's first tag line
        replacing(moves3, end3, end3, ' [X "y"]'),  # a tag after turns: game 3 is two games
        replacing(0, 0, 0, "\n\n"),  # every game two lines down
        replacing(moves2 + 2, 0, 1, ""),  # the '{' gone again
        replacing(moves3 + 2, end3, end3 + 8, ""),  # and the tag
    ]

    def seen(diagnostics: list[lsp.Diagnostic]) -> list[tuple[object, ...]]:
        return [(d.range, d.code, d.message, d.related_information) for d in diagnostics]

    async def body(client: Client) -> None:
        nonlocal text
        (warning,) = await client.open(URI, text)
        assert warning.message.startswith("game 6: warning: no Button tag")
        for version, change in enumerate(edits, 2):
            text = apply(text, [lsp.TextEdit(range=change.range, new_text=change.text)])
            after = await client.change(URI, version, [change])
            afresh = await client.open((ROOT / f"afresh{version}.keil").as_uri(), text)
            assert seen(after) == seen(afresh), version
            if version == 3:
                assert any(d.message.startswith("game 7: warning: no Button tag") for d in after)
        assert [d.message for d in after] == [warning.message]
        assert client.logs[-2].endswith(" of 6 games")  # the last edit's, before the fresh open's

    run(body)


def test_without_pygls_the_command_says_what_to_install() -> None:
    code = "import sys; sys.modules['pygls'] = None; sys.argv = ['keilref', 'lsp']; from keilref.cli import main; main()"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "pip install 'keilref[lsp]'" in done.stderr
