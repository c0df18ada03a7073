"""The classes a record's text is coloured with (keilref.records.highlight):
where the reader finds a turn, a tag, a variation, a result or a clock, the
highlighter finds the same; and what the grammar refuses is named as such."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from keilref.errors import RecordError
from keilref.records.highlight import Kind, pieces
from keilref.records.parser import parse_games
from keilref.records.positions import LineIndex
from keilref.records.record import Record, Turn, TurnKind

ROOT = Path(__file__).resolve().parent.parent
RECORDS = sorted((ROOT / "records").rglob("*.keil"))


def kinds(text: str) -> list[tuple[str, str]]:
    return [(p.kind.value, text[p.start : p.end]) for p in pieces(text)]


def test_every_class_of_one_game() -> None:
    text = '[Size "4"]\n1. a4 {x [%clk 0:01:00] y} K@b4! $3 (1... pass) 2. button ; z\r\nB+R\n'
    assert kinds(text) == [
        ("tagName", "Size"),
        ("tagValue", '"4"'),
        ("moveNumber", "1."),
        ("point", "a4"),
        ("comment", "{x "),
        ("clock", "[%clk 0:01:00]"),
        ("comment", " y}"),
        ("point", "K@b4"),
        ("glyph", "!"),
        ("glyph", "$3"),
        ("parenthesis", "("),
        ("moveNumber", "1..."),
        ("word", "pass"),
        ("parenthesis", ")"),
        ("moveNumber", "2."),
        ("word", "button"),
        ("comment", "; z"),  # the CR of the CRLF ends the line, not the comment
        ("result", "B+R"),
    ]


def test_what_the_grammar_refuses() -> None:
    # A word no terminal reads is one invalid run up to white space, a
    # comment or a parenthesis; a '{' never closed is a comment to the end.
    assert kinds("1. e5x f3 x(e5) 7.5 {open\n2. e4") == [
        ("moveNumber", "1."),
        ("invalid", "e5x"),
        ("point", "f3"),
        ("invalid", "x"),
        ("parenthesis", "("),
        ("point", "e5"),
        ("parenthesis", ")"),
        ("moveNumber", "7."),
        ("invalid", "5"),
        ("comment", "{open\n2. e4"),
    ]


def test_from_a_token_boundary_to_an_end() -> None:
    text = "1. e5 f3 2. c4 g6"
    assert [(p.kind, text[p.start : p.end]) for p in pieces(text, 6, 12)] == [
        (Kind.POINT, "f3"),
        (Kind.MOVE_NUMBER, "2."),
    ]


def _turns(turns: tuple[Turn, ...]) -> Iterator[Turn]:
    for turn in turns:
        yield turn
        for variation in turn.variations:
            yield from _turns(variation.turns)


def _variations(turns: tuple[Turn, ...]) -> Iterator[tuple[int, int]]:
    for turn in turns:
        for variation in turn.variations:
            yield variation.line, variation.column
            yield from _variations(variation.turns)


@pytest.mark.parametrize("path", RECORDS, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_reader_and_the_highlighter_agree(path: Path) -> None:
    """Of every game the reader reads: each turn, of every line, is a point or
    a word where it stands; each tag's name, each variation's '(', the
    result and each clock are where the reader places them."""
    text = path.read_text(encoding="utf-8", errors="surrogateescape")
    index = LineIndex(text)
    found = {index.place(p.start): p for p in pieces(text)}
    games = [g for g in parse_games(text, str(path)) if isinstance(g, Record)]
    if not games:
        assert all(isinstance(g, RecordError) for g in parse_games(text, str(path)))
        return
    for record in games:
        for turn in _turns(record.turns):
            piece = found[turn.line, turn.column]
            word = turn.kind in (TurnKind.PASS, TurnKind.BUTTON)
            assert piece.kind is (Kind.WORD if word else Kind.POINT)
            assert text[piece.start : piece.end] == turn.text
            if turn.clock_at is not None:
                assert found[turn.clock_at].kind is Kind.CLOCK
        for place in _variations(record.turns):
            assert found[place].kind is Kind.PARENTHESIS
        for tag in record.tags:
            name = found[tag.line, tag.column + 1 + tag_gap(text, index, tag.line, tag.column)]
            assert (name.kind, text[name.start : name.end]) == (Kind.TAG_NAME, tag.name)
        if record.result_line:
            assert found[record.result_line, record.result_column].kind is Kind.RESULT
    # Every point and word the highlighter finds is a turn the reader read.
    turns = {(t.line, t.column) for record in games for t in _turns(record.turns)}
    if len(games) == len(parse_games(text, str(path))):
        moves = {place for place, p in found.items() if p.kind in (Kind.POINT, Kind.WORD)}
        assert moves == turns


def tag_gap(text: str, index: LineIndex, line: int, column: int) -> int:
    """How many spaces or tabs stand between a tag's '[' and its name."""
    at = index.offset(line, column) + 1
    gap = 0
    while text[at + gap] in " \t":
        gap += 1
    return gap
