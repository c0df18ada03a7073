"""Property: the writer and the parser are inverse, and writing is idempotent.

Records are generated with random tags (standard and unknown ones, values
with quotes, backslashes and brackets), comments of both kinds holding
awkward characters, turns of every kind and results.
"""

from __future__ import annotations

import dataclasses

from hypothesis import given, settings
from hypothesis import strategies as st

from keilref.records.parser import parse_games, parse_record
from keilref.records.record import Comment, Record, Tag, Turn, TurnKind
from keilref.records.writer import STANDARD_TAGS, canonical_tags, write_record, write_records

AWKWARD = '"\\[]{};@.+*\t\r é☃\ufeff\u2028\x00'


def _text(exclude: str) -> st.SearchStrategy[str]:
    plain = st.characters(blacklist_categories=("Cs",), blacklist_characters=exclude)
    awkward = st.sampled_from([c for c in AWKWARD + "\n" if c not in exclude])
    return st.text(st.one_of(plain, awkward), max_size=24)


brace_texts = _text("}").filter(lambda t: "\r\n" not in t)
semicolon_texts = _text("\n").filter(lambda t: not t.endswith("\r"))
comments = st.one_of(
    st.builds(Comment, brace_texts, st.just(True)),
    st.builds(Comment, semicolon_texts, st.just(False)),
)
comment_lists = st.lists(comments, max_size=2).map(tuple)

tag_names = st.one_of(
    st.sampled_from(STANDARD_TAGS + ("Annotator", "Removed")),
    st.from_regex(r"[A-Za-z][A-Za-z0-9_]{0,10}", fullmatch=True),
)
tag_values = _text("\n")


@st.composite
def tag_lists(draw: st.DrawFn) -> tuple[Tag, ...]:
    names = draw(st.lists(tag_names, min_size=1, max_size=6, unique=True))
    return tuple(Tag(n, draw(tag_values), draw(comment_lists)) for n in names)


points = st.builds(
    lambda letter, row: f"{letter}{row}",
    st.sampled_from("abcdefghijklmnopqrstuvwxyz"),
    st.integers(1, 999),
)


@st.composite
def turns(draw: st.DrawFn) -> Turn:
    choice = draw(st.sampled_from(["point", "point", "point", "pass", "button", "king", "pawn"]))
    notes = draw(st.lists(comments, max_size=2).map(tuple) | st.just(()))
    if choice in ("pass", "button"):
        return Turn(choice, TurnKind(choice), comments=notes)
    point = draw(points)
    if choice == "point":
        return Turn(point, TurnKind.PLACE, point, None, notes)
    piece = "K" if choice == "king" else "P"
    return Turn(f"{piece}@{point}", TurnKind.PLACE, point, piece, notes)


results = st.one_of(
    st.none(),
    st.sampled_from(["B+R", "W+R", "B+T", "W+T", "B+F", "W+F", "Draw", "*"]),
    st.builds(lambda w, m: f"{w}+{m}", st.sampled_from("BW"), st.sampled_from(["1", "0.5", "12", "3.5", "100"])),
)


@st.composite
def records(draw: st.DrawFn, head: bool = True) -> Record:
    result = draw(results)
    return Record(
        tags=draw(tag_lists()),
        turns=tuple(draw(st.lists(turns(), max_size=30))),
        result=result,
        head_comments=draw(comment_lists) if head else (),
        result_comments=draw(comment_lists) if result is not None else (),
    )


def canonical(record: Record) -> Record:
    return dataclasses.replace(record, tags=canonical_tags(record.tags))


@settings(max_examples=400, deadline=None)
@given(records().map(canonical))
def test_parse_inverts_write(record: Record) -> None:
    text = write_record(record)
    assert parse_record(text) == record
    assert write_record(parse_record(text)) == text


@settings(max_examples=200, deadline=None)
@given(records())
def test_any_tag_order_reads_back_in_canonical_order(record: Record) -> None:
    text = write_record(record)
    assert parse_record(text) == canonical(record)


@settings(max_examples=200, deadline=None)
@given(records())
def test_every_token_is_found_where_the_parser_says(record: Record) -> None:
    text = write_record(record)
    lines = text.split("\n")
    parsed = parse_record(text)
    for tag in parsed.tags:
        assert lines[tag.line - 1][tag.column - 1 :].startswith(f"[{tag.name} ")
    for t in parsed.turns:
        assert lines[t.line - 1][t.column - 1 :].startswith(t.written)
        assert t.written == t.move
    if parsed.result is not None:
        assert lines[parsed.result_line - 1][parsed.result_column - 1 :].startswith(parsed.result)


def separable(games: list[Record]) -> bool:
    """Can a file hold these games one after another? Not if a game with no
    turns and no result is followed by another: the tags would merge."""
    return all(g.turns or g.result is not None for g in games[:-1])


@settings(max_examples=150, deadline=None)
@given(
    st.lists(records(head=False), min_size=1, max_size=4)
    .map(lambda rs: [canonical(r) for r in rs])
    .filter(separable)
)
def test_files_of_several_games_read_back(games: list[Record]) -> None:
    # A file has nowhere to put comments before a later game's first tag (they
    # read as the end of the game before), so only the first game has them.
    text = write_records(games)
    assert parse_games(text) == games
    assert write_records(games) == write_records(g for g in parse_games(text) if isinstance(g, Record))
