"""The report with JavaScript switched off: everything but stepping through games is there."""

from __future__ import annotations

import re
from pathlib import Path

import test_standings
from cli_support import ROOT, run


def _dom_without_scripts(path: Path) -> str:
    """The page as a browser with JavaScript switched off shows it (its text, after layout)."""
    import browser_support

    driver = browser_support.open_browser(javascript=False)
    try:
        driver.get(path.as_uri())
        return str(driver.page_source)
    finally:
        driver.quit()


def test_faults_standings_and_the_table_need_no_script(tmp_path: Path) -> None:
    archive = test_standings.archive(tmp_path)
    report = tmp_path / "report.html"
    result = run("check", "--format", "html", "-o", str(report), str(archive), str(ROOT / "records/faults/illegal-superko.keil"))
    assert result.exit_code == 1
    dom = _dom_without_scripts(report)
    text = re.sub(r"<[^>]+>", " ", dom)
    # Every failing game: its place, reason and source line with the caret.
    assert "illegal-superko.keil:8:79" in dom and "superko (repeats turn 29)" in text
    assert f"{archive.name}:31:7" in dom and f"{archive.name}:47:10" in dom
    # The standings, worked out by hand in test_standings.
    flat = re.sub(r"\s+", " ", text)
    for rank, player, points, *_ in test_standings.EXPECTED:
        shown = f"{int(points)}½" if points % 1 else f"{points:g}"  # halves as the page writes them
        assert f" {rank} {player} {shown} " in flat, player
    # The table's first rows are in the page itself.
    assert dom.count("<tr") >= 16
