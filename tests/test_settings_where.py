"""Settings are found from each record's folder upward, wherever the command runs.

The closest ``keilref.toml`` or ``[tool.keilref]`` governs each record, as
ruff's closest settings file governs each Python file; the command line
overrides. The run's own settings (``format``, ``strict``, ``jobs``) come
from the working directory's settings, else from the first path's.
``--show-settings`` labels each value with where it comes from.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import Result

from cli_support import ROOT, runner
from keilref.cli import EXIT_FAILED, EXIT_OK, app
from keilref.lsp import _project_rules
from keilref.project import Project, Projects, find_sources

HALF_KOMI = '[Size "3"] [Komi "2.5"] [Button "yes"]\n1. c3 d4 2. c2 d3 *\n'  # half komi: keil-2019 only
KO = ROOT / "records/games/size5-keil-corner-ko.keil"
# "é" in cp1252: one byte that is not UTF-8.
LATIN = '[Event "Café"]\n[Size "3"]\n\n1. c3 d2 2. b2 *\n'.encode("cp1252")


def run(*args: str, input: bytes | None = None) -> Result:
    result = runner.invoke(app, list(args), input=input)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


@pytest.fixture
def place(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``club/`` (strict, keil-2019 for 2019/, cp1252), ``other/`` (pyproject: jsonl, jobs 1)
    and ``elsewhere/`` (no settings) side by side; the working directory is ``elsewhere/``."""
    club = tmp_path / "club"
    (club / "2019").mkdir(parents=True)
    (club / "2019" / "old.keil").write_text(HALF_KOMI, encoding="utf-8")
    (club / "latin.keil").write_bytes(LATIN)
    (club / "keilref.toml").write_text(
        'strict = true\nencoding = "cp1252"\nextend-exclude = ["drafts"]\n[per-path-rules]\n"2019/*" = "keil-2019"\n',
        encoding="utf-8",
    )
    other = tmp_path / "other"
    other.mkdir()
    shutil.copy(KO, other / "ko.keil")
    (other / "pyproject.toml").write_text('[tool.keilref]\nformat = "jsonl"\njobs = 1\n', encoding="utf-8")
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    return tmp_path


def test_from_outside_the_project_its_settings_govern_its_file(place: Path) -> None:
    settings = place / "club" / "keilref.toml"
    shown = run("check", "--show-settings", "../club/2019/old.keil")
    assert shown.exit_code == EXIT_OK
    lines = shown.stdout.splitlines()
    assert lines[0] == f"settings: {settings.resolve()}"
    assert f"strict = True (settings: {settings.resolve()})" in lines  # the first path's: no settings here
    assert lines[-1] == '../club/2019/old.keil: rules keil-2019 (per-path-rules "2019/*")'
    checked = run("check", "-f", "jsonl", "../club/2019/old.keil")
    verdict = json.loads(checked.stdout)
    assert (verdict["status"], verdict["rules"]) == ("unfinished", "keil-2019")
    assert checked.exit_code == EXIT_FAILED  # strict, from the club's settings


def test_each_record_is_read_under_its_own_projects_settings(place: Path) -> None:
    checked = run("check", "-f", "jsonl", "--no-strict", "../club", "../other/ko.keil")
    verdicts = {json.loads(line)["file"]: json.loads(line) for line in checked.stdout.splitlines()}
    assert {name: (v["status"], v["rules"]) for name, v in verdicts.items()} == {
        "../club/2019/old.keil": ("unfinished", "keil-2019"),  # the club's per-path rules
        "../club/latin.keil": ("unfinished", "keil"),  # read in the club's cp1252 (as UTF-8: an error)
        "../other/ko.keil": ("ok", "keil"),
    }
    assert checked.exit_code == EXIT_OK


def test_every_command_finds_the_files_settings(place: Path) -> None:
    stats = json.loads(run("stats", "--format", "json", "../club").stdout)
    assert stats["games"] == 2 and stats["statuses"] == {"unfinished": 2}  # cp1252 read, keil-2019 applied
    kept = run("filter", "--rules", "keil-2019", "../club")
    assert kept.stdout.encode() == HALF_KOMI.encode()
    formatted = run("fmt", "../club/latin.keil")
    assert (formatted.exit_code, formatted.stdout_bytes) == (EXIT_OK, LATIN)  # read and written in cp1252
    shown = run("show", "../club/latin.keil")
    assert shown.exit_code == EXIT_OK and "after turn 3 of 3" in shown.stdout  # read in the club's encoding
    assert run("show", "--encoding", "utf-8", "../club/latin.keil").exit_code != EXIT_OK  # as UTF-8 it is not read


def test_the_working_directorys_settings_govern_the_run(place: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(place / "other")
    checked = run("check", "../club/2019/old.keil")
    verdict = json.loads(checked.stdout)  # jsonl: the working directory's format
    assert (verdict["status"], verdict["rules"]) == ("unfinished", "keil-2019")  # the club's rules for its file
    assert checked.exit_code == EXIT_OK  # not strict: the run's strict is the working directory's


def test_show_settings_prints_a_block_per_settings_file_in_path_order(place: Path) -> None:
    club, other = (place / "club" / "keilref.toml").resolve(), (place / "other" / "pyproject.toml").resolve()
    shown = run("check", "--show-settings", "--jobs", "3", "../other/ko.keil", "../club/2019/old.keil", "../other")
    assert shown.exit_code == EXIT_OK
    assert shown.stdout.splitlines() == [
        f"settings: {other}",
        f"format = 'jsonl' (settings: {other})",
        "strict = False (default)",
        "jobs = 3 (command line)",
        "encoding = 'utf-8' (default)",
        "exclude = ['.*'] (default)",
        "extend-exclude = [] (default)",
        "../other/ko.keil: rules from each game (the record's Rules tag)",
        "../other/ko.keil: rules from each game (the record's Rules tag)",
        f"settings: {club}",
        f"encoding = 'cp1252' (settings: {club})",
        "exclude = ['.*'] (default)",
        f"extend-exclude = ['drafts'] (settings: {club})",
        '../club/2019/old.keil: rules keil-2019 (per-path-rules "2019/*")',
    ]


def test_each_label_is_the_values_true_source(place: Path) -> None:
    (place / "app").mkdir()
    (place / "app" / "pyproject.toml").write_text(
        '[tool.keilref]\nencoding = "utf-8"\nextend-exclude = ["drafts"]\nexclude = ["tmp"]\njobs = 2\n', encoding="utf-8"
    )
    shutil.copy(KO, place / "app" / "g.keil")
    settings = (place / "app" / "pyproject.toml").resolve()
    from_file = run("check", "--show-settings", "../app").stdout.splitlines()
    assert f"jobs = 2 (settings: {settings})" in from_file
    assert f"encoding = 'utf-8' (settings: {settings})" in from_file  # UTF-8 named, not None
    assert f"exclude = ['tmp'] (settings: {settings})" in from_file
    assert f"extend-exclude = ['drafts'] (settings: {settings})" in from_file
    assert "format = 'text' (default)" in from_file and "strict = False (default)" in from_file
    given = run(
        "check", "--show-settings", "--strict", "-f", "jsonl", "-j", "1", "--encoding", "latin-1",
        "--exclude", "x", "--extend-exclude", "y", "../app",
    ).stdout.splitlines()
    assert "strict = True (command line)" in given and "format = 'jsonl' (command line)" in given
    assert "jobs = 1 (command line)" in given and "exclude = ['x'] (command line)" in given
    assert any(line.startswith("encoding = '") and line.endswith("(command line)") for line in given), given
    assert f"extend-exclude = ['drafts', 'y'] (settings: {settings}, command line)" in given


def test_a_project_inside_a_directory_searched_governs_its_records(place: Path) -> None:
    inner = place / "club" / "inner"
    (inner / "drafts").mkdir(parents=True)
    (inner / "keilref.toml").write_text('rules = "keil-2019"\nextend-exclude = ["skip.keil"]\n', encoding="utf-8")
    (inner / "half.keil").write_text(HALF_KOMI, encoding="utf-8")
    (inner / "skip.keil").write_text("not a record", encoding="utf-8")
    checked = run("check", "-f", "jsonl", "../club")
    rules = {json.loads(line)["file"]: json.loads(line)["rules"] for line in checked.stdout.splitlines()}
    assert rules == {
        "../club/2019/old.keil": "keil-2019",
        "../club/inner/half.keil": "keil-2019",  # the inner project's rules
        "../club/latin.keil": "keil",
    }  # skip.keil: excluded by the inner project's own settings


def test_standard_input_takes_its_names_folder_else_the_working_directory(place: Path) -> None:
    named = run("check", "-f", "jsonl", "--stdin-filename", "../club/2019/in.keil", "-", input=HALF_KOMI.encode())
    assert json.loads(named.stdout)["rules"] == "keil-2019"
    assert named.exit_code == EXIT_FAILED  # the club's strict: the first path is standard input, named in the club
    bare = run("check", "-f", "jsonl", "-", input=HALF_KOMI.encode())
    assert json.loads(bare.stdout)["status"] == "error"  # half komi under keil: no settings in elsewhere/
    shown = run("check", "--show-settings", "-", input=b"")
    assert shown.stdout.splitlines()[0] == "settings: none found (keilref defaults)"


def test_the_library_and_the_language_server_find_the_same_project(place: Path) -> None:
    name = str(place / "club" / "2019" / "old.keil")
    projects = Projects()
    project = projects.of(name)
    assert project.path == (place / "club" / "keilref.toml").resolve()
    assert projects.of(str(place / "club" / "latin.keil")) is project  # one lookup per folder, kept
    assert _project_rules(Path(name).as_uri(), name) == ("keil-2019", None)
    assert projects.of("g.keil") == Project()  # the working directory's: none
    found = find_sources([str(place / "other"), name])
    assert [(p.path.name if p.path else None, [s.rules for s in f.sources]) for p, f in found.governed] == [
        ("pyproject.toml", [None]),
        ("keilref.toml", ["keil-2019"]),
    ]
