"""The formats surface: every output keilref prints, on mutated records with hostile tags and names.

Each input is a record of the pool, mutated or not, given tags whose values
have broken an output somewhere (CI workflow commands, HTML comment and
script states, auto-links), in a file whose name is as hostile. It is run
through every ``check --format`` registered in :data:`keilref.formats.FORMATS`,
and through two of the other outputs chosen at random (``stats`` as text,
JSON or standings, ``show`` and ``score`` as text or SVG, ``export``,
``filter``). The properties:

* no exception, no traceback, an exit code of 0, 1 or 2;
* no printed line starts with ``::`` (in the GitHub format, only its own
  well-formed annotations), on standard output and standard error alike;
* each output parses as what it says it is: JSON lines, JSON, XML, SVG;
  no JSON block of the HTML report holds a raw ``<``, and none of its
  scripts ``<!--`` or ``<script``;
* GitHub's job summary leaves no ``www.`` outside code for GitHub to link;
* the text and JSON lines formats give the library's verdicts, game by game.
"""

from __future__ import annotations

import json
import random
import re
import xml.etree.ElementTree as ET
from pathlib import Path

from keilref import check_text
from keilref.formats import FORMATS

from fuzzing.common import HOSTILE, Case, Surface, cli, hostile_tags
from fuzzing.records import mutated

NAMES = [
    "g.keil", "::x.keil", "::error::x.keil", "<script>.keil", "<!-- x.keil", "www.example.com.keil", "a%0A::b.keil",
    "a\n::error::x.keil", "a\r::x.keil", "-x.keil", "é ü.keil", "a\u2028b.keil", "${x}.keil", "a b.keil", "\\x3a.keil",
]
_SCRIPT = re.compile(rb"<script\b([^>]*)>(.*?)</script", re.DOTALL | re.IGNORECASE)
_SCRIPT_STATE = re.compile(rb"<!--|<script|</script", re.IGNORECASE)
_CODE_SPAN = re.compile(r"`+[^`]*`+")


class Formats(Surface):
    name = "formats"
    weight = 1.5

    def case(self, rng: random.Random) -> Case:
        base = rng.choice(self.pool) if rng.random() < 0.5 else mutated(rng, self.pool)
        text = hostile_tags(base.decode("utf-8", "replace"), rng)
        if rng.random() < 0.3:
            text = text.replace("[Event", f"[Event \"{rng.choice(HOSTILE)}\"]\n[Evt", 1)
        name = rng.choice(NAMES)
        return Case(text.encode("utf-8", "surrogatepass"), ".keil", f"every format, file {name!r}", extra={"name": name})

    def check(self, case: Case, rng: random.Random) -> None:
        name = case.extra["name"]
        assert isinstance(name, str)
        folder = self.work / "in"
        folder.mkdir(exist_ok=True)
        for old in folder.iterdir():
            old.unlink()
        path = folder / name
        path.write_bytes(case.data)
        arg = str(path)
        summary = self.work / "summary.md"
        summary.write_text("")
        expected = [v.status.value for v in check_text(case.data, filename=arg)]
        failed: list[Exception] = []
        for format, spec in FORMATS.items():
            if spec.binary:
                try:
                    _table(format, self.work, arg, expected)
                except AssertionError as e:
                    failed.append(e)
                continue
            try:
                result = cli(["check", "-j", "1", "-f", format, arg], env={"GITHUB_STEP_SUMMARY": str(summary), "CI": "true"})
                assert result.exit_code in (0, 1), f"check -f {format} exited {result.exit_code}: {result.stderr[-300:]}"
                _parses(format, result.stdout.encode(), expected)
            except AssertionError as e:
                failed.append(e)
        try:
            _no_autolink(summary.read_text(encoding="utf-8", errors="replace"))
        except AssertionError as e:
            failed.append(e)
        for run in rng.sample(OTHERS, 2):
            try:
                run(arg, self.work, expected)
            except AssertionError as e:
                failed.append(e)
        if len(failed) == 1:
            raise failed[0]
        if failed:
            raise ExceptionGroup("several outputs failed", failed)


def _table(format: str, work: Path, arg: str, expected: list[str]) -> None:
    """A binary format (the verdict table) written to a file, its statuses read back."""
    spec = FORMATS[format]
    target = work / f"out{spec.extension}"
    target.unlink(missing_ok=True)
    result = cli(["check", "-j", "1", "-f", format, "-o", str(target), arg])
    if spec.writer_class().unavailable() is not None:
        assert result.exit_code == 2 and not target.exists(), f"check -f {format} without its extra: {result.stderr[-300:]}"
        return
    assert result.exit_code in (0, 1), f"check -f {format} exited {result.exit_code}: {result.stderr[-300:]}"
    import pyarrow.parquet as pq

    got = pq.read_table(target, columns=["status"]).column("status").to_pylist()
    assert got == expected, f"{format} gives {got}, the library {expected}"


def _parses(format: str, out: bytes, expected: list[str]) -> None:
    text = out.decode("utf-8")
    if format == "jsonl":
        got = [json.loads(line)["status"] for line in text.split("\n") if line.strip()]
        assert got == expected, f"jsonl gives {got}, the library {expected}"
    elif format == "text":
        got = re.findall(r": game \d+: (ok|mismatch|illegal|error|unfinished)\b", text)
        assert got == expected, f"text gives {got}, the library {expected}"
    elif format in ("sarif", "gitlab"):
        json.loads(text)
    elif format in ("junit", "checkstyle"):
        ET.fromstring(out)
    elif format == "html":
        for attributes, script in _SCRIPT.findall(out):
            if b"json" in attributes.lower():
                assert b"<" not in script, f"a JSON block holds a raw '<': {script[script.index(b'<') - 40:][:80]!r}"
            else:
                # Code compares with '<'; what must never stand in it is what moves the parser's state.
                found = _SCRIPT_STATE.search(script)
                assert found is None, f"an inline script holds {found.group(0)!r}: {script[found.start() - 40:][:80]!r}"


def _no_autolink(summary: str) -> None:
    bare = _CODE_SPAN.sub("", summary)
    assert "www." not in bare, f"the job summary leaves www. for GitHub to link: {bare[bare.index('www.') - 40:][:80]!r}"


def _stats(arg: str, work: Path, expected: list[str]) -> None:
    for options in (["-f", "text"], ["-f", "json"], ["--standings"]):
        result = cli(["stats", "-j", "1", *options, arg])
        if options[-1] == "json" and result.exit_code == 0:
            json.loads(result.stdout)


def _pictures(arg: str, work: Path, expected: list[str]) -> None:
    for command in ("show", "score"):
        for format in ("text", "svg"):
            result = cli([command, "-f", format, arg])
            if format == "svg" and result.exit_code == 0:
                ET.fromstring(result.stdout.encode())


def _export(arg: str, work: Path, expected: list[str]) -> None:
    result = cli(["export", "--to", "abstract-games", arg])
    for line in result.stdout.split("\n"):
        if line.strip():
            json.loads(line)


def _filter(arg: str, work: Path, expected: list[str]) -> None:
    # To a file: standard output holds back a game with a line that a CI runner would run.
    out = work / "filtered.keil"
    out.unlink(missing_ok=True)
    cli(["filter", "-j", "1", "--status", "ok", arg, "-o", str(out)])
    written = out.read_bytes() if out.exists() else b""
    again = [v.status.value for v in check_text(written, filename="f.keil")] if written.strip() else []
    assert again == [s for s in expected if s == "ok"], f"filter --status ok wrote games judged {again}; the library {expected}"


OTHERS = [_stats, _pictures, _export, _filter]
