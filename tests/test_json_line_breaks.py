"""JSON that keilref prints holds no character a reader or the runner guard takes for a line end.

A tag may hold NEL (U+0085), LINE SEPARATOR or PARAGRAPH SEPARATOR. JSON
leaves them raw, but the guard that keeps a printed line from starting with
``::`` (and any reader that splits on every Unicode line break) takes them
for line ends: ``a<NEL>::b`` in a string was rewritten ``a<NEL>\\x3a:b``,
which is no JSON. Every JSON document and JSON line is escaped first.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

BREAKS = ("\x85", "\u2028", "\u2029")


def _game(name: str) -> str:
    return (
        '[Event "e"]\n[Rules "keil"]\n[Size "3"]\n[Komi "2"]\n'
        f'[Black "{name}"]\n[White "w"]\n\n1. e3 a1 2. button pass 3. pass W+1.5\n'
    )


def _keilref(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "keilref", *args], cwd=ROOT, env=env, capture_output=True, text=True,
        encoding="utf-8", timeout=120, check=False,
    )


@pytest.fixture(params=BREAKS, ids=["nel", "line-separator", "paragraph-separator"])
def hostile(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[Path, str]:
    name = f"a{request.param}::b"
    path = tmp_path / "g.keil"
    path.write_text(_game(name), encoding="utf-8")
    return path, name


def _no_break_no_runner_line(out: str) -> None:
    assert not any(b in out for b in BREAKS)
    assert not any(line.lstrip().startswith("::") for line in out.splitlines())


def test_export_prints_json_that_reads_back(hostile: tuple[Path, str]) -> None:
    path, name = hostile
    r = _keilref("export", "--to", "abstract-games", str(path))
    assert r.returncode == 0, r.stderr
    _no_break_no_runner_line(r.stdout)
    (line,) = r.stdout.splitlines()
    assert name in json.dumps(json.loads(line), ensure_ascii=False)


@pytest.mark.parametrize("fmt", ["jsonl", "sarif", "gitlab"])
def test_check_json_formats_read_back(hostile: tuple[Path, str], fmt: str) -> None:
    path, name = hostile
    r = _keilref("check", "--strict", "--format", fmt, str(path))
    assert r.returncode in (0, 1), r.stderr
    _no_break_no_runner_line(r.stdout)
    values = [json.loads(line) for line in r.stdout.splitlines()] if fmt == "jsonl" else [json.loads(r.stdout)]
    assert values


@pytest.mark.parametrize("extra", [[], ["--standings"]])
def test_stats_json_reads_back(hostile: tuple[Path, str], extra: list[str]) -> None:
    path, name = hostile
    r = _keilref("stats", "--format", "json", *extra, str(path))
    assert r.returncode == 0, r.stderr
    _no_break_no_runner_line(r.stdout)
    assert json.loads(r.stdout)


def test_the_report_holds_no_raw_line_break(hostile: tuple[Path, str]) -> None:
    path, name = hostile
    r = _keilref("check", "--format", "html", str(path))
    assert r.returncode == 0, r.stderr
    scripts = r.stdout.split("<script")[1:]
    assert scripts
    for script in scripts:
        body = script.split("</script>")[0]
        assert "\\x3a:" not in body  # the guard never had to rewrite inside the page's data
        assert not any(b in body for b in BREAKS)
