"""The two readers of a record (the fast scanner and the grammar) on
records of format version 3: the same record, field for field, the places
of the tags and of their values included, so that a position's points are
placed alike; or the scanner declines (always, for a record with a
``ToMove`` tag, whose first move number may be White's). Whatever a
``Setup`` holds, escapes included, a check words a fault and never fails.
"""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from keilref.errors import RecordError, TagError
from keilref.records.grammar import parse_with_grammar
from keilref.records.record import Record
from keilref.records.scanner import scan_game
from keilref.records.setup import read_position
from keilref.referee.batches import check_text


def grammar(text: str, line_offset: int = 0, column_offset: int = 0) -> Record | RecordError:
    try:
        return parse_with_grammar(text, None, line_offset, column_offset)
    except RecordError as e:
        return e


def every_field(record: Record) -> object:
    """All of a record, the fields left out of ``==`` included (each tag's value column)."""
    return dataclasses.astuple(record)


def position_read(record: Record) -> object:
    """The position as read, each point with its place; or the fault, in words and place."""
    try:
        position = read_position(record)
    except TagError as e:
        return ("error", e.message, e.line, e.column)
    if position is None:
        return None
    placed = tuple((p.point, p.king, p.written, p.line, p.column) for p in position.black + position.white)
    return placed, len(position.black), position.to_move, position.button_taken, position.first_pass


def assert_same(text: str, line_offset: int = 0, column_offset: int = 0) -> None:
    fast = scan_game(text, line_offset, column_offset)
    slow = grammar(text, line_offset, column_offset)
    if "[ToMove " in text:
        assert fast is None, "a record with ToMove is the grammar's to number"
    if isinstance(slow, RecordError):
        assert fast is None, f"the scanner read a game the grammar rejects: {slow.message}"
        return
    assert slow.tag("Setup") is None or slow.tag("Setup").value_column in (0, slow.tag("Setup").column + 8)
    if fast is None:
        return
    assert fast == slow
    assert every_field(fast) == every_field(slow)
    assert position_read(fast) == position_read(slow)


HEAD = '[Rules "keil"]\n[Size "3"]\n[Komi "0"]\n[Button "yes"]\n'

CASES = [
    '[Setup "B: a1 b1 W: c3"]',
    '[Setup "B: a1 b1 W: c3"] [ButtonTaken "White"]',
    '[Setup "B: W:"]',
    '[Setup ""]',
    '[Setup "B: A1 K@b2 P@c3 W: z9"]',
    '[Setup "B:a1 W:"]',
    '[Setup "  B:   a1\tb1  W:  "]',
    '[Setup "B: a1 \\"b1\\" W: c3"]',
    '[Setup "B: a1 W: c3 \\\\"]',
    '[Setup "\\\\"]',
    '[Setup "B: a1 W: c3"]\n[ToMove "White"]',
    '[Setup "B: a1 W: c3"]\n[ToMove "Black"]',
    '[ToMove "white"]',
    '[FirstPass "Black"]\n[ButtonTaken "no"]',
    '[Event "x"] [Setup "B: a1 W: c3"] {a comment} [Round "2"]',
    '[Setup "B: a1 W: é1 c3"]',
    '[Setup "B: a1 W: c3"]\n[Setup "B: a2 W:"]',
]


@pytest.mark.parametrize("tags", CASES)
@pytest.mark.parametrize("moves", ["*", "1. b2 c1 *", "1... b2 2. c1 *", "1. b2 {[%clk 0:01:00]} (1. c1) c1 W+R"])
def test_both_readers_read_a_position_alike(tags: str, moves: str) -> None:
    text = HEAD + tags + "\n\n" + moves + "\n"
    assert_same(text)
    assert_same(text, line_offset=4, column_offset=7)


@pytest.mark.parametrize("tags", CASES)
def test_a_check_of_any_setup_words_a_verdict(tags: str) -> None:
    for rules in ("keil", "yugo", "dehil"):
        (v,) = check_text(HEAD.replace("keil", rules) + tags + "\n\n*\n")
        assert v.error is None or not v.error.message.startswith("internal error"), v.error


_WORDS = st.one_of(
    st.sampled_from(["B:", "W:", "B:", "W:", "b:", "B:a1", "K@c3", "P@b2", "k@a1", "x", ",", "\\\\", '\\"', "é2"]),
    st.builds(
        lambda prefix, letter, number: prefix + letter + str(number),
        st.sampled_from(["", "", "", "K@", "P@"]),
        st.sampled_from("abcdeAZ"),
        st.integers(0, 14),
    ),
)
_SPACES = st.sampled_from([" ", " ", "  ", "\t"])


@st.composite
def _setup_records(draw: st.DrawFn) -> str:
    words = draw(st.lists(_WORDS, max_size=9))
    value = draw(_SPACES).join(words)
    if draw(st.booleans()):
        value = draw(_SPACES) + value
    tags = [f'[Setup "{value}"]']
    others = (("ToMove", ("Black", "White", "white")), ("ButtonTaken", ("Black", "no", "x")), ("FirstPass", ("White", "no")))
    for name, values in others:
        if draw(st.integers(0, 3)) == 0:
            tags.insert(draw(st.integers(0, len(tags))), f'[{name} "{draw(st.sampled_from(values))}"]')
    rules = draw(st.sampled_from(("keil", "keil-2019", "yugo", "dehil")))
    head = HEAD.replace("keil", rules) if rules != "dehil" else '[Rules "dehil"]\n[Size "3"]\n'
    joiner = draw(st.sampled_from(["\n", " ", "\n\n"]))
    moves = draw(st.sampled_from(["*", "1. a1 *", "1... a1 2. b2 *", "a1 b2", "1. pass pass"]))
    return head + joiner.join(tags) + "\n\n" + moves + "\n"


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_setup_records(), st.integers(0, 3), st.integers(0, 9))
def test_random_positions_are_read_alike_and_checked_without_failing(text: str, lines: int, columns: int) -> None:
    assert_same(text, lines, columns)
    (v,) = check_text(text)
    assert v.error is None or not v.error.message.startswith("internal error"), v.error
    if v.error is not None:
        assert v.error.line >= 1 and v.error.column >= 1
