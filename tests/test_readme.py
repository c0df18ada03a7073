"""The README's examples are real: every ``$ keilref ...`` block is run and compared.

The library example (the ``python`` block, followed by what it prints) is
run as a script from the checkout's root and type-checked with
``mypy --strict``, as a user's script would be.

A block in the README looks like::

    $ keilref show records/games/x.keil --turn 3
    <the output, exactly>

and may end with ``; echo "exit $?"`` to show the exit code. Timings in
summary lines are the only thing masked.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
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


def library_example() -> tuple[str, str]:
    """The README's ``python`` block and the output shown after it."""
    m = re.search(r"```python\n(.*?)```\n\nIt prints:\n\n```\n(.*?)```", README, re.DOTALL)
    assert m is not None, "the README's library section shows a python block and what it prints"
    return m.group(1), m.group(2)


def test_the_library_example_reads_steps_through_and_writes_back() -> None:
    code, _ = library_example()
    for call in ("keilref.read_games(", "keilref.read_game(", ".replay(turn=", ".pop()", ".to_record(", "keilref.write_record("):
        assert call in code


def test_the_library_example_prints_what_the_readme_shows(tmp_path: Path) -> None:
    code, expected = library_example()
    script = tmp_path / "example.py"
    script.write_text(code, encoding="utf-8")
    done = subprocess.run([sys.executable, str(script)], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.stderr == ""
    assert done.returncode == 0
    assert done.stdout == expected


def test_the_library_example_type_checks_as_a_users_script(tmp_path: Path) -> None:
    from mypy import api

    code, _ = library_example()
    script = tmp_path / "example.py"
    script.write_text(code, encoding="utf-8")
    # An empty configuration, so that the checkout's mypy settings do not apply: a user's own script.
    config = tmp_path / "mypy.ini"
    config.write_text("[mypy]\n", encoding="utf-8")
    stdout, stderr, status = api.run(
        ["--strict", "--config-file", str(config), "--cache-dir", str(ROOT / ".mypy_cache" / "readme-example"), str(script)]
    )
    assert status == 0, stdout + stderr
