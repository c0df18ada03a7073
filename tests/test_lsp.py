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

from keilref.formats import CheckOptions  # noqa: E402
from keilref.formats.findings import findings  # noqa: E402
from keilref.referee.lines import find_line  # noqa: E402
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
    (expected,) = [f for f in findings(verdict, CheckOptions(strict=True)) if f.rule != "warning"]

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


# The ko of illegal-superko.keil retaken in three variations: one whose own line holds the turn
# it repeats (8:51), one inside it that repeats a turn of that line (9:1), and one of the main
# line that repeats a turn before its branch (9:37).
SUPERKO_IN_VARIATIONS = """[Event "Superko in variations"]
[Rules "keil"]
[Size "5"]
[Komi "3"]
[Button "yes"]

1. e5 f3 2. c4 g6 3. e7 d2 4. d3 e3 5. f6 g5 6. f8 g8 7. e4 f4 8. f5 g7 9. f7 c2
10. d4 b2 11. b3 a2 12. c3 h9 13. f9 g9 14. e8 h8 (14... h8 15. e2 e1
(15... e1 16. e2) 16. e2) 15. e2 e1 (15... e1 16. e2) 16. c5 *
"""


def test_superko_in_a_variation_points_at_the_turn_it_repeats_on_its_line_or_before_its_branch() -> None:
    text = SUPERKO_IN_VARIATIONS
    line8, line9 = text.split("\n")[7:9]
    # 0-based (line, character) of each token, found in the text, not by the referee.
    own = (7, line8.index("(14... h8 15. e2") + len("(14... h8 15. "))
    main = (8, line9.index(") 15. e2") + len(") 15. "))
    nested, outer, of_main = ((8, i + len("16. ")) for i in [m.start() for m in re.finditer(r"16\. e2", line9)])
    expected = {nested: own, outer: own, of_main: main}

    async def body(client: Client) -> None:
        diagnostics = await client.open(URI, text)
        warnings = {(d.range.start.line, d.range.start.character): d for d in diagnostics if d.code == "warning"}
        assert set(warnings) == set(expected)
        for at, repeated in expected.items():
            d = warnings[at]
            assert "superko (repeats turn 29)" in d.message
            (related,) = d.related_information or []
            assert related.location.uri == URI and related.message == "the position after turn 29, repeated"
            assert related.location.range == lsp.Range(
                start=lsp.Position(line=repeated[0], character=repeated[1]),
                end=lsp.Position(line=repeated[0], character=repeated[1] + 2),
            ), at
        # Two lines more above: the places follow.
        moved = await client.change(URI, 2, [replacing(0, 0, 0, "\n\n")])
        below = lsp.Position(line=of_main[0] + 2, character=of_main[1])
        d = next(d for d in moved if d.range.start == below)
        (related,) = d.related_information or []
        assert related.location.range.start == lsp.Position(line=main[0] + 2, character=main[1])

    run(body)


def test_a_variation_a_message_names_is_named_where_it_stands_once_lines_move() -> None:
    first = generated(1) + "\n"
    rows = first.count("\n")
    text = first + (FAULTS / "warning-variation-turn-occupied.keil").read_text(encoding="utf-8")

    async def body(client: Client) -> None:
        (d,) = await client.open(URI, text)
        assert d.message.startswith(f"game 2: warning: variation at {11 + rows}:15: move 10 (White) c3")
        # Game 2's text is the same, two lines further down: what names its lines is worded again.
        (d,) = await client.change(URI, 2, [replacing(0, 0, 0, "\n\n")])
        assert d.message.startswith(f"game 2: warning: variation at {13 + rows}:15: move 10 (White) c3")
        assert d.range.start.line == 12 + rows
        assert client.logs[-1] == "checked 2 of 2 games"

    run(body)


def test_warnings_and_an_unfinished_game_have_their_own_severities() -> None:
    # KOMI names the komi in use (0): a warning; with another value it is an error.
    text = generated(1).replace('[Komi "1"]', '[KOMI "0"]').replace('[Result "B+2.5"]\n', "")
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


async def hovered(client: Client, uri: str, line: int, character: int) -> str:
    """The hover's text at the 0-based place."""
    at = lsp.Position(line=line, character=character)
    hover = await client.text_document_hover_async(lsp.HoverParams(text_document=doc(uri), position=at))
    assert hover is not None and isinstance(hover.contents, lsp.MarkupContent)
    return hover.contents.value


def test_hover_on_a_turn_of_a_nested_variation_shows_the_board_along_its_line() -> None:
    path = GAMES / "size5-keil-teaching-nested-variations.keil"
    text = path.read_text(encoding="utf-8")
    row = next(i for i, line in enumerate(text.split("\n")) if line.startswith("(7... h6 {or White answers"))
    (record,) = keilref.read_games(text)
    # White's h6 in the line that opens at 18:1, inside the one opening at 17:15 (7. i7 7... h7).
    node = find_line(record.tree(), f"{row + 1}:1")
    assert node.move == "h6" and node.ply == 14
    board = node.game().diagram().rstrip("\n")
    assert board != record.replay(turn=14).diagram().rstrip("\n")  # not the main line's
    assert board != node.parent.variations[0].game().diagram().rstrip("\n")  # nor the line it is inside

    async def body(client: Client) -> None:
        await client.open(path.as_uri(), text)
        value = await hovered(client, path.as_uri(), row, len("(7... h"))
        assert value.startswith(f"**Variation at {row + 1}:1, after turn 14**: Black to move\n")
        assert board in value
        score = node.game().score()
        assert f"Score so far: Black {score.black:g}, White {score.white:g}" in value

    run(body)


def test_hover_on_an_illegal_variation_turn_shows_the_board_before_it_and_why() -> None:
    path = FAULTS / "warning-variation-turn-occupied.keil"
    text = path.read_text(encoding="utf-8")
    line = text.split("\n")[10]
    c3, b2 = line.index("(10... c3") + len("(10... "), line.index("11. b2") + len("11. ")
    (record,) = keilref.read_games(text)
    (verdict,) = keilref.check_text(text)
    (why,) = verdict.warnings
    assert why == "variation at 11:15: move 10 (White) c3, turn 20: occupied"
    before = record.replay(turn=19).diagram().rstrip("\n")

    async def body(client: Client) -> None:
        await client.open(path.as_uri(), text)
        # The illegal turn, and a turn after it in its variation, which has no position of its own.
        for character in (c3, b2):
            value = await hovered(client, path.as_uri(), 10, character)
            assert value.startswith(f"**Illegal**: {why}\n\nThe position before it (after turn 19): White to move\n")
            assert before in value and "Captured by this turn" not in value
        # Two lines more above: the variation is named where its '(' now stands.
        await client.change(path.as_uri(), 2, [replacing(0, 0, 0, "\n\n")])
        value = await hovered(client, path.as_uri(), 12, c3)
        assert value.startswith("**Illegal**: variation at 13:15: move 10 (White) c3, turn 20: occupied\n")

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


HALF_KOMI = '[Size "3"] [Komi "2.5"] [Button "yes"]\n1. c3 d4 2. c2 d3 *\n'  # half komi: keil-2019 only


def test_the_projects_settings_give_a_file_the_rules_check_gives_it(tmp_path: Path) -> None:
    """The editor says what `keilref check` says in CI: the project's per-path
    rules apply to a document by its path, to its diagnostics and its hovers."""
    (tmp_path / "keilref.toml").write_text('[per-path-rules]\n"2019/*" = "keil-2019"\n', encoding="utf-8")
    for folder in ("2019", "new"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "old.keil").write_text(HALF_KOMI, encoding="utf-8")
    checked = subprocess.run(
        [sys.executable, "-m", "keilref", "check", "-f", "jsonl", "."], cwd=tmp_path, capture_output=True, text=True
    )
    import json

    statuses = {json.loads(v)["file"]: json.loads(v)["status"] for v in checked.stdout.splitlines()}
    assert statuses == {"./2019/old.keil": "unfinished", "./new/old.keil": "error"}
    old, new = (tmp_path / "2019" / "old.keil").as_uri(), (tmp_path / "new" / "old.keil").as_uri()
    replayed = next(iter(keilref.read_games(HALF_KOMI))).replay(turn=1, rules="keil-2019")

    async def body(client: Client) -> None:
        assert [d.code for d in await client.open(old, HALF_KOMI)] == ["unfinished"]
        assert [d.code for d in await client.open(new, HALF_KOMI)] == ["error"]
        assert replayed.diagram().rstrip("\n") in await hovered(client, old, 1, 3)
        # A settings file that cannot be read is said, and the document is checked without it.
        (tmp_path / "keilref.toml").write_text('strikt = true\n', encoding="utf-8")
        diagnostics = await client.change(old, 2, [replacing(1, 19, 20, "*")])
        assert [d.code for d in diagnostics] == ["error"]
        assert any("unknown setting 'strikt'" in m and "did you mean 'strict'" in m for m in client.logs)

    run(body)
