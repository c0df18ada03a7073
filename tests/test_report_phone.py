"""The report's standings on a phone, 390 CSS pixels wide, in a real Chromium:
nothing is cut without a sign that more is there, captions are read whole,
and a crosstable's columns stay close in width whether they hold points or
the mark of a game not counted."""

from __future__ import annotations

import statistics
from collections.abc import Iterator
from itertools import combinations
from pathlib import Path
from typing import Any

import pytest
from cli_support import run

from browser_support import open_browser
from keilref import wording

WIN_BLACK = '[Rules "keil"] [Size "3"] [Komi "2"] [Button "yes"]\n1. e3 a1 B+R\n'
WIN_WHITE = '[Rules "keil"] [Size "3"] [Komi "2"] [Button "yes"]\n1. e3 a1 W+R\n'
ILLEGAL = '[Rules "keil"] [Size "3"] [Komi "2"] [Button "yes"]\n1. e3 e3 W+R\n'
MISMATCH = '[Rules "keil"] [Size "3"] [Komi "2"] [Button "yes"]\n1. e3 a1 B+3\n'
PLAYERS = ["Iria Souto Fernández", "Marcos Lage", "Gloria Paz", "Xoán Vilar",
           "Antía Rei", "Brais Outeiro", "Uxía Cores", "Roi Mosquera"]
EVENT = "Vigo Keil club championship 2026, open section"
PHONE = 390


def _event() -> str:
    """Eight players' round robin: six mismatches and one illegal game among the 28."""
    games = []
    for n, (black, white) in enumerate(combinations(PLAYERS, 2)):
        game = MISMATCH if n % 5 == 2 else ILLEGAL if n == 9 else WIN_BLACK if n % 2 else WIN_WHITE
        games.append(f'[Event "{EVENT}"] [Round "{n % 7 + 1}"] [Black "{black}"] [White "{white}"]\n{game}')
    return "\n".join(games)


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("phone")
    (folder / "event.keil").write_text(_event(), encoding="utf-8")
    out = folder / "report.html"
    result = run("check", "--format", "html", "-o", str(out), str(folder / "event.keil"))
    assert result.exit_code == 1  # the damaged games fail
    return out


@pytest.fixture(scope="module")
def phone(report: Path) -> Iterator[Any]:
    driver = open_browser()
    try:
        # A phone's viewport: its width, and scroll bars drawn over the content (none take room).
        driver.execute_cdp_cmd(
            "Emulation.setDeviceMetricsOverride", {"width": PHONE, "height": 800, "deviceScaleFactor": 2, "mobile": True}
        )
        driver.get(report.as_uri())
        assert driver.execute_script("return window.innerWidth") == PHONE
        yield driver
    finally:
        driver.quit()


_TABLES = """
return Array.from(document.querySelectorAll(arguments[0])).map(function (t) {
  var wrap = t.parentElement, style = getComputedStyle(wrap), box = wrap.getBoundingClientRect();
  var cap = t.querySelector("caption .caption-text") || t.querySelector("caption");
  var c = cap ? cap.getBoundingClientRect() : null;
  return {table: t.className, wrap: wrap.className, scrollWidth: t.scrollWidth, clientWidth: wrap.clientWidth,
          overflowX: style.overflowX, hint: style.backgroundImage, left: box.left, right: box.right,
          caption: c && c.width > 1 ? [c.left, c.right] : null};
});
"""


@pytest.mark.parametrize("which", ["table.standings", "table.crosstable"])
def test_no_cell_or_caption_is_cut_without_a_hint(phone: Any, which: str) -> None:
    tables = phone.execute_script(_TABLES, which)
    assert len(tables) == 1
    for t in tables:
        # The container stays within the page: the page itself never scrolls sideways.
        assert 0 <= t["left"] and t["right"] <= PHONE, t
        if t["scrollWidth"] > t["clientWidth"]:
            # Wider than the phone: it scrolls in its container, which shades the edge with more to see.
            assert t["overflowX"] in ("auto", "scroll"), t
            assert t["hint"].count("gradient") == 4, t
        # The caption is read whole without scrolling: within the part of the container in view.
        assert t["caption"] is not None, t
        left, right = t["caption"]
        assert t["left"] - 0.5 <= left and right <= t["left"] + t["clientWidth"] + 0.5, t


def test_every_table_fits_or_scrolls_in_its_container(phone: Any) -> None:
    tables = phone.execute_script(_TABLES, "table")
    assert {t["table"] for t in tables} == {"counts", "standings", "crosstable", "ratings", "games"}
    for t in tables:
        assert t["scrollWidth"] <= t["clientWidth"] or t["overflowX"] in ("auto", "scroll"), t


def test_the_page_does_not_scroll_sideways(phone: Any) -> None:
    width = phone.execute_script("return document.documentElement.scrollWidth")
    assert width <= PHONE


def test_the_crosstable_columns_are_close_in_width(phone: Any) -> None:
    widths = phone.execute_script(
        "return Array.from(document.querySelectorAll('table.crosstable thead th')).slice(2)"
        ".map(function (th) { return th.getBoundingClientRect().width; })"
    )
    assert len(widths) == len(PLAYERS)
    assert max(widths) <= 2 * statistics.median(widths), widths


def test_a_mark_not_counted_is_compact_and_still_named(phone: Any) -> None:
    from selenium.webdriver.common.by import By

    marks = phone.find_elements(By.CSS_SELECTOR, "table.crosstable a.not-counted")
    assert len(marks) == 2 * 7  # seven games not counted, each in both players' rows
    for mark in marks:
        # The mark shows; the status's word is there for a reader without styles, but takes no room.
        assert mark.get_attribute("textContent").startswith(wording.NOT_COUNTED_MARK)
        word = mark.find_element(By.CSS_SELECTOR, ".why")
        assert phone.execute_script("return arguments[0].getBoundingClientRect().width", word) <= 1
        label = mark.get_attribute("aria-label")
        assert label == mark.get_attribute("title")
        assert label.startswith("round ") and ("mismatch" in label or "illegal" in label)
    statuses = sorted(m.get_attribute("aria-label").split(": ")[1].split(",")[0] for m in marks)
    assert statuses == ["illegal"] * 2 + ["mismatch"] * 12
