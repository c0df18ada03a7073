"""The annotator's comments, read where the turn is shown: ``keilref show``
prints the comment on the turn it shows, and the report's viewer shows it
beside the board at that turn. Each is escaped its own way: one safe line in
the terminal, text (never markup) in the page, whatever the comment holds."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from cli_support import ROOT, run
from lines_support import write_annotated

from keilref import wording


KO = str(ROOT / "records" / "games" / "size5-keil-corner-ko.keil")

HOSTILE_IMG = "<img src=x onerror=alert(1)>"
HOSTILE_SCRIPT = "</script><script>alert(2)</script>"
# Turn 4's comment: an escape sequence, and runner commands, one on a line of its own.
COMMENTED = (
    '[Event "Comments"]\n[Rules "keil"]\n[Size "3"]\n[Komi "0"]\n[Button "yes"]\n\n'
    f"1. c3 {{or White answers at h6}} 1... b2 {{{HOSTILE_IMG}}}\n"
    f"2. d4 {{{HOSTILE_SCRIPT}}} 2... a1 {{::error::x \x1b[31m red\n::stop-commands::y}}"
    " 3. c2 ; plain [%clk 0:01:00] line\n*\n"
)
SAID = {
    1: "comment: or White answers at h6",
    2: f"comment: {HOSTILE_IMG}",
    3: f"comment: {HOSTILE_SCRIPT}",
    4: "comment: ::error::x \\x1b[31m red ::stop-commands::y",
    5: "comment: plain line",
}


@pytest.fixture(scope="module")
def commented(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("comments") / "commented.keil"
    path.write_bytes(COMMENTED.encode())
    return path


def _comment_lines(out: str) -> list[str]:
    return [line for line in out.splitlines() if line.startswith("comment:")]


@pytest.mark.parametrize("turn", sorted(SAID))
def test_show_prints_the_comment_on_the_turn_shown(commented: Path, turn: int) -> None:
    result = run("show", "--turn", str(turn), str(commented))
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    # Under the turn it is about, as one line of its own.
    assert lines[lines.index(SAID[turn]) - 1].startswith(f"last turn: {turn} ")
    assert _comment_lines(result.stdout) == [SAID[turn]]


def test_a_comment_is_one_safe_line(commented: Path) -> None:
    result = run("show", "--turn", "4", str(commented))
    assert result.exit_code == 0
    assert "\x1b" not in result.stdout
    # The comment's own line break is gone: no line a CI runner would run.
    assert not [line for line in result.stdout.splitlines() if line.lstrip().startswith("::")]


def test_no_comment_no_line(commented: Path) -> None:
    result = run("show", "--turn", "0", str(commented))
    assert result.exit_code == 0
    assert _comment_lines(result.stdout) == []


def test_clock_commands_are_not_comments(tmp_path: Path) -> None:
    """The shared annotated game's comments are clock commands, all but one on an illegal turn."""
    game = write_annotated(tmp_path)
    for turn in range(7):
        result = run("show", "--turn", str(turn), str(game))
        assert result.exit_code == 0
        assert _comment_lines(result.stdout) == []


def test_the_teachers_comment_in_an_archived_game() -> None:
    result = run("show", "--turn", "30", KO)
    assert result.exit_code == 0
    assert _comment_lines(result.stdout) == [
        "comment: captures e2: a ko. Black may not retake at once, since that would repeat the position after turn 29."
    ]


def test_a_comment_on_a_variation_turn(tmp_path: Path) -> None:
    path = tmp_path / "lines.keil"
    path.write_text(
        '[Rules "keil"]\n[Size "3"]\n[Komi "0"]\n[Button "yes"]\n\n1. c3 (1. b2 {or White answers at h6} 1... c3) 1... b2 *\n',
        encoding="utf-8",
    )
    result = run("show", "--line", "6:7", "--turn", "1", str(path))
    assert result.exit_code == 0
    assert _comment_lines(result.stdout) == ["comment: or White answers at h6"]
    result = run("show", "--turn", "1", str(path))
    assert result.exit_code == 0
    assert _comment_lines(result.stdout) == []


def test_the_label_comes_from_wording(commented: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(wording, "comment_line", lambda text: f"TEACHER SAYS >> {text}")
    result = run("show", "--turn", "1", str(commented))
    assert result.exit_code == 0
    assert "TEACHER SAYS >> or White answers at h6" in result.stdout.splitlines()
    page = run("check", "--format", "html", str(commented)).stdout
    assert '"comment":"TEACHER SAYS >> {C}"' in page


# -- the report's viewer ---------------------------------------------------------


@pytest.fixture(scope="module")
def report(commented: Path) -> Path:
    out = commented.parent / "report.html"
    result = run("check", "--format", "html", "-o", str(out), str(commented))
    assert result.exit_code == 0
    return out


def _no_alert(driver: Any) -> None:
    from selenium.common.exceptions import NoAlertPresentException

    time.sleep(0.3)  # an image's error handler runs once its load has failed
    try:
        alert = driver.switch_to.alert
    except NoAlertPresentException:
        return
    text = alert.text
    alert.dismiss()
    pytest.fail(f"the page ran a comment's script: alert {text!r}")


def _comment(driver: Any) -> Any:
    from selenium.webdriver.common.by import By

    return driver.find_element(By.CSS_SELECTOR, '.viewer[data-game="1"] .viewer-comment')


def _go(driver: Any, report: Path, turn: int) -> None:
    driver.get("about:blank")
    driver.get(f"{report.as_uri()}#game=1&turn={turn}")


@pytest.mark.parametrize("turn", sorted(SAID))
def test_the_viewer_shows_the_comment_as_text(browser: Any, report: Path, turn: int) -> None:
    _go(browser, report, turn)
    _no_alert(browser)
    comment = _comment(browser)
    assert comment.is_displayed()
    # Shown literally: the page's text equals the comment, escapes and all.
    assert browser.execute_script("return arguments[0].textContent", comment) == SAID[turn]
    assert browser.execute_script("return arguments[0].children.length", comment) == 0


def test_nothing_in_a_comment_becomes_markup(browser: Any, report: Path) -> None:
    for turn in range(6):
        _go(browser, report, turn)
        _no_alert(browser)
        assert browser.execute_script("return document.images.length") == 0
        assert browser.execute_script("return document.scripts.length") == 3  # the page's own: data, rows, script


def test_the_comment_follows_the_turn_shown(browser: Any, report: Path) -> None:
    from selenium.webdriver.common.by import By

    _go(browser, report, 1)
    comment = _comment(browser)
    assert comment.text == SAID[1]
    browser.find_element(By.CSS_SELECTOR, '.viewer[data-game="1"] button[data-step="first"]').click()
    assert not comment.is_displayed()
    browser.find_element(By.CSS_SELECTOR, '.viewer[data-game="1"] button[data-step="next"]').click()
    browser.find_element(By.CSS_SELECTOR, '.viewer[data-game="1"] button[data-step="next"]').click()
    assert comment.text == SAID[2]
    _no_alert(browser)
