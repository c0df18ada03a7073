"""Properties of format version 2, on generated games.

Each game is a legal random game (Keil and Keil 2019, sizes 2 to 4) with a
random tree of variations grown from the positions of its lines, most of
their turns legal and some not (a point taken, a pass before the button, a
point off the board, a turn after the end), glyphs, comments, and clocks in
the comments, some of them impossible. Its text is written with random
white space, move numbers present or not, and comments holding the
characters of version 2 as text.

* ``fmt`` reads it back to the same record, is idempotent, and leaves every
  verdict as it was: status, result, turns and warnings.
* Every variation is judged from the right position: its first illegal
  turn, and the position at its end, are those of a plain record made of
  its line's turns (the main line up to the branch, then its own turns).
* The scanner reads such a text as the grammar does, or declines it; it
  declines only a game with a variation, a glyph or a clock.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from keilref.engine.game import Game, new_game
from keilref.errors import IllegalMoveError, InvalidMoveError
from keilref.records.parser import parse_record
from keilref.records.record import GLYPHS, Clock, Comment, Record, Tag, Turn, Variation
from keilref.records.scanner import number_text
from keilref.records.writer import canonical_tags, write_record
from keilref.referee.lines import Node, variation_faults
from keilref.referee.settings import read_setup
from keilref.referee.verdict import Verdict, adjudicate
from test_scanner import assert_same_game

MAX_DEPTH = 3

# --------------------------------------------------------------------------
# Games with variations, glyphs and clocks


def _clock_comment(draw: st.DrawFn) -> Comment:
    tenths = draw(st.integers(0, 700), label="clock")
    text = f"[%clk {Clock(tenths)}]"
    shape = draw(st.integers(0, 9), label="clock shape")
    if shape == 0:
        text = "[%clk 0:1:00]"  # unreadable
    elif shape == 1:
        text = f"[%clk -{Clock(tenths)}]"
    elif shape == 2:
        text = f"thinking {text} hard"
    return Comment(text)


def _annotate(draw: st.DrawFn, move: str) -> Turn:
    turn = Turn.of(move)
    glyphs: tuple[str, ...] = ()
    if draw(st.integers(0, 4), label="suffix") == 0:
        glyphs = (draw(st.sampled_from(GLYPHS)),)
    if draw(st.integers(0, 5), label="nags") == 0:
        glyphs += tuple(f"${n}" for n in draw(st.lists(st.integers(0, 255), min_size=1, max_size=2)))
    comments: tuple[Comment, ...] = ()
    if draw(st.integers(0, 2), label="clock?") == 0:
        comments = (_clock_comment(draw),)
    if draw(st.integers(0, 6), label="note?") == 0:
        comments += (Comment(draw(st.sampled_from(["a (note) !", "?! $5 ) (", "1. g7", "x"]))),)
    return dataclasses.replace(turn, glyphs=glyphs, comments=comments)


def _unplayable(draw: st.DrawFn, game: Game) -> str:
    """A turn that breaks a rule where ``game`` stands, or is no point of its board."""
    taken = [p for p in game.points() if game.stone_at(p) is not None]
    choices = ["m13", "pass"] + taken
    return draw(st.sampled_from(choices), label="unplayable")


def _line(draw: st.DrawFn, game: Game, depth: int, longest: int) -> list[Turn]:
    """The turns of a line played from ``game`` (which it changes), with
    variations of their own while ``depth`` allows."""
    turns: list[Turn] = []
    playing = True
    for _ in range(draw(st.integers(1, longest), label="length")):
        if playing:
            legal = game.legal_moves()
            if legal and draw(st.integers(0, 7), label="legal?") > 0:
                placements = [m for m in legal if m not in ("pass", "button")]
                move = draw(st.sampled_from(placements)) if placements and draw(st.integers(0, 5)) else legal[-1]
            else:
                move = _unplayable(draw, game)
        else:
            move = draw(st.sampled_from(["a1", "b2", "pass", "button"]), label="after a fault")
        turn = _annotate(draw, move)
        if playing and depth < MAX_DEPTH and draw(st.integers(0, 3), label="branch?") == 0:
            alternatives = []
            for _ in range(draw(st.integers(1, 2), label="branches")):
                alternatives.append(Variation(tuple(_line(draw, game.copy(), depth + 1, 4))))
            turn = dataclasses.replace(turn, variations=tuple(alternatives))
        turns.append(turn)
        if playing:
            try:
                game.play(move)
            except (IllegalMoveError, InvalidMoveError):
                playing = False
    return turns


@st.composite
def games(draw: st.DrawFn) -> Record:
    rules = draw(st.sampled_from(["keil", "keil-2019"]), label="rules")
    size = draw(st.integers(2, 4), label="size")
    button = True if rules == "keil" else draw(st.booleans(), label="button")
    komi = draw(st.sampled_from([0, 3] if rules == "keil" else [0, 2.5]), label="komi")
    tags = [
        Tag("Rules", rules),
        Tag("Size", str(size)),
        Tag("Komi", f"{komi:g}"),
        Tag("Button", "yes" if button else "no"),
    ]
    control = draw(st.sampled_from([None, "60+1", "60", "-", "?", "1 min"]), label="control")
    if control is not None:
        tags.append(Tag("TimeControl", control))
    game = new_game(rules, size, komi, button)
    # The main line is legal: a game's faults are its variations'.
    main: list[Turn] = []
    for _ in range(draw(st.integers(0, 14), label="turns")):
        legal = game.legal_moves()
        if not legal:
            break
        placements = [m for m in legal if m not in ("pass", "button")]
        move = draw(st.sampled_from(placements)) if placements and draw(st.integers(0, 5)) else legal[-1]
        turn = _annotate(draw, move)
        if draw(st.integers(0, 2), label="branch?") == 0:
            turn = dataclasses.replace(turn, variations=(Variation(tuple(_line(draw, game.copy(), 1, 5))),))
        main.append(turn)
        game.play(move)
    result = draw(st.sampled_from([None, "*", "B+T", "W+T", "B+R", "B+1", "Draw"]), label="result")
    return Record(tuple(tags), tuple(main), result)


# --------------------------------------------------------------------------
# Writing a record otherwise than the canonical writer does

BLANKS = [" ", " ", " ", "\n", "  ", "\t", " \n  ", "\r\n"]


def _messy(record: Record, draw: st.DrawFn) -> str:
    out: list[str] = []

    def blank() -> str:
        return draw(st.sampled_from(BLANKS), label="blank")

    def comment(c: Comment) -> str:
        return "{" + c.text + "}"

    def line(turns: tuple[Turn, ...], start: int) -> None:
        for index, turn in enumerate(turns, start):
            if draw(st.integers(0, 2), label="number?") == 0:
                out.append(number_text(index) + blank())
            suffix = turn.glyphs[0] if turn.glyphs and turn.glyphs[0][0] != "$" else ""
            out.append(turn.move + suffix)
            for glyph in turn.glyphs:
                if glyph[0] == "$":
                    out.append(blank() + glyph)
            for c in turn.comments:
                out.append(draw(st.sampled_from(["", " ", "\n"]), label="before a comment") + comment(c))
            for variation in turn.variations:
                out.append(blank() + "(" + draw(st.sampled_from(["", " "]), label="inside"))
                line(variation.turns, index)
                out.append(draw(st.sampled_from(["", " ", "\n"]), label="inside") + ")")
            out.append(blank())

    out.append(" ".join(f'[{t.name} "{t.value}"]' for t in record.tags) + "\n")
    line(record.turns, 0)
    if record.result is not None:
        out.append(record.result)
    return "".join(out)


@st.composite
def texts(draw: st.DrawFn) -> tuple[Record, str]:
    record = draw(games())
    return record, _messy(record, draw)


# --------------------------------------------------------------------------
# fmt


_OPENED = re.compile(r"variation at \d+:\d+")


def _meaning(v: Verdict) -> tuple[object, ...]:
    """A verdict without where things stand in the text: a variation is named
    by where its "(" stands, and fmt moves it."""
    warnings = tuple(_OPENED.sub("variation at L:C", w) for w in v.warnings)
    illegal = None if v.illegal is None else (v.illegal.turn, v.illegal.point, v.illegal.reason)
    return (v.status, v.computed, v.declared, v.turns, illegal, v.score, warnings, v.detail)


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(texts())
def test_fmt_reads_back_is_idempotent_and_keeps_every_verdict(case: tuple[Record, str]) -> None:
    record, text = case
    read = parse_record(text)
    canonical = dataclasses.replace(record, tags=canonical_tags(record.tags))
    assert read == canonical
    written = write_record(read)
    again = parse_record(written)
    assert again == canonical
    assert write_record(again) == written
    before = adjudicate(read, file="t", game=1)
    after = adjudicate(again, file="t", game=1)
    assert _meaning(before) == _meaning(after)
    assert len(before.warnings_at) == len(before.warnings)


# --------------------------------------------------------------------------
# Every variation from the right position


@dataclass
class Line:
    """A variation and the turns played before its first one, in its line."""

    variation: Variation
    before: tuple[Turn, ...]


def _lines(turns: tuple[Turn, ...], before: tuple[Turn, ...] = ()) -> list[Line]:
    found = []
    for i, turn in enumerate(turns):
        for variation in turn.variations:
            prefix = before + turns[:i]
            found.append(Line(variation, prefix))
            found.extend(_lines(variation.turns, prefix))
    return found


def _plain(record: Record, turns: tuple[Turn, ...]) -> Record:
    """The line as a game of its own: its turns with nothing after them."""
    bare = tuple(Turn.of(t.move) for t in turns)
    return Record(record.tags, bare, None)


def _position(game: Game) -> tuple[object, ...]:
    return (game.turn, game.to_move, game.moves, game.is_over, tuple(game.stone_at(p) for p in game.points()))


def _last_node(root: Node, path: tuple[Turn, ...]) -> Node:
    """The node reached by following ``path`` (turns of the record, by identity)."""
    node = root
    for turn in path:
        node = next(child for child in node.variations if child.turn is turn)
    return node


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(games())
def test_every_variation_is_judged_from_the_position_before_the_turn_it_replaces(record: Record) -> None:
    # Read from its text, every variation has its own place, its name.
    record = parse_record(write_record(record))
    setup = read_setup(record)
    faults = {f.opened_at: f for f in variation_faults(record, setup)}
    root = record.tree()
    lines = _lines(record.turns)
    assert len({(ln.variation.line, ln.variation.column) for ln in lines}) == len(lines)
    for ln in lines:
        whole = ln.before + ln.variation.turns
        plain = adjudicate(_plain(record, whole), file="t", game=1)
        opened = (ln.variation.line, ln.variation.column)
        if plain.illegal is not None and plain.illegal.turn <= len(ln.before):
            # The line breaks before it branches: the variation has no position.
            assert opened not in faults
            continue
        end = _last_node(root, whole)
        if plain.illegal is None:
            assert opened not in faults, faults[opened]
            assert _position(end.game()) == _position(record_game(record, whole))
            continue
        fault = faults[opened]
        assert (fault.turn, fault.point, fault.reason, fault.repeats_turn) == (
            plain.illegal.turn,
            plain.illegal.point,
            plain.illegal.reason,
            plain.illegal.repeats_turn,
        )
        bad = whole[plain.illegal.turn - 1]
        assert (fault.line, fault.column) == (bad.line, bad.column)
        # The node before the fault stands where the plain game stopped.
        before_fault = _last_node(root, whole[: plain.illegal.turn - 1])
        assert _position(before_fault.game()) == _position(record_game(record, whole[: plain.illegal.turn - 1]))
    # Nothing else is reported.
    assert len(faults) == sum(
        1
        for ln in lines
        if (v := adjudicate(_plain(record, ln.before + ln.variation.turns), file="t", game=1)).illegal is not None
        and v.illegal.turn > len(ln.before)
    )


def record_game(record: Record, turns: tuple[Turn, ...]) -> Game:
    """The position after ``turns``, replayed through a plain record of them."""
    return _plain(record, turns).replay()


# --------------------------------------------------------------------------
# Scanner and grammar


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(texts())
def test_the_scanner_reads_an_annotated_game_as_the_grammar(case: tuple[Record, str]) -> None:
    record, text = case
    assert assert_same_game(text) is not None
    # The same game stripped of what version 2 added: the scanner reads it too.
    plain = dataclasses.replace(record, turns=tuple(_stripped(t) for t in record.turns))
    assert assert_same_game(write_record(plain)) is not None


def _stripped(turn: Turn) -> Turn:
    comments = tuple(c for c in turn.comments if "[%clk" not in c.text)
    return dataclasses.replace(turn, glyphs=(), variations=(), comments=comments)


def test_superko_in_a_variation_counts_the_history_of_its_line() -> None:
    """Random lines on small boards seldom repeat a position: the corner ko
    of records/games does, in a variation of turn 31 (the main line's history)
    and in one of turn 33 whose own turns retake the ko."""
    from cli_support import ROOT

    text = (ROOT / "records/games/size5-keil-corner-ko.keil").read_text(encoding="utf-8")
    text = text.replace("16. h7\n{a ko threat", "16. h7 (16. e2)\n{a ko threat")
    text = text.replace("17. e2\n{retakes", "17. e2 (17. e2 e1 18. e2)\n{retakes")
    record = parse_record(text)
    faults = variation_faults(record, read_setup(record))
    assert [(f.opened_at, f.turn, f.point, f.reason, f.repeats_turn) for f in faults] == [
        ((16, 77), 31, "e2", "superko", 29),
        ((17, 75), 34, "e1", "superko", 32),
    ]
    for ln in _lines(record.turns):
        plain = adjudicate(_plain(record, ln.before + ln.variation.turns), file="t", game=1)
        assert plain.illegal is not None
        fault = next(f for f in faults if f.opened_at == (ln.variation.line, ln.variation.column))
        assert (plain.illegal.turn, plain.illegal.reason, plain.illegal.repeats_turn) == (
            fault.turn,
            fault.reason,
            fault.repeats_turn,
        )
