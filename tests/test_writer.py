"""The canonical writer: layout, tag order, escapes, comments, and refusal
of records whose text would not read back as themselves."""

from __future__ import annotations

import dataclasses

import pytest

from keilref.errors import RecordError
from keilref.records.parser import parse_games, parse_record
from keilref.records.record import Comment, Record, Tag, Turn, TurnKind
from keilref.records.writer import LINE_WIDTH, STANDARD_TAGS, canonical_tags, write_record, write_records

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


def turn(move: str, *comments: Comment) -> Turn:
    if move in ("pass", "button"):
        return Turn(move, TurnKind(move), comments=comments)
    piece, _, point = move.rpartition("@")
    return Turn(move, TurnKind.PLACE, point, piece or None, comments)


def test_design_document_sample_in_canonical_form() -> None:
    assert write_record(parse_record(SAMPLE)) == (
        '[Event "Winter Open"]\n'
        '[Date "2026.11.21"]\n'
        '[Round "3"]\n'
        '[Black "Ana Ruiz"]\n'
        '[White "Ben Cho"]\n'
        '[Rules "keil"]\n'
        '[Size "7"]\n'
        '[Komi "6"]\n'
        '[Result "B+0.5"]\n'
        "\n"
        "1. g7 f6 2. e5 {the standard reply} 2... e4 3. d4 button 4. f5 pass 5. pass\n"
        "B+0.5\n"
    )


def test_standard_tags_first_in_fixed_order_then_the_others_as_written() -> None:
    tags = tuple(Tag(n, "v") for n in ("Zeta", "Result", "Annotator", "Event", "Komi", "Alpha", "Black"))
    text = write_record(Record(tags))
    names = [line[1:].split(" ")[0] for line in text.splitlines()]
    assert names == ["Event", "Black", "Komi", "Result", "Zeta", "Annotator", "Alpha"]
    assert STANDARD_TAGS.index("Komi") < STANDARD_TAGS.index("Button") < STANDARD_TAGS.index("Result")
    assert [t.name for t in canonical_tags(tags)] == names


def test_tags_only_record_is_just_its_tags() -> None:
    assert write_record(Record((Tag("Event", "x"), Tag("Site", "y")))) == '[Event "x"]\n[Site "y"]\n'


def test_escapes_in_tag_values() -> None:
    record = Record((Tag("Black", 'Ana "the hat" Ruiz \\ co'),))
    text = write_record(record)
    assert text == '[Black "Ana \\"the hat\\" Ruiz \\\\ co"]\n'
    assert parse_record(text) == record


def test_move_numbers_and_white_numbers_after_comments() -> None:
    record = Record(
        (Tag("Event", "x"),),
        (turn("g7", Comment("a")), turn("f6"), turn("e5"), turn("e4", Comment("b", brace=False)), turn("d4")),
        "*",
    )
    assert write_record(record).split("\n\n", 1)[1] == "1. g7 {a} 1... f6 2. e5 e4 ;b\n3. d4 *\n"


def test_semicolon_comments_end_their_line_everywhere() -> None:
    record = Record(
        (Tag("Event", "x", (Comment(" on tag", brace=False), Comment("after"))), Tag("Site", "y")),
        (turn("g7"),),
        "B+R",
        head_comments=(Comment("head", brace=False),),
        result_comments=(Comment("end", brace=False),),
    )
    assert write_record(record) == (
        ";head\n" '[Event "x"] ; on tag\n' "{after}\n" '[Site "y"]\n' "\n" "1. g7 B+R ;end\n"
    )
    assert parse_record(write_record(record)) == record


def test_lines_are_filled_to_at_most_80_characters() -> None:
    moves = tuple(turn(p) for p in ["a1", "m13", "g7", "pass", "button", "K@d4", "P@e5"] * 40)
    text = write_record(Record((Tag("Event", "x"),), moves, "W+T"))
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= LINE_WIDTH
    assert sum(len(line) for line in lines[3:]) > 5 * LINE_WIDTH  # really several full lines
    assert all(len(line) > LINE_WIDTH - 12 for line in lines[2:-1])  # and filled
    assert parse_record(text).turns == moves


def test_a_number_stays_with_its_move_across_a_line_break() -> None:
    moves = tuple(turn("m13") for _ in range(60))
    text = write_record(Record((Tag("Event", "x"),), moves))
    for line in text.splitlines()[2:]:
        assert not line.endswith(".")


def test_a_single_long_comment_may_exceed_the_width_and_stays_whole() -> None:
    long = "word " * 30
    record = Record((Tag("Event", "x"),), (turn("g7", Comment(long)), turn("f6")), "*")
    text = write_record(record)
    lines = text.splitlines()
    assert "{" + long + "}" in lines
    assert [line for line in lines if len(line) > LINE_WIDTH] == ["{" + long + "}"]
    assert parse_record(text) == record


def test_a_comment_with_line_breaks_is_kept_and_the_width_counts_from_its_end() -> None:
    record = Record(
        (Tag("Event", "x"),),
        (turn("g7", Comment("first\n" + "x" * 75)), turn("f6"), turn("e5")),
    )
    text = write_record(record)
    assert "{first\n" + "x" * 75 + "}\n1... f6 2. e5\n" in text
    assert parse_record(text) == record


def test_result_and_its_comments() -> None:
    record = Record((Tag("Event", "x"),), (), "Draw", result_comments=(Comment("agreed"),))
    assert write_record(record) == '[Event "x"]\n\nDraw {agreed}\n'


def test_writing_is_idempotent_on_a_messy_record() -> None:
    messy = (
        '{intro}\n  [Zed  "q"] [Event "E"];c\n[Black "A \\"B\\""]\n\n'
        "1.G7 f6 {x}\n2. e5 ; tail\n K@D4 pass B+3 {fin}"
    )
    once = write_record(parse_record(messy))
    assert write_record(parse_record(once)) == once
    assert parse_record(once) == dataclasses.replace(
        parse_record(messy), tags=canonical_tags(parse_record(messy).tags)
    )


def test_write_records_separates_games_by_a_blank_line_and_reads_back() -> None:
    first = parse_record(SAMPLE)
    second = Record((Tag("Event", "second"),), (turn("g7"),), "*")
    text = write_records([first, second])
    assert "B+0.5\n\n[Event \"second\"]" in text
    items = parse_games(text)
    assert items == [first, second]
    assert write_records([]) == ""


@pytest.mark.parametrize(
    ("record", "phrase"),
    [
        (Record(), "at least one tag"),
        (Record((Tag("1x", "v"),)), "tag name"),
        (Record((Tag("A", "v"), Tag("A", "w"))), "appears twice"),
        (Record((Tag("A", "two\nlines"),)), "line break"),
        (Record((Tag("A", "v", (Comment("a } b"),)),)), "'}'"),
        (Record((Tag("A", "v"),), head_comments=(Comment("x\ny", brace=False),)), "past the end of its line"),
        (Record((Tag("A", "v"),), (Turn("G7", TurnKind.PLACE, "g7"),)), "not a canonical turn"),
        (Record((Tag("A", "v"),), (Turn("hello", TurnKind.PLACE),)), "not a canonical turn"),
        (Record((Tag("A", "v"),), (), "B+x"), "not a result"),
        (Record((Tag("A", "v"),), (), "B+0"), "margin of 0"),
        (Record((Tag("A", "v"),), (), None, result_comments=(Comment("c"),)), "no result"),
    ],
)
def test_records_that_would_not_read_back_are_refused(record: Record, phrase: str) -> None:
    with pytest.raises(ValueError) as info:
        write_record(record)
    assert phrase in str(info.value)
    assert not isinstance(info.value, RecordError)


def test_write_records_refuses_a_game_that_would_merge_with_the_next() -> None:
    tags_only = Record((Tag("Event", "first"),))
    with pytest.raises(ValueError) as info:
        write_records([tags_only, Record((Tag("Event", "second"),))])
    assert "neither turns nor a result" in str(info.value)
    assert write_records([Record((Tag("Event", "x"),), (), "*"), tags_only]).count("[Event") == 2
