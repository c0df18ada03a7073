"""A record set up with White to move is written back numbered from ``1...``."""

from __future__ import annotations

import keilref
from keilref.records.parser import parse_record

WHITE_FIRST = """[Event "Problem"]
[Rules "keil"]
[Size "3"]
[Komi "0"]
[Button "yes"]
[Result "*"]
[Setup "B: c3 d4 W: d3"]
[ToMove "White"]

1... c4 {the crosscut} (1... b2 2. c4) 2. b2 e5 *
"""


def test_a_white_first_record_is_written_from_1_dots_and_reads_back_as_itself() -> None:
    record = parse_record(WHITE_FIRST)
    text = keilref.write_record(record)
    assert text == WHITE_FIRST
    assert parse_record(text) == record
    assert keilref.write_record(parse_record(text)) == text
    (verdict,) = keilref.check_text(text)
    assert (verdict.status.value, verdict.turns, verdict.warnings) == ("unfinished", 3, ())


def test_a_black_first_record_is_numbered_as_before() -> None:
    text = WHITE_FIRST.replace('[ToMove "White"]\n', "").replace("1... c4 {the crosscut} (1... b2 2. c4) 2. b2 e5", "1. c4 {the crosscut} (1. b2 b1) 1... b2 2. e5")
    assert keilref.write_record(parse_record(text)) == text
