"""The scanner against the grammar on games with variations, glyphs and clocks.

The scanner reads such games itself (the grammar's reading of them cost
about 1.5 KB a variation); for every generated text it must read exactly
the record the grammar reads, positions and spellings included, or decline
where the grammar finds a fault, which the grammar then words.
"""

from __future__ import annotations

import contextlib
import dataclasses
import re
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from keilref.errors import RecordError
from keilref.records import limits, scanner
from keilref.records.parser import parse_record
from keilref.records.record import Comment
from keilref.records.scanner import number_text, scan_game
from test_scanner import _BLANKS, assert_same_game, every_field, grammar_only

MOVES = ["a1", "b2", "C3", "pass", "button", "K@d4", "e5"]
COMMENTS = ["{a}", "{[%clk 0:01:02]}", "{x\n[%clk 1:00:00.5] y}", "; line\n", "{}", "{[%clk bad]}"]


@st.composite
def turns(draw: st.DrawFn, index: int, depth: int, faults: bool) -> list[str]:
    """The tokens of a line of turns from ``index``; with ``faults``, some are wrong."""

    def pick(good: list[str], bad: list[str]) -> str:
        return draw(st.sampled_from(good + bad if faults else good))

    tokens: list[str] = []
    for i in range(draw(st.integers(1, 4))):
        at = index + i
        if draw(st.booleans()):
            tokens.append(pick([number_text(at)], ["1.", "2...", "3..", "7."]))
            tokens += draw(st.lists(st.sampled_from(COMMENTS), max_size=1))
        tokens.append(draw(st.sampled_from(MOVES)) + pick(["", "", "!", "?!", "!!"], [" !", "!?!"]))
        for _ in range(draw(st.integers(0, 3))):
            what = draw(st.sampled_from(["nag", "comment", "variation", "variation", "fault"]))
            if what == "nag":
                tokens.append(pick(["$1", "$0", "$255", "$014"], ["$256", "$0000"]))
            elif what == "comment":
                tokens.append(draw(st.sampled_from(COMMENTS)))
            elif what == "variation" and depth < 4:
                inner = draw(turns(at, depth + 1, faults))  # its first turn replaces this one
                lead = draw(st.lists(st.sampled_from(COMMENTS), max_size=1))
                tokens += ["(", *lead, *inner, ")"]
            elif faults:
                tokens.append(draw(st.sampled_from(["(", ")", "()", "( )", "B+R", "$", "(1.", "*"])))
    return tokens


@st.composite
def games(draw: st.DrawFn) -> str:
    head = draw(st.sampled_from(['[Size "5"]', '[Event "v"] {after the tag}\n[Size "7"]']))
    faults = draw(st.integers(0, 3)) == 0
    tokens = [head, *draw(turns(0, 0, faults))]
    if draw(st.booleans()):
        tokens.append(draw(st.sampled_from(["B+R", "*", "W+3.5", "Draw"])))
        tokens += draw(st.lists(st.sampled_from(COMMENTS), max_size=1))
    blanks = draw(st.lists(_BLANKS, min_size=len(tokens), max_size=len(tokens)))
    return "".join(token + blank for token, blank in zip(tokens, blanks))


@contextlib.contextmanager
def capped(name: str, value: int) -> Iterator[None]:
    saved = getattr(limits, name)
    setattr(limits, name, value)
    try:
        yield
    finally:
        setattr(limits, name, saved)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games(), st.integers(0, 3), st.integers(0, 3))
def test_annotated_games_read_the_same(text: str, line_offset: int, column_offset: int) -> None:
    assert_same_game(text, line_offset, column_offset)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games())
def test_nesting_past_a_lowered_cap_is_left_to_the_grammar(text: str) -> None:
    with capped("MAX_VARIATION_DEPTH", 1):
        assert_same_game(text)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games())
def test_a_game_past_a_lowered_turn_cap_is_refused_as_the_grammar_refuses_it(text: str) -> None:
    slow = grammar_only(text)
    if isinstance(slow, RecordError):
        return
    with capped("MAX_TURNS", 3):
        slow = grammar_only(text)
        try:
            fast: object = parse_record(text)
        except RecordError as e:
            fast = e
    assert every_field(fast) == every_field(slow)  # type: ignore[arg-type]


def test_a_game_of_variations_is_read_by_the_scanner() -> None:
    text = '[Size "5"]\n1. a1 ' + "(1. b2 {x} 1... c3!? $14 (1... d4) ; after\n) " * 3 + "B+R"
    record = scan_game(text)
    assert record is not None
    assert dataclasses.astuple(record) == dataclasses.astuple(parse_record(text))
    (first,) = record.turns
    assert [v.line for v in first.variations] == [2, 3, 4]
    assert first.variations[0].turns[1].glyphs == ("!?", "$14")
    assert first.variations[0].after == ()
    assert first.variations[0].turns[1].variations[0].after == (Comment(" after", False),)


@pytest.mark.parametrize("bad", ["(b2 B+R)", "(b2", "(b2))", "(1... b2)", "(b2 !)", "(b2 $256)"])
def test_a_fault_among_variations_is_the_grammars(bad: str) -> None:
    text = '[Size "5"]\n1. a1 ' + bad + " B+R"
    assert scan_game(text) is None
    with pytest.raises(RecordError):
        parse_record(text)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games())
def test_reading_through_declines_where_building_does(text: str) -> None:
    """A long game is first read through without making anything (see scan_game):
    that reading must decline exactly where the building one does."""
    text = re.sub(r"\r+\n", "\n", text)
    built = scanner._scan_annotated(text, 0, 0)
    checked = scanner._scan_annotated(text, 0, 0, False)
    assert (built is None) == (checked is None)
    assert checked is None or checked is scanner._CHECKED


def test_a_long_game_past_the_cap_is_refused_without_being_built(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limits, "MAX_TURNS", 1000)
    text = '[Size "5"]\n1. a1 ' + "(1. b1) " * 1000
    made: list[int] = []
    real = scanner.Variation
    monkeypatch.setattr(scanner, "Variation", lambda *args: made.append(1) or real(*args))
    with pytest.raises(RecordError) as caught:
        parse_record(text)
    assert (caught.value.message, caught.value.line, caught.value.column) == (
        "too many turns: a game may have at most 1,000; it was not read",
        1,
        1,
    )
    assert made == []


@pytest.mark.parametrize("name", ["MOVE", "MOVENUM", "COMMENT", "RESULT", "TAG", "GLYPH", "NAG"])
def test_the_scanners_terminals_are_the_grammars(name: str) -> None:
    from keilref.records.grammar import record_parser

    (grammars,) = [t.pattern.value for t in record_parser().terminals if t.name == name]
    mine = getattr(scanner, f"_{name}_TERMINAL")
    # The grammar's file spells these characters as themselves, the scanner as escapes.
    for escape, char in (("\\t", "\t"), ("\\n", "\n"), ("\\r", "\r"), ("\\ufeff", "\ufeff")):
        mine = mine.replace(escape, char)
    assert mine == grammars
