"""What a tournament director met using keilref end to end: a game without a
round in the report's table, a place from ``check`` given to ``--line``, a
Result tag that disagrees with the end of the moves, and a long source line
in the report on a phone."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_support import run

from keilref import wording

NO_ROUND_GAME = """[Event "open"]
[Rules "keil"]
[Size "2"]
[Komi "7"]
[Button "yes"]
[Result "W+0.5"]

1. b2 button 2. pass pass W+0.5
"""


def _report(tmp_path: Path, text: str) -> str:
    path = tmp_path / "game.keil"
    path.write_text(text, encoding="utf-8")
    out = tmp_path / "report.html"
    result = run("check", "--format", "html", "-o", str(out), str(path))
    assert result.exit_code in (0, 1), result.output
    return out.read_text(encoding="utf-8")


def test_a_game_without_a_round_shows_the_standings_mark_in_the_table(tmp_path: Path) -> None:
    page = _report(tmp_path, NO_ROUND_GAME)
    assert wording.NO_ROUND == "-"
    assert f'<td data-label="round">{wording.NO_ROUND}</td>' in page
    assert '<td data-label="round"></td>' not in page
    # The round filter offers the same mark, so that it finds the game.
    assert f'<select data-filter="round"><option value="">any</option><option value="-">-</option></select>' in page


def _two_games(tmp_path: Path) -> Path:
    path = tmp_path / "event.keil"
    second = NO_ROUND_GAME.replace('[Event "open"]', '[Event "open"]\n[Round "2"]')
    path.write_text(NO_ROUND_GAME + "\n" + second, encoding="utf-8")
    return path


def test_a_line_of_another_game_names_that_game(tmp_path: Path) -> None:
    path = _two_games(tmp_path)
    moves = path.read_text(encoding="utf-8").splitlines().index("1. b2 button 2. pass pass W+0.5", 10) + 1
    for command in ("show", "score", "legal"):
        result = run(command, "--line", f"{moves}:4", str(path))
        assert result.exit_code == 2, result.output
        said = wording.line_in_another_game((moves, 4), 2)
        assert said == (
            f"no variation opens at {moves}:4: line {moves} is in game 2 "
            "(use --game 2 to see its position before the fault)"
        )
        assert said in result.output
        assert "game 1:" not in result.output


def test_with_game_given_the_variations_of_that_game_are_listed(tmp_path: Path) -> None:
    path = _two_games(tmp_path)
    result = run("show", "--game", "1", "--line", "18:4", str(path))
    assert result.exit_code == 2, result.output
    assert f"game 1: {wording.no_such_line((18, 4), [])}" in result.output
    # A place within the first game, without --game, is told as before.
    result = run("show", "--line", "8:4", str(path))
    assert result.exit_code == 2, result.output
    assert f"game 1: {wording.no_such_line((8, 4), [])}" in result.output


DISAGREE = NO_ROUND_GAME.replace('[Result "W+0.5"]', '[Result "B+0.5"]')
TOKEN_WRONG = NO_ROUND_GAME.replace("pass pass W+0.5", "pass pass B+0.5")
UNFINISHED = NO_ROUND_GAME.replace("2. pass pass W+0.5", "2. pass B+0.5")


def test_fix_diff_declares_the_result_the_moves_give_where_tag_and_token_disagree(tmp_path: Path) -> None:
    path = tmp_path / "game.keil"
    path.write_text(DISAGREE, encoding="utf-8")
    done = run("check", "--fix", "--diff", str(path))
    assert done.exit_code == 1, done.output
    assert path.read_text(encoding="utf-8") == DISAGREE
    assert done.stdout.splitlines() == [
        f"--- {path}\t(original)",
        f"+++ {path}\t(fixed)",
        "@@ -3,6 +3,6 @@",
        ' [Size "2"]',
        ' [Komi "7"]',
        ' [Button "yes"]',
        '-[Result "B+0.5"]',
        '+[Result "W+0.5"]',
        " ",
        " 1. b2 button 2. pass pass W+0.5",
    ]


def test_fix_writes_the_result_in_both_places_and_the_file_then_passes(tmp_path: Path) -> None:
    for text in (DISAGREE, TOKEN_WRONG):
        path = tmp_path / "game.keil"
        path.write_text(text, encoding="utf-8")
        done = run("check", "--fix", str(path))
        assert done.exit_code == 0, done.output
        assert f"fixed {path} (1 fix)" in done.output
        assert path.read_text(encoding="utf-8") == NO_ROUND_GAME
        assert run("check", "--strict", str(path)).exit_code == 0


def test_no_result_is_declared_for_a_game_the_moves_do_not_finish(tmp_path: Path) -> None:
    text = UNFINISHED.replace('[Result "W+0.5"]', '[Result "W+1.5"]')
    path = tmp_path / "game.keil"
    path.write_text(text, encoding="utf-8")
    done = run("check", "--fix", "--diff", str(path))
    assert done.exit_code == 0 and done.stdout == "", done.output
    assert path.read_text(encoding="utf-8") == text


def test_the_editor_offers_the_same_fix() -> None:
    pytest.importorskip("pygls")
    from lsp_support import Client
    from test_quick_fixes import ROOT as LSP_ROOT
    from test_quick_fixes import actions, applied, everywhere
    from test_quick_fixes import run as lsp_run

    uri = (LSP_ROOT / "disagree.keil").as_uri()

    async def body(client: Client) -> None:
        await client.open(uri, DISAGREE)
        (action,) = await actions(client, uri, everywhere(DISAGREE))
        assert action.title == "Declare the result W+0.5"
        assert applied(DISAGREE, uri, action) == NO_ROUND_GAME

    lsp_run(body)


LONG_LINE = """[Event "open"]
[Rules "keil"]
[Size "9"]
[Komi "7"]
[Button "yes"]
[Result "W+0.5"]

1. e5 d4 2. c3 f6 3. g7 b2 4. h8 a1 5. c7 g3 6. e5 d5 7. e6 d6 8. e7 W+0.5
"""

_EXCERPT = """
var pre = document.querySelector("pre.source"), style = getComputedStyle(pre), box = pre.getBoundingClientRect();
var range = document.createRange(), text = pre.firstChild, caret = text.data.lastIndexOf("^");
range.setStart(text, caret); range.setEnd(text, caret + 1);
var c = range.getBoundingClientRect();
range.setStart(text, caret - text.data.indexOf("\\n") - 1); range.setEnd(text, caret - text.data.indexOf("\\n"));
var t = range.getBoundingClientRect();
return {overflowX: style.overflowX, hint: style.backgroundImage, wide: pre.scrollWidth > pre.clientWidth,
        left: box.left, right: box.right, caret: [c.left, c.right], token: [t.left, t.right]};
"""


def test_a_long_source_line_on_a_phone_is_shaded_and_opens_at_its_caret(tmp_path: Path) -> None:
    from browser_support import open_browser

    path = tmp_path / "long.keil"
    path.write_text(LONG_LINE, encoding="utf-8")
    out = tmp_path / "report.html"
    assert run("check", "--format", "html", "-o", str(out), str(path)).exit_code == 1
    driver = open_browser()
    try:
        driver.execute_cdp_cmd(
            "Emulation.setDeviceMetricsOverride", {"width": 390, "height": 800, "deviceScaleFactor": 2, "mobile": True}
        )
        driver.get(out.as_uri())
        seen = driver.execute_script(_EXCERPT)
    finally:
        driver.quit()
    assert seen["wide"], seen
    # It scrolls in its box, which shades the edges with more to see, as the tables do.
    assert seen["overflowX"] in ("auto", "scroll"), seen
    assert seen["hint"].count("gradient") == 4, seen
    # The caret is in view, under the first character of the faulty token (column 49).
    assert seen["left"] <= seen["caret"][0] and seen["caret"][1] <= seen["right"], seen
    assert abs(seen["caret"][0] - seen["token"][0]) < 0.5, seen
    assert LONG_LINE.splitlines()[7][48:50] == "e5"
