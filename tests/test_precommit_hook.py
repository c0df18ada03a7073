"""The pre-commit hooks this repository ships (``.pre-commit-hooks.yaml``), on a scratch git repository.

The first test runs the real ``pre-commit`` (a test extra): a user's
``.pre-commit-config.yaml`` names this checkout, pre-commit installs keilref
into the hooks' own environment, and ``git commit`` is stopped or let
through. The second drives each hook's ``entry`` the way pre-commit does
(the entry, then the staged files its ``files`` pattern selects, in one call
as ``require_serial`` asks), so the hooks stay covered where pre-commit
itself is missing.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
HOOKS = ROOT / ".pre-commit-hooks.yaml"

MESSY = '[Size "3"]   [Event "x"]\n1.c3 *\n'
CANONICAL = '[Event "x"]\n[Size "3"]\n\n1. c3 *\n'
ILLEGAL = '[Event "x"]\n[Size "3"]\n\n1. c3 c3 *\n'  # White plays on Black's stone


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


@pytest.fixture()
def scratch(tmp_path: Path) -> Path:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    repo = tmp_path / "archive"
    repo.mkdir()
    git(repo, "init", "-q")
    git(repo, "config", "user.email", "referee@example.org")
    git(repo, "config", "user.name", "Referee")
    return repo


def stage(repo: Path, name: str, data: bytes) -> None:
    (repo / name).write_bytes(data)
    git(repo, "add", name)


def _hook_repository(where: Path) -> tuple[Path, str]:
    """This checkout, as committed work: a copy of its files in a fresh git
    repository (pre-commit installs hooks from a commit, and the checkout
    under test may hold uncommitted changes)."""
    source = where / "keilref"
    ignore = shutil.ignore_patterns(".git", ".venv", "__pycache__", "*.egg-info", ".*_cache", "build", "dist")
    shutil.copytree(ROOT, source, ignore=ignore)
    git(source, "init", "-q")
    git(source, "add", "-A")
    git(source, "-c", "user.email=ci@example.org", "-c", "user.name=CI", "commit", "-q", "-m", "keilref under test")
    rev = subprocess.run(["git", "rev-parse", "HEAD"], cwd=source, check=True, capture_output=True, text=True)
    return source, rev.stdout.strip()


def test_the_hooks_under_real_pre_commit(scratch: Path, tmp_path: Path) -> None:
    """A user's configuration, ``pre-commit install``, and commits that the hooks stop or let through."""
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    pre_commit = shutil.which("pre-commit", path=path)
    if pre_commit is None:
        pytest.skip("pre-commit is not installed (pip install -e '.[test]')")
    source, rev = _hook_repository(tmp_path)
    (scratch / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {source.as_posix()}\n    rev: {rev}\n    hooks:\n"
        "      - id: keilref-check\n      - id: keilref-fmt-check\n",
        encoding="utf-8",
    )
    git(scratch, "add", ".pre-commit-config.yaml")
    env = {**os.environ, "PATH": path, "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"),
           "PRE_COMMIT_COLOR": "never"}
    subprocess.run([pre_commit, "install"], cwd=scratch, env=env, check=True, capture_output=True)

    def commit(message: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["git", "commit", "-q", "-m", message], cwd=scratch, env=env,
                              capture_output=True, text=True, timeout=900)

    stage(scratch, "messy.keil", MESSY.encode())
    stage(scratch, "windows.keil", CANONICAL.replace("\n", "\r\n").encode())
    stage(scratch, "notes.txt", b"not a record\n")
    refused = commit("a record out of layout")
    out = refused.stdout + refused.stderr
    assert refused.returncode == 1, out
    assert re.search(r"keilref check\.+Passed", out), out
    assert re.search(r"keilref fmt --check\.+Failed", out), out
    assert "would reformat messy.keil" in out
    assert "would reformat windows.keil" not in out  # a CRLF checkout of a canonical record passes
    assert (scratch / "messy.keil").read_text(encoding="utf-8") == MESSY  # the hook only checks

    (scratch / "messy.keil").write_text(CANONICAL, encoding="utf-8")  # what `keilref fmt -i` writes
    git(scratch, "add", "messy.keil")
    accepted = commit("records in the canonical layout")
    out = accepted.stdout + accepted.stderr
    assert accepted.returncode == 0, out
    assert re.search(r"keilref fmt --check\.+Passed", out), out

    stage(scratch, "only-notes.txt", b"no record in this commit\n")
    skipped = commit("no records")
    assert skipped.returncode == 0
    assert re.search(r"keilref fmt --check\.+\(no files to check\)Skipped", skipped.stdout + skipped.stderr)

    stage(scratch, "illegal.keil", ILLEGAL.encode())
    stopped = commit("an illegal game")
    out = stopped.stdout + stopped.stderr
    assert stopped.returncode == 1, out
    assert re.search(r"keilref check\.+Failed", out), out
    assert "illegal.keil" in out and "occupied" in out

    # The configuration docs/ci.md shows, pointed at this checkout: its fmt hook fixes.
    yaml = pytest.importorskip("yaml")
    (shown,) = [
        c for c in map(yaml.safe_load, re.findall(r"```yaml\n(.*?)```", (ROOT / "docs" / "ci.md").read_text(encoding="utf-8"), re.DOTALL))
        if isinstance(c, dict) and "repos" in c
    ]
    assert [h["id"] for h in shown["repos"][0]["hooks"]] == ["keilref-check", "keilref-fmt"]
    # The docs pin this version's release tag, which the checkout under test
    # lacks (releases are tagged on their commit): a commit of it stands in.
    from keilref import __version__

    assert shown["repos"][0]["rev"] == f"v{__version__}"
    shown["repos"][0].update(repo=source.as_posix(), rev=rev)
    (scratch / ".pre-commit-config.yaml").write_text(yaml.safe_dump(shown), encoding="utf-8")
    git(scratch, "rm", "-q", "--cached", "illegal.keil")
    (scratch / "illegal.keil").unlink()
    stage(scratch, "another.keil", MESSY.encode())

    def run_hooks() -> subprocess.CompletedProcess[str]:
        return subprocess.run([pre_commit, "run", "--files", "another.keil"], cwd=scratch, env=env,
                              capture_output=True, text=True, timeout=900)

    fixed = run_hooks()
    out = fixed.stdout + fixed.stderr
    assert fixed.returncode == 1, out  # the commit stops, so that the fixed file can be looked at and added
    assert re.search(r"keilref check\.+Passed", out) and re.search(r"keilref fmt\.+Failed", out), out
    assert "files were modified by this hook" in out
    assert (scratch / "another.keil").read_text(encoding="utf-8") == CANONICAL
    git(scratch, "add", "another.keil")
    again = run_hooks()
    assert again.returncode == 0, again.stdout + again.stderr


def test_each_hook_entry_as_pre_commit_calls_it(scratch: Path) -> None:
    yaml = pytest.importorskip("yaml")
    keilref = Path(sys.executable).parent / ("keilref.exe" if os.name == "nt" else "keilref")
    if not keilref.exists():
        pytest.skip("the keilref command is not installed beside this Python")
    hooks = {h["id"]: h for h in yaml.safe_load(HOOKS.read_text(encoding="utf-8"))}
    assert set(hooks) == {"keilref-check", "keilref-fmt", "keilref-fmt-check"}
    stage(scratch, "messy.keil", MESSY.encode())
    stage(scratch, "windows.keil", CANONICAL.replace("\n", "\r\n").encode())
    stage(scratch, "illegal.keil", ILLEGAL.encode())
    stage(scratch, "notes.txt", b"not a record\n")
    staged = subprocess.run(["git", "diff", "--cached", "--name-only"], cwd=scratch, check=True,
                            capture_output=True, text=True).stdout.split()

    def run(hook_id: str) -> subprocess.CompletedProcess[str]:
        hook = hooks[hook_id]
        assert hook["language"] == "python" and hook["require_serial"] is True
        files = [f for f in staged if re.search(hook["files"], f)]
        argv = shlex.split(hook["entry"])
        assert argv[0] == "keilref"
        return subprocess.run([str(keilref), *argv[1:], *files], cwd=scratch, capture_output=True, text=True)

    fmt = run("keilref-fmt-check")
    assert fmt.returncode == 1
    assert fmt.stdout == "would reformat messy.keil\n"  # not windows.keil, not notes.txt
    assert (scratch / "messy.keil").read_text(encoding="utf-8") == MESSY
    fixed = run("keilref-fmt")
    assert fixed.returncode == 0 and "reformatted messy.keil" in fixed.stdout + fixed.stderr
    assert (scratch / "messy.keil").read_text(encoding="utf-8") == CANONICAL
    assert (scratch / "windows.keil").read_bytes() == CANONICAL.replace("\n", "\r\n").encode()  # left alone
    check = run("keilref-check")
    assert check.returncode == 1
    assert "illegal.keil:" in check.stdout and "occupied" in check.stdout and "notes.txt" not in check.stdout
