"""The HTML report and the notebook views with tags written to break their
scripts, in a real Chromium.

``[Round "<!-- x"]`` then ``[Black "<script>"]`` put the HTML parser, inside
a ``<script>`` element that carries them as JSON, in its double-escaped
script state: ``</script>`` no longer ends the element, the page's own
script is swallowed into the data, and filters, paging and viewers die. Every
``<`` in an inline script or JSON block is written ``\\u003c``
(:func:`keilref.escaping.in_script`). The pages are driven here as a person
drives them, and the hostile text must show as written, running nothing.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from cli_support import run

from keilref.escaping import in_script
from keilref.formats import html as html_format
from keilref.formats import notebook
from keilref.formats.html import TABLE_FIRST_PAGE
from keilref.records.parser import parse_games

PWN = "<img src=x onerror=\"window.pwned=(window.pwned||0)+1\">"
"""Markup that would run if any text were put in the page as HTML."""

TAGS = {
    "Event": "<!-- Open <script>",
    "Site": f"</script>{PWN}",
    "Black": "<script>",
    "White": f"<!--<script>{PWN}",
}
GAMES = TABLE_FIRST_PAGE + 20
"""Enough for a second page of the table."""
ILLEGAL = (1, TABLE_FIRST_PAGE + 10)
"""The games that fail (an illegal turn): one on each page, each with a viewer."""
NAME = "<!--<script>.keil"
"""The file's name is text of the page too."""


def _quoted(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"')


def _game(i: int) -> str:
    tags = {**TAGS, "Round": f"<!-- {i}", "Rules": "keil", "Size": "3", "Komi": "1", "Button": "yes"}
    head = "".join(f'[{k} "{_quoted(v)}"]\n' for k, v in tags.items())
    if i in ILLEGAL:
        return head + "\n1. c5 {<!-- <script> a comment} c5 *\n"
    result = "W+R" if i % 2 else "B+R"
    return head + f'[Result "{result}"]\n\n1. c5 d5 {result}\n'


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("hostile")
    (folder / NAME).write_text("\n".join(_game(i) for i in range(1, GAMES + 1)), encoding="utf-8")
    out = folder / "report.html"
    result = run("check", "--format", "html", "-o", str(out), str(folder / NAME))
    assert result.exit_code == 1, result.output
    return out


def by() -> Any:
    from selenium.webdriver.common.by import By

    return By


def _rows(driver: Any) -> list[list[str]]:
    found = driver.find_elements(by().CSS_SELECTOR, "table.games tbody tr")
    return [[c.text for c in r.find_elements(by().TAG_NAME, "td")] for r in found]


def _count(driver: Any) -> str:
    return str(driver.find_element(by().CSS_SELECTOR, ".table-count").text)


def test_no_json_block_or_script_of_the_report_holds_a_less_than_sign(report: Path) -> None:
    page = report.read_text(encoding="utf-8")
    scripts = re.findall(r"<script([^>]*)>(.*?)</script>", page, re.S)
    assert [attrs for attrs, _ in scripts] == [
        ' type="application/json" id="keilref-data"', ' type="application/json" id="keilref-rows"', ""
    ]
    # The data hold no '<' at all; the code is the fixed script, no data in it.
    assert [body for attrs, body in scripts if attrs and "<" in body] == []
    assert scripts[2][1] == "\n" + html_format._script()
    rows = json.loads(scripts[1][1])
    assert rows["files"] == [str(report.parent / NAME)]
    assert rows["rows"][1][3:7] == [TAGS["Event"], "<!-- 2", TAGS["Black"], TAGS["White"]]
    data = json.loads(scripts[0][1])
    assert data["games"]  # the viewers' games travel in it


def test_the_script_runs_and_nothing_hostile_does(page: Any) -> None:
    assert page.execute_script("return window.pwned === undefined")
    # The script shows what it drives: the filters and the pager start hidden.
    assert page.find_element(by().CSS_SELECTOR, "form.filters").is_displayed()
    assert page.find_element(by().CSS_SELECTOR, "nav.pager").is_displayed()


def test_the_hostile_text_is_shown_as_written(page: Any) -> None:
    first = _rows(page)[0]
    assert first[1] == str(Path(page.current_url.removeprefix("file://")).parent / NAME)
    assert first[3:6] == [TAGS["Event"], "<!-- 1", f"{TAGS['Black']} – {TAGS['White']}"]
    section = page.find_element(by().ID, "game-1")
    facts = section.find_element(by().CSS_SELECTOR, ".facts").text
    assert TAGS["Black"] in facts and TAGS["Event"] in facts and "round <!-- 1" in facts
    assert "{<!-- <script> a comment}" in section.find_element(by().CSS_SELECTOR, "pre.source").text


def test_the_table_pages(page: Any) -> None:
    assert len(_rows(page)) == TABLE_FIRST_PAGE
    page.find_element(by().CSS_SELECTOR, 'nav.pager [data-page="next"]').click()
    shown = _rows(page)
    assert [r[0] for r in shown] == [str(i) for i in range(TABLE_FIRST_PAGE + 1, GAMES + 1)]
    assert shown[0][4] == f"<!-- {TABLE_FIRST_PAGE + 1}"
    where = f"rows {TABLE_FIRST_PAGE + 1}–{GAMES} of {GAMES} (page 2 of 2)"
    assert page.find_element(by().CSS_SELECTOR, ".page-of").text == where


def test_the_table_filters(page: Any) -> None:
    from selenium.webdriver.support.ui import Select, WebDriverWait

    Select(page.find_element(by().CSS_SELECTOR, 'select[data-filter="status"]')).select_by_value("illegal")
    assert [r[0] for r in _rows(page)] == [str(i) for i in ILLEGAL]
    assert _count(page) == f"2 of {GAMES} games match"
    Select(page.find_element(by().CSS_SELECTOR, 'select[data-filter="status"]')).select_by_value("")
    Select(page.find_element(by().CSS_SELECTOR, 'select[data-filter="round"]')).select_by_value("<!-- 7")
    assert [r[4] for r in _rows(page)] == ["<!-- 7"]
    Select(page.find_element(by().CSS_SELECTOR, 'select[data-filter="round"]')).select_by_value("")
    box = page.find_element(by().CSS_SELECTOR, 'input[data-filter="text"]')
    before = _count(page)
    box.send_keys("<!-- 11")
    WebDriverWait(page, 5).until(lambda d: _count(d) != before)
    assert sorted(r[4] for r in _rows(page)) == sorted(["<!-- 11", *(f"<!-- {i}" for i in range(110, 120))])


def test_a_viewer_opens_at_the_fault(page: Any) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    for row in ILLEGAL:
        page.find_element(by().CSS_SELECTOR, f'#game-{row} a, a[href="#game={row}"]')
        page.execute_script(f"location.hash = 'game={row}';")
        viewer = page.find_element(by().CSS_SELECTOR, f'.viewer[data-game="{row}"]')
        WebDriverWait(page, 5).until(lambda d: viewer.get_attribute("data-turn") is not None)
        assert viewer.get_attribute("data-turn") == "1"
        assert "illegal" in viewer.find_element(by().CSS_SELECTOR, ".viewer-status").text
    assert page.execute_script("return window.pwned === undefined")


# --- the notebook views ---------------------------------------------------------------------------


def _record(i: int) -> Any:
    text = _game(i).replace(" {<!-- <script> a comment}", "")
    (record,) = parse_games(text)
    return record


@pytest.fixture
def notebook_page(browser: Any, tmp_path: Path) -> Any:
    """Two records' views in one page, as a notebook shows two outputs."""
    views = [notebook.record_html(_record(i)) for i in (2, ILLEGAL[0])]
    path = tmp_path / "notebook.html"
    path.write_text(
        '<!DOCTYPE html><html><head><meta charset="utf-8"></head><body>'
        + "".join(f'<div class="output">{v}</div>' for v in views)
        + "</body></html>",
        encoding="utf-8",
    )
    browser.get("about:blank")
    browser.get(path.as_uri())
    return browser


def test_the_notebook_views_step_and_show_the_tags_as_written(notebook_page: Any) -> None:
    page = notebook_page
    assert page.execute_script("return window.pwned === undefined")
    views = page.find_elements(by().CSS_SELECTOR, ".keilref-record")
    assert len(views) == 2
    for view in views:
        cells = {
            tr.find_element(by().TAG_NAME, "th").text: tr.find_element(by().TAG_NAME, "td").text
            for tr in view.find_elements(by().CSS_SELECTOR, ".keilref-tags tr")
        }
        assert {k: cells[k] for k in TAGS} == TAGS
        steps = view.find_element(by().CSS_SELECTOR, ".keilref-steps")
        assert steps.is_displayed()  # its script ran
        steps.find_element(by().CSS_SELECTOR, '[data-step="first"]').click()
        assert view.find_element(by().CSS_SELECTOR, ".keilref-at").text == "0"
        steps.find_element(by().CSS_SELECTOR, '[data-step="next"]').click()
        assert view.find_element(by().CSS_SELECTOR, ".keilref-at").text == "1"
    # Each view steps on its own.
    assert [v.find_element(by().CSS_SELECTOR, ".keilref-at").text for v in views] == ["1", "1"]
    assert "illegal" in views[1].find_element(by().CSS_SELECTOR, ".keilref-verdict").text


def test_the_notebook_script_holds_no_data_but_its_root() -> None:
    for i in (2, ILLEGAL[0]):
        view = notebook.record_html(_record(i))
        (root,) = re.findall(r'<div class="keilref-record" id="([^"]+)">', view)
        (script,) = re.findall(r"<script>(.*?)</script>", view, re.S)
        assert script == notebook._SCRIPT.replace("ROOT_ID", json.dumps(root))


def test_the_scripts_themselves_cannot_open_a_comment_or_a_script() -> None:
    """What the pages run is fixed text: none of it may start what the data no longer can."""
    for script in (html_format._script(), notebook._SCRIPT):
        assert not re.search(r"<!--|<script|</script", script, re.I)


@pytest.mark.parametrize("value", ["<!-- x", "<script>", "</script>", "a<b", "\u2028<"])
def test_in_script_keeps_the_json_value(value: str) -> None:
    text = in_script(json.dumps({"k": value}, ensure_ascii=False))
    assert "<" not in text and json.loads(text) == {"k": value}
