"""The fast scanner against the Lark grammar: they must never disagree.

For every text, either both read the same record (compared field by field,
positions and spellings included, not only ``==``), or the grammar finds a
fault and the scanner declines, so the fault is reported by the grammar as
before. The texts are every record in ``records/``, generated games with
tags, comments in every place, CRLF, odd spacing, move numbers and results,
and mutations of the records (bytes flipped, spans cut, spliced, duplicated).
"""

from __future__ import annotations

import dataclasses
import pickle
import random
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from keilref.records import parser
from keilref.records import scanner
from keilref.errors import RecordError
from keilref.records.parser import parse_games
from keilref.records.record import DeferredTurns, Record
from keilref.records.scanner import scan_game

ROOT = Path(__file__).resolve().parent.parent
RECORD_FILES = sorted((ROOT / "records").rglob("*.keil"))
_CR_LF = re.compile(r"\r+\n")


def grammar_only(text: str, line_offset: int = 0, column_offset: int = 0) -> Record | RecordError:
    """What the Lark grammar alone makes of one game's text."""
    saved = parser.scan_game
    parser.scan_game = lambda *args: None  # type: ignore[assignment]
    try:
        return parser._parse_game(text, None, line_offset, column_offset)
    except RecordError as e:
        return e
    finally:
        parser.scan_game = saved


def every_field(item: Record | RecordError | None) -> object:
    """All of a record, the fields left out of ``==`` included; an error by its words and place."""
    if isinstance(item, RecordError):
        return ("error", item.message, item.line, item.column, item.source_line, item.filename)
    if item is None:
        return None
    return dataclasses.astuple(item)


def assert_same_game(text: str, line_offset: int = 0, column_offset: int = 0) -> Record | None:
    """The scanner reads what the grammar reads, or declines where the grammar finds a fault."""
    text = _CR_LF.sub("\n", text)
    fast = scan_game(text, line_offset, column_offset)
    # Read before anything makes the turns: a reader may have deferred them.
    fast_moves = None if fast is None else fast.moves
    slow = grammar_only(text, line_offset, column_offset)
    # The plain path, where it reads a game at all, reads it as the token-by-token path does.
    plain = scanner._scan_plain(text, line_offset, column_offset)
    if plain is not scanner._NOT_PLAIN:
        tokens = scanner._scan_tokens(text, line_offset, column_offset)
        if isinstance(plain, Record):
            assert isinstance(tokens, Record)
            assert plain.moves == tuple(t.move for t in tokens.turns)
        assert every_field(plain) == every_field(tokens)  # type: ignore[arg-type]
    if isinstance(slow, RecordError):
        assert fast is None, f"the scanner read a game the grammar rejects: {slow.message}"
        return None
    assert fast is not None, "the scanner declined a game the grammar reads"
    assert type(fast) is Record
    assert fast_moves == tuple(t.move for t in slow.turns)
    assert fast == slow
    assert every_field(fast) == every_field(slow)
    return fast


def both_ways(data: bytes) -> tuple[list[object], list[object]]:
    """Every game of a file read through the whole reader, with the scanner and without."""
    text = data.decode("utf-8", "surrogateescape")
    with_scanner = [every_field(g) for g in parse_games(text, "f.keil")]
    saved = parser.scan_game
    parser.scan_game = lambda *args: None  # type: ignore[assignment]
    try:
        without = [every_field(g) for g in parse_games(text, "f.keil")]
    finally:
        parser.scan_game = saved
    return with_scanner, without


# --------------------------------------------------------------------------
# The records shipped with the project


@pytest.mark.parametrize("path", RECORD_FILES, ids=lambda p: str(p.relative_to(ROOT / "records")))
def test_every_shipped_record_reads_the_same_both_ways(path: Path) -> None:
    fast, slow = both_ways(path.read_bytes())
    assert fast == slow


def test_the_shipped_games_take_the_fast_path() -> None:
    """A scanner that declined everything would pass the tests above: it must not."""
    read = 0
    for path in sorted((ROOT / "records" / "games").rglob("*.keil")):
        for piece in parser.split_games(path.open("rb")):
            if piece.piece.empty:
                continue
            text = piece.data.decode("utf-8")
            text = text[1:] if text.startswith("\ufeff") else text
            if '[ToMove "' in text:
                continue  # numbered from 1..., the grammar's to read
            record = assert_same_game(text, piece.piece.line - 1, piece.column_offset)
            assert record is not None, f"{path.name}: the scanner declined a good game"
            read += 1
    assert read >= 20


def test_the_faults_are_reported_by_the_grammar() -> None:
    """Each syntax fault in records/faults: the scanner declines, the message is the grammar's."""
    for name, message in [
        ("error-bad-token.keil", "found 'hh6'; expected a move, a comment or a result"),
        ("error-wrong-move-number.keil", "wrong move number '4.'"),
        ("error-unterminated-comment.keil", "comment never closed"),
        ("error-unterminated-tag.keil", "tag value not closed"),
        ("tag-error-duplicate-tag.keil", "duplicate tag 'Komi'"),
    ]:
        text = (ROOT / "records" / "faults" / name).read_text(encoding="utf-8")
        assert scan_game(_CR_LF.sub("\n", text)) is None, name
        (item,) = parse_games(text, name)
        assert isinstance(item, RecordError)
        assert message in item.message


# --------------------------------------------------------------------------
# Generated games

_BLANKS = st.sampled_from([" ", "  ", "\t", "\n", "\r\n", " \n ", "\n\n", "\r\r\n", "\ufeff", "\r"])
UNSEEN = ["\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x1f", "\x85", "\xa0", "\u2028", "\u2029", "\u3000", "\u200b", "\x00"]
"""Control and space characters that are not white space: between tokens,
each is an error at that character; in a comment or a tag value, text."""
_COMMENT_TEXT = st.text(st.sampled_from("ab [];{\"\\\n\r\t\xe9*.+1"), max_size=8)


@st.composite
def comments(draw: st.DrawFn) -> str:
    if draw(st.booleans()):
        return "{" + draw(_COMMENT_TEXT).replace("}", "") + "}"
    # A ';' comment runs to the end of the line, so a line end must follow.
    body = draw(_COMMENT_TEXT).replace("\n", "")
    return ";" + body + draw(st.sampled_from(["\n", "\r\n", "\r\r\n"]))


@st.composite
def gap(draw: st.DrawFn, required: bool = True) -> str:
    """White space and comments between two tokens."""
    parts = draw(st.lists(st.one_of(_BLANKS, comments()), max_size=3))
    text = "".join(parts)
    if required and not text:
        text = " "
    return text


_TAG_NAMES = st.sampled_from(["Rules", "Size", "Komi", "Result", "Event", "Black", "White", "Button", "X_1", "a"])
_VALUES = st.text(st.sampled_from('ab7 .+\\"\t\xe9{};[]'), max_size=8).map(
    lambda v: re.sub(r'\\(?!["\\])|(?<!\\)"', "", v)
)
_MOVES = st.sampled_from(
    ["g7", "G7", "a1", "m13", "b100", "pass", "button", "K@d4", "P@a1", "Pass", "g7x", "g", "7", "x1234"]
)
_RESULTS = st.sampled_from(["*", "Draw", "B+0.5", "W+12", "B+R", "W+T", "B+F", "B+0", "W+1.0", "draw", "B+", "W+1234567890"])


@st.composite
def games(draw: st.DrawFn) -> str:
    """A game's text, mostly well formed, with a fault now and then."""
    out = [draw(gap(required=False))]
    for _ in range(draw(st.integers(1, 4))):
        space = draw(st.sampled_from(["", " ", "\t", "  "]))
        out.append(f"[{space}{draw(_TAG_NAMES)}{space}\"{draw(_VALUES)}\"{space}]")
        out.append(draw(gap()))
    for i in range(draw(st.integers(0, 12))):
        numbered = draw(st.integers(0, 3))
        if numbered == 1:
            out.append(f"{i // 2 + 1}." if i % 2 == 0 else f"{i // 2 + 1}...")
            out.append(draw(st.sampled_from(["", " ", "\n"])) + draw(gap(required=False)))
        elif numbered == 2 and draw(st.integers(0, 9)) == 0:
            out.append(draw(st.sampled_from(["1.", "2...", "3..", "1"])) + " ")
        out.append(draw(_MOVES))
        out.append(draw(gap()))
        if draw(st.integers(0, 30)) == 0:
            out.append('[Late "tag"] ')  # a tag among the moves: a fault
    if draw(st.integers(0, 20)) == 0:
        out.append(draw(st.sampled_from(["7. ", "7... "])))  # a number with no move after it
    if draw(st.booleans()):
        out.append(draw(_RESULTS))
        out.append(draw(gap(required=False)))
        if draw(st.integers(0, 20)) == 0:
            out.append(draw(st.sampled_from(['[After "result"]', "g7 ", "1. ", "1. g7 ", "* "])))
    if draw(st.integers(0, 10)) == 0:
        out.append(";last line without its line end\r")
    return "".join(out)


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games(), st.integers(0, 50), st.integers(0, 20))
@example('[Rules "keil"]\n1.g7 1...a1 {x\ny} 2. ; z\nb2 W+R ;end', 0, 0)
@example('{head}[Size "7"] {after the tag}\n\n1. {before} g7 {after} pass *', 3, 7)
@example('[A "b"] g7 B+R *', 0, 0)  # two results
@example('[A "b"] g7 B+R 1. g7', 0, 0)  # moves after the result
@example('[A "b"] g7 [B "c"]', 0, 0)  # a tag after the moves
@example('[A "b"] g7 * [B "c"]', 0, 0)
@example('[A "b"] 1. g7 2.', 0, 0)  # a number with no move
@example('[A "b"] 1. 1... g7', 0, 0)
@example('[A "b"] [A "c"]', 0, 0)  # a duplicate tag
@example("g7 *", 0, 0)  # no tag
@example('[A "b"] g7 B+0', 0, 0)  # a result the grammar lexes but does not accept
def test_generated_games_read_the_same(text: str, line_offset: int, column_offset: int) -> None:
    assert_same_game(text, line_offset, column_offset)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(games(), min_size=1, max_size=4), st.sampled_from(["\n", "\r\n", "", " "]))
def test_generated_files_read_the_same(texts: list[str], joiner: str) -> None:
    fast, slow = both_ways(joiner.join(texts).encode("utf-8"))
    assert fast == slow


# --------------------------------------------------------------------------
# Mutated records


def _mutations(data: bytes, other: bytes, rng: random.Random) -> Iterator[bytes]:
    n = len(data)
    i, j = sorted(rng.randrange(n + 1) for _ in range(2))
    flipped = bytearray(data)
    if n:
        flipped[rng.randrange(n)] = rng.choice(b'[]{};"\\.+*\n\r 0123456789abgpKW@\xff\xc3')
    yield bytes(flipped)
    yield data[:i] + data[j:]  # a span cut out
    k = rng.randrange(len(other) + 1)
    yield data[:i] + other[k : k + (j - i)] + data[i:]  # a span of another record spliced in
    yield data[:j] + data[i:j] + data[j:]  # a span duplicated


@pytest.mark.parametrize("path", RECORD_FILES, ids=lambda p: str(p.relative_to(ROOT / "records")))
def test_mutated_records_read_the_same(path: Path) -> None:
    rng = random.Random(path.name)
    data = path.read_bytes()
    for _ in range(15):
        other = rng.choice(RECORD_FILES).read_bytes()
        for mutant in _mutations(data, other, rng):
            fast, slow = both_ways(mutant)
            assert fast == slow, mutant


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(RECORD_FILES), st.sampled_from(RECORD_FILES), st.randoms(use_true_random=False))
def test_randomly_mutated_records_read_the_same(path: Path, other: Path, rng: random.Random) -> None:
    for mutant in _mutations(path.read_bytes(), other.read_bytes(), rng):
        fast, slow = both_ways(mutant)
        assert fast == slow


def test_turns_are_made_through_their_slots_and_equal_the_constructors() -> None:
    # The constructor stays correct if Turn changes shape; this says the
    # quick maker is still the one in use, and makes what the constructor makes.
    from keilref.records.record import Comment, Turn, TurnKind

    assert scanner._new_turn is not Turn
    args = ("P@b2", TurnKind.PLACE, "b2", "P", (Comment("x", False),), "P@B2", True, 7, 11)
    made = scanner._new_turn(*args)
    assert type(made) is Turn
    assert dataclasses.astuple(made) == dataclasses.astuple(Turn(*args))
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.line = 1  # type: ignore[misc]


# --------------------------------------------------------------------------
# Characters that look like white space, or like nothing, and are neither


def _gaps(text: str) -> list[int]:
    """Where white space stands between the tokens of a canonical game (no comments)."""
    return [i for i, c in enumerate(text) if c in " \n"]


@pytest.mark.parametrize("char", UNSEEN, ids=lambda c: f"U+{ord(c):04X}")
def test_an_unseen_character_between_tokens_is_an_error_at_it(char: str) -> None:
    """In place of any blank of a well-formed game, between tags, moves,
    move numbers and the result: the scanner declines and the grammar
    reports that character, by its code point, where it stands."""
    from keilref.escaping import code_point
    from keilref.engine.generate import random_games, to_record
    from keilref.records.writer import write_record

    tried = 0
    for n, game in enumerate(random_games(11, 6, rules=("keil", "yugo"), sizes=(3, 4))):
        text = write_record(to_record(game, event=f"unseen {n}"))
        gaps = _gaps(text)
        for i in gaps[::5] + gaps[-2:]:
            for mutant in (text[:i] + char + text[i + 1 :], text[:i] + char + text[i:]):
                assert assert_same_game(mutant) is None, repr(mutant)
                error = grammar_only(mutant)
                assert isinstance(error, RecordError)
                line = mutant.count("\n", 0, i) + 1
                column = i - (mutant.rfind("\n", 0, i) + 1) + 1
                assert code_point(char) in error.message, error.message
                assert (error.line, error.column) == (line, column), (error.message, mutant)
                fast, slow = both_ways(mutant.encode())
                assert fast == slow
                tried += 1
    assert tried > 100


def test_button_then_pass_behind_a_unit_separator_is_one_bad_token() -> None:
    text = '[Event "x"]\n[Size "3"]\n1. button\x1fpass 2. pass B+0.5\n'
    assert scan_game(text) is None
    (item,) = parse_games(text, "u.keil")
    assert isinstance(item, RecordError)
    assert item.message == "found U+001F (unit separator, a control character) after 'button'; expected a space, a tab or a line break"
    assert (item.line, item.column) == (3, 10)


@pytest.mark.parametrize("char", UNSEEN, ids=lambda c: f"U+{ord(c):04X}")
def test_an_unseen_character_in_a_comment_or_a_tag_value_is_kept(char: str) -> None:
    text = f'[Event "a{char}b"]\n1. g7 {{c{char}d}} ;e{char}f\n f6 *\n'
    record = assert_same_game(text)
    assert record is not None
    assert record.tags[0].value == f"a{char}b"
    assert [c.text for c in record.turns[0].comments] == [f"c{char}d", f"e{char}f"]
    fast, slow = both_ways(text.encode())
    assert fast == slow


@st.composite
def unseen_games(draw: st.DrawFn) -> str:
    """A generated game with unseen characters put in place of, or beside,
    some of its characters: in gaps, tokens, comments and tag values alike."""
    text = draw(games())
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.integers(0, len(text)))
        char = draw(st.sampled_from(UNSEEN))
        text = text[:i] + char + text[i + draw(st.integers(0, 1)) :]
    return text


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(unseen_games(), st.integers(0, 50), st.integers(0, 20))
@example('[A "b"] g7\x0bf6', 0, 0)
@example('[A "b"]\x1c[B "c"] g7', 0, 0)
@example('[A "b"] 1.\u2028g7', 0, 0)
@example('[A "b"] g7 B+R\xa0', 0, 0)
@example('[A "b\x1f"] {x\x85} g7', 0, 0)
def test_games_with_unseen_characters_read_the_same(text: str, line_offset: int, column_offset: int) -> None:
    assert_same_game(text, line_offset, column_offset)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(unseen_games(), min_size=1, max_size=3), st.sampled_from(["\n", "\r\n", "\n\x0c\n", "\x1e"]))
def test_files_with_unseen_characters_read_the_same(texts: list[str], joiner: str) -> None:
    fast, slow = both_ways(joiner.join(texts).encode("utf-8"))
    assert fast == slow


# --------------------------------------------------------------------------
# The plain path: spaces and line ends between words, no comments

_PLAIN_GAPS = st.sampled_from([" ", "  ", "\n", " \n", "\n\n", "\n ", "   \n  "])
_WORDS = st.sampled_from(["g7", "G7", "a1", "pass", "button", "K@d4", "P@A1", "1.", "2...", "3..", "12.", "g7x", "B+0", "W+1.5", "Draw", "*", '"', "]", "}", "1.g7"])


@st.composite
def plain_games(draw: st.DrawFn) -> str:
    """Tags, then words between spaces and line ends: mostly plain, now and then not."""
    out = [draw(st.sampled_from(["", " ", "\n", "\n\n "]))]
    for _ in range(draw(st.integers(0, 3))):
        out.append(f'[{draw(_TAG_NAMES)} "{draw(_VALUES)}"]')
        out.append(draw(st.sampled_from(["", " ", "\n", "\n\n", "\t"])))
    for i in range(draw(st.integers(0, 14))):
        if draw(st.integers(0, 3)) == 0:
            out.append(draw(_WORDS))
        else:
            if draw(st.booleans()):
                out.append((f"{i // 2 + 1}." if i % 2 == 0 else f"{i // 2 + 1}...") + draw(_PLAIN_GAPS))
            out.append(draw(_MOVES))
        out.append(draw(_PLAIN_GAPS))
    if draw(st.booleans()):
        out.append(draw(_RESULTS))
        out.append(draw(st.sampled_from(["", "\n", " "])))
    return "".join(out)


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(plain_games(), st.integers(0, 50), st.integers(0, 20))
@example('[A "b"]\n\n1. g7 a1 2. pass button\nW+0.5\n', 0, 0)
@example('[A "b"][B "c"]g7', 2, 3)
@example('\n [A "b"] \n [B "c"]  \n  1.   g7  \n\n  1... a1   *  ', 0, 9)
def test_generated_plain_games_read_the_same(text: str, line_offset: int, column_offset: int) -> None:
    assert_same_game(text, line_offset, column_offset)


def test_generated_archives_take_the_plain_path() -> None:
    """The games keilref writes are plain: a plain path that gave up on them would pass the tests above."""
    from keilref.engine.generate import random_games, to_record
    from keilref.records.writer import write_record

    for game in random_games(3, 30, sizes=(2, 5, 7)):
        text = write_record(to_record(game, event="plain"))
        plain = scanner._scan_plain(text, 0, 0)
        assert isinstance(plain, Record)
        assert every_field(plain) == every_field(grammar_only(text))


def test_plain_games_make_their_turns_only_when_asked() -> None:
    """Checking needs only the moves: the plain path defers the turns, and
    makes the very turns the token path makes, once, when first read."""
    text = '[Rules "keil"]\n[Size "2"]\n\n1. a1 1... B2 2. button pass\npass B+R\n'
    record = scan_game(text, 4, 0)
    assert isinstance(record, Record)
    assert isinstance(vars(record)["_turns"], DeferredTurns)
    assert record.moves == ("a1", "b2", "button", "pass", "pass")
    assert isinstance(vars(record)["_turns"], DeferredTurns), "reading the moves made the turns"
    copied = pickle.loads(pickle.dumps(record))
    assert isinstance(vars(copied)["_turns"], DeferredTurns) and copied.moves == record.moves
    assert (record.result_line, record.result_column) == (9, 6)
    tokens = scanner._scan_tokens(text, 4, 0)
    assert isinstance(tokens, Record)
    turns = record.turns
    assert type(turns) is tuple and vars(record)["_turns"] is turns
    assert record.turns is turns, "the turns are made once"
    assert [dataclasses.astuple(t) for t in turns] == [dataclasses.astuple(t) for t in tokens.turns]
    assert turns[1].written == "B2" and (turns[1].line, turns[1].column) == (8, 12)
    assert record.moves == tuple(t.move for t in turns)
    assert copied == record and every_field(copied) == every_field(record)


def test_the_table_of_words_stays_bounded() -> None:
    saved = dict(scanner._WORDS)
    try:
        for i in range(scanner._MAX_WORDS + 10):
            scanner._word_kind(f"x{i}y")
        assert len(scanner._WORDS) <= scanner._MAX_WORDS
        assert scanner._word_kind("g7") == scanner._POINT
        scanner._WORDS.clear()
        long = "1" * 1_000_000 + "."
        assert scanner._word_kind(long) == scanner._NUMBER
        assert long not in scanner._WORDS and len(scanner._WORDS) == 0  # a long word is classified, not kept
    finally:
        scanner._WORDS.clear()
        scanner._WORDS.update(saved)
