"""``--force-exclude``: the project's excludes hold for paths named on the command line too.

pre-commit and the Action name each file; without the option a file given
by name is read whatever the excludes say (as ruff reads it), so the shipped
hooks and the Action pass it, and an excluded file is neither rewritten nor
checked.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import Result

from cli_support import ROOT, runner
from keilref.cli import EXIT_FAILED, EXIT_OK, app
from test_precommit_hook import CANONICAL, HOOKS, ILLEGAL, MESSY, _hook_repository, git, stage

KEILREF = Path(sys.executable).parent / ("keilref.exe" if os.name == "nt" else "keilref")


def run(*args: str, input: bytes | None = None) -> Result:
    result = runner.invoke(app, list(args), input=input)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


@pytest.fixture
def archive(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``keep.keil`` (canonical), and ``drafts/bad.keil`` (illegal, out of layout), which the settings exclude."""
    (tmp_path / "keilref.toml").write_text('extend-exclude = ["drafts", "*.tmp.keil"]\n', encoding="utf-8")
    (tmp_path / "drafts").mkdir()
    (tmp_path / "drafts" / "bad.keil").write_text(MESSY.replace("1.c3 *", "1.c3 c3 *"), encoding="utf-8")
    (tmp_path / "scratch.tmp.keil").write_text(MESSY, encoding="utf-8")
    (tmp_path / "keep.keil").write_text(CANONICAL, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_without_it_a_named_file_is_read_whatever_the_excludes(archive: Path) -> None:
    assert run("check", "drafts/bad.keil").exit_code == EXIT_FAILED
    assert run("fmt", "--check", "scratch.tmp.keil").stdout == "would reformat scratch.tmp.keil\n"


def test_check_leaves_out_the_excluded_files_it_is_given(archive: Path) -> None:
    checked = run("check", "-f", "jsonl", "--force-exclude", "drafts/bad.keil", "keep.keil", "scratch.tmp.keil")
    assert checked.exit_code == EXIT_OK
    assert [line.split('"file": ')[1].split(",")[0] for line in checked.stdout.splitlines()] == ['"keep.keil"']


def test_check_given_only_excluded_files_passes_and_says_so(archive: Path) -> None:
    checked = run("check", "--force-exclude", "drafts/bad.keil", "./scratch.tmp.keil")
    assert checked.exit_code == EXIT_OK
    assert checked.stdout == ""
    assert "excluded by the settings (--force-exclude): 2 left out" in checked.stderr


def test_fmt_rewrites_no_excluded_file(archive: Path) -> None:
    before = (archive / "drafts" / "bad.keil").read_bytes()
    done = run("fmt", "--in-place", "--force-exclude", "drafts/bad.keil", "scratch.tmp.keil", "keep.keil")
    assert done.exit_code == EXIT_OK
    assert (archive / "drafts" / "bad.keil").read_bytes() == before
    assert (archive / "scratch.tmp.keil").read_text(encoding="utf-8") == MESSY
    assert run("fmt", "--check", "--force-exclude", "scratch.tmp.keil").exit_code == EXIT_OK


def test_filter_and_stats_leave_them_out_too(archive: Path) -> None:
    kept = run("filter", "--force-exclude", "drafts/bad.keil", "keep.keil")
    assert kept.stdout == CANONICAL and "1 of 1 games written" in kept.stderr
    assert '"games": 1' in run("stats", "-f", "json", "--force-exclude", "scratch.tmp.keil", "keep.keil").stdout


def test_a_folder_on_the_way_is_matched_from_the_settings_folder(archive: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(archive / "drafts")
    assert run("check", "--force-exclude", "bad.keil").exit_code == EXIT_OK  # drafts/bad.keil below the root
    assert run("check", "--force-exclude", str(archive / "drafts" / "bad.keil")).exit_code == EXIT_OK
    assert run("check", "bad.keil").exit_code == EXIT_FAILED  # what the option leaves out


def test_a_directory_named_is_searched_as_before(archive: Path) -> None:
    assert run("check", "--force-exclude", ".").stdout.startswith("./keep.keil:")


def test_standard_input_under_an_excluded_name(archive: Path) -> None:
    data = ILLEGAL.encode()
    checked = run("check", "--force-exclude", "--stdin-filename", "drafts/x.keil", "-", input=data)
    assert checked.exit_code == EXIT_OK and checked.stdout == ""
    # An editor formatting the buffer gets it back as it came, as ruff hands it back.
    formatted = run("fmt", "--force-exclude", "--stdin-filename", "drafts/x.keil", "-", input=MESSY.encode())
    assert (formatted.exit_code, formatted.stdout_bytes) == (EXIT_OK, MESSY.encode())
    assert run("fmt", "--stdin-filename", "drafts/x.keil", "-", input=MESSY.encode()).stdout == CANONICAL


def test_every_hook_passes_it() -> None:
    yaml = pytest.importorskip("yaml")
    hooks = yaml.safe_load(HOOKS.read_text(encoding="utf-8"))
    assert {h["id"]: "--force-exclude" in shlex.split(h["entry"]) for h in hooks} == {
        "keilref-check": True, "keilref-fmt": True, "keilref-fmt-check": True,
    }


@pytest.fixture
def scratch(tmp_path: Path) -> Path:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    repo = tmp_path / "archive"
    repo.mkdir()
    git(repo, "init", "-q")
    git(repo, "config", "user.email", "referee@example.org")
    git(repo, "config", "user.name", "Referee")
    (repo / "drafts").mkdir()
    stage(repo, "keilref.toml", b'extend-exclude = ["drafts"]\n')
    stage(repo, "drafts/bad.keil", (MESSY + ILLEGAL).encode())
    stage(repo, "good.keil", MESSY.encode())
    return repo


def test_each_hook_entry_leaves_excluded_files_alone(scratch: Path) -> None:
    yaml = pytest.importorskip("yaml")
    if not KEILREF.exists():
        pytest.skip("the keilref command is not installed beside this Python")
    hooks = {h["id"]: h for h in yaml.safe_load(HOOKS.read_text(encoding="utf-8"))}
    files = ["drafts/bad.keil", "good.keil"]  # as pre-commit names the staged files
    before = (scratch / "drafts" / "bad.keil").read_bytes()

    def hook(hook_id: str) -> subprocess.CompletedProcess[str]:
        argv = shlex.split(hooks[hook_id]["entry"])
        return subprocess.run([str(KEILREF), *argv[1:], *files], cwd=scratch, capture_output=True, text=True)

    assert hook("keilref-fmt-check").stdout == "would reformat good.keil\n"
    assert hook("keilref-fmt").returncode == EXIT_OK
    assert (scratch / "good.keil").read_text(encoding="utf-8") == CANONICAL
    checked = hook("keilref-check")
    assert checked.returncode == EXIT_OK and "bad.keil" not in checked.stdout + checked.stderr
    assert (scratch / "drafts" / "bad.keil").read_bytes() == before


def test_under_real_pre_commit_an_excluded_file_is_neither_rewritten_nor_checked(scratch: Path, tmp_path: Path) -> None:
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    pre_commit = shutil.which("pre-commit", path=path)
    if pre_commit is None:
        pytest.skip("pre-commit is not installed (pip install -e '.[test]')")
    source, rev = _hook_repository(tmp_path)
    (scratch / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {source.as_posix()}\n    rev: {rev}\n    hooks:\n"
        "      - id: keilref-check\n      - id: keilref-fmt\n",
        encoding="utf-8",
    )
    git(scratch, "add", ".pre-commit-config.yaml")
    env = {**os.environ, "PATH": path, "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"), "PRE_COMMIT_COLOR": "never"}
    before = (scratch / "drafts" / "bad.keil").read_bytes()
    ran = subprocess.run([pre_commit, "run", "--files", "drafts/bad.keil", "good.keil"], cwd=scratch, env=env,
                         capture_output=True, text=True, timeout=900)
    out = ran.stdout + ran.stderr
    assert re.search(r"keilref check\.+Passed", out), out  # the illegal draft is not checked
    assert re.search(r"keilref fmt\.+Failed", out) and "files were modified by this hook" in out, out
    assert (scratch / "good.keil").read_text(encoding="utf-8") == CANONICAL
    assert (scratch / "drafts" / "bad.keil").read_bytes() == before  # not rewritten
    git(scratch, "add", "good.keil")
    again = subprocess.run([pre_commit, "run", "--files", "drafts/bad.keil", "good.keil"], cwd=scratch, env=env,
                           capture_output=True, text=True, timeout=900)
    assert again.returncode == 0, again.stdout + again.stderr


def test_the_action_leaves_out_an_excluded_path_it_is_given(tmp_path: Path) -> None:
    pytest.importorskip("yaml")
    from test_action import run_action

    if not KEILREF.exists():
        pytest.skip("the keilref command is not installed beside this Python")
    folder = tmp_path / "bin"
    folder.mkdir()
    (folder / "keilref").symlink_to(KEILREF)
    (folder / "python").write_text('#!/bin/sh\necho "python $*"\n', encoding="utf-8")
    (folder / "python").chmod(0o755)
    workspace = tmp_path / "workspace"
    (workspace / "drafts").mkdir(parents=True)
    (workspace / "keilref.toml").write_text('extend-exclude = ["drafts"]\n', encoding="utf-8")
    shutil.copy(ROOT / "records/faults/illegal-superko.keil", workspace / "drafts" / "superko.keil")
    shutil.copy(ROOT / "records/games/size5-keil-corner-ko.keil", workspace / "ko.keil")
    ran, _ = run_action(workspace, {"paths": "drafts/superko.keil\nko.keil", "sarif": "true"}, folder)
    assert [(name, code) for name, code, _ in ran] == [("Install keilref", 0), ("Write SARIF", 0), ("Run keilref", 0)]
    assert "superko" not in ran[-1][2]
    sarif = json.loads((workspace / "keilref.sarif").read_text(encoding="utf-8"))
    assert sarif["runs"][0]["results"] == []
