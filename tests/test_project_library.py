"""A project's settings are a library module: the commands and the language server share it.

``keilref.project`` finds the settings and, with ``Project.sources_for``, a
command's records with the project's encoding, excludes and per-path rules;
the language server reads a file's rules from it without importing the
command line (Typer and every command).
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import keilref
from cli_support import run
from keilref.errors import KeilrefError
from keilref.project import Project, ProjectError, find_project
from keilref.records.sources import PathError

SETTINGS = """\
rules = "keil"
encoding = "cp1252"
extend-exclude = ["drafts"]

[per-path-rules]
"2019/*" = "keil-2019"
"""
GAME = '[Size "3"]\n1. c3 d4 *\n'


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for folder in ("2019", "new", "drafts"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "g.keil").write_text(GAME, encoding="utf-8")
    (tmp_path / "keilref.toml").write_text(SETTINGS, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _imported_cli(code: str, cwd: Path) -> list[str]:
    """Runs ``code`` in a fresh interpreter, then names the modules of the command line it imported."""
    probe = code + "\nimport sys\nprint([m for m in sorted(sys.modules) if m.startswith('keilref.cli') or m == 'typer'])"
    # The package under test, wherever the interpreter would find another from ``cwd``.
    env = {**os.environ, "PYTHONPATH": str(Path(keilref.__file__).resolve().parent.parent)}
    done = subprocess.run([sys.executable, "-c", probe], cwd=cwd, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_the_language_server_reads_the_project_without_the_command_line(project: Path) -> None:
    pytest.importorskip("pygls")
    code = textwrap.dedent(
        """
        from pathlib import Path
        from keilref.lsp import _project_rules
        game = Path("2019/g.keil").resolve()
        print(_project_rules(game.as_uri(), str(game)))
        """
    )
    # The settings were read (the per-path rules apply), and nothing of keilref.cli came with them.
    assert _imported_cli(code, project) == ["('keil-2019', None)", "[]"]


def test_the_project_module_imports_no_command_line(project: Path) -> None:
    code = "from keilref.project import find_project\nprint(find_project().sources_for(['.']).encoding)"
    assert _imported_cli(code, project) == ["cp1252", "[]"]


def test_sources_for_applies_encoding_excludes_and_per_path_rules(project: Path) -> None:
    found = find_project().sources_for(["."])
    assert [(s.name, s.rules, s.encoding) for s in found.sources] == [
        ("./2019/g.keil", "keil-2019", "cp1252"),
        ("./new/g.keil", "keil", "cp1252"),
    ]
    assert found.encoding == "cp1252"
    assert found.exclude == (".*", "drafts")


def test_what_the_caller_gives_wins_over_the_project(project: Path) -> None:
    found = find_project().sources_for(
        [".", "-"], encoding="utf-8", exclude=["new"], extend_exclude=["old"], rules="yugo", stdin_filename="2019/in.keil"
    )
    # UTF-8 needs no decoding; --exclude replaces the default, the project's extend-exclude still applies;
    # the caller replays every record under its own rules, so that no source carries the project's.
    assert [(s.name, s.rules, s.encoding, s.is_stdin) for s in found.sources] == [
        ("./2019/g.keil", None, None, False),
        ("2019/in.keil", None, None, True),
    ]
    assert (found.encoding, found.exclude) == (None, ("new", "drafts", "old"))


def test_standard_input_named_by_the_caller_gets_that_paths_rules(project: Path) -> None:
    found = find_project().sources_for(["-"], stdin_filename="2019/in.keil")
    assert [(s.name, s.where, s.rules) for s in found.sources] == [("2019/in.keil", "-", "keil-2019")]


def test_a_path_that_names_nothing_is_raised_or_handed_over(project: Path) -> None:
    with pytest.raises(PathError, match="^missing: no such file or directory$"):
        find_project().sources_for(["missing", "new"])
    missing: list[PathError] = []
    found = find_project().sources_for(["missing", "new"], on_error=missing.append)
    assert [str(e) for e in missing] == ["missing: no such file or directory"]
    assert [s.name for s in found.sources] == ["new/g.keil"]


def test_no_settings_file_changes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "g.keil").write_text(GAME, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    project = find_project(tmp_path)
    # No pyproject.toml or keilref.toml above a temporary folder is assumed: the test says if there is one.
    assert project == Project(), project.path
    found = project.sources_for(["g.keil"])
    assert [(s.name, s.rules, s.encoding) for s in found.sources] == [("g.keil", None, None)]


@pytest.mark.parametrize(
    "args",
    [
        ["check", "."],
        ["check", "--show-settings", "."],
        ["fmt", "."],
        ["filter", "."],
        ["stats", "."],
        ["show", "new/g.keil"],
        ["score", "new/g.keil"],
        ["legal", "new/g.keil"],
    ],
    ids=lambda args: "-".join(args[:2]).strip(".-"),
)
def test_every_command_says_a_project_error_as_its_usage_error(project: Path, args: list[str]) -> None:
    (project / "keilref.toml").write_text('rules = "keil"\nstrictt = true\n', encoding="utf-8")
    with pytest.raises(ProjectError) as raised:
        find_project()
    assert isinstance(raised.value, KeilrefError)
    message = f"{project / 'keilref.toml'}:2: unknown setting 'strictt'; did you mean 'strict'?"
    assert str(raised.value) == message
    r = run(*args)
    assert (r.exit_code, r.stdout, r.stderr) == (2, "", f"keilref: {message}\n")
