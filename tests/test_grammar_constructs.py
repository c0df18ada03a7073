"""The grammar of format version 2, construct by construct, with positions.

Variations (nested, with comments inside and after them, with move numbers
right and wrong for their own line), suffix and numeric glyphs, and clocks
in comments: what each reads as, where each token stands, and for every
fault the exact message, line and column. Each game starts with one tag
line, so its moves stand on line 2.
"""

from __future__ import annotations

import dataclasses

import pytest

import keilref
from keilref.errors import RecordError
from keilref.records import limits
from keilref.records.parser import parse_record
from keilref.records.record import Clock, Record, Turn, Variation, find_clock
from keilref.records.grammar import parse_with_grammar
from keilref.records.scanner import scan_game

HEAD = '[Size "5"]\n'
FULL = '[Rules "keil"] [Size "5"] [Komi "3"] [Button "yes"]'
"""Tags that leave nothing to a default, for the checks that count warnings."""


def read(moves: str) -> Record:
    text = HEAD + moves
    record = parse_record(text)
    # The scanner reads variations, glyphs and clocks itself, to the record
    # the grammar makes, places and spellings included.
    scanned = scan_game(text)
    assert scanned is not None
    assert dataclasses.astuple(scanned) == dataclasses.astuple(parse_with_grammar(text, None, 0, 0))
    return record


def fault(moves: str) -> tuple[str, int, int]:
    with pytest.raises(RecordError) as caught:
        parse_record(HEAD + moves)
    e = caught.value
    return e.message, e.line, e.column


def at(turn: Turn) -> tuple[str, int, int]:
    return turn.move, turn.line, turn.column


def opened(variation: Variation) -> tuple[int, int]:
    return variation.line, variation.column


def texts(comments: tuple[keilref.Comment, ...]) -> list[str]:
    return [c.text for c in comments]


# --------------------------------------------------------------------------
# Variations


def test_nested_variations_with_comments_in_and_after_them() -> None:
    r = read("1. c6 c5 (1... c4 {a} 2. c3 (2. d3 {b} d4) {after} 2... d4) 2. b3 *")
    c6, c5, b3 = r.turns
    assert [at(t) for t in r.turns] == [("c6", 2, 4), ("c5", 2, 7), ("b3", 2, 64)]
    assert c6.variations == () and b3.variations == ()
    (outer,) = c5.variations
    assert opened(outer) == (2, 10) and outer.comments == () and outer.after == ()
    c4, c3, d4 = outer.turns
    assert [at(t) for t in outer.turns] == [("c4", 2, 16), ("c3", 2, 26), ("d4", 2, 57)]
    assert texts(c4.comments) == ["a"] and c3.comments == ()
    (inner,) = c3.variations
    assert opened(inner) == (2, 29)
    # A comment after ")" is the variation's, not the turn's before it.
    assert texts(inner.after) == ["after"]
    assert [at(t) for t in inner.turns] == [("d3", 2, 33), ("d4", 2, 40)]
    assert texts(inner.turns[0].comments) == ["b"]
    assert d4.variations == ()
    assert r.result == "*"


def test_a_comment_after_the_opening_parenthesis_is_the_variations() -> None:
    r = read("1. c6 c5 ( {first} c4) *")
    (v,) = r.turns[1].variations
    assert texts(v.comments) == ["first"] and v.after == ()
    assert at(v.turns[0]) == ("c4", 2, 20) and v.turns[0].comments == ()


def test_glyphs_comments_and_variations_follow_a_turn_in_any_order() -> None:
    r = read("1. c6!{x} $3 {y} (c5) {z} (c4 {w}) {v} c3 *")
    c6, c3 = r.turns
    assert c6.glyphs == ("!", "$3") and texts(c6.comments) == ["x", "y"]
    first, second = c6.variations
    assert (opened(first), texts(first.after)) == ((2, 18), ["z"])
    assert (opened(second), texts(second.after)) == ((2, 27), ["v"])
    assert texts(second.turns[0].comments) == ["w"]
    assert at(c3) == ("c3", 2, 40)


def test_several_variations_after_one_turn_each_replace_it() -> None:
    r = read("1. c6 c5 (c4 c3) (1... b3) 2. d4 *")
    a, b = r.turns[1].variations
    assert [t.move for t in a.turns] == ["c4", "c3"] and [t.move for t in b.turns] == ["b3"]
    assert (opened(a), opened(b)) == ((2, 10), (2, 18))
    assert at(r.turns[2]) == ("d4", 2, 31)


def test_a_variation_over_several_lines() -> None:
    r = read("1. c6\n{x} (1. c4\n1... c3\n) *")
    (v,) = r.turns[0].variations
    assert opened(v) == (3, 5)
    assert [at(t) for t in v.turns] == [("c4", 3, 9), ("c3", 4, 6)]
    assert [t.numbered for t in v.turns] == [True, True]
    assert (r.result_line, r.result_column) == (5, 3)


@pytest.mark.parametrize(
    "moves",
    [
        "1. c6 (1. c4 c5) c5 *",  # a variation of Black's turn starts with Black's number
        "1. c6 c5 (1... c4 {x} 2. c3 c2) *",  # numbers go on as in the variation's own line
        "1. c6 c5 (1... c4 {x} c3) *",  # and stay optional there
        "1. c6 c5 (1... c4 (c3)) *",
        "1. c6 c5 (1... c4 (1... c3)) *",  # a nested variation replaces the turn before it
        "1. c6 c5 2. b3 (2. d4 d3 3. d2) b2 *",
    ],
)
def test_move_numbers_in_variations_are_right_for_their_line(moves: str) -> None:
    read(moves)


@pytest.mark.parametrize(
    "moves, message, line, column",
    [
        (
            "1. c6 c5 (2. c4) *",
            "wrong move number '2.': the turn after it is White's turn of move 1, numbered '1...'",
            2, 11,
        ),
        (
            # Numbered as if it followed c5: it replaces it.
            "1. c6 c5 (1. c4) *",
            "wrong move number '1.': the turn after it is White's turn of move 1, numbered '1...'",
            2, 11,
        ),
        (
            "1. c6 c5 (1... c4 2... c3) *",
            "wrong move number '2...': the turn after it is Black's turn of move 2, numbered '2.'",
            2, 19,
        ),
        (
            "1. c6 c5 (2... c4) *",
            "wrong move number '2...': the turn after it is White's turn of move 1, numbered '1...'",
            2, 11,
        ),
        (
            "1. c6 c5 (1... c4 (2. c3)) *",
            "wrong move number '2.': the turn after it is White's turn of move 1, numbered '1...'",
            2, 20,
        ),
        (
            "1. c6\n{x} (1... c4\n2. c3\n) *",
            "wrong move number '1...': the turn after it is Black's turn of move 1, numbered '1.'",
            3, 6,
        ),
        (
            "1. c6 c5 (1.. c4) *",
            "malformed move number '1..': write '1.' before Black's turn or '1...' before White's (here: '1...')",
            2, 11,
        ),
    ],
)
def test_wrong_move_numbers_in_variations(moves: str, message: str, line: int, column: int) -> None:
    assert fault(moves) == (message, line, column)


def test_an_empty_variation() -> None:
    message = "an empty variation: a variation holds at least one turn"
    assert fault("1. c6 c5 () *") == (message, 2, 11)
    # At the ")", after the comment.
    assert fault("1. c6 c5 ( {x} ) *") == (message, 2, 16)


def test_a_variation_never_closed() -> None:
    message = "variation never closed: this '(' has no matching ')'"
    assert fault("1. c6 c5 (c4") == (message, 2, 10)
    # The outer one of two: the inner one is closed.
    assert fault("1. c6 c5 (c4 (c3)") == (message, 2, 10)
    assert fault("1. c6 c5 (c4\n(c3\n") == (message, 3, 1)


def test_a_result_inside_a_variation() -> None:
    message = "a variation holds no result: the result ends the main line"
    assert fault("1. c6 c5 (c4 *") == (message, 2, 14)
    assert fault("1. c6 c5 (c4 B+R )") == (message, 2, 14)
    # A variation still open when the result comes.
    assert fault("1. c6 c5 (c4 (c3) *") == (message, 2, 19)
    # Written against the ")", whatever the result.
    for result in ("B+R", "W+T", "Draw", "*", "B+3.5"):
        assert fault(f"1. c6 c5 (c4 {result}) *") == (message, 2, 14), result


def test_a_closing_parenthesis_without_an_opening_one() -> None:
    assert fault("1. c6 c5 ) *") == ("found ')' with no '(' before it", 2, 10)
    assert fault("1. c6 c5 (c4) ) *") == ("found ')' with no '(' before it", 2, 15)
    # Against the result, the ")" is the fault, not the result.
    assert fault("1. c6 B+R)") == ("found ')' with no '(' before it", 2, 10)


@pytest.mark.parametrize(
    "moves, column",
    [
        ("( c6 ) *", 1),  # before any turn
        ("1. ( c6 ) *", 4),  # after a move number
        ("1. c6 c5 * (c4)", 12),  # after the result
    ],
)
def test_an_opening_parenthesis_with_no_turn_before_it(moves: str, column: int) -> None:
    message = "found '(' where no turn stands before it: a variation follows the turn it replaces"
    assert fault(moves) == (message, 2, column)


def test_variations_nest_up_to_the_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    def nested(depth: int) -> str:
        # Each variation holds a turn, then the next variation.
        return "1. c6 " + "(c5 " * depth + ")" * depth + " *"

    monkeypatch.setattr(limits, "MAX_VARIATION_DEPTH", 3)
    r = read(nested(3))
    v = r.turns[0].variations[0]
    for _ in range(2):
        v = v.turns[0].variations[0]
    assert v.turns[0].variations == ()
    message = "variations nested too deep: at most 3 inside one another"
    # At the fourth "(".
    assert fault(nested(4)) == (message, 2, 7 + 3 * 4)


def test_the_real_cap_on_nesting() -> None:
    cap = limits.MAX_VARIATION_DEPTH
    assert cap == 100
    deep = "1. c6 " + "(c5 " * cap + ")" * cap + " *"
    record = read(deep)
    (v,) = keilref.check_text(FULL + "\n" + deep)
    assert v.status.value == "unfinished" and v.warnings == ()
    assert keilref.write_record(record).count("(") == cap
    too_deep = "1. c6 " + "(c5 " * (cap + 1) + ")" * (cap + 1) + " *"
    message = f"variations nested too deep: at most {cap} inside one another"
    assert fault(too_deep) == (message, 2, 7 + 4 * cap)


# --------------------------------------------------------------------------
# Glyphs


def test_suffix_glyphs_after_every_kind_of_turn() -> None:
    r = read("1. c6! c5? 2. c4!! c3?? 3. d4!? d3?! 4. pass?! button! *")
    assert [t.glyphs for t in r.turns] == [("!",), ("?",), ("!!",), ("??",), ("!?",), ("?!",), ("?!",), ("!",)]
    assert [t.move for t in r.turns] == ["c6", "c5", "c4", "c3", "d4", "d3", "pass", "button"]
    # The glyph is not part of the turn's token.
    assert [at(t) for t in r.turns[:2]] == [("c6", 2, 4), ("c5", 2, 8)]
    assert r.turns[6].written == "pass"


def test_numeric_glyphs_are_canonical() -> None:
    r = read("1. c6! c5?? $14 $0 $255 $014 $000 *")
    assert r.turns[0].glyphs == ("!",)
    assert r.turns[1].glyphs == ("??", "$14", "$0", "$255", "$14", "$0")


def test_glyphs_in_variations() -> None:
    r = read("1. c6 c5 (c4?! $6 {dubious} c3!) *")
    c4, c3 = r.turns[1].variations[0].turns
    assert (c4.glyphs, texts(c4.comments), c3.glyphs) == (("?!", "$6"), ["dubious"], ("!",))


@pytest.mark.parametrize(
    "moves, message, column",
    [
        ("1. c6 $256 *", "numeric glyph '$256' is out of range: write $0 to $255", 7),
        ("1. c6 $1000 *", "numeric glyph '$1000' is out of range: write $0 to $255", 7),
        ("1. c6 $0256 *", "numeric glyph '$0256' is out of range: write $0 to $255", 7),
        ("1. c6 $99999999999999999999 *", "numeric glyph '$99999999...' is out of range: write $0 to $255", 7),
        ("1. c6 c5 (1... c4 $300) *", "numeric glyph '$300' is out of range: write $0 to $255", 19),
    ],
)
def test_numeric_glyphs_out_of_range(moves: str, message: str, column: int) -> None:
    assert fault(moves) == (message, 2, column)


@pytest.mark.parametrize(
    "moves, message, line, column",
    [
        ("1. c6 ! *", "a glyph stands directly after its turn: write 'c6!'", 2, 7),
        ("1. c6 !! *", "a glyph stands directly after its turn: write 'c6!!'", 2, 7),
        ("1. pass ?! *", "a glyph stands directly after its turn: write 'pass?!'", 2, 9),
        ("1. c6\n! *", "a glyph stands directly after its turn: write 'c6!'", 3, 1),
        (
            "1. c6{x}! *",
            "found the glyph '!'; expected a move, a comment or a result (a glyph stands directly after its turn, as in 'g7!')",
            2, 9,
        ),
        (
            "1. c6 $14 ! *",
            "found the glyph '!'; expected a move, a comment or a result (a glyph stands directly after its turn, as in 'g7!')",
            2, 11,
        ),
        (
            "1. c6 c5 (c4? ! ) *",
            "found the glyph '!'; expected a move, a comment or ')' to close the variation "
            "(a glyph stands directly after its turn, as in 'g7!')",
            2, 15,
        ),
        (
            "1. c6!!? *",
            "found '!!?'; expected a move, a comment or a result (a glyph stands directly after its turn, as in 'g7!')",
            2, 6,
        ),
        ("1. c6 $ *", "found '$'; expected a move, a comment or a result (a numeric glyph is $0 to $255)", 2, 7),
        ("1. c6 $x *", "found '$x'; expected a move, a comment or a result (a numeric glyph is $0 to $255)", 2, 7),
    ],
)
def test_glyphs_not_adjacent_or_malformed(moves: str, message: str, line: int, column: int) -> None:
    assert fault(moves) == (message, line, column)


# --------------------------------------------------------------------------
# Clocks


def test_clocks_and_where_they_stand() -> None:
    r = read(
        "1. c6 {[%clk 0:09:58]} c5 {think [%clk 0:09:57.5] long} 2. c4 {[%clk -0:00:03]} c3\n"
        "{line one\n  then [%clk 1:00:00]} 3. {[%clk 0:00:05]} d4 *"
    )
    c6, c5, c4, c3, d4 = r.turns
    assert [str(t.clock) for t in r.turns] == ["0:09:58", "0:09:57.5", "-0:00:03", "1:00:00", "0:00:05"]
    assert [t.clock_at for t in r.turns] == [(2, 8), (2, 34), (2, 64), (4, 8), (4, 28)]
    assert c5.clock == Clock(5975) and c5.clock is not None and c5.clock.seconds == 597.5
    assert c4.clock == Clock(-30)
    # The rest of the comment is kept as it was written.
    assert texts(c5.comments) == ["think [%clk 0:09:57.5] long"]
    assert (c3.line, d4.line) == (2, 4)


def test_a_clock_in_a_variation() -> None:
    r = read("1. c6 c5 (c4 {[%clk 0:00:07]}) *")
    (c4,) = r.turns[1].variations[0].turns
    assert (str(c4.clock), c4.clock_at) == ("0:00:07", (2, 15))


@pytest.mark.parametrize(
    "comment, command",
    [
        ("[%clk 0:1:00]", "[%clk 0:1:00]"),  # minutes take two digits
        ("[%clk 0:01:60]", "[%clk 0:01:60]"),  # and seconds stop at 59
        ("[%clk 0:01:00.25]", "[%clk 0:01:00.25]"),  # one digit of tenths at most
        ("[%clk]", "[%clk]"),
        ("[%clk 0:01:00", "[%clk 0:01:00"),  # never closed inside the comment
        ("[%clk 1h]", "[%clk 1h]"),
    ],
)
def test_a_malformed_clock_reads_as_none_and_is_a_warning(comment: str, command: str) -> None:
    r = read("1. c6 {" + comment + "} *")
    (c6,) = r.turns
    assert c6.clock is None
    assert find_clock(c6.comments) == (command, None)
    assert c6.clock_at == (2, 8)
    (v,) = keilref.check_text(FULL + '\n[TimeControl "600+5"]\n1. c6 {' + comment + "} *")
    assert v.warnings == (f"move 1 (Black) c6, turn 1: clock {command} does not read as [%clk H:MM:SS]",)
    assert v.warnings_at == ((3, 8),)


def test_a_word_that_only_starts_like_a_clock_is_text() -> None:
    r = read("1. c6 {[%clkx 0:01:00]} *")
    assert r.turns[0].clock is None and find_clock(r.turns[0].comments) is None
    (v,) = keilref.check_text(FULL + '\n[TimeControl "600+5"]\n1. c6 {[%clkx 0:01:00]} *')
    assert v.warnings == ()


def test_only_the_first_clock_of_a_turn_counts() -> None:
    r = read("1. c6 {[%clk 0:00:10]} {[%clk 0:00:20]} *")
    assert str(r.turns[0].clock) == "0:00:10" and r.turns[0].clock_at == (2, 8)
