"""A problem set up from a position, in the HTML report's viewer, driven in a
real Chromium (see browser_support.py): it opens at turn 0 on the set-up
stones, and steps forward and back through the solution (the main line) and
through the refutation (a variation), the stones on the board checked at
every step, and each turn labelled with its player and its White-first move
number. Every problem of the collection in records/problems/, once there is
one, is stepped through too: each frame of each line against the referee's
replay of it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from cli_support import ROOT, run
from position_records_support import (
    PROBLEM,
    PROBLEM_REFUTATION,
    PROBLEM_SOLUTION,
    PROBLEM_START,
    REFUTATION,
    TIMED,
)

import keilref
from keilref.formats import svg
from keilref.referee.lines import Node, find_line, variation_places

_BOARD = keilref.Game(size=3)
_AT = {(round(x, 2), round(y, 2)): name for (x, y), name in zip(svg.layout_for(_BOARD).xy, _BOARD.points())}
SOLUTION_LABELS = ["b2 (White)", "c1 (Black)", "c2 (White)"]
REFUTATION_LABELS = ["a2? (White)", "b2 (Black)"]
START = "start: the setup position, no turn yet"


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("problem")
    game = folder / "problem.keil"
    game.write_text(PROBLEM, encoding="utf-8")
    out = folder / "report.html"
    result = run("check", "--format", "html", "-o", str(out), str(game))
    assert result.exit_code == 0  # unfinished, which fails only under --strict
    return out


class Viewer:
    """What a person reads and presses in the viewer of the report's one game."""

    def __init__(self, driver: Any) -> None:
        from selenium.webdriver.common.by import By

        self.by = By
        self.root = driver.find_element(By.CSS_SELECTOR, '.viewer[data-game="1"]')

    def find(self, css: str) -> Any:
        return self.root.find_element(self.by.CSS_SELECTOR, css)

    @property
    def status(self) -> str:
        return str(self.find(".viewer-status").text)

    @property
    def turn(self) -> int:
        return int(self.root.get_attribute("data-turn"))

    @property
    def line(self) -> str:
        return str(self.root.get_attribute("data-line"))

    def stones(self) -> dict[str, str]:
        """The stones drawn on the board: point -> ``b`` or ``w``."""
        found = self.root.find_elements(self.by.CSS_SELECTOR, ".viewer-layer circle.stone")
        out = {}
        for s in found:
            point = _AT[(round(float(s.get_attribute("cx")), 2), round(float(s.get_attribute("cy")), 2))]
            assert point not in out, f"two stones drawn on {point}"
            out[point] = s.get_attribute("class").split()[1][0]
        return out

    def choices(self) -> list[tuple[str, bool]]:
        group = self.find(".choices")
        if not group.is_displayed():
            return []
        return [
            (str(b.text), b.get_attribute("aria-pressed") == "true")
            for b in group.find_elements(self.by.TAG_NAME, "button")
        ]

    def choose(self, label: str) -> None:
        for button in self.find(".choices").find_elements(self.by.TAG_NAME, "button"):
            if button.text == label:
                button.click()
                return
        raise AssertionError(f"no alternative {label!r} in {self.choices()}")

    def step(self, how: str) -> None:
        self.find(f'button[data-step="{how}"]').click()


def _open(browser: Any, report: Path, where: str) -> Viewer:
    browser.get("about:blank")
    browser.get(f"{report.as_uri()}#{where}")
    return Viewer(browser)


def test_the_problem_opens_at_turn_0_on_the_setup(browser: Any, report: Path) -> None:
    v = _open(browser, report, "game=1&turn=0")
    assert (v.line, v.turn) == ("main", 0)
    assert v.stones() == PROBLEM_START
    assert v.status == START
    assert v.find('button[data-step="prev"]').get_attribute("disabled") == "true"


def test_step_through_the_solution_and_back(browser: Any, report: Path) -> None:
    v = _open(browser, report, "game=1&turn=0")
    for turn, (stones, label) in enumerate(zip(PROBLEM_SOLUTION, SOLUTION_LABELS), 1):
        v.step("next")
        assert (v.line, v.turn) == ("main", turn)
        assert v.status == f"turn {turn} of 3: {label}"
        assert v.stones() == stones, turn
    assert v.find('button[data-step="next"]').get_attribute("disabled") == "true"
    # The captured stones are drawn faint where they stood: b1 and c1, Black's.
    faint = v.root.find_elements(v.by.CSS_SELECTOR, ".viewer-layer circle.captured")
    assert sorted(c.get_attribute("class") for c in faint) == ["captured black", "captured black"]
    for turn in (2, 1):
        v.step("prev")
        assert v.turn == turn
        assert v.stones() == PROBLEM_SOLUTION[turn - 1]
    v.step("prev")
    assert (v.turn, v.status) == (0, START)
    assert v.stones() == PROBLEM_START


def test_the_first_turn_offers_the_refutation_numbered_for_white(browser: Any, report: Path) -> None:
    v = _open(browser, report, "game=1&turn=0")
    v.step("next")
    assert v.choices() == [("main line: 1... b2", True), (f"variation at {REFUTATION}: 1... a2?", False)]
    v.step("next")
    # Turn 2 has no alternative: nothing offered there.
    assert v.choices() == []


def test_step_through_the_refutation_and_back(browser: Any, report: Path) -> None:
    v = _open(browser, report, "game=1&turn=1")
    assert v.stones() == PROBLEM_SOLUTION[0]
    v.choose(f"variation at {REFUTATION}: 1... a2?")
    assert (v.line, v.turn) == (REFUTATION, 1)
    assert v.status == f"variation at {REFUTATION}, turn 1 of 2: {REFUTATION_LABELS[0]}"
    assert v.stones() == PROBLEM_REFUTATION[0]
    v.step("next")
    assert (v.line, v.turn) == (REFUTATION, 2)
    assert v.status == f"variation at {REFUTATION}, turn 2 of 2: {REFUTATION_LABELS[1]}"
    assert v.stones() == PROBLEM_REFUTATION[1]
    assert v.find(".viewer-comment").text == "comment: Black links a1 and b1"
    v.step("prev")
    assert v.stones() == PROBLEM_REFUTATION[0]
    v.step("prev")
    # Before the refutation's first turn: the set-up position, as on the main line.
    assert (v.line, v.turn) == (REFUTATION, 0)
    assert v.status == f"variation at {REFUTATION}, {START}"
    assert v.stones() == PROBLEM_START
    v.find("button.up").click()
    assert (v.line, v.turn) == ("main", 0)
    assert v.stones() == PROBLEM_START


def test_the_address_opens_the_refutation_at_its_end(browser: Any, report: Path) -> None:
    v = _open(browser, report, f"game=1&line={REFUTATION}")
    assert (v.line, v.turn) == (REFUTATION, 2)
    assert v.stones() == PROBLEM_REFUTATION[1]


def test_the_clocks_of_a_white_first_game_are_the_ones_show_prints(
    browser: Any, tmp_path_factory: pytest.TempPathFactory
) -> None:
    folder = tmp_path_factory.mktemp("timed")
    game = folder / "timed.keil"
    game.write_text(TIMED, encoding="utf-8")
    out = folder / "report.html"
    assert run("check", "--format", "html", "-o", str(out), str(game)).exit_code == 0
    v = _open(browser, out, "game=1&turn=0")
    shown = []
    for turn in range(4):
        if turn:
            v.step("next")
        assert v.turn == turn
        clocks = str(v.find(".viewer-clocks").text)
        assert clocks == run("show", "--turn", str(turn), str(game)).stdout.splitlines()[-1], turn
        shown.append(clocks)
    assert shown == [
        "clocks: Black no clock yet, White no clock yet",
        "clocks: Black no clock yet, White 0:00:59",
        "clocks: Black 0:00:58, White 0:00:59",
        "clocks: Black 0:00:58, White 0:01:05",
    ]


PROBLEMS = ROOT / "records" / "problems"


def _problem_files(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """The problem above, and every problem of the collection in records/problems/ (if there is one)."""
    fixture = tmp_path_factory.mktemp("problems") / "problem.keil"
    fixture.write_text(PROBLEM, encoding="utf-8")
    collection = sorted(PROBLEMS.glob("*.keil")) if PROBLEMS.is_dir() else []
    return [fixture, *collection]


def _stones_of(game: keilref.Game) -> dict[str, str]:
    return {p: "b" if c is keilref.Color.BLACK else "w" for p in game.points() if (c := game.stone_at(p)) is not None}


def _line_nodes(root: Node, place: str) -> list[Node]:
    """The positions a line's frames show after its branch: its first turn's on."""
    first = find_line(root, place)
    return [first, *first.mainline()]


def test_every_position_of_every_problem_is_the_referees(
    browser: Any, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """For each problem file (game 1), every frame of the main line and of each
    variation shows the stones the referee's replay of that line has."""
    for path in _problem_files(tmp_path_factory):
        record = keilref.read_game(path.read_text(encoding="utf-8"))
        assert record.setup is not None, path
        out = tmp_path_factory.mktemp("problem-report") / "report.html"
        assert run("check", "--format", "html", "-o", str(out), str(path)).exit_code in (0, 1)
        root = record.tree()
        start = root.game()
        at = {(round(x, 2), round(y, 2)): name for (x, y), name in zip(svg.layout_for(start).xy, start.points())}
        places = ["main", *(f"{line}:{column}" for line, column in variation_places(root))]
        for place in places:
            nodes = _line_nodes(root, place)
            branch = nodes[0].ply - 1
            expected = {branch: _stones_of(nodes[0].parent.game() if nodes[0].parent else start)}
            for node in nodes:
                try:
                    expected[node.ply] = _stones_of(node.game())
                except keilref.KeilrefError:
                    break  # an illegal turn ends what the viewer steps through
            for turn, stones in expected.items():
                browser.get("about:blank")
                browser.get(f"{out.as_uri()}#game=1&line={place}&turn={turn}")
                v = Viewer(browser)
                # A game without variations has no line to name: its viewer is the main line's.
                assert v.turn == turn and (place == "main" or v.line == place), (path.name, place, turn)
                found = v.root.find_elements(v.by.CSS_SELECTOR, ".viewer-layer circle.stone")
                drawn = {
                    at[(round(float(c.get_attribute("cx")), 2), round(float(c.get_attribute("cy")), 2))]:
                    c.get_attribute("class").split()[1][0]
                    for c in found
                }
                assert drawn == stones, (path.name, place, turn)
