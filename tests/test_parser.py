"""The record parser: every construct, every error (message, line, column),
and the streaming reader of multi-game files."""

from __future__ import annotations

import gc
import io
import shutil
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from keilref.errors import RecordError, RecordSyntaxError
from keilref.records.grammar import grammar_path, record_parser
from keilref.records.parser import iter_games, parse_games, parse_record
from keilref.records.record import Comment, Record, Tag, Turn, TurnKind
from keilref.records.writer import write_record

T = TypeVar("T")

SAMPLE = """\
[Event "Winter Open"]
[Date "2026.11.21"]
[Round "3"]
[Black "Ana Ruiz"]
[White "Ben Cho"]
[Rules "keil"]
[Size "7"]
[Komi "6"]
[Result "B+0.5"]

1. g7 f6 2. e5 {the standard reply} e4 3. d4 button
4. f5 pass 5. pass B+0.5
"""

LARK_NAMES = ("MOVENUM", "MOVE", "TAG", "RESULT", "COMMENT", "$END", "WS", "Token(")


def error_of(text: str, **kw: object) -> RecordSyntaxError:
    with pytest.raises(RecordSyntaxError) as info:
        parse_record(text, **kw)  # type: ignore[arg-type]
    err = info.value
    for name in LARK_NAMES:
        assert name not in err.message, f"Lark name {name} leaked into {err.message!r}"
    return err


def games_of(data: bytes | str, chunk_size: int = 1 << 20) -> list[Record | RecordError]:
    raw = data.encode("utf-8") if isinstance(data, str) else data
    return list(iter_games(io.BytesIO(raw), "games.keil", chunk_size=chunk_size))


def comparable(items: list[Record | RecordError]) -> list[object]:
    """Records as they are; errors (which compare by identity) as their parts."""
    return [
        (type(g).__name__, g.message, g.line, g.column, g.source_line, g.filename)
        if isinstance(g, RecordError)
        else g
        for g in items
    ]


def records(items: list[Record | RecordError]) -> list[Record]:
    return [g for g in items if isinstance(g, Record)]


def errors(items: list[Record | RecordError]) -> list[RecordError]:
    return [g for g in items if isinstance(g, RecordError)]


# --- loading ------------------------------------------------------------------


def test_grammar_is_found_in_the_checkout_and_the_parser_is_built_once() -> None:
    assert grammar_path().name == "record.lark"
    assert grammar_path().is_file()
    assert record_parser() is record_parser()


def test_an_installed_package_finds_the_grammar_inside_itself(tmp_path: Path) -> None:
    # The wheel force-includes grammar/ as keilref/grammar/: mimic that layout
    # with no checkout around it, and parse from there in a fresh process.
    checkout = Path(__file__).resolve().parent.parent
    site = tmp_path / "site"
    shutil.copytree(checkout / "keilref", site / "keilref", ignore=shutil.ignore_patterns("__pycache__"))
    (site / "keilref" / "grammar").mkdir()
    shutil.copy(checkout / "grammar" / "record.lark", site / "keilref" / "grammar" / "record.lark")
    (site / "grammar").mkdir()  # a decoy where a checkout's grammar would be: the package's must win
    (site / "grammar" / "record.lark").write_text("this is not a grammar\n")
    code = (
        "from keilref.records.grammar import grammar_path; from keilref.records.parser import parse_record; "
        "print(grammar_path()); print(parse_record('[A \"1\"] 1. g7').turns[0].move)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, env={"PYTHONPATH": str(site)}, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    path, move = out.stdout.split()
    assert Path(path) == site / "keilref" / "grammar" / "record.lark"
    assert move == "g7"


# --- the sample of the design document -------------------------------------------


def test_sample_tags_in_order_with_values_and_positions() -> None:
    r = parse_record(SAMPLE)
    assert [(t.name, t.value) for t in r.tags] == [
        ("Event", "Winter Open"),
        ("Date", "2026.11.21"),
        ("Round", "3"),
        ("Black", "Ana Ruiz"),
        ("White", "Ben Cho"),
        ("Rules", "keil"),
        ("Size", "7"),
        ("Komi", "6"),
        ("Result", "B+0.5"),
    ]
    assert [(t.line, t.column) for t in r.tags] == [(i, 1) for i in range(1, 10)]
    assert r.line == 1
    assert r.tag_value("Komi") == "6"


def test_sample_turns_kinds_positions_and_result() -> None:
    r = parse_record(SAMPLE)
    assert [t.move for t in r.turns] == ["g7", "f6", "e5", "e4", "d4", "button", "f5", "pass", "pass"]
    kinds = [t.kind for t in r.turns]
    assert kinds[5] is TurnKind.BUTTON and kinds[7] is TurnKind.PASS and kinds[0] is TurnKind.PLACE
    assert r.turns[0].point == "g7" and r.turns[5].point is None
    assert [(t.line, t.column) for t in r.turns[:4]] == [(11, 4), (11, 7), (11, 13), (11, 37)]
    assert [t.numbered for t in r.turns[:4]] == [True, False, True, False]
    assert r.turns[2].comments == (Comment("the standard reply"),)
    assert r.result == "B+0.5"
    assert (r.result_line, r.result_column) == (12, 20)


# --- constructs -------------------------------------------------------------------


def test_comments_attach_to_what_they_follow() -> None:
    text = '{before} ;also before\n[A "1"] {on A}\n[B "2"]\n{on B}\n1. g7 ;on g7\nf6 B+R {after} ;end'
    r = parse_record(text)
    assert r.head_comments == (Comment("before"), Comment("also before", brace=False))
    assert r.tags[0].comments == (Comment("on A"),)
    assert r.tags[1].comments == (Comment("on B"),)
    assert r.turns[0].comments == (Comment("on g7", brace=False),)
    assert r.turns[1].comments == ()
    assert r.result_comments == (Comment("after"), Comment("end", brace=False))


def test_a_comment_between_a_move_number_and_its_move_belongs_to_that_turn() -> None:
    r = parse_record('[A "1"] 1. g7 1... {why here?} f6')
    assert r.turns[0].comments == ()
    assert r.turns[1].comments == (Comment("why here?"),)


def test_brace_comment_may_hold_brackets_semicolons_quotes_and_line_breaks() -> None:
    r = parse_record('[A "1"] g7 {a ] b ; c [D "x"] "q"\nsecond line} f6')
    assert r.turns[0].comments[0].text == 'a ] b ; c [D "x"] "q"\nsecond line'
    assert r.turns[1].move == "f6"
    assert r.turns[1].line == 2


def test_semicolon_comment_may_hold_braces_and_brackets() -> None:
    r = parse_record('[A "1"] g7 ; { not a brace ] [B "2"]\nf6')
    assert r.turns[0].comments == (Comment(" { not a brace ] [B \"2\"]", brace=False),)
    assert [t.move for t in r.turns] == ["g7", "f6"]


def test_tag_value_escapes_are_resolved() -> None:
    r = parse_record(r'[Black "Ana \"the hat\" Ruiz \\ co"] [Empty ""]')
    assert r.tags[0].value == 'Ana "the hat" Ruiz \\ co'
    assert r.tags[1].value == ""


def test_tag_value_may_hold_brackets_braces_and_semicolons() -> None:
    r = parse_record('[Event "a ] b { c ; d"] g7')
    assert r.tags[0].value == "a ] b { c ; d"
    assert len(r.turns) == 1


def test_a_file_of_tags_only_is_a_game_without_turns() -> None:
    r = parse_record('[Event "x"]\n[Site "y"]\n')
    assert r.turns == () and r.result is None
    assert [t.name for t in r.tags] == ["Event", "Site"]


def test_upper_case_points_are_read_as_lower_case_and_kept_as_written() -> None:
    r = parse_record('[A "1"] G7 f6 M13')
    assert [t.move for t in r.turns] == ["g7", "f6", "m13"]
    assert [t.written for t in r.turns] == ["G7", "f6", "M13"]
    assert r.turns[0].point == "g7" and r.turns[0].text == "G7"


def test_piece_tokens_record_the_piece() -> None:
    r = parse_record('[Rules "yugo"] K@d4 P@E5 d6')
    king, pawn, plain = r.turns
    assert (king.move, king.point, king.piece, king.kind) == ("K@d4", "d4", "K", TurnKind.PLACE)
    assert (pawn.move, pawn.point, pawn.piece, pawn.written) == ("P@e5", "e5", "P", "P@E5")
    assert (plain.move, plain.piece) == ("d6", None)


@pytest.mark.parametrize("grammar_only", [False, True])
def test_pass_and_button_turns_have_no_point(grammar_only: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    # Both readers build turns with one helper: this pins what it builds.
    if grammar_only:
        import keilref.records.parser

        monkeypatch.setattr(keilref.records.parser, "scan_game", lambda *args: None)
    r = parse_record('[A "1"]\n1. pass {taken} button 2. g7')
    first, second = r.turns[:2]
    assert (first.move, first.kind, first.point, first.numbered) == ("pass", TurnKind.PASS, None, True)
    assert first.comments == (Comment("taken", True),) and (first.line, first.column) == (2, 4)
    assert (second.move, second.kind, second.point, second.numbered) == ("button", TurnKind.BUTTON, None, False)
    assert (second.line, second.column) == (2, 17)


@pytest.mark.parametrize(
    "token", ["B+3", "W+0.5", "B+12.5", "B+R", "W+R", "B+T", "W+T", "B+F", "W+F", "Draw", "*"]
)
def test_every_result_token(token: str) -> None:
    r = parse_record(f'[A "1"] g7 {token}')
    assert r.result == token
    assert (r.result_line, r.result_column) == (1, 12)


def test_result_without_turns() -> None:
    r = parse_record('[A "1"]\nB+F')
    assert r.turns == () and r.result == "B+F"


def test_move_numbers_right_in_every_form() -> None:
    r = parse_record('[A "1"] 1. g7 1... f6 2.e5 2... e4 3. d4 f5')
    assert [t.move for t in r.turns] == ["g7", "f6", "e5", "e4", "d4", "f5"]
    assert [t.numbered for t in r.turns] == [True, True, True, True, True, False]


def test_move_numbers_are_checked_in_long_games_too() -> None:
    moves = tuple(Turn("g7" if i % 2 else "f6", TurnKind.PLACE, "g7" if i % 2 else "f6") for i in range(3001))
    text = write_record(Record((Tag("Event", "long"),), moves))
    assert "1500. f6 g7 1501. f6" in text
    assert parse_record(text).turns == moves
    err = error_of(text.replace("1200. f6", "1201. f6"))
    assert "wrong move number '1201.'" in err.message and "move 1200, numbered '1200.'" in err.message


def test_crlf_line_ends_read_like_lf() -> None:
    r = parse_record(SAMPLE.replace("\n", "\r\n"))
    assert r == parse_record(SAMPLE)
    assert (r.turns[4].line, r.turns[4].column) == (11, 43)
    semi = parse_record('[A "1"] g7 ;note\r\nf6\r\n')
    assert semi.turns[0].comments == (Comment("note", brace=False),)
    assert parse_record('[A "1"] g7 ;end\r').turns[0].comments[0].text == "end"


def test_a_bom_is_skipped_and_does_not_shift_columns() -> None:
    r = parse_record("\ufeff" + SAMPLE)
    assert r == parse_record(SAMPLE)
    assert (r.tags[0].line, r.tags[0].column) == (1, 1)


def test_line_offset_counts_positions_from_the_start_of_the_file() -> None:
    r = parse_record('[A "1"]\ng7', line_offset=10)
    assert (r.tags[0].line, r.turns[0].line, r.turns[0].column) == (11, 12, 1)
    err = error_of('[A "1"]\ng7 x', line_offset=10)
    assert (err.line, err.column) == (12, 4)
    assert err.source_line == "g7 x"


# --- errors -----------------------------------------------------------------------


def test_error_display_has_file_line_column_source_and_caret() -> None:
    err = error_of('[A "1"]\n1. g7 f6x', filename="x.keil")
    assert isinstance(err, RecordError)
    assert (err.line, err.column, err.filename) == (2, 7, "x.keil")
    assert str(err) == (
        "x.keil:2:7: found 'f6x'; expected a move, a comment or a result\n"
        "    1. g7 f6x\n"
        "          ^"
    )


def test_empty_text() -> None:
    err = error_of("")
    assert "a game starts with tags" in err.message
    assert (err.line, err.column) == (1, 1)


def test_comments_only() -> None:
    err = error_of("{just a note}\n")
    assert "a game starts with tags" in err.message
    assert (err.line, err.column) == (2, 1)


def test_moves_before_any_tag() -> None:
    err = error_of("\n  g7 f6")
    assert err.message == "found the move 'g7'; a game starts with tags such as [Event \"...\"]"
    assert (err.line, err.column) == (2, 3)


def test_unknown_word_among_the_moves() -> None:
    err = error_of('[A "1"]\n1. g7 hello f6')
    assert err.message == "found 'hello'; expected a move, a comment or a result"
    assert (err.line, err.column) == (2, 7)


def test_unknown_word_after_the_tags_mentions_tags_too() -> None:
    err = error_of('[A "1"] hello')
    assert err.message == "found 'hello'; expected a tag, a move, a comment or a result"
    assert (err.line, err.column) == (1, 9)


def test_tokens_must_be_separated() -> None:
    err = error_of('[A "1"] g7f6')
    assert err.message.startswith("found 'g7f6'")
    assert (err.line, err.column) == (1, 9)


def test_words_in_the_wrong_case_get_a_hint() -> None:
    err = error_of('[A "1"] g7 Pass')
    assert "write 'pass' in lower case" in err.message
    assert (err.line, err.column) == (1, 12)


def test_point_with_too_many_digits() -> None:
    err = error_of('[A "1"] g1234')
    assert err.message.startswith("found 'g1234'")
    assert (err.line, err.column) == (1, 9)


def test_tag_value_without_quotes() -> None:
    err = error_of('[A "1"]\n[Event Winter]')
    assert err.message == "found 'Winter'; expected a tag value in double quotes"
    assert (err.line, err.column) == (2, 8)


def test_tag_without_a_name() -> None:
    err = error_of('[ "x"]')
    assert err.message == "found '\"'; expected a tag name (a letter, then letters, digits or _)"
    assert (err.line, err.column) == (1, 3)


def test_tag_name_must_start_with_a_letter() -> None:
    err = error_of('[1st "x"]')
    assert "expected a tag name" in err.message and "'1st'" in err.message
    assert (err.line, err.column) == (1, 2)


def test_tag_not_closed_with_a_bracket() -> None:
    err = error_of('[A "1" g7')
    assert err.message == "found 'g7'; expected ']' to close the tag"
    assert (err.line, err.column) == (1, 8)


def test_tag_value_not_closed_on_its_line_is_reported_at_the_opening_quote() -> None:
    err = error_of('[A "1"]\n[Event "Winter\nOpen"]')
    assert "tag value not closed" in err.message
    assert (err.line, err.column) == (2, 8)


def test_unknown_escape_in_a_tag_value() -> None:
    err = error_of(r'[Event "a\tb"]')
    assert err.message == "unknown escape '\\t' in a tag value: only \\\" and \\\\ are escapes"
    assert (err.line, err.column) == (1, 10)


@pytest.mark.parametrize("cut", ['[Ev', '[Event', '[Event "Win', '[Event "Win\\', '[Event "Winter"'])
def test_end_of_text_inside_a_tag_is_reported_where_the_tag_began(cut: str) -> None:
    err = error_of('[A "1"]\n  ' + cut)
    assert err.message == "the text ends inside this tag"
    assert (err.line, err.column) == (2, 3)


def test_end_of_text_inside_a_comment_is_reported_where_it_began() -> None:
    err = error_of('[A "1"]\n1. g7 {a comment\nthat goes on\n')
    assert err.message == "comment never closed: this '{' has no matching '}'"
    assert (err.line, err.column) == (2, 7)
    assert err.source_line == "1. g7 {a comment"


def test_stray_closing_brace_and_bracket() -> None:
    brace = error_of('[A "1"] g7 } f6')
    assert brace.message == "found '}' with no '{' before it"
    assert (brace.line, brace.column) == (1, 12)
    bracket = error_of('[A "1"] g7 ]')
    assert bracket.message == "found ']' outside a tag"
    assert (bracket.line, bracket.column) == (1, 12)


def test_duplicate_tag_is_reported_at_the_second() -> None:
    err = error_of('[Event "a"]\n[Site "b"]\n  [Event "c"]\ng7')
    assert err.message == "duplicate tag 'Event': a game names each tag once (first on line 1)"
    assert (err.line, err.column) == (3, 3)


def test_tag_after_the_moves() -> None:
    err = error_of('[A "1"]\ng7 f6\n[B "2"]')
    assert err.message == "found a tag after the moves; tags come before the moves"
    assert (err.line, err.column) == (3, 1)


def test_wrong_move_number_for_black() -> None:
    err = error_of('[A "1"]\n1. g7 f6 3. e5')
    assert err.message == "wrong move number '3.': the turn after it is Black's turn of move 2, numbered '2.'"
    assert (err.line, err.column) == (2, 10)


def test_black_number_before_whites_turn() -> None:
    err = error_of('[A "1"] 1. g7 2. f6')
    assert err.message == "wrong move number '2.': the turn after it is White's turn of move 1, numbered '1...'"
    assert (err.line, err.column) == (1, 15)


def test_white_number_before_blacks_turn() -> None:
    err = error_of('[A "1"] 1... g7')
    assert "Black's turn of move 1, numbered '1.'" in err.message
    assert (err.line, err.column) == (1, 9)


def test_malformed_move_number() -> None:
    err = error_of('[A "1"] g7 1.. f6')
    assert err.message.startswith("malformed move number '1..'")
    assert "(here: '1...')" in err.message
    assert (err.line, err.column) == (1, 12)


def test_number_without_a_dot_gets_a_hint() -> None:
    err = error_of('[A "1"] 1 g7')
    assert "a move number ends with a dot: '1.' or '1...'" in err.message
    assert (err.line, err.column) == (1, 9)


def test_move_number_at_the_end() -> None:
    err = error_of('[A "1"] 1. g7 f6 2. {c}\n')
    assert err.message == "the game ends after the move number '2.': expected a move"
    assert (err.line, err.column) == (1, 18)


def test_move_number_before_a_result() -> None:
    err = error_of('[A "1"] 1. g7 f6 2. B+R')
    assert err.message == "found the result 'B+R'; expected a move after the move number"
    assert (err.line, err.column) == (1, 21)


def test_result_with_zero_margin() -> None:
    err = error_of('[A "1"] g7 B+0')
    assert "a margin of 0 is written Draw" in err.message
    assert (err.line, err.column) == (1, 12)


def test_malformed_result_gets_the_list_of_results() -> None:
    err = error_of('[A "1"] g7 b+3')
    assert "'b+3' is not a result" in err.message and "Draw or *" in err.message
    assert (err.line, err.column) == (1, 12)


def test_moves_after_the_result() -> None:
    err = error_of('[A "1"] g7 B+3\nf6')
    assert err.message == "found the move 'f6' after the result; expected a comment or the end of the game"
    assert (err.line, err.column) == (2, 1)


def test_control_characters_are_named_by_their_code_point() -> None:
    err = error_of('[A "1"] g7 \x01x')
    assert err.message == (
        "found U+0001 (a control character); expected a move, a comment or a result"
        " (white space is a space, a tab or a line break)"
    )
    assert (err.line, err.column) == (1, 12)


# --- files of many games ------------------------------------------------------------


def test_empty_file_is_one_error() -> None:
    items = games_of(b"")
    assert len(items) == 1 and isinstance(items[0], RecordError)
    err = items[0]
    assert (err.message, err.line, err.column, err.filename) == ("no game in file", 1, 1, "games.keil")


def test_file_of_white_space_and_comments_is_one_error() -> None:
    items = games_of(" \n\t{a note}\n; another\n\n")
    assert len(items) == 1 and isinstance(items[0], RecordError)
    assert (items[0].message, items[0].line, items[0].column) == ("no game in file", 1, 1)


def test_file_of_tags_only() -> None:
    items = games_of('[Event "a"]\n[Site "b"]\n')
    assert len(items) == 1
    r = items[0]
    assert isinstance(r, Record) and r.turns == () and len(r.tags) == 2


def test_several_games_with_absolute_positions() -> None:
    text = SAMPLE + "\n" + SAMPLE + "\n\n" + SAMPLE
    items = games_of(text)
    assert len(items) == 3 and all(isinstance(g, Record) for g in items)
    recs = records(items)
    assert [r.line for r in recs] == [1, 14, 28]
    assert [r.turns[0].line for r in recs] == [11, 24, 38]
    assert recs[0] == recs[1] == recs[2] == parse_record(SAMPLE)


def test_games_on_one_line_get_absolute_columns() -> None:
    items = games_of('[A "1"] g7 B+3 [A "2"] f6 [A "3"]\n1. d4 x')
    r1, r2, err = items
    assert isinstance(r1, Record) and isinstance(r2, Record) and isinstance(err, RecordError)
    assert (r2.tags[0].line, r2.tags[0].column, r2.turns[0].column) == (1, 16, 24)
    assert (err.line, err.column) == (2, 7)
    ghost = games_of('[A "1"] g7 [A "2"] x')[1]
    assert isinstance(ghost, RecordError)
    assert (ghost.line, ghost.column) == (1, 20)
    assert ghost.source_line is not None and ghost.source_line[ghost.column - 1] == "x"


def test_a_broken_game_does_not_stop_the_next_ones() -> None:
    text = (
        '[Event "1"]\n1. g7 f6 *\n\n'
        '[Event "2"]\n1. g7 3. f6 *\n\n'
        '[Event "3"]\n1. g7 f6 *\n\n'
        '[Event "4" \n1. g7 *\n\n'
        '[Event "5"]\n1. g7 f6 *\n'
    )
    items = games_of(text)
    assert [type(g).__name__ for g in items] == [
        "Record",
        "RecordSyntaxError",
        "Record",
        "RecordSyntaxError",
        "Record",
    ]
    assert [r.tag_value("Event") for r in records(items)] == ["1", "3", "5"]
    bad_number, bad_tag = errors(items)
    assert (bad_number.line, bad_number.column) == (5, 7)
    assert (bad_tag.line, bad_tag.column) == (10, 12)
    assert bad_tag.message == "found the end of the line; expected ']' to close the tag"
    assert all(e.filename == "games.keil" for e in errors(items))


def test_duplicate_tags_before_any_move_are_one_game() -> None:
    items = games_of('[Event "a"]\n[Event "b"]\ng7\n[Event "c"] f6')
    assert isinstance(items[0], RecordError)
    assert (items[0].line, items[0].column) == (2, 1) and "duplicate tag 'Event'" in items[0].message
    assert isinstance(items[1], Record) and items[1].tag_value("Event") == "c"


def test_brackets_in_values_and_comments_do_not_start_games() -> None:
    text = '[A "x ] { ; "] g7 ; [B "y"]\n{ [C "z"] } f6\n[D "w"] e5'
    items = games_of(text)
    assert len(items) == 2
    first, second = records(items)
    assert [t.move for t in first.turns] == ["g7", "f6"]
    assert second.tag_value("D") == "w" and second.line == 3


def test_invalid_utf8_is_reported_with_line_and_column_and_the_rest_is_read() -> None:
    data = '[A "1"] g7\n[B "é"] g7\n'.encode() + b'[C "ok"]\n1. g7 \xff f6\n' + b'[D "2"] g7\n'
    items = games_of(data)
    assert len(items) == 4
    err = items[2]
    assert isinstance(err, RecordSyntaxError)
    assert err.message == "the text is not valid UTF-8 here (byte 0xff): re-save the file as UTF-8, or read it with --encoding (such as --encoding cp1252)"
    assert (err.line, err.column) == (4, 7)
    assert err.source_line == "1. g7 \ufffd f6"
    assert [r.tags[0].name for r in records(items)] == ["A", "B", "D"]
    assert records(items)[1].tags[0].value == "é"


def test_bom_at_file_start_and_between_joined_files() -> None:
    one = '[A "1"] g7 f6\r\n'
    data = b"\xef\xbb\xbf" + one.encode() + b"\xef\xbb\xbf" + one.encode()
    items = games_of(data)
    assert len(items) == 2 and all(isinstance(g, Record) for g in items)
    r1, r2 = records(items)
    assert (r1.tags[0].column, r2.tags[0].line, r2.tags[0].column) == (1, 2, 2)
    assert r1 == r2


def test_bom_cut_in_two_by_a_chunk_boundary_is_still_white_space() -> None:
    data = b'[A "1"] g7\n' + b"\xef\xbb\xbf" + b'[A "2"] g7\n'
    for size in range(1, 20):
        items = games_of(data, chunk_size=size)
        assert [type(g) for g in items] == [Record, Record], size


@pytest.mark.parametrize("terminal", ["MOVE", "RESULT"])
def test_the_tokens_an_unseen_character_may_end_are_the_grammars(terminal: str) -> None:
    # The error wording copies MOVE and RESULT without their lookahead: a
    # word is one of them exactly when the grammar's terminal takes it whole.
    import re

    from keilref.records import grammar as lark_grammar

    (pattern,) = [t.pattern.value for t in lark_grammar.record_parser().terminals if t.name == terminal]
    copy = lark_grammar._MOVE_WORD if terminal == "MOVE" else lark_grammar._RESULT_WORD
    words = ["g7", "G7", "m13", "b100", "a1000", "K@d4", "k@d4", "pass", "button", "Pass", "g", "7", "g7x", "B+R", "W+T",
             "B+F", "B+0.5", "W+12", "B+", "B+x", "B+1.", "Draw", "draw", "*", "**", "1.", "[A"]
    for word in words:
        assert bool(copy.fullmatch(word)) == bool(re.fullmatch(pattern, word)), word


def test_a_byte_order_mark_between_tokens_separates_like_a_space() -> None:
    text = '[A "1"]\ufeff[B "2"]\ufeffg7\ufefff6'
    whole = parse_record(text)
    assert [t.name for t in whole.tags] == ["A", "B"] and [t.move for t in whole.turns] == ["g7", "f6"]
    for size in (1, 2, 1 << 20):
        assert games_of(text, chunk_size=size) == [whole], size


@pytest.mark.parametrize(
    "blank, name",
    [
        ("\xa0", "U+00A0 (no-break space)"),
        ("\u3000", "U+3000 (ideographic space)"),
        ("\u2028", "U+2028 (line separator)"),
        ("\x1c", "U+001C (file separator, a control character)"),
        ("\x0c", "U+000C (form feed, a control character)"),
    ],
)
def test_other_unicode_white_space_separates_nothing(blank: str, name: str) -> None:
    # Only space, tab, line feed and carriage return are white space: any
    # other space character between tokens is an error at that character.
    text = f'[A "1"]\n[B "2"]\ng7{blank}f6'
    err = error_of(text)
    assert err.message == f"found {name} after 'g7'; expected a space, a tab or a line break"
    assert (err.line, err.column) == (3, 3)
    for size in (1, 2, 1 << 20):
        (item,) = games_of(text, chunk_size=size)
        assert isinstance(item, RecordError) and (item.message, item.line, item.column) == (err.message, 3, 3), size
    # Between two games it belongs to the game before, which it makes an
    # error at that character; the game after it is read.
    first, second = games_of(f'[A "1"] g7 *\n{blank}\n[B "2"] g7 *\n')
    assert isinstance(first, RecordError) and name in first.message and (first.line, first.column) == (2, 1)
    assert isinstance(second, Record) and second.line == 3


def test_an_unseen_character_is_read_as_text_when_files_are_cut_into_games() -> None:
    # The splitter counts only white space as nothing: a file of a form feed
    # is not empty, and after a game's tags a unit separator ends that game.
    for size in (1, 2, 1 << 20):
        (only,) = games_of(b"\x0c\n", chunk_size=size)
        assert isinstance(only, RecordError) and "U+000C (form feed, a control character)" in only.message
        assert (only.line, only.column) == (1, 1)
        first, second = games_of('[A "1"]\n\x1f\n[B "2"] g7 *\n', chunk_size=size)
        assert isinstance(first, RecordError) and "U+001F" in first.message and (first.line, first.column) == (2, 1)
        assert isinstance(second, Record) and second.tags[0].name == "B" and second.line == 3
        # Before the first tag, it is a game of its own, and the game after it is read.
        bad, a, b = games_of('\u3000[A "1"] g7 *\n[B "2"] g7 *\n', chunk_size=size)
        assert isinstance(bad, RecordError) and "U+3000" in bad.message and (bad.line, bad.column) == (1, 1)
        assert isinstance(a, Record) and (a.tags[0].line, a.tags[0].column) == (1, 2)
        assert isinstance(b, Record) and b.line == 2


def test_unterminated_comment_is_reported_and_reading_resumes_at_the_next_tag_line() -> None:
    text = '[Event "1"]\n1. g7 {forgot to close\nf6 e5\n\n[Event "2"]\n1. g7 *\n\n[Event "3"]\n1. d4 *\n'
    for size in (1 << 20, 5, 1):
        items = games_of(text, chunk_size=size)
        assert len(items) == 3, size
        err = items[0]
        assert isinstance(err, RecordError)
        assert err.message == (
            "comment never closed: this '{' has no matching '}' before the tag on line 5"
            " (a '}' is probably missing)"
        )
        assert (err.line, err.column) == (2, 7)
        assert [r.tag_value("Event") for r in records(items)] == ["2", "3"]
        assert records(items)[0].line == 5


def test_unterminated_comment_without_a_later_tag_line() -> None:
    items = games_of('[Event "1"] g7 {never\nclosed')
    assert len(items) == 1 and isinstance(items[0], RecordError)
    assert (items[0].line, items[0].column) == (1, 16)


def test_unterminated_comment_before_any_game() -> None:
    items = games_of('{oops\n[Event "1"] g7\n')
    assert isinstance(items[0], RecordError) and (items[0].line, items[0].column) == (1, 1)
    assert isinstance(items[1], Record) and items[1].line == 2


class CountingStream(io.BytesIO):
    """A binary stream that records every read and seek."""

    def __init__(self, data: bytes, seekable: bool = True) -> None:
        super().__init__(data)
        self.reads: list[int] = []
        self.seeks = 0
        self._seekable = seekable

    def read(self, size: int | None = -1) -> bytes:
        data = super().read(size)
        self.reads.append(len(data))
        return data

    def seek(self, offset: int, whence: int = 0) -> int:
        self.seeks += 1
        return super().seek(offset, whence)

    def seekable(self) -> bool:
        return self._seekable


def many_games(n: int, brace: bool = True) -> Iterator[str]:
    """``n`` games of six lines each."""
    note = "{fine}" if brace else "; fine\n"
    for i in range(n):
        yield f'[Event "game {i}"]\n[Round "{i}"]\n\n1. g7 f6 2. e5 {note} 2... e4 3. d4 button\n4. f5 pass 5. pass B+0.5\n\n'


def test_reading_is_chunked_and_lazy() -> None:
    data = "".join(many_games(3000)).encode()
    stream = CountingStream(data)
    chunk = 4096
    it = iter_games(stream, "big.keil", chunk_size=chunk)
    first = next(it)
    assert isinstance(first, Record) and first.tag_value("Event") == "game 0"
    assert stream.tell() <= chunk, "the first game came before the file was read"
    rest = list(it)
    assert len(rest) == 2999 and all(isinstance(g, Record) for g in rest)
    assert max(stream.reads) <= chunk
    assert sum(stream.reads) == len(data)
    assert len(stream.reads) >= len(data) // chunk
    last = rest[-1]
    assert isinstance(last, Record)
    assert last.line == 1 + 2999 * 6 and last.turns[0].line == 4 + 2999 * 6


def test_memory_stays_about_one_game() -> None:
    data = "".join(many_games(20000)).encode()
    stream = CountingStream(data)
    tracemalloc.start()
    try:
        count = 0
        for item in iter_games(stream, "big.keil", chunk_size=64 * 1024):
            assert isinstance(item, Record)
            count += 1
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert count == 20000
    assert len(data) > 2_000_000
    assert peak < len(data) // 4, f"peak {peak} bytes for a {len(data)}-byte file"


def test_an_unclosed_comment_does_not_make_the_reader_hold_the_file() -> None:
    data = ('[Event "0"]\n1. g7 {never closed\n\n' + "".join(many_games(5000, brace=False))).encode()
    for seekable in (True, False):
        stream = CountingStream(data, seekable=seekable)
        items = list(iter_games(stream, "x.keil", chunk_size=1024))
        assert len(items) == 5001
        assert isinstance(items[0], RecordError) and (items[0].line, items[0].column) == (2, 7)
        assert all(isinstance(g, Record) for g in items[1:])
        assert max(stream.reads) <= 1024
        assert stream.seeks == 0  # the first tag line ends the comment: no reading ahead


def test_all_chunk_sizes_give_the_same_games() -> None:
    text = (
        "\ufeff{head} ;h\n"
        + '[Event "a [ { ; \\" b"] {x\n[Site in comment] [Site "x"]} g7 ; [Not "a tag"]\nf6 B+R\n'
        + '[Event "2"]\r\n1. g7 1... f6 *\r\n'
        + '[Event "3"] g7 {open\n\n[Event "4"] e5'
    )
    data = text.encode()
    expected = games_of(data)
    assert [type(g) for g in expected] == [Record, Record, RecordSyntaxError, Record]
    for size in (1, 2, 3, 5, 8, 13, 64):
        got = games_of(data, chunk_size=size)
        assert comparable(got) == comparable(expected), size
        positions = [[(t.line, t.column) for t in r.turns] for r in records(got)]
        assert positions == [[(t.line, t.column) for t in r.turns] for r in records(expected)]


def test_parse_games_is_iter_games_on_a_string() -> None:
    text = SAMPLE + "\n" + '[Event "x"] g7 oops\n'
    items = parse_games(text, "s.keil")
    assert isinstance(items[0], Record) and items[0] == parse_record(SAMPLE)
    assert isinstance(items[1], RecordError) and items[1].filename == "s.keil"
    assert (items[1].line, items[1].column) == (14, 16)


# --- speed --------------------------------------------------------------------------


def one_line_game(turns: int) -> str:
    return '[Event "long"] ' + " ".join("g7" if i % 2 else "f6" for i in range(turns))


def timed(work: Callable[[], T]) -> tuple[T, float]:
    """The result and duration of ``work``, with the cyclic collector paused:
    the growth these tests look for is the reader's, not the collector's
    (which passes over every live object, more of them as a game grows)."""
    gc.collect()
    gc.disable()
    try:
        start = time.perf_counter()
        out = work()
        return out, time.perf_counter() - start
    finally:
        gc.enable()


def test_200000_turns_on_one_line_parse_in_linear_time() -> None:
    small, big = one_line_game(20_000), one_line_game(200_000)
    r_small, t_small = timed(lambda: parse_record(small))
    r_big, t_big = timed(lambda: parse_record(big))
    assert len(r_small.turns) == 20_000 and len(r_big.turns) == 200_000
    assert r_big.turns[-1].column == len(big) - 1
    assert t_big / t_small < 20, f"{t_small:.3f}s for 20k turns, {t_big:.3f}s for 200k"


def test_long_line_read_through_small_chunks_stays_linear() -> None:
    small, big = one_line_game(20_000).encode(), one_line_game(200_000).encode()
    a, t_small = timed(lambda: games_of(small, chunk_size=1024))
    b, t_big = timed(lambda: games_of(big, chunk_size=1024))
    assert isinstance(a[0], Record) and isinstance(b[0], Record) and len(b[0].turns) == 200_000
    assert t_big / t_small < 20


# --- no input makes it fall over ----------------------------------------------------

_ALPHABET = st.sampled_from(
    list('[]{};"\\ \n\r\t.+*@') + ["g7", "G7", "pass", "button", "K@", "B+", "1.", "2...", "Draw",
     '[A "1"]', '[B "x"]', "\ufeff", "é", "\x00", "{", "}"]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_ALPHABET, max_size=40).map("".join), st.integers(1, 9))
def test_any_text_gives_records_or_positioned_errors(text: str, chunk: int) -> None:
    items = games_of(text.encode("utf-8"), chunk_size=chunk)
    assert items
    assert comparable(items) == comparable(parse_games(text, "games.keil"))
    for item in items:
        if isinstance(item, RecordError):
            assert item.line >= 1 and item.column >= 1
            assert item.message
        else:
            assert isinstance(item, Record) and item.tags
            for tag in item.tags:
                assert isinstance(tag, Tag) and tag.line >= 1 and tag.column >= 1
