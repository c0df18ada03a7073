"""action.yml, run as a GitHub runner runs a composite action's steps.

Each step's ``if``, ``env`` and ``with`` are rendered from the inputs (the
``${{ inputs.NAME }}`` and ``${{ github.action_path }}`` expressions the
action uses), and each ``run`` goes to ``bash -e`` as the runner's ``shell:
bash`` does. The install step runs against a stand-in ``python`` that says
what it was asked to install; the others run the installed keilref.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from cli_support import ROOT

yaml = pytest.importorskip("yaml")

ACTION = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
_EXPRESSION = re.compile(r"\$\{\{\s*(inputs\.[\w-]+|github\.action_path)\s*\}\}")
_CONDITION = re.compile(r"inputs\.([\w-]+)\s*==\s*'([^']*)'\Z")


def _render(text: str, inputs: dict[str, str]) -> str:
    def value(m: re.Match[str]) -> str:
        name = m.group(1)
        return str(ROOT) if name == "github.action_path" else inputs[name.split(".", 1)[1]]

    return _EXPRESSION.sub(value, text)


def run_action(workspace: Path, given: dict[str, str], bin_dir: Path) -> tuple[list[tuple[str, int, str]], list[dict[str, Any]]]:
    """Each run step's (name, exit code, output) in order, stopping at the first that fails; the uses steps met."""
    inputs = {name: str(spec.get("default", "")) for name, spec in ACTION["inputs"].items()}
    unknown = set(given) - set(inputs)
    assert not unknown, f"not inputs of the action: {unknown}"
    inputs.update(given)
    ran: list[tuple[str, int, str]] = []
    used: list[dict[str, Any]] = []
    for step in ACTION["runs"]["steps"]:
        condition = step.get("if")
        if condition is not None:
            m = _CONDITION.match(condition)
            assert m is not None, f"an if the test cannot read: {condition}"
            if inputs[m.group(1)] != m.group(2):
                continue
        if "uses" in step:
            used.append({"uses": step["uses"], "with": {k: _render(str(v), inputs) for k, v in step["with"].items()}})
            continue
        assert step["shell"] == "bash"
        env = {**os.environ, **{k: _render(str(v), inputs) for k, v in step.get("env", {}).items()}}
        env["PATH"] = os.pathsep.join([str(bin_dir), env.get("PATH", "")])
        done = subprocess.run(
            ["bash", "--noprofile", "--norc", "-e", "-o", "pipefail", "-c", step["run"]],
            cwd=workspace, env=env, capture_output=True, text=True, timeout=300, check=False,
        )
        ran.append((step["name"], done.returncode, done.stdout + done.stderr))
        if done.returncode != 0:
            break
    return ran, used


@pytest.fixture
def bin_dir(tmp_path: Path) -> Path:
    """keilref as installed beside this Python, and a python that only says what pip would install."""
    keilref = Path(sys.executable).parent / "keilref"
    if not keilref.exists():
        pytest.skip("the keilref command is not installed beside this Python")
    folder = tmp_path / "bin"
    folder.mkdir()
    (folder / "keilref").symlink_to(keilref)
    stand_in = folder / "python"
    stand_in.write_text('#!/bin/sh\necho "python $*"\n', encoding="utf-8")
    stand_in.chmod(stand_in.stat().st_mode | stat.S_IEXEC)
    return folder


def _workspace(tmp_path: Path, *faults: str) -> Path:
    workspace = tmp_path / "workspace"
    shutil.copytree(ROOT / "records" / "games", workspace / "games")
    for name in faults:
        shutil.copy(ROOT / "records" / "faults" / name, workspace / name)
    return workspace


def test_the_defaults_install_the_actions_revision_and_check_the_workspace(tmp_path: Path, bin_dir: Path) -> None:
    ran, used = run_action(_workspace(tmp_path), {}, bin_dir)
    assert [(name, code) for name, code, _ in ran] == [("Install keilref", 0), ("Run keilref", 0)]
    assert ran[0][2].strip() == f"python -m pip install --disable-pip-version-check {ROOT}"
    assert "::error" not in ran[1][2] and used == []


def test_a_version_installs_that_release(tmp_path: Path, bin_dir: Path) -> None:
    ran, _ = run_action(_workspace(tmp_path), {"version": "0.2.0"}, bin_dir)
    assert ran[0][2].strip() == "python -m pip install --disable-pip-version-check keilref==0.2.0"


def test_a_fault_annotates_the_pull_request_and_fails_the_step(tmp_path: Path, bin_dir: Path) -> None:
    ran, _ = run_action(_workspace(tmp_path, "illegal-superko.keil"), {"paths": "games\nillegal-superko.keil\n"}, bin_dir)
    name, code, output = ran[-1]
    assert (name, code) == ("Run keilref", 1)
    assert re.search(r"^::error file=illegal-superko\.keil,line=8,col=79,title=keilref illegal::.*superko", output, re.MULTILINE)


def test_sarif_is_written_then_uploaded_and_the_check_still_fails(tmp_path: Path, bin_dir: Path) -> None:
    workspace = _workspace(tmp_path, "illegal-superko.keil")
    ran, used = run_action(workspace, {"sarif": "true", "sarif-file": "out/k.sarif", "paths": "."}, bin_dir)
    assert [(name, code) for name, code, _ in ran][:2] == [("Install keilref", 0), ("Write SARIF", 0)]
    assert json.loads((workspace / "out" / "k.sarif").read_text(encoding="utf-8"))["runs"][0]["results"]
    assert used == [
        {"uses": "github/codeql-action/upload-sarif@v3", "with": {"sarif_file": "out/k.sarif", "category": "keilref"}}
    ]


def test_sarif_lands_where_it_is_asked(tmp_path: Path, bin_dir: Path) -> None:
    workspace = _workspace(tmp_path, "illegal-superko.keil")
    ran, _ = run_action(workspace, {"sarif": "true", "paths": "."}, bin_dir)
    assert [(name, code) for name, code, _ in ran] == [("Install keilref", 0), ("Write SARIF", 0), ("Run keilref", 1)]
    results = json.loads((workspace / "keilref.sarif").read_text(encoding="utf-8"))["runs"][0]["results"]
    assert [r["ruleId"] for r in results] == ["illegal/superko"]


def test_the_workflow_in_the_docs_runs_the_action_as_it_says(tmp_path: Path, bin_dir: Path) -> None:
    text = (ROOT / "docs" / "ci.md").read_text(encoding="utf-8")
    workflows = [yaml.safe_load(block) for block in re.findall(r"```yaml\n(.*?)```", text, re.DOTALL)]
    (workflow,) = [w for w in workflows if isinstance(w, dict) and "jobs" in w and any(
        "keilref@" in str(step.get("uses", "")) for step in w["jobs"]["check"]["steps"])]
    (step,) = [s for s in workflow["jobs"]["check"]["steps"] if "keilref@" in str(s.get("uses", ""))]
    assert workflow["permissions"]["security-events"] == "write"
    workspace = _workspace(tmp_path, "illegal-superko.keil")
    shutil.move(str(workspace / "illegal-superko.keil"), str(workspace / "games" / "illegal-superko.keil"))
    ran, used = run_action(workspace, {k: str(v) for k, v in step["with"].items()}, bin_dir)
    assert [(name, code) for name, code, _ in ran] == [("Install keilref", 0), ("Write SARIF", 0), ("Run keilref", 1)]
    assert "::error file=games/illegal-superko.keil" in ran[-1][2]
    assert used[0]["with"]["sarif_file"] == "keilref.sarif"
