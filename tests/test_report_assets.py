"""The HTML report's style sheet and script are files of the package, read
once and written into the page as they are, the script's words filled in
from keilref/wording.py."""

from __future__ import annotations

from collections.abc import Iterator
from importlib import resources
from importlib.abc import Traversable
from pathlib import Path

import pytest

from cli_support import ROOT, run
from keilref.formats import html

SUPERKO = ROOT / "records" / "faults" / "illegal-superko.keil"


def asset(name: str) -> str:
    return resources.files("keilref.formats").joinpath("assets").joinpath(name).read_text(encoding="utf-8")


@pytest.fixture(autouse=True)
def fresh_reads() -> Iterator[None]:
    """Each test reads the files afresh, and leaves no copy of a patched read behind."""
    html._asset.cache_clear()
    html._script.cache_clear()
    yield
    html._asset.cache_clear()
    html._script.cache_clear()


def report(tmp_path: Path) -> str:
    out = tmp_path / "report.html"
    result = run("check", "--format", "html", "-o", str(out), str(SUPERKO))
    assert result.exit_code == 1
    return out.read_text(encoding="utf-8")


def test_the_page_holds_the_style_sheet_the_package_ships(tmp_path: Path) -> None:
    css = asset("report.css")
    assert css.startswith("body{") and css.endswith("}\n")
    page = report(tmp_path)
    assert page.count("<style>") == 1
    assert f"<title>keilref check report</title>\n<style>\n{css}</style>\n</head>\n" in page


def test_the_page_holds_the_script_the_package_ships_with_its_words_filled_in(tmp_path: Path) -> None:
    js = asset("report.js")
    assert js.count("KEILREF_NEXT_ILLEGAL") == js.count("KEILREF_STATUS_SIGNS") == js.count("KEILREF_START") == 1
    filled = (
        js.replace("KEILREF_NEXT_ILLEGAL", '" — next, illegal: "')
        .replace(
            "KEILREF_STATUS_SIGNS",
            '{ok: "\\u2713", unfinished: "\\u2026", mismatch: "\\u2260", illegal: "\\u2717", error: "!"}',
        )
        .replace("KEILREF_START", '["start: no turn yet", "start: the setup position, no turn yet"]')
    )
    page = report(tmp_path)
    assert page.endswith(f"<script>\n{filled}</script>\n</main>\n</body>\n</html>\n")
    assert "KEILREF_" not in page


def test_each_file_is_read_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    opened: list[str] = []

    def counted(package: str) -> Traversable:
        opened.append(package)
        return resources.files(package)

    monkeypatch.setattr(html, "package_files", counted)
    first = report(tmp_path)
    second = report(tmp_path)
    assert first == second
    assert opened == ["keilref.formats", "keilref.formats"]  # the style sheet, the script: once each


def test_a_script_that_lost_a_place_for_its_words_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(html, "_asset", lambda name: "var SIGN = KEILREF_STATUS_SIGNS;\n")
    with pytest.raises(RuntimeError, match=r"^assets/report\.js: KEILREF_NEXT_ILLEGAL stands 0 times, not once$"):
        html._script()
