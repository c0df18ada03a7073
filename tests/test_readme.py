"""The README's examples are real: every ``$ keilref ...`` block is run and compared.

A block in the README looks like::

    $ keilref show records/games/x.keil --turn 3
    <the output, exactly>

and may end with ``; echo "exit $?"`` to show the exit code. Timings in
summary lines are the only thing masked.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from typer.testing import CliRunner

from keilref.cli import app

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
TIMING = re.compile(r" in \d+\.\d\d s \([\d,]+ games/s\)$", re.MULTILINE)


def examples() -> list[tuple[str, str]]:
    out = []
    for block in re.findall(r"```\n(\$ keilref .*?)```", README, re.DOTALL):
        first, _, rest = block.partition("\n")
        out.append((first[2:], rest))
    return out


def run(command: str) -> str:
    show_exit = command.endswith('; echo "exit $?"')
    argv = shlex.split(command.removesuffix('; echo "exit $?"'))
    assert argv[0] == "keilref"
    import os

    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        result = CliRunner().invoke(app, argv[1:])
    finally:
        os.chdir(cwd)
    text = result.stdout
    if show_exit:
        text += f"exit {result.exit_code}\n"
    return text


def test_the_readme_has_examples_of_every_command() -> None:
    commands = {shlex.split(c)[1] for c, _ in examples()}
    assert {"check", "show", "score", "legal", "fmt", "generate", "stats", "filter"} <= commands


@pytest.mark.parametrize("command,expected", examples(), ids=[c for c, _ in examples()])
def test_readme_example_is_what_keilref_prints(command: str, expected: str) -> None:
    actual = run(command)
    assert TIMING.sub(" in <time>", actual) == TIMING.sub(" in <time>", expected)
