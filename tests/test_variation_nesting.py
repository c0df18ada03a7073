"""Variations inside one another: refused at the 101st '(' as it is read, in
words and at that '(' (not after the whole game is read, and not as "a
variation holds no result" when the '(' are never closed)."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from cli_support import ROOT
from keilref.errors import RecordError
from keilref.records import limits
from keilref.records.grammar import parse_with_grammar
from keilref.records.parser import parse_record

HEAD = '[Size "5"]\n'
NESTED_TOO_DEEP = "variations nested too deep: at most 100 inside one another"


def nested(depth: int, closed: bool = True, result: str = "") -> str:
    """``c6``, then ``depth`` variations each inside the one before."""
    return HEAD + "1. c6 " + "(c5 " * depth + (")" * depth if closed else "") + result


def column_of_paren(n: int) -> int:
    """The column of the ``n``-th '(' on the moves' line."""
    return len("1. c6 ") + 4 * (n - 1) + 1


def fault(text: str) -> tuple[str, int, int]:
    with pytest.raises(RecordError) as caught:
        parse_record(text)
    return caught.value.message, caught.value.line, caught.value.column


def test_the_cap_is_100() -> None:
    assert limits.MAX_VARIATION_DEPTH == 100


def test_100_inside_one_another_are_read() -> None:
    record = parse_record(nested(100))
    variation = record.turns[0].variations[0]
    for _ in range(99):
        variation = variation.turns[0].variations[0]
    assert variation.turns[0].variations == ()
    assert (variation.line, variation.column) == (2, column_of_paren(100))


@pytest.mark.parametrize("result", ["", " *", " B+R"])
@pytest.mark.parametrize("closed", [True, False])
def test_the_101st_is_refused_at_its_paren(closed: bool, result: str) -> None:
    assert fault(nested(101, closed, result)) == (NESTED_TOO_DEEP, 2, column_of_paren(101))


@pytest.mark.parametrize("depth", [101, 150, 100_000])
def test_unclosed_parens_past_the_cap_are_refused_at_the_101st(depth: int) -> None:
    assert fault(nested(depth, closed=False, result=" B+R")) == (NESTED_TOO_DEEP, 2, column_of_paren(101))


def test_the_grammar_refuses_the_101st_as_it_reads_it() -> None:
    text = nested(101) + " ) )"  # a fault after it: the '(' comes first
    with pytest.raises(RecordError) as caught:
        parse_with_grammar(text, None, 0, 0)
    assert (caught.value.message, caught.value.line, caught.value.column) == (NESTED_TOO_DEEP, 2, column_of_paren(101))


def test_an_unclosed_paren_is_said_at_the_innermost_one() -> None:
    message = "variation never closed: this '(' has no matching ')'"
    assert fault(nested(5, closed=False)) == (message, 2, column_of_paren(5))
    assert fault(nested(100, closed=False)) == (message, 2, column_of_paren(100))


def test_a_hundred_thousand_parens_are_refused_at_once() -> None:
    text = nested(100_000)
    started = time.perf_counter()
    assert fault(text) == (NESTED_TOO_DEEP, 2, column_of_paren(101))
    took = time.perf_counter() - started
    # It used to take seconds: the whole game was parsed before its depth was seen.
    assert took < 0.5, f"{took:.2f} s"


def test_check_says_where_and_why(tmp_path: Path) -> None:
    path = tmp_path / "deep.keil"
    path.write_text(nested(100_000, closed=False, result=" B+R\n"), encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "keilref", "check", "-q", str(path)], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 1
    assert proc.stdout.splitlines()[0] == f"{path}:2:{column_of_paren(101)}: game 1: error: {NESTED_TOO_DEEP}"


def test_the_grammar_counts_turns_afresh_for_each_game(monkeypatch: pytest.MonkeyPatch) -> None:
    """The grammar's turn count once ran on across games: after a million
    turns read in a process, every game it read was "too many turns"."""
    monkeypatch.setattr(limits, "MAX_TURNS", 10)
    text = HEAD + "1. a1 (b1) b1 c1 d1 e1 B+R"
    for _ in range(4):
        record = parse_with_grammar(text, None, 0, 0)
        assert [t.move for t in record.turns] == ["a1", "b1", "c1", "d1", "e1"]
