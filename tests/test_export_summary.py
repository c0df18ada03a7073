"""``export`` ends, as ``import`` does, with a summary on standard error:
how many games went where; standard output stays the move lists alone."""

from __future__ import annotations

import json
import os
from pathlib import Path

from cli_support import ROOT, run

ONE = ROOT / "records" / "games" / "size5-keil-corner-ko.keil"


def test_to_standard_output_the_lines_stay_json_and_the_summary_is_on_stderr() -> None:
    r = run("export", "--to", "abstract-games", str(ONE))
    assert r.exit_code == 0
    assert [json.loads(line)["moves"] for line in r.stdout.splitlines()]
    assert r.stderr == "keilref: 1 game exported to standard output\n"


def test_into_a_file_and_into_a_directory(tmp_path: Path) -> None:
    here = os.getcwd()
    os.chdir(tmp_path)
    try:
        assert run("generate", "-n", "3", "-o", "three.keil").exit_code == 0
        one = run("export", "--to", "abstract-games", str(ONE), "-o", "g.moves.json")
        many = run("export", "--to", "abstract-games", "three.keil", "-o", "back/")
    finally:
        os.chdir(here)
    assert one.exit_code == 0 and one.stdout == ""
    assert one.stderr == "keilref: 1 game exported to g.moves.json\n"
    written = sorted(p.name for p in (tmp_path / "back").iterdir())
    assert written == ["three-1.moves.json", "three-2.moves.json", "three-3.moves.json"]
    assert many.exit_code == 0 and many.stdout == ""
    assert many.stderr == "keilref: 3 games exported to 3 files in back/\n"


def test_nothing_exported_says_so(tmp_path: Path) -> None:
    bad = tmp_path / "bad.keil"
    bad.write_text('[Size "x"]\n\n1. a1 *\n', encoding="utf-8")
    r = run("export", "--to", "abstract-games", str(bad))
    assert r.exit_code == 1 and r.stdout == ""
    assert r.stderr.endswith("keilref: no game exported\n")
    assert "cannot export" in r.stderr
