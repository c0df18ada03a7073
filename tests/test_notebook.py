"""The library where Python users work: names and shows as python-chess users guess them."""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

import pytest
from cli_support import ROOT

import keilref
from keilref import wording
from keilref.formats import notebook
from keilref.formats.text import text_line

KO = ROOT / "records/games/size5-keil-corner-ko.keil"


def test_headers_are_the_tags_as_a_read_only_mapping_in_written_order() -> None:
    record = keilref.read_game(KO)
    assert list(record.headers) == [t.name for t in record.tags]
    assert record.headers["Black"] == "Uxia Rial" and record.headers.get("Annotator") is None
    with pytest.raises(TypeError):
        record.headers["Black"] = "someone else"  # type: ignore[index]


def test_str_draws_the_board_and_repr_stays_the_summary() -> None:
    game = keilref.read_game(KO).replay(turn=30)
    assert str(game) == game.diagram()
    assert "\n" in str(game) and " e1" not in repr(game)
    assert repr(game) == "<KeilGame keil, size 5, komi 3, turn 30, Black to move>"


def test_a_game_shows_its_board_and_score_in_a_notebook() -> None:
    game = keilref.read_game(KO).replay()
    page = game._repr_html_()
    assert page.startswith('<div class="keilref-game"><svg') and page.endswith("</p></div>")
    assert "&lt;KeilGame keil, size 5, komi 3, turn" in page
    assert f"(komi included): {game.score().result}" in page


# -- a record in a notebook ------------------------------------------------------

FAULTS = ROOT / "records/faults"


def _verdict_text(page: str) -> str:
    """The verdict paragraph as a reader sees it, tags stripped."""
    found = re.search(r'<p class="keilref-verdict">(.*?)</p>', page)
    assert found is not None, page[:500]
    return html.unescape(re.sub(r"<[^>]+>", "", found.group(1)))


def _positions(page: str) -> list[str]:
    return re.findall(r'<div class="keilref-position"( hidden)?>', page)


@pytest.mark.parametrize(
    ("path", "status"),
    [(KO, "ok"), (FAULTS / "mismatch-wrong-margin.keil", "mismatch"), (FAULTS / "illegal-suicide.keil", "illegal")],
)
def test_a_record_shows_its_verdict_in_the_words_of_the_text_line(path: Path, status: str) -> None:
    (verdict,) = keilref.check_file(path)
    page = keilref.read_game(path)._repr_html_()
    assert verdict.status.value == status
    # `keilref check` prints "FILE:LINE:COLUMN: game 1: STATUS: WORDS"; the notebook, STATUS: WORDS.
    assert text_line(verdict).endswith(f": game 1: {_verdict_text(page)}")
    assert f'<strong class="status s-{status}">{status}</strong>' in page


def test_a_short_game_embeds_every_position_and_shows_the_last_without_a_script() -> None:
    record = keilref.read_game(KO)
    page = record._repr_html_()
    positions = _positions(page)
    assert len(positions) == len(record.turns) + 1
    # Only the last is shown before the script runs, and the buttons wait for it.
    assert positions[-1] == "" and all(p == " hidden" for p in positions[:-1])
    assert '<div class="keilref-steps" hidden>' in page and page.count("<script>") == 1
    last = len(record.turns)
    assert f'turn <span class="keilref-at">{last}</span> of {last}' in page
    assert "http" not in page  # self-contained: nothing fetched, not even a namespace named


def test_an_illegal_record_steps_up_to_the_turn_before_the_illegal_one() -> None:
    record = keilref.read_game(FAULTS / "illegal-suicide.keil")
    page = record._repr_html_()
    (verdict,) = keilref.check_file(FAULTS / "illegal-suicide.keil")
    assert verdict.illegal is not None and verdict.illegal.turn == 28 < len(record.turns) + 1
    assert len(_positions(page)) == verdict.illegal.turn  # turns 0 to 27
    last_board = page.rsplit('<div class="keilref-position">', 1)[1]
    assert 'class="illegal"' in last_board and "illegal: move 14 (White) h4, turn 28: suicide" in last_board


def test_tags_are_a_table_of_escaped_text() -> None:
    text = '[Event "<script>alert(1)</script>"]\n[Black "Ana & \\"Bo\\""]\n[Rules "keil"]\n[Size "4"]\n\n1. d4 *\n'
    page = keilref.read_game(text)._repr_html_()
    assert "<th>Event</th><td>&lt;script&gt;alert(1)&lt;/script&gt;</td>" in page
    assert "<td>Ana &amp; &quot;Bo&quot;</td>" in page
    assert "alert(1)</script>" not in page and page.count("<script>") == 1


def test_a_record_that_does_not_replay_shows_its_tags_and_verdict_alone() -> None:
    path = FAULTS / "tag-error-unknown-rules.keil"
    (verdict,) = keilref.check_file(path)
    page = keilref.read_game(path)._repr_html_()
    assert verdict.status.value == "error" and text_line(verdict).endswith(f": game 1: {_verdict_text(page)}")
    assert "<th>Rules</th><td>go</td>" in page
    assert not _positions(page) and "<script>" not in page


def test_each_render_has_its_own_id() -> None:
    record = keilref.read_game(KO)
    pages = [record._repr_html_() for _ in range(2)]
    ids = [re.findall(r'\bid="([^"]+)"', page) for page in pages]
    assert [len(found) for found in ids] == [1, 1] and ids[0] != ids[1]
    # Each script finds its own render by that id.
    assert all(f'getElementById("{found[0]}")' in page for found, page in zip(ids, pages))


def test_a_long_game_shows_its_last_position_and_says_why(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(notebook, "STEP_CAP", 10)
    record = keilref.read_game(KO)
    page = record._repr_html_()
    assert _positions(page) == [""] and "<script>" not in page
    assert wording.steps_stop(len(record.turns), 10) in page


def test_the_buttons_step_through_the_positions(browser: Any, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    record = keilref.read_game(KO)
    # Two renders on one page: each set of buttons drives its own board.
    page = tmp_path / "notebook.html"
    page.write_text(f"<!DOCTYPE html><meta charset='utf-8'>{record._repr_html_()}{record._repr_html_()}", encoding="utf-8")
    browser.get(page.as_uri())
    first, second = browser.find_elements(By.CSS_SELECTOR, ".keilref-record")
    last = str(len(record.turns))

    def counter(root: Any) -> str:
        return str(root.find_element(By.CSS_SELECTOR, ".keilref-at").text)

    def shown(root: Any) -> list[bool]:
        return [bool(e.is_displayed()) for e in root.find_elements(By.CSS_SELECTOR, ".keilref-position")]

    assert counter(first) == last and shown(first)[-1] and sum(shown(first)) == 1
    first.find_element(By.CSS_SELECTOR, "[data-step=first]").click()
    first.find_element(By.CSS_SELECTOR, "[data-step=next]").click()
    assert counter(first) == "1" and shown(first)[1] and sum(shown(first)) == 1
    first.find_element(By.CSS_SELECTOR, "[data-step=previous]").click()
    first.find_element(By.CSS_SELECTOR, "[data-step=previous]").click()  # stops at the first
    assert counter(first) == "0" and shown(first)[0]
    assert counter(second) == last and shown(second)[-1]
    first.find_element(By.CSS_SELECTOR, "[data-step=last]").click()
    assert counter(first) == last and shown(first)[-1] and sum(shown(first)) == 1
