"""Shell completion: Typer's, switched on, and `keilref completion SHELL`."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from cli_support import ROOT, run


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish", "powershell"])
def test_the_script_for_each_shell_calls_keilref_back(shell: str) -> None:
    r = run("completion", shell)
    assert r.exit_code == 0
    assert "_KEILREF_COMPLETE" in r.stdout and "keilref" in r.stdout


def test_an_unknown_shell_is_a_usage_error_with_a_suggestion() -> None:
    r = run("completion", "tcsh")
    assert r.exit_code == 2 and "did you mean 'zsh'?" in r.stderr


def _complete(words: str, index: int) -> list[str]:
    env = {**os.environ, "_KEILREF_COMPLETE": "complete_bash", "COMP_WORDS": words, "COMP_CWORD": str(index)}
    done = subprocess.run(
        [sys.executable, "-m", "keilref"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60, check=False
    )
    return done.stdout.split()


def test_bash_completes_commands_and_options() -> None:
    assert _complete("keilref ch", 1) == ["check"]
    assert "--format" in _complete("keilref check --fo", 2)
    assert {"show", "score", "stats"} <= set(_complete("keilref s", 1))
