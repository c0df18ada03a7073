"""per-path-rules patterns are paths below the folder that holds the settings: a file outside it matches none."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from cli_support import run
from keilref.project import Project, find_project

HALF_KOMI = '[Size "3"] [Komi "2.5"] [Button "yes"]\n1. c3 d4 2. c2 d3 *\n'  # half komi: keil-2019 only
UNDER_2019 = "unfinished"  # judged under keil-2019
UNDER_KEIL = "error"  # judged under keil (no Rules tag): half komi is a tag error


@pytest.fixture
def outer(tmp_path: Path) -> Path:
    """``outer/g.keil`` beside the project ``outer/root`` (settings: ``"*" = "keil-2019"``)."""
    outer = tmp_path.resolve() / "outer"
    root = outer / "root"
    (root / "sub").mkdir(parents=True)
    (root / "keilref.toml").write_text('[per-path-rules]\n"*" = "keil-2019"\n', encoding="utf-8")
    for path in (outer / "g.keil", root / "in.keil", root / "sub" / "deep.keil", outer / "2019.keil"):
        path.write_text(HALF_KOMI, encoding="utf-8")
    return outer


def _statuses(*paths: str) -> dict[str, str]:
    r = run("check", "--format", "jsonl", *paths)
    assert r.exit_code == 1, r.output  # the game judged under keil is an error
    verdicts = [json.loads(line) for line in r.stdout.splitlines()]
    return {v["file"]: v["status"] for v in verdicts}


def test_from_the_root_a_relative_path_outside_it_matches_no_pattern(outer: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(outer / "root")
    assert _statuses("in.keil", "../g.keil", "sub/deep.keil", "../root/in.keil") == {
        "in.keil": UNDER_2019,
        "../g.keil": UNDER_KEIL,
        "sub/deep.keil": UNDER_2019,
        "../root/in.keil": UNDER_2019,  # outside and back in: below the root
    }


def test_absolute_paths_are_matched_below_the_root_too(outer: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(outer / "root")
    inside, outside = str(outer / "root" / "sub" / "deep.keil"), str(outer / "g.keil")
    assert _statuses(inside, outside) == {inside: UNDER_2019, outside: UNDER_KEIL}


def test_from_a_subfolder_paths_up_and_out_are_told_apart(outer: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(outer / "root" / "sub")
    assert _statuses("deep.keil", "../in.keil", "../../g.keil", "../../2019.keil") == {
        "deep.keil": UNDER_2019,
        "../in.keil": UNDER_2019,
        "../../g.keil": UNDER_KEIL,
        "../../2019.keil": UNDER_KEIL,
    }
    shown = run("check", "--show-settings", "../../g.keil", "deep.keil").stdout.splitlines()
    # g.keil lies outside the project: no settings govern it, and it heads a block of its own.
    assert [line for line in shown if ": rules " in line] == [
        "../../g.keil: rules from each game (the record's Rules tag)",
        'deep.keil: rules keil-2019 (per-path-rules "*")',
    ]


def test_with_the_working_directory_outside_the_root(outer: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """As the language server finds a document's settings from its folder, wherever it runs."""
    monkeypatch.chdir(outer)
    project = find_project(outer / "root" / "sub")
    assert project.path == outer / "root" / "keilref.toml"
    assert project.rules_for("root/in.keil") == ("keil-2019", 'per-path-rules "*"')
    assert project.rules_for(str(outer / "root" / "sub" / "deep.keil"))[0] == "keil-2019"
    assert project.rules_for("g.keil") == (None, "the record's Rules tag")
    assert project.rules_for(str(outer / "g.keil"))[0] is None
    assert project.rules_for("root/../g.keil")[0] is None
    monkeypatch.chdir(outer.parent)
    assert project.rules_for("outer/root/in.keil")[0] == "keil-2019"
    assert project.rules_for("outer/g.keil")[0] is None


def test_a_path_through_a_link_to_the_project_is_below_its_root(outer: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (outer / "link").symlink_to(outer / "root", target_is_directory=True)
    monkeypatch.chdir(outer)
    project = find_project(outer / "link")
    assert project.path == outer / "root" / "keilref.toml"  # found resolved
    assert project.rules_for(str(outer / "link" / "in.keil"))[0] == "keil-2019"
    assert project.rules_for("link/sub/deep.keil")[0] == "keil-2019"
    # A link inside the project to a file outside it: the path as given is below the root.
    (outer / "root" / "near.keil").symlink_to(outer / "g.keil")
    assert project.rules_for(str(outer / "root" / "near.keil"))[0] == "keil-2019"


def test_a_pattern_for_a_folder_matches_only_below_the_root() -> None:
    root = Path(os.path.realpath(os.getcwd())) / "project"
    project = Project(path=root / "keilref.toml", per_path_rules=(("2019/*", "keil-2019"), ("*", "yugo")))
    assert project.rules_for(str(root / "2019" / "a.keil"))[0] == "keil-2019"
    assert project.rules_for(str(root / "x" / "2019" / "a.keil"))[0] == "yugo"  # "*" crosses folders, as in fnmatch
    assert project.rules_for(str(root.parent / "2019" / "a.keil"))[0] is None
    assert project.rules_for(str(root.parent / "elsewhere" / "a.keil"))[0] is None
