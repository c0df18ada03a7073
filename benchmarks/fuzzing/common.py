"""What the harnesses share: a case, a surface, the command line run in this
process, and the properties every output holds."""

from __future__ import annotations

import os
import random
import re
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import typer.main
from click.testing import CliRunner, Result

from keilref.cli import app


@dataclass
class Case:
    """One input: the bytes written to ``--out`` when it fails, and how to run it again."""

    data: bytes
    suffix: str = ".keil"
    """What the failing input's file is called after (``--out`` keeps its own name)."""
    how: str = ""
    """One line that says what the input was run through, for the report."""
    inputs: int = 1
    """How many inputs the case holds (a language server's session holds many frames)."""
    slow: float = 1.0
    """How many times ``--slow`` the case may take (a large one, a whole session)."""
    extra: dict[str, object] = field(default_factory=dict)
    """What a harness keeps between making a case and checking it."""


class Surface:
    """A harness: it makes cases from a seeded generator and checks each.

    ``check`` raises (an ``AssertionError`` for a property that does not
    hold) on a failure. ``weight`` is its share of ``--seconds`` when
    several surfaces run; ``inputs`` counts what its rate is of (a case may
    hold several inputs: the language server's frames)."""

    name = ""
    weight = 1.0

    def __init__(self, rng: random.Random, pool: list[bytes], work: Path) -> None:
        self.pool = pool
        self.work = work
        self.inputs = 0

    def start(self, rng: random.Random) -> None:
        """Checks run once per run, before the cases."""

    def case(self, rng: random.Random) -> Case:
        raise NotImplementedError

    def check(self, case: Case, rng: random.Random) -> None:
        raise NotImplementedError

    def close(self) -> None:
        """Give back what the surface holds (a server process)."""


_runner = CliRunner()
_command = typer.main.get_command(app)
"""Built once and run by click's runner (click comes with the test extra):
typer's own runner builds the command again at each call, three quarters of
the time of a small check."""


@contextmanager
def cwd(path: Path) -> Iterator[None]:
    old = os.getcwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(old)


def cli(args: Sequence[str], *, input: bytes | None = None, env: dict[str, str] | None = None) -> Result:
    """``keilref ARGS`` in this process. A command ends by exiting with its code, never
    by an exception escaping or a traceback printed."""
    result = _runner.invoke(_command, list(args), input=input, env=env, prog_name="keilref")
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        exc = result.exception
        raise AssertionError(f"{type(exc).__name__} from keilref {args[0]}: {exc}; keilref {' '.join(map(repr, args))}") from exc
    assert "Traceback (most recent call last)" not in result.output, f"a traceback from keilref {args[0]}: keilref {' '.join(args)}"
    assert result.exit_code in (0, 1, 2), f"keilref {args[0]} exited {result.exit_code}: keilref {' '.join(args)}"
    no_workflow_commands(result.stdout, f"keilref {' '.join(args)}", github=_is_github(args))
    no_workflow_commands(result.stderr, f"keilref {' '.join(args)} (stderr)", github=False)
    return result


def _is_github(args: Sequence[str]) -> bool:
    text = " ".join(args)
    return "-f github" in text or "--format github" in text or "--format=github" in text


_PROPERTIES = re.compile(r"::(error|warning|notice)(?: ((?:[a-z]+=[^,:\n]*)(?:,[a-z]+=[^,:\n]*)*))?::")
"""A GitHub annotation's start: the command, its properties (in which ``:``
and ``,`` are escaped), then ``::`` and the message."""


def no_workflow_commands(text: str, what: str, *, github: bool) -> None:
    """No printed line starts with ``::`` (a CI runner reads it as a command),
    except, in the GitHub format, the annotations themselves, each well formed."""
    # The runner splits at \n only.
    for line in text.split("\n"):
        if not line.startswith("::"):
            continue
        assert github and _PROPERTIES.match(line), f"a line starts with two colons from {what.split()[1]}: {line[:120]!r}; {what}"


HOSTILE = [
    "::stop-commands::pwned",
    "::error::injected",
    "::add-mask::x",
    "<!-- x",
    "<script>",
    "</script><script>alert(1)</script>",
    "<!--<script>",
    "]]>",
    "<![CDATA[x",
    "www.example.com",
    "http://www.example.com",
    "%0A::warning::x",
    "\\n::x",
    "${{ secrets.TOKEN }}",
    "@everyone",
    "&amp;&lt;",
    "a\u2028::b",
    "a\u0085::b",
    "x\r::y",
    "'\"`",
    "\u202e",
    "𝔘",
]
"""Tag values and file names that have broken an output somewhere: CI
workflow commands, HTML's script and comment states, auto-links, escapes."""


def hostile_tags(text: str, rng: random.Random) -> str:
    """Some tags of each game given hostile values: those it has replaced, the others
    added in front of its first tag (a tag named twice would only make the game an error)."""
    for name in rng.sample(["Event", "Round", "Black", "White", "Site", "Date"], rng.randint(1, 4)):
        value = quoted(rng.choice(HOSTILE))
        text, n = re.subn(rf'^\[{name} "(?:[^"\\\n]|\\.)*"\]', lambda _: f'[{name} "{value}"]', text, flags=re.MULTILINE)
        if n == 0:
            text = re.sub(r"^\[", lambda _: f'[{name} "{value}"]\n[', text, count=1, flags=re.MULTILINE)
    return text


def quoted(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"')


def essence_of(v: object) -> tuple[object, ...]:
    """What must agree between two readings of the same game: everything but where."""
    from keilref.referee.verdict import Verdict

    assert isinstance(v, Verdict)
    illegal = None if v.illegal is None else (v.illegal.turn, v.illegal.reason)
    error = None if v.error is None else _unplaced(v.error.message)
    warnings = tuple(_unplaced(w) for w in v.warnings)
    return (v.status, v.computed, v.declared, v.turns, illegal, error, warnings)


def _unplaced(message: str) -> str:
    # From the start of a run of digits only: a message may quote a run of thousands.
    return re.sub(r"(?<!\d)\d+:\d+|line \d+", "L:C", message)


def located(v: object) -> None:
    """Every error has a line and a column, both at least 1."""
    from keilref.referee.verdict import Verdict

    assert isinstance(v, Verdict)
    if v.error is not None:
        assert v.error.line >= 1 and v.error.column >= 1, f"an error without a place: {v.error}"


def say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)
