"""The HTML report as a tournament director works from it, in a real Chromium:
the table filtered, sorted and searched, the standings, a game opened from
its fault, and the arrow keys stepping the viewer in view.

The archive is tests/test_standings.py's hand-made round robin (one illegal
game, one mismatch), so the standings are checked against figures worked
out by hand.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from cli_support import run
from test_standings import EXPECTED, ROUND_ROBIN, archive

RIGHT, HOME = "\ue014", "\ue011"


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("table")
    out = folder / "report.html"
    result = run("check", "--format", "html", "-o", str(out), str(archive(folder)))
    assert result.exit_code == 1
    return out


def by() -> Any:
    from selenium.webdriver.common.by import By

    return By


def rows(driver: Any) -> list[list[str]]:
    """The table's rows as shown: the text of each cell."""
    found = driver.find_elements(by().CSS_SELECTOR, "table.games tbody tr")
    return [[c.text for c in r.find_elements(by().TAG_NAME, "td")] for r in found]


def choose(driver: Any, name: str, value: str) -> None:
    from selenium.webdriver.support.ui import Select

    Select(driver.find_element(by().CSS_SELECTOR, f'select[data-filter="{name}"]')).select_by_value(value)


def type_in(driver: Any, name: str, text: str) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    box = driver.find_element(by().CSS_SELECTOR, f'input[data-filter="{name}"]')
    box.clear()
    box.send_keys(text)
    before = driver.find_element(by().CSS_SELECTOR, ".table-count").text
    # The search waits for typing to pause before it filters.
    WebDriverWait(driver, 5).until(lambda d: d.find_element(by().CSS_SELECTOR, ".table-count").text != before)


def test_filter_by_status(page: Any) -> None:
    assert len(rows(page)) == 15
    choose(page, "status", "illegal")
    shown = rows(page)
    assert len(shown) == 1 and "illegal" in shown[0][7]
    assert page.find_element(by().CSS_SELECTOR, ".table-count").text == "1 of 15 games match"
    choose(page, "status", "failing")
    assert sorted(r[7].split()[-1] for r in rows(page)) == ["illegal", "mismatch"]
    # Failing rows say so in words and a sign, not by colour alone.
    assert rows(page)[0][7] in ("✗ illegal", "≠ mismatch")


def test_sort_by_a_column(page: Any) -> None:
    header = page.find_element(by().CSS_SELECTOR, 'table.games th[data-col="5"]')
    header.find_element(by().TAG_NAME, "button").click()
    assert header.get_attribute("aria-sort") == "ascending"
    players = [r[5] for r in rows(page)]
    assert players == sorted(players) and players[0].startswith("Ana")
    # Pressed again from the keyboard: the other way round.
    header.find_element(by().TAG_NAME, "button").send_keys("\ue007")
    assert header.get_attribute("aria-sort") == "descending"
    assert [r[5] for r in rows(page)] == sorted(players, reverse=True)
    assert page.find_element(by().CSS_SELECTOR, 'table.games th[data-col="0"]').get_attribute("aria-sort") is None


def test_search_a_player(page: Any) -> None:
    type_in(page, "player", "cai")
    shown = rows(page)
    expected = [g for g in ROUND_ROBIN if "Cai" in (g[1], g[2])]
    assert len(shown) == len(expected) == 5
    assert all("Cai" in r[5] for r in shown)
    choose(page, "round", "3")
    assert [r[5] for r in rows(page)] == ["Cai – Ana"]
    type_in(page, "text", "mismatch")
    assert rows(page) == []


def test_the_standings_are_the_hand_computed_ones(page: Any) -> None:
    table = page.find_element(by().CSS_SELECTOR, "table.standings")
    got = []
    for tr in table.find_elements(by().CSS_SELECTOR, "tbody tr"):
        cells = [c.text for c in tr.find_elements(by().CSS_SELECTOR, "td, th")]
        number = lambda s: float(s.replace("½", ".5")) if s != "½" else 0.5
        got.append((int(cells[0]), cells[1], number(cells[2]), int(cells[3]), int(cells[4]), int(cells[5]),
                    int(cells[6]), number(cells[7])))
    assert got == EXPECTED
    # The two games not counted are marked in the crosstable, each twice (once per player), linked to their fault.
    marks = page.find_elements(by().CSS_SELECTOR, "table.crosstable a.not-counted")
    assert sorted(m.text for m in marks) == ["✗ illegal", "✗ illegal", "✗ mismatch", "✗ mismatch"]


def test_open_a_game_from_its_fault(page: Any) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    mark = next(m for m in page.find_elements(by().CSS_SELECTOR, "a.not-counted") if "illegal" in m.text)
    row = mark.get_attribute("href").rpartition("=")[2]
    mark.click()
    viewer = page.find_element(by().CSS_SELECTOR, f'.viewer[data-game="{row}"]')
    WebDriverWait(page, 5).until(lambda d: viewer.get_attribute("data-turn") is not None)
    # Game 8 (Cai – Ana, 1. e3 e3): the viewer stops after the first turn, the second marked illegal.
    assert viewer.get_attribute("data-turn") == "1"
    assert "illegal" in viewer.find_element(by().CSS_SELECTOR, ".viewer-status").text
    assert len(viewer.find_elements(by().CSS_SELECTOR, ".viewer-layer g.illegal")) == 1
    section = page.find_element(by().ID, f"game-{row}")
    assert "illegal" in section.find_element(by().CSS_SELECTOR, ".message").text
    assert section.find_element(by().CSS_SELECTOR, "pre.source").text.endswith("^")


def test_the_arrow_keys_step_the_viewer_in_view(page: Any) -> None:
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.support.ui import WebDriverWait

    viewers = page.find_elements(by().CSS_SELECTOR, ".viewer")
    first, other = viewers[0], viewers[len(viewers) // 2]
    page.execute_script("arguments[0].scrollIntoView({block: 'center'}); document.activeElement.blur();", other)
    WebDriverWait(page, 5).until(lambda d: other.get_attribute("data-turn") is not None)
    first_turn = first.get_attribute("data-turn")
    ActionChains(page).send_keys(HOME, RIGHT).perform()
    assert other.get_attribute("data-turn") == "1"
    assert first.get_attribute("data-turn") == first_turn
    # The focus wins over what is in view.
    page.execute_script("arguments[0].focus({preventScroll: true});", first)
    ActionChains(page).send_keys(HOME).perform()
    assert first.get_attribute("data-turn") == "0"
    assert other.get_attribute("data-turn") == "1"
