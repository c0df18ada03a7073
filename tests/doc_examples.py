"""The examples in README.md and docs/*.md, found the way a reader sees them.

Three kinds of fenced block are examples the tests run:

- a block with no language that starts ``$ keilref ...``: the command, then
  what it prints, exactly. It may end with ``2>&1`` to show standard error
  too, and then with ``; echo "exit $?"`` to show the exit code; the timing
  of a summary line is the only thing masked;
- a ``python`` block: a script run from the checkout's root. When the next
  paragraph is ``It prints:``, the block after it is the script's output,
  exactly; without one the script prints nothing;
- a ``keil`` block: a record, which ``keilref check --strict`` passes. A
  record that is faulty on purpose names the status it gets after the
  language, as in a block opened with three backquotes and ``keil error``,
  and its prose says so. A record in any other block (what ``keilref fmt``
  prints, say) passes ``keilref check --strict`` too.

A ``python`` block whose language names an engine after it (``python spark``,
``python ray``) is a script for that engine: tests/test_verdict_table_engines.py
runs it where the engine is installed, and the tests here leave it alone.
"""

from __future__ import annotations

import io
import os
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

from typer.testing import CliRunner

from keilref import Record, read_games
from keilref.cli import app

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = sorted((ROOT / "docs").glob("*.md"))
TIMING = re.compile(r" in \d+\.\d\d s \([\d,]+ games/s\)$", re.MULTILINE)

_FENCE = re.compile(r"^```([^\n`]*)\n(.*?)^```[ \t]*$", re.DOTALL | re.MULTILINE)
_PRINTS = re.compile(r"\n+It prints:\n+```\n(.*?)^```[ \t]*$", re.DOTALL | re.MULTILINE)


@dataclass(frozen=True)
class Block:
    """A fenced block: where it is, its info string and its text."""

    path: Path
    line: int
    info: str
    text: str
    end: int
    """Offset just past the closing fence, in the file's text."""

    @property
    def where(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def blocks(path: Path) -> list[Block]:
    text = path.read_text(encoding="utf-8")
    return [
        Block(path, text.count("\n", 0, m.start()) + 1, m.group(1).strip(), m.group(2), m.end())
        for m in _FENCE.finditer(text)
    ]


@dataclass(frozen=True)
class Command:
    where: str
    command: str
    expected: str


def commands(path: Path) -> list[Command]:
    """Every ``$ keilref ...`` block of ``path``."""
    out = []
    for b in blocks(path):
        if b.info == "" and b.text.startswith("$ keilref "):
            first, _, rest = b.text.partition("\n")
            out.append(Command(b.where, first[2:], rest))
    return out


def run_command(command: str, cwd: Path = ROOT) -> str:
    """What ``command`` prints on standard output, run in ``cwd`` (the checkout's root),
    with ``exit N`` after it when the command shows its exit code. A command
    ending ``2>&1`` shows standard error too, as a terminal interleaves them."""
    show_exit = command.endswith('; echo "exit $?"')
    command = command.removesuffix('; echo "exit $?"')
    both = command.endswith(" 2>&1")
    argv = shlex.split(command.removesuffix(" 2>&1"))
    assert argv[0] == "keilref"
    here = os.getcwd()
    os.chdir(cwd)
    try:
        result = CliRunner().invoke(app, argv[1:])
    finally:
        os.chdir(here)
    # A command ends by exiting with its code, never by an exception escaping.
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    text = result.output if both else result.stdout
    if show_exit:
        text += f"exit {result.exit_code}\n"
    return text


def untimed(text: str) -> str:
    return TIMING.sub(" in <time>", text)


@dataclass(frozen=True)
class Script:
    where: str
    code: str
    prints: str
    """What the script prints: the block after ``It prints:``, or nothing."""


def scripts(path: Path) -> list[Script]:
    """Every ``python`` block of ``path``, with the output shown after it."""
    text = path.read_text(encoding="utf-8")
    out = []
    for b in blocks(path):
        if b.info != "python":
            continue
        m = _PRINTS.match(text, b.end)
        out.append(Script(b.where, b.text, m.group(1) if m else ""))
    return out


@dataclass(frozen=True)
class RecordExample:
    where: str
    text: str
    status: str
    """The status every game of it gets: ``ok``, or the one its fence names."""


_FIRST_TAG = re.compile(r'^\[[A-Za-z]\w* "', re.MULTILINE)


def record_examples(path: Path) -> list[RecordExample]:
    """Every record ``path`` shows: each ``keil`` block, and each other block
    that holds a game from its first tag line on (the output of ``keilref
    fmt``, ``generate``, ``filter``, or of a script that writes records).

    A lone tag (``[Name "value"]``, showing the syntax) is no game: a game
    has turns or a result."""
    out = []
    for b in blocks(path):
        language, _, status = b.info.partition(" ")
        if language == "keil":
            out.append(RecordExample(b.where, b.text, status.strip() or "ok"))
            continue
        m = _FIRST_TAG.search(b.text)
        if m is None:
            continue
        text = b.text[m.start() :]
        games = list(read_games(io.StringIO(text)))
        if any(not isinstance(g, Record) or g.turns or g.result is not None for g in games):
            out.append(RecordExample(b.where, text, "ok"))
    return out
