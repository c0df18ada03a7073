"""The HTML report's viewer, driven as a person drives it: clicks and keys in
a real Chromium (through WebDriver, see browser_support.py).

The game is tests/lines_support.py's: a main line of six turns, a variation
at 9:1 replacing turn 2 with one nested at 9:38, an illegal one at 10:56,
glyphs and clocks. What the viewer shows is checked against what
``keilref show`` says of the same position, so the page and the command
line cannot drift apart.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from cli_support import run
from lines_support import write_annotated

# WebDriver's codes for the keys pressed (selenium's Keys spells them so too).
LEFT, UP, RIGHT, DOWN, HOME, END = "\ue012", "\ue013", "\ue014", "\ue015", "\ue011", "\ue010"


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("viewer")
    game = write_annotated(folder)
    out = folder / "report.html"
    result = run("check", "--format", "html", "-o", str(out), str(game))
    assert result.exit_code == 0
    return out


class Viewer:
    """What a person reads and presses in the game's viewer."""

    def __init__(self, driver: Any) -> None:
        from selenium.webdriver.common.by import By

        self.driver = driver
        self.by = By
        self.root = driver.find_element(By.CSS_SELECTOR, '.viewer[data-game="1"]')

    def find(self, css: str) -> Any:
        return self.root.find_element(self.by.CSS_SELECTOR, css)

    @property
    def status(self) -> str:
        return str(self.find(".viewer-status").text)

    @property
    def clocks(self) -> str:
        return str(self.find(".viewer-clocks").text)

    @property
    def turn(self) -> int:
        return int(self.root.get_attribute("data-turn"))

    @property
    def line(self) -> str:
        return str(self.root.get_attribute("data-line"))

    def stones(self) -> list[tuple[str, str, str]]:
        """Each stone drawn: its colour class and where it stands."""
        found = self.root.find_elements(self.by.CSS_SELECTOR, ".viewer-layer circle.stone")
        return sorted((s.get_attribute("class"), s.get_attribute("cx"), s.get_attribute("cy")) for s in found)

    def choices(self) -> list[tuple[str, bool]]:
        """The alternatives offered to the turn shown: each label, and whether it is the one shown."""
        group = self.find(".choices")
        if not group.is_displayed():
            return []
        buttons = group.find_elements(self.by.TAG_NAME, "button")
        return [(str(b.text), b.get_attribute("aria-pressed") == "true") for b in buttons]

    def choose(self, label: str) -> None:
        for button in self.find(".choices").find_elements(self.by.TAG_NAME, "button"):
            if button.text == label:
                button.click()
                return
        raise AssertionError(f"no alternative {label!r} in {self.choices()}")

    def up(self) -> Any:
        return self.find("button.up")

    def press(self, *keys: str) -> None:
        from selenium.webdriver.common.action_chains import ActionChains

        ActionChains(self.driver).send_keys(*keys).perform()

    def focus(self) -> None:
        self.driver.execute_script("arguments[0].focus()", self.root)

    def step(self, how: str) -> None:
        self.find(f'button[data-step="{how}"]').click()

    def go_to(self, turn: int) -> None:
        self.step("first")
        for _ in range(turn):
            self.step("next")
        assert self.turn == turn


def show_clocks(*args: str) -> str:
    """The clock line ``keilref show`` prints for the same position."""
    return str(run("show", *args).stdout.splitlines()[-1])


def test_step_into_a_variation_and_back(page: Any, report: Path) -> None:
    v = Viewer(page)
    assert v.line == "main" and v.turn == 6
    v.go_to(2)
    assert v.status == "turn 2 of 6: b2 (White)"
    main_at_2 = v.stones()
    assert v.choices() == [("main line: 1... b2", True), ("variation at 9:1: 1... d4?! $6", False)]
    assert not v.up().is_displayed()

    v.choose("variation at 9:1: 1... d4?! $6")
    assert (v.line, v.turn) == ("9:1", 2)
    assert v.status == "variation at 9:1, turn 2 of 4: d4?! $6 (White)"
    assert v.stones() != main_at_2 and len(v.stones()) == 2
    assert v.choices() == [("main line: 1... b2", False), ("variation at 9:1: 1... d4?! $6", True)]
    # The slider now spans the variation: to its last turn, 4.
    assert v.find('input[type="range"]').get_attribute("max") == "4"

    v.step("next")
    assert v.status == "variation at 9:1, turn 3 of 4: b2 (Black)"
    assert v.choices() == [("variation at 9:1: 2. b2", True), ("variation at 9:38: 2. a1", False)]
    v.step("last")
    assert v.status == "variation at 9:1, turn 4 of 4: c2 (White)"
    assert len(v.stones()) == 4

    up = v.up()
    assert up.is_displayed() and up.text == "back to the main line"
    up.click()
    # Back where the variation branched: after turn 1 of the main line.
    assert (v.line, v.turn) == ("main", 1)
    assert v.status == "turn 1 of 6: c3! (Black)"
    assert not v.up().is_displayed()
    v.step("next")
    assert v.status == "turn 2 of 6: b2 (White)"
    assert v.stones() == main_at_2


def test_the_keyboard_enters_and_leaves_a_variation(page: Any) -> None:
    v = Viewer(page)
    v.focus()
    v.press(LEFT * 4)
    assert (v.line, v.turn) == ("main", 2)
    v.press(DOWN)  # the next alternative to the turn shown
    assert (v.line, v.turn) == ("9:1", 2)
    v.press(RIGHT, DOWN)  # into the variation nested in it
    assert (v.line, v.turn) == ("9:38", 3)
    assert v.status == "variation at 9:38, turn 3 of 3: a1 (Black)"
    v.press(UP)  # back to the line it branched from, where it branched
    assert (v.line, v.turn) == ("9:1", 2)
    v.press(UP)
    assert (v.line, v.turn) == ("main", 1)
    # On the main line up does nothing (the page may scroll); Home and End step as ever.
    v.press(UP)
    assert (v.line, v.turn) == ("main", 1)
    v.press(HOME)
    assert v.turn == 0 and v.status == "start: no turn yet"
    v.press(END)
    assert (v.line, v.turn) == ("main", 6)
    # Down at a turn without alternatives stays on the line.
    v.press(DOWN)
    assert (v.line, v.turn) == ("main", 6)


def test_the_clocks_at_each_turn_are_the_ones_show_prints(page: Any, report: Path) -> None:
    v = Viewer(page)
    game = str(report.parent / "annotated.keil")
    assert v.clocks == "clocks: Black 0:00:50.5, White 0:00:55" == show_clocks(game)
    for turn in range(6):
        v.go_to(turn)
        assert v.clocks == show_clocks("--turn", str(turn), game), turn
    v.go_to(0)
    assert v.clocks == "clocks: Black no clock yet, White no clock yet"
    v.go_to(4)
    assert v.clocks == "clocks: Black 0:00:58, White 0:00:55"
    v.go_to(2)
    v.choose("variation at 9:1: 1... d4?! $6")
    for turn in (2, 3, 4):
        if turn > 2:
            v.step("next")
        assert v.clocks == show_clocks("--line", "9:1", "--turn", str(turn), game), turn
    assert v.clocks == "clocks: Black 0:01:00, White 0:00:58"


def test_the_caption_carries_the_glyphs(page: Any) -> None:
    v = Viewer(page)
    v.go_to(1)
    assert v.status == "turn 1 of 6: c3! (Black)"
    v.go_to(4)
    assert v.status == "turn 4 of 6: button $1 (White)"


def test_an_illegal_variation_is_marked_where_it_fails(page: Any) -> None:
    v = Viewer(page)
    v.go_to(4)
    v.choose("variation at 10:56: 2... c3")
    # Nothing of it can be played: the position before its first turn, and why.
    assert (v.line, v.turn) == ("10:56", 3)
    assert v.status == "variation at 10:56, turn 3 of 3: d4 (Black) — next, illegal: move 2 (White) c3, turn 4: occupied"
    assert len(v.root.find_elements(v.by.CSS_SELECTOR, ".viewer-layer .illegal")) == 1
    v.up().click()
    assert (v.line, v.turn) == ("main", 3)
    assert not v.root.find_elements(v.by.CSS_SELECTOR, ".viewer-layer .illegal")


def test_the_address_opens_a_line_at_a_turn(browser: Any, report: Path) -> None:
    browser.get("about:blank")
    browser.get(f"{report.as_uri()}#game=1&line=9:38")
    v = Viewer(browser)
    assert (v.line, v.turn) == ("9:38", 3)
    # Only the hash changes: the page hears of it by an event, a moment later.
    from selenium.webdriver.support.ui import WebDriverWait

    browser.get(f"{report.as_uri()}#game=1&line=9:1&turn=3")
    WebDriverWait(browser, 10).until(lambda _: (v.line, v.turn) == ("9:1", 3))


def test_every_control_has_a_name_for_a_screen_reader(page: Any) -> None:
    v = Viewer(page)
    v.go_to(2)
    v.choose("variation at 9:1: 1... d4?! $6")
    buttons = [b for b in v.root.find_elements(v.by.TAG_NAME, "button") if b.is_displayed()]
    assert len(buttons) == 4 + 2 + 1  # the steps, the two alternatives, the way back
    for b in buttons:
        assert b.text.strip() or b.get_attribute("aria-label"), b.get_attribute("outerHTML")
    assert v.find(".choices").get_attribute("aria-label") == "alternatives to the turn shown"
    assert v.find(".choices").get_attribute("role") == "group"
    for live in (".viewer-status", ".viewer-clocks"):
        assert v.find(live).get_attribute("aria-live") == "polite"
