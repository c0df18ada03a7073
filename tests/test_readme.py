"""The README's examples are real: every ``$ keilref ...`` block is run and compared.

The library example (the ``python`` block, followed by what it prints) is
run as a script from the checkout's root and type-checked with
``mypy --strict``, as a user's script would be.

A block in the README looks like::

    $ keilref show records/games/x.keil --turn 3
    <the output, exactly>

and may end with ``; echo "exit $?"`` to show the exit code. Timings in
summary lines are the only thing masked. ``tests/doc_examples.py`` finds the
blocks; ``tests/test_docs.py`` runs those of docs/*.md the same way.
"""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from doc_examples import README, ROOT, Command, commands, run_command, scripts, untimed

EXAMPLES = commands(README)


def test_the_readme_has_examples_of_every_command() -> None:
    names = {shlex.split(c.command)[1] for c in EXAMPLES}
    assert {"check", "show", "score", "legal", "fmt", "generate", "stats", "filter"} <= names


@pytest.mark.parametrize("example", EXAMPLES, ids=[c.command for c in EXAMPLES])
def test_readme_example_is_what_keilref_prints(example: Command) -> None:
    assert untimed(run_command(example.command)) == untimed(example.expected)


def library_example() -> tuple[str, str]:
    """The README's ``python`` block and the output shown after it.

    It is the README's only one: .ci/run takes the first ``python`` block as
    the library example to type-check against the built wheel."""
    found = scripts(README)
    assert len(found) == 1, "the README shows one python example, the library's"
    assert found[0].prints, "the README's library example shows what it prints"
    return found[0].code, found[0].prints


def test_the_library_example_reads_steps_through_draws_and_writes_back() -> None:
    code, _ = library_example()
    for call in (
        "keilref.read_games(",
        "keilref.read_game(",
        ".replay(turn=",
        ".pop()",
        ".to_record(",
        "keilref.write_record(",
        "keilref.svg.board(",
    ):
        assert call in code
    # keilref.svg is a module of its own: the example imports it, as a reader must.
    assert "\nimport keilref.svg" in "\n" + code


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
