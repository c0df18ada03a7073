"""Every check of a set-up position (format version 3), in every rule family.

Each record is built by hand; each fault must be an ``error`` with its exact
message at its exact place: a point off the board, given twice, or a word
that is not a point at that word inside the tag value; a position no legal
play could leave, or a tag the rules do not allow, at its tag. The place is
found here from the record's text, not from the reader, and every format
that locates a finding (text, JSON lines, SARIF, Checkstyle) gives the same
place and the same words.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

import pytest

from cli_support import run
from keilref.engine.game import Game
from keilref.errors import PositionError
from keilref.referee.batches import check_text
from keilref.values import Color

RULES = ("keil", "keil-2019", "yugo", "dehil")
ONE_BUTTON = {"keil": '[Button "yes"]\n', "keil-2019": '[Button "yes"]\n', "yugo": '[Button "yes"]\n', "dehil": ""}


def record(rules: str, *tags: str, moves: str = "*", size: int = 3, button: str | None = None) -> str:
    """A game under ``rules`` on a board of ``size``, with the position's ``tags`` after its settings."""
    head = f'[Rules "{rules}"]\n[Size "{size}"]\n[Komi "0"]\n'
    head += ONE_BUTTON[rules] if button is None else f'[Button "{button}"]\n'
    return head + "".join(f"{t}\n" for t in tags) + f"\n{moves}\n"


def at(text: str, needle: str, nth: int = 1, after: int = 0, since: str = "") -> tuple[int, int]:
    """Line and column (from 1) of the ``nth`` ``needle`` in ``text`` after
    the first ``since``, moved ``after`` characters on."""
    offset = text.index(since) - 1
    for _ in range(nth):
        offset = text.index(needle, offset + 1)
    offset += after
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


@dataclass(frozen=True)
class Fault:
    status: str
    message: str
    line: int
    column: int


def verdict(text: str) -> Fault:
    (v,) = check_text(text)
    assert v.error is not None, (v.status, text)
    return Fault(v.status.value, v.error.message, v.error.line, v.error.column)


def accepted(text: str) -> None:
    (v,) = check_text(text)
    assert v.error is None, v.error
    assert v.status.value == "unfinished", v.status


# --- a point off the board, a point given twice: at that point ---------------------

OFF_BOARD = {"keil": "z9", "keil-2019": "e1", "yugo": "d1", "dehil": "a4"}
"""A point off each family's board of size 3 (Yugo's is the square a1..c3)."""


@pytest.mark.parametrize("rules", RULES)
def test_a_point_off_the_board_is_an_error_at_that_point(rules: str) -> None:
    bad = OFF_BOARD[rules]
    text = record(rules, f'[Setup "B: a1 W: c3 {bad}"]')
    assert verdict(text) == Fault("error", f"Setup: {bad} is not on a board of size 3", *at(text, bad))


@pytest.mark.parametrize("rules", RULES)
def test_a_point_off_the_board_in_blacks_list_is_found_where_written(rules: str) -> None:
    text = record(rules, '[Event "a1 a1 a1"]', f'[Setup "B: a1 {OFF_BOARD[rules].upper()} W:"]')
    bad = OFF_BOARD[rules]
    assert verdict(text) == Fault("error", f"Setup: {bad} is not on a board of size 3", *at(text, bad.upper()))


@pytest.mark.parametrize("rules", RULES)
@pytest.mark.parametrize(
    ("setup", "nth"),
    [("B: a1 b1 W: a1", 2), ("B: a1 a1 W: c3", 2), ("B: c3 W: b1 A1 a1", 1)],
    ids=["both-colours", "one-list", "upper-case-first"],
)
def test_a_point_given_twice_is_an_error_where_it_is_given_again(rules: str, setup: str, nth: int) -> None:
    text = record(rules, f'[Setup "{setup}"]')
    expected = Fault("error", "Setup: a1 is given twice", *at(text, "a1", nth))
    assert verdict(text) == expected


def test_a_yugo_king_and_a_pawn_on_one_point_are_one_point_twice() -> None:
    text = record("yugo", '[Setup "B: K@b2 W: b2"]')
    assert verdict(text) == Fault("error", "Setup: b2 is given twice", *at(text, "b2", 2))


# --- a Setup value that does not read: at the word ---------------------------------

SETUP_WORDS = [
    (
        "a1 W: c3",
        "a1",
        'Setup "a1 W: c3": \'a1\' stands before "B:": the value starts with "B:" (B: d4 W: e4)',
    ),
    (
        "W: c3 B: a1",
        "W:",
        'Setup "W: c3 B: a1": "W:" is out of place: write "B:" and Black\'s points, '
        'then "W:" and White\'s, once each (B: d4 W: e4)',
    ),
    (
        "B: a1 B: b1 W: c3",
        "B: b1",
        'Setup "B: a1 B: b1 W: c3": "B:" is out of place: write "B:" and Black\'s points, '
        'then "W:" and White\'s, once each (B: d4 W: e4)',
    ),
    (
        "B: a1 W: c3 W: b1",
        "W: b1",
        'Setup "B: a1 W: c3 W: b1": "W:" is out of place: write "B:" and Black\'s points, '
        'then "W:" and White\'s, once each (B: d4 W: e4)',
    ),
    (
        "B: a1 xx W: c3",
        "xx",
        "Setup \"B: a1 xx W: c3\": 'xx' is not a point (such as d4, or K@d4 for a Yugo king)",
    ),
    (
        "B: a1, b1 W: c3",
        "a1,",
        "Setup \"B: a1, b1 W: c3\": 'a1,' is not a point (such as d4, or K@d4 for a Yugo king)",
    ),
    (
        "B:a1 W: c3",
        "B:a1",
        'Setup "B:a1 W: c3": \'B:a1\': put a space after "B:" (B: a1)',
    ),
    (
        "B: a1 W:c3",
        "W:c3",
        'Setup "B: a1 W:c3": \'W:c3\': put a space after "W:" (W: c3)',
    ),
    (
        "B: a1 k@b1 W:",
        "k@b1",
        "Setup \"B: a1 k@b1 W:\": 'k@b1' is not a point (such as d4, or K@d4 for a Yugo king)",
    ),
    (
        "B: a1 a\u200bb W:",
        "a\u200bb",
        "Setup \"B: a1 a\u200bb W:\": 'a\u200bb' is not a point: U+200B (zero width space) separates nothing",
    ),
    # White space in a setup is the record format's own: any other space
    # character joins the words on either side, as between turns.
    (
        "B: a1 b1\u2029 b2 W:",
        "b1\u2029",
        "Setup \"B: a1 b1\u2029 b2 W:\": 'b1\u2029' is not a point: U+2029 (paragraph separator) separates nothing",
    ),
    (
        "B: a1\u00a0b1 W:",
        "a1\u00a0b1",
        "Setup \"B: a1\u00a0b1 W:\": 'a1\u00a0b1' is not a point: U+00A0 (no-break space) separates nothing",
    ),
    (
        "B: a1 W:\x0bc3",
        "W:\x0bc3",
        "Setup \"B: a1 W:\x0bc3\": 'W:\x0bc3' is not a point: U+000B (vertical tab, a control character) separates nothing",
    ),
]


@pytest.mark.parametrize("rules", RULES)
@pytest.mark.parametrize(("setup", "word", "message"), SETUP_WORDS, ids=[w for _, w, _ in SETUP_WORDS])
def test_a_setup_word_that_does_not_read_is_an_error_at_that_word(rules: str, setup: str, word: str, message: str) -> None:
    text = record(rules, '[Event "B: W: a1 xx"]', f'[Setup "{setup}"]')
    assert verdict(text) == Fault("error", message, *at(text, word, since="[Setup"))


@pytest.mark.parametrize("rules", RULES)
def test_a_setup_without_white_s_label_is_an_error_where_its_value_ends(rules: str) -> None:
    text = record(rules, '[Setup "B: a1 b1"]')
    message = 'Setup "B: a1 b1" has no "W:": write "W:" after Black\'s points, then White\'s, if any (B: d4 W: e4)'
    assert verdict(text) == Fault("error", message, *at(text, 'b1"]', after=2))


@pytest.mark.parametrize("rules", RULES)
@pytest.mark.parametrize("value", ["", "   "])
def test_an_empty_setup_is_an_error_that_shows_the_form(rules: str, value: str) -> None:
    text = record(rules, f'[Setup "{value}"]')
    message = f'Setup "{value}" is empty: write "B:" and Black\'s points, then "W:" and White\'s (B: d4 W: e4)'
    assert verdict(text) == Fault("error", message, *at(text, '[Setup "', after=8 + len(value)))


@pytest.mark.parametrize("rules", ["keil", "keil-2019", "dehil"])
def test_a_king_under_rules_without_kings_is_an_error_at_it(rules: str) -> None:
    text = record(rules, '[Setup "B: a1 W: K@c3"]')
    message = f"Setup: K@c3 is a king, and rules {rules!r} have none"
    assert verdict(text) == Fault("error", message, *at(text, "K@c3"))


@pytest.mark.parametrize("rules", ["keil", "keil-2019", "dehil"])
def test_a_pawn_named_as_such_under_rules_without_pieces_is_an_error_at_it(rules: str) -> None:
    text = record(rules, '[Setup "B: P@a1 W: c3"]')
    message = f"Setup: P@a1 names a pawn, and rules {rules!r} have only stones: write a1"
    assert verdict(text) == Fault("error", message, *at(text, "P@a1"))


def test_yugo_reads_kings_and_pawns_named_or_plain() -> None:
    accepted(record("yugo", '[Setup "B: K@a1 P@b2 c1 W: a3 K@c3"]'))
    game = Game.from_position("B: K@a1 P@b2 c1 W: a3 K@c3", rules="yugo", size=3)
    assert game.start_position is not None
    assert [(p.token, p.written) for p in game.start_position.black] == [("K@a1", "K@a1"), ("P@b2", "P@b2"), ("c1", "c1")]


@pytest.mark.parametrize("rules", ["keil", "yugo"])
def test_the_canonical_layout_keeps_a_pawn_named_as_such_and_so_the_verdict(tmp_path: Path, rules: str) -> None:
    text = record(rules, '[Setup "B: c1 P@a1 W: c3"]')
    path = tmp_path / "pawn.keil"
    path.write_text(text, encoding="utf-8")
    written = run("fmt", str(path)).output
    assert '[Setup "B: P@a1 c1 W: c3"]' in written
    before, after = check_text(text)[0], check_text(written)[0]
    assert before.status.value == after.status.value == ("error" if rules == "keil" else "unfinished")
    assert (before.error is None) == (after.error is None)


def test_an_empty_position_is_written_with_both_labels() -> None:
    for rules in RULES:
        accepted(record(rules, '[Setup "B: W:"]'))


# --- a position no legal play could leave: at the Setup tag ------------------------------


@pytest.mark.parametrize("rules", ["keil", "keil-2019"])
@pytest.mark.parametrize(
    ("setup", "group"),
    [
        ("B: a1 W: a2 b1 b2", "a1"),
        ("B: a2 b1 b2 W: a1", "a1"),
        ("B: a1 W: a2 b1", "a1"),
        ("B: a1 b1 W: a2 b2 c1 c2", "a1"),
    ],
    ids=["black-corner", "white-corner", "corner-by-two", "beside-a-friend-not-linked"],
)
def test_a_keil_group_without_a_liberty_is_an_error_at_the_setup_tag(rules: str, setup: str, group: str) -> None:
    text = record(rules, '[Event "x"]', f'[Setup "{setup}"]')
    message = f"Setup: no legal play could leave this position: the group {group} has no liberty"
    assert verdict(text) == Fault("error", message, *at(text, "[Setup"))


@pytest.mark.parametrize("rules", ["keil", "keil-2019"])
def test_a_keil_position_whose_groups_all_breathe_is_accepted(rules: str) -> None:
    accepted(record(rules, '[Setup "B: a1 b1 W: c3"]'))
    accepted(record(rules, '[Setup "B: a1 b2 W: a2"]'))


@pytest.mark.parametrize(
    ("setup", "group"),
    [
        ("B: a1 W: a2 b1", "a1"),
        ("B: a1 W: K@a2 b1", "a1"),
        ("B: a1 K@b1 W: a2 b2 c1", "a1 b1"),
        ("B: a2 b1 W: a1", "a1"),
    ],
    ids=["pawn", "pawn-by-a-king", "king-and-pawn", "white-pawn"],
)
def test_a_surrounded_yugo_group_holding_a_pawn_is_an_error_at_the_setup_tag(setup: str, group: str) -> None:
    text = record("yugo", f'[Setup "{setup}"]', '[ToMove "White"]')
    message = (
        f"Setup: no legal play could leave this position: the group {group} is surrounded "
        "and holds a pawn (only a group of kings may stand surrounded)"
    )
    assert verdict(text) == Fault("error", message, *at(text, "[Setup"))


@pytest.mark.parametrize("setup", ["B: K@a1 W: a2 b1", "B: K@a1 K@b1 W: a2 b2 c1", "B: a2 b1 W: K@a1"])
def test_a_surrounded_yugo_group_of_kings_only_is_accepted(setup: str) -> None:
    accepted(record("yugo", f'[Setup "{setup}"]'))


def test_a_dehil_triangle_with_two_edge_stones_is_an_error_at_the_setup_tag() -> None:
    text = record("dehil", '[Setup "B: c3 W: a1 b1 b2"]')
    message = (
        "Setup: no legal play could leave this position: the triangle a1 b1 b2 has 2 stones on the edge "
        "(a triangle may have one at most)"
    )
    assert verdict(text) == Fault("error", message, *at(text, "[Setup"))


def test_a_dehil_triangle_with_an_unsupported_inner_stone_is_an_error_naming_it() -> None:
    # c2 supports b2; nothing supports b3.
    text = record("dehil", '[Setup "B: a2 b2 b3 c2 W:"]')
    message = (
        "Setup: no legal play could leave this position: the triangle a2 b2 b3: b3 is beside no friendly "
        "stone outside the triangle and no hourglass centre, so no placement could make it"
    )
    assert verdict(text) == Fault("error", message, *at(text, "[Setup"))


@pytest.mark.parametrize("colour", ["B", "W"])
def test_a_dehil_triangle_that_play_can_make_is_accepted(colour: str) -> None:
    """c2 supports b2 and c4 supports b3, so a2 b2 b3 can be made last: the
    position is reached by play, and read from its tag."""
    stones = "a2 b2 b3 c2 c4"
    setup = f"B: {stones} W:" if colour == "B" else f"B: W: {stones}"
    accepted(record("dehil", f'[Setup "{setup}"]'))
    played = Game(rules="dehil", size=3)
    for stone in ("c2", "c4", "a2", "b2", "b3"):
        played.play_all([stone, "pass"] if colour == "B" else ["pass", stone])
    set_up = Game.from_position(setup, rules="dehil", size=3)
    for player in (Color.BLACK, Color.WHITE):
        assert played.stones(player) == set_up.stones(player)
    assert set_up.stones(Color.BLACK if colour == "B" else Color.WHITE) == set(stones.split())


# --- the other tags of a position: at the tag ---------------------------------------


@pytest.mark.parametrize("rules", RULES)
@pytest.mark.parametrize(
    ("tag", "message"),
    [
        ('[ToMove "white"]', 'ToMove "white" is not Black or White'),
        ('[ToMove ""]', 'ToMove "" is not Black or White'),
        ('[ToMove "no"]', 'ToMove "no" is not Black or White'),
    ],
)
def test_a_to_move_that_names_no_player_is_an_error_at_the_tag(rules: str, tag: str, message: str) -> None:
    text = record(rules, '[Setup "B: a1 W: c3"]', tag)
    assert verdict(text) == Fault("error", message, *at(text, "[ToMove"))


@pytest.mark.parametrize("rules", ["keil", "keil-2019", "yugo"])
@pytest.mark.parametrize("value", ["yes", "black", "Both"])
def test_a_button_taken_that_names_no_player_is_an_error_at_the_tag(rules: str, value: str) -> None:
    text = record(rules, f'[ButtonTaken "{value}"]')
    assert verdict(text) == Fault("error", f'ButtonTaken "{value}" is not Black, White or no', *at(text, "[ButtonTaken"))


@pytest.mark.parametrize("value", ["yes", "black", "Blue"])
def test_a_first_pass_that_names_no_player_is_an_error_at_the_tag(value: str) -> None:
    text = record("dehil", f'[FirstPass "{value}"]')
    assert verdict(text) == Fault("error", f'FirstPass "{value}" is not Black, White or no', *at(text, "[FirstPass"))


@pytest.mark.parametrize("value", ["Black", "White", "no", "maybe"])
def test_button_taken_under_dehil_is_an_error_at_the_tag_whatever_it_says(value: str) -> None:
    text = record("dehil", '[Setup "B: a1 W: c3"]', f'[ButtonTaken "{value}"]')
    message = "a ButtonTaken tag is not allowed under rules 'dehil': they have no button"
    assert verdict(text) == Fault("error", message, *at(text, "[ButtonTaken"))


@pytest.mark.parametrize("rules", ["keil", "keil-2019", "yugo"])
@pytest.mark.parametrize("value", ["Black", "White", "no", "maybe"])
def test_first_pass_outside_dehil_is_an_error_at_the_tag_whatever_it_says(rules: str, value: str) -> None:
    text = record(rules, '[Setup "B: a1 W: c3"]', f'[FirstPass "{value}"]')
    message = f"a FirstPass tag is not allowed under rules {rules!r}: only dehil counts who passed first"
    assert verdict(text) == Fault("error", message, *at(text, "[FirstPass"))


@pytest.mark.parametrize("holder", ["Black", "White"])
def test_a_button_holder_where_the_button_is_not_in_play_is_an_error_at_the_tag(holder: str) -> None:
    text = record("keil-2019", '[Setup "B: a1 W: c3"]', f'[ButtonTaken "{holder}"]', button="no")
    message = (
        f"ButtonTaken \"{holder}\": the button is not in play in this game (rules 'keil-2019', Button \"no\"), "
        "so nobody holds it"
    )
    assert verdict(text) == Fault("error", message, *at(text, "[ButtonTaken"))


def test_nobody_holding_a_button_not_in_play_is_accepted() -> None:
    accepted(record("keil-2019", '[Setup "B: a1 W: c3"]', '[ButtonTaken "no"]', button="no"))


@pytest.mark.parametrize("rules", ["keil", "keil-2019", "yugo"])
@pytest.mark.parametrize("holder", ["Black", "White", "no"])
def test_a_button_holder_under_rules_with_the_button_is_accepted(rules: str, holder: str) -> None:
    accepted(record(rules, '[Setup "B: a1 W: c3"]', f'[ButtonTaken "{holder}"]', '[ToMove "White"]'))


@pytest.mark.parametrize("who", ["Black", "White", "no"])
def test_first_pass_under_dehil_is_accepted(who: str) -> None:
    accepted(record("dehil", '[Setup "B: a1 W: c3"]', f'[FirstPass "{who}"]'))


def test_position_tags_without_a_setup_start_from_the_empty_board() -> None:
    accepted(record("keil", '[ToMove "White"]', '[ButtonTaken "Black"]', moves="1... a1 *"))


# --- a Setup with escapes: the tag's place, never a crash --------------------------


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ('B: \\"a1 W:', 'Setup "B: "a1 W:": \'"a1\' is not a point (such as d4, or K@d4 for a Yugo king)'),
        ('B: a1 W: c3 x\\\\', 'Setup "B: a1 W: c3 x\\": \'x\\\' is not a point (such as d4, or K@d4 for a Yugo king)'),
        ('\\"B: a1', 'Setup ""B: a1": \'"B:\' stands before "B:": the value starts with "B:" (B: d4 W: e4)'),
        ('B: a1 \\\\', 'Setup "B: a1 \\": \'\\\' is not a point (such as d4, or K@d4 for a Yugo king)'),
        ('B: a1\\\\ W:', 'Setup "B: a1\\ W:": \'a1\\\' is not a point (such as d4, or K@d4 for a Yugo king)'),
        ('B: a\\\\1 W:', 'Setup "B: a\\1 W:": \'a\\1\' is not a point (such as d4, or K@d4 for a Yugo king)'),
        ('B: a1 \\"', 'Setup "B: a1 "": \'"\' is not a point (such as d4, or K@d4 for a Yugo king)'),
    ],
)
def test_a_fault_in_a_setup_with_an_escape_is_reported_at_the_tag(value: str, message: str) -> None:
    """An escape leaves the value's columns unknown; an escaped character
    is always in a word that is not a point, reported at the tag."""
    text = record("keil", '[Event "x"]', f'[Setup "{value}"]')
    assert verdict(text) == Fault("error", message, *at(text, "[Setup"))


def test_an_escape_after_the_points_keeps_a_good_setup_good() -> None:
    accepted(record("keil", '[Setup "B: a1 W: c3"]', '[Note "\\"quoted\\""]'))


# --- where a game starts mid-line or after CRLF line ends -------------------------


def test_a_setup_point_is_placed_in_a_game_that_starts_mid_line() -> None:
    text = '[Size "3"]\n\n1. a1 * [Rules "keil"] [Size "3"] [Setup "B: a1 z9 W:"]\n\n*\n'
    (_, v) = check_text(text)
    assert v.error is not None
    assert (v.error.message, v.error.line, v.error.column) == ("Setup: z9 is not on a board of size 3", *at(text, "z9"))


def test_a_setup_point_is_placed_in_a_crlf_file() -> None:
    text = record("keil", '[Setup "B: a1 z9 W:"]')
    assert verdict(text.replace("\n", "\r\n")) == Fault("error", "Setup: z9 is not on a board of size 3", *at(text, "z9"))


# --- one place, one wording, in every format -----------------------------------------

FORMAT_CASES = {
    "off-board": record("keil", '[Setup "B: a1 z9 W: c3"]'),
    "twice": record("yugo", '[Setup "B: K@b2 W: b2"]'),
    "not-a-point": record("dehil", '[Setup "B: a1 xx W:"]'),
    "no-liberty": record("keil-2019", '[Setup "B: a1 W: a2 b1 b2"]'),
    "surrounded-pawn": record("yugo", '[Setup "B: a1 W: a2 b1"]'),
    "triangle": record("dehil", '[Setup "B: a2 b2 b3 c2 W:"]'),
    "to-move": record("keil", '[ToMove "white"]'),
    "button-taken": record("dehil", '[ButtonTaken "no"]'),
    "first-pass": record("yugo", '[FirstPass "Black"]'),
    "escaped": record("keil", '[Setup "B: a1 z9 W: \\"c3"]'),
}


@pytest.mark.parametrize("case", list(FORMAT_CASES))
def test_text_jsonl_sarif_and_checkstyle_report_one_fault_at_one_place(tmp_path: Path, case: str) -> None:
    text = FORMAT_CASES[case]
    path = tmp_path / "p.keil"
    path.write_text(text, encoding="utf-8")
    expected = verdict(text)
    said = f"game 1: error: {expected.message}"

    jsonl = run("check", "--format", "jsonl", str(path))
    assert jsonl.exit_code == 1
    (line,) = jsonl.output.splitlines()
    found = json.loads(line)
    assert found["status"] == "error"
    assert found["error"] == {"message": expected.message, "line": expected.line, "column": expected.column}

    plain = run("check", str(path))
    assert plain.exit_code == 1
    assert plain.output.splitlines()[0] == f"{path}:{expected.line}:{expected.column}: {said}"

    sarif = run("check", "--format", "sarif", str(path))
    (result,) = json.loads(sarif.output)["runs"][0]["results"]
    assert result["ruleId"] == "error"
    assert result["message"]["text"] == said
    region = result["locations"][0]["physicalLocation"]["region"]
    assert (region["startLine"], region["startColumn"]) == (expected.line, expected.column)

    checkstyle = run("check", "--format", "checkstyle", str(path))
    (error,) = ET.fromstring(checkstyle.output).iter("error")
    assert (error.get("line"), error.get("column")) == (str(expected.line), str(expected.column))
    assert error.get("message") == said
    assert error.get("severity") == "error"


# --- the library says the same ------------------------------------------------------------


NO_BUTTON = "they have no button"
NO_FIRST_PASS = "only dehil counts who passed first"


@pytest.mark.parametrize(
    ("rules", "given", "tag", "why"),
    [
        ("dehil", {"button_taken": "Black"}, "ButtonTaken", NO_BUTTON),
        ("keil", {"first_pass": "White"}, "FirstPass", NO_FIRST_PASS),
        ("yugo", {"first_pass": Color.BLACK}, "FirstPass", NO_FIRST_PASS),
    ],
)
def test_from_position_refuses_what_the_rules_have_no_use_for(
    rules: str, given: dict[str, object], tag: str, why: str
) -> None:
    message = f"a {tag} tag is not allowed under rules {rules!r}: {why}"
    with pytest.raises(PositionError) as refused:
        Game.from_position("B: a1 W: c3", rules=rules, size=3, **given)  # type: ignore[arg-type]
    assert (refused.value.message, refused.value.tag, refused.value.line) == (message, tag, 0)
    # Nobody, said as a colour's absence, is what the empty tag says: allowed.
    Game.from_position("B: a1 W: c3", rules=rules, size=3, **{name: "no" for name in given})  # type: ignore[arg-type]


def test_from_position_places_no_point_of_a_setup_text() -> None:
    with pytest.raises(PositionError) as refused:
        Game.from_position("B: a1 P@b2 W:", rules="keil", size=3)
    assert (refused.value.message, refused.value.line, refused.value.column) == (
        "Setup: P@b2 names a pawn, and rules 'keil' have only stones: write b2", 0, 0
    )
