"""The per-file API: check_file and check_text give the command's verdicts, and pickle."""

from __future__ import annotations

import pickle
import subprocess
import sys
from pathlib import Path

import pytest

import keilref
from cli_support import ROOT
from keilref.referee.batches import check_sources
from keilref.records.sources import expand_paths
from keilref.referee.verdict import Status


def _local(paths: list[str]) -> list[dict[str, object]]:
    return [v.to_json() for v in check_sources(expand_paths(paths), jobs=1)]


def test_check_file_gives_the_verdicts_of_a_local_run_for_every_record(at_the_root: None) -> None:
    files = [s.name for s in expand_paths(["records"])]
    assert len(files) > 40
    got = [v.to_json() for f in files for v in keilref.check_file(f)]
    assert got == _local(["records"])


def test_check_file_says_where_and_why() -> None:
    (v,) = keilref.check_file(ROOT / "records/faults/illegal-superko.keil")
    assert v.status is Status.ILLEGAL
    assert v.illegal is not None
    assert (v.illegal.turn, v.illegal.reason, v.illegal.line, v.illegal.column, v.illegal.repeats_turn) == (
        31,
        "superko",
        8,
        79,
        29,
    )
    assert v.file == str(ROOT / "records/faults/illegal-superko.keil")


def test_check_text_is_check_file_on_the_same_text(at_the_root: None) -> None:
    path = "records/games/small-boards-three-games.keil"
    from_file = keilref.check_file(path)
    from_text = keilref.check_text(Path(path).read_text(encoding="utf-8"), filename=path)
    assert len(from_file) == 3
    assert [v.to_json() for v in from_text] == [v.to_json() for v in from_file]
    assert {v.file for v in keilref.check_text(Path(path).read_text(encoding="utf-8"))} == {"-"}


def test_check_text_reads_bytes_as_a_file_is_read() -> None:
    (v,) = keilref.check_text(b'[Rules "keil"]\n[Event "caf\xe9"]\n1. a1 *\n', filename="x.keil")
    assert v.status is Status.ERROR
    assert v.error is not None
    assert (v.error.line, v.error.column) == (2, 12)
    assert "not valid UTF-8" in v.error.message


def test_rules_replays_under_another_rule_set(at_the_root: None) -> None:
    path = "records/games/size6-keil-rule-sensitive.keil"
    (as_keil,) = keilref.check_file(path)
    (as_2019,) = keilref.check_file(path, rules="keil-2019")
    assert (as_keil.rules, as_keil.computed) == ("keil", "B+1.5")
    assert (as_2019.rules, as_2019.computed) == ("keil-2019", "W+30.5")


def test_a_file_that_cannot_be_read_is_one_error_verdict_not_an_exception(tmp_path: Path) -> None:
    (v,) = keilref.check_file(tmp_path / "missing.keil")
    assert v.status is Status.ERROR
    assert v.error is not None and v.error.message.startswith("cannot read file")
    (empty,) = keilref.check_text("")
    assert empty.error is not None and empty.error.message == "no game in file"


def test_an_unknown_rule_set_is_the_callers_mistake() -> None:
    with pytest.raises(keilref.ConfigError):
        keilref.check_text("", rules="go")
    with pytest.raises(keilref.ConfigError):
        keilref.check_file("x.keil", rules="go")


def test_the_functions_and_their_verdicts_pickle(at_the_root: None) -> None:
    for fn in (keilref.check_file, keilref.check_text):
        assert pickle.loads(pickle.dumps(fn)) is fn
    verdicts = keilref.check_file("records/faults/illegal-superko.keil")
    assert pickle.loads(pickle.dumps(verdicts)) == verdicts


VERSION_2 = {
    "records/games/size5-keil-blitz-white-loses-on-time.keil",
    "records/games/size5-keil-teaching-nested-variations.keil",
    "records/games/size6-keil-glyphs-on-turns.keil",
    # A position with White to move, numbered from 1...
    "records/games/size5-keil2019-finished-position.keil",
}


def test_checking_well_formed_games_loads_neither_the_grammar_nor_the_document_formats() -> None:
    # Start-up is a cost every run pays: Lark is for the games the scanner
    # declines, the XML writer for --format junit.
    code = (
        "import sys, glob\n"
        "from keilref.cli import app\n"
        "from keilref.referee.batches import check_file\n"
        "from keilref.referee.verdict import Status\n"
        # Games of version 2 (variations, glyphs, clocks), and White-first
        # positions, are the grammar's to read.
        f"files = sorted(set(glob.glob('records/games/*.keil')) - set({sorted(VERSION_2)!r}))\n"
        "assert files and all(v.status is not Status.ERROR for f in files for v in check_file(f))\n"
        "print(sorted(m for m in ('lark', 'keilref.records.grammar', 'xml.sax.saxutils') if m in sys.modules))\n"
        "check_file('records/faults/error-bad-token.keil')\n"
        "print('lark' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["[]", "True"]
    assert VERSION_2 < set(str(p.relative_to(ROOT)) for p in (ROOT / "records/games").glob("*.keil"))
