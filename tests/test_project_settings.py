"""[tool.keilref] in pyproject.toml, or keilref.toml: settings the command line overrides."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from cli_support import ROOT, run

GAME_2019 = ROOT / "records/games/small-boards-three-games.keil"
HALF_KOMI = '[Size "3"] [Komi "2.5"] [Button "yes"]\n1. c3 d4 2. c2 d3 *\n'  # half komi: keil-2019 only


@pytest.fixture
def project(tmp_path: Path) -> Iterator[Path]:
    (tmp_path / "2019").mkdir()
    (tmp_path / "2019" / "old.keil").write_text(HALF_KOMI, encoding="utf-8")
    (tmp_path / "new").mkdir()
    shutil.copy(ROOT / "records/games/size5-keil-corner-ko.keil", tmp_path / "new" / "ko.keil")
    here = os.getcwd()
    os.chdir(tmp_path)
    try:
        yield tmp_path
    finally:
        os.chdir(here)


def _statuses(*args: str) -> dict[str, str]:
    r = run("check", "--format", "jsonl", *args)
    return {json.loads(line)["file"]: json.loads(line)["status"] for line in r.stdout.splitlines()}


def test_per_path_rules_strict_and_format_from_pyproject(project: Path) -> None:
    assert _statuses(".") == {"./2019/old.keil": "error", "./new/ko.keil": "ok"}  # half komi under keil: a tag error
    (project / "pyproject.toml").write_text(
        '[project]\nname = "archive"\n\n[tool.keilref]\nstrict = true\nformat = "jsonl"\n'
        '[tool.keilref.per-path-rules]\n"2019/*" = "keil-2019"\n',
        encoding="utf-8",
    )
    r = run("check", ".")
    lines = [json.loads(line) for line in r.stdout.splitlines()]  # jsonl, from the settings
    assert {v["file"]: (v["status"], v["rules"]) for v in lines} == {
        "./2019/old.keil": ("unfinished", "keil-2019"),
        "./new/ko.keil": ("ok", "keil"),
    }
    assert r.exit_code == 1  # strict, from the settings: the unfinished game fails
    # The command line overrides each setting.
    assert run("check", "--no-strict", ".").exit_code == 0
    assert run("check", "--format", "text", "--no-strict", ".").stdout.startswith("./2019/old.keil:1:1: game 1: unfinished")
    assert _statuses("--rules", "keil", ".")["./2019/old.keil"] == "error"


def test_show_settings_says_what_applies_to_each_file_and_why(project: Path) -> None:
    (project / "keilref.toml").write_text('rules = "keil"\nextend-exclude = ["drafts"]\n[per-path-rules]\n"2019/*" = "keil-2019"\n', encoding="utf-8")
    r = run("check", "--show-settings", "--jobs", "1", ".")
    assert r.exit_code == 0
    lines = r.stdout.splitlines()
    assert lines[0] == f"settings: {project.resolve() / 'keilref.toml'}"
    settings = f"settings: {project.resolve() / 'keilref.toml'}"
    assert "jobs = 1 (command line)" in lines
    assert "exclude = ['.*'] (default)" in lines
    assert f"extend-exclude = ['drafts'] ({settings})" in lines
    assert lines[-2:] == [
        './2019/old.keil: rules keil-2019 (per-path-rules "2019/*")',
        "./new/ko.keil: rules keil (rules)",
    ]


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("[tool.keilref]\nstrikt = true\n", "pyproject.toml:2: unknown setting 'strikt' in [tool.keilref]; did you mean 'strict'?"),
        ("[tool.keilref]\nformat = 'xml'\n", "pyproject.toml:2: format: 'xml' is not one of"),
        ("[tool.keilref]\n\njobs = 0\n", "pyproject.toml:3: jobs must be a whole number from 1 to 1,024, not 0"),
        ("[tool.keilref.per-path-rules]\n'x/*' = 'go'\n", "pyproject.toml:2: x/*: 'go' is not a rule set"),
        ("[tool.keilref\n", "pyproject.toml: not valid TOML"),
    ],
)
def test_a_bad_setting_is_a_usage_error_at_its_line(project: Path, text: str, says: str) -> None:
    (project / "pyproject.toml").write_text(text, encoding="utf-8")
    r = run("check", ".")
    assert r.exit_code == 2
    assert says in r.stderr


def test_settings_are_found_from_a_subdirectory_and_keilref_toml_wins(project: Path) -> None:
    (project / "pyproject.toml").write_text("[tool.keilref]\nstrict = true\n", encoding="utf-8")
    (project / "keilref.toml").write_text("strict = false\n", encoding="utf-8")
    os.chdir(project / "new")
    r = run("check", "--show-settings", ".")
    assert r.stdout.splitlines()[0] == f"settings: {project.resolve() / 'keilref.toml'}"
    assert f"strict = False (settings: {project.resolve() / 'keilref.toml'})" in r.stdout


def test_stats_filter_and_fmt_take_the_search_settings_and_rules(project: Path) -> None:
    (project / "keilref.toml").write_text(
        'extend-exclude = ["new"]\n[per-path-rules]\n"2019/*" = "keil-2019"\n', encoding="utf-8"
    )
    stats = json.loads(run("stats", "--format", "json", ".").stdout)
    assert stats["games"] == 1 and stats["statuses"] == {"unfinished": 1}  # new/ left out; 2019 under keil-2019
    assert run("filter", "--status", "unfinished", ".").stdout.startswith('[Size "3"]')
    # filter's --rules chooses games by the rules they were judged under; the project's still apply.
    assert run("filter", "--rules", "keil-2019", "--status", "unfinished", ".").stdout.startswith('[Size "3"]')
    assert run("fmt", "--check", ".").stdout.splitlines() == ["would reformat ./2019/old.keil"]


def test_the_settings_in_the_docs_apply_as_they_say(project: Path) -> None:
    import re

    text = (ROOT / "docs" / "ci.md").read_text(encoding="utf-8")
    (example,) = re.findall(r"```toml\n(.*?)```", text, re.DOTALL)
    (project / "pyproject.toml").write_text(example, encoding="utf-8")
    (project / "drafts").mkdir()
    (project / "drafts" / "x.keil").write_text("not a record", encoding="utf-8")
    shown = run("check", "--show-settings", ".")
    assert shown.exit_code == 0, shown.output
    settings = f"settings: {project.resolve() / 'pyproject.toml'}"
    assert f"strict = True ({settings})" in shown.stdout and f"jobs = 2 ({settings})" in shown.stdout
    assert f"encoding = 'utf-8' ({settings})" in shown.stdout
    assert './2019/old.keil: rules keil-2019 (per-path-rules "2019/*")' in shown.stdout
    assert not [line for line in shown.stdout.splitlines() if "drafts/" in line]  # left out of the search
    r = run("check", ".")
    assert r.exit_code == 1 and "./2019/old.keil:1:1: game 1: unfinished" in r.stdout  # strict
