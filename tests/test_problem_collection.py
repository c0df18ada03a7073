"""The problem collection in ``records/problems`` and the two finished positions
in ``records/games``, checked against the literal reference and the referee.

Every line of every problem (the main line and each variation, as full lines
from the setup) is written out below with the captures its comments claim,
so that the table, not the file, is the statement: the file must hold exactly
these lines, the literal reference (``tests/reference.py``) must find every
turn legal and capture exactly what is listed (nothing where nothing is
listed), and the engine must agree turn by turn. The tries the comments call
impossible (a retake forbidden by superko, a suicide) are checked the same
way, and every file must check with no warning: an illegal turn in a
variation would be one.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

import keilref
from keilref.records.record import Turn
from keilref.records.setup import StartPosition
from keilref.values import Color
import reference as ref

ROOT = Path(__file__).resolve().parent.parent
PROBLEMS = ROOT / "records" / "problems"
GAMES = ROOT / "records" / "games"

Captures = dict[int, frozenset[str]]


def caps(**by_turn: str) -> Captures:
    """``caps(t3="d4 e5")``: turn 3 captures d4 and e5."""
    return {int(k[1:]): frozenset(v.split()) for k, v in by_turn.items()}


@dataclass(frozen=True)
class Line:
    moves: tuple[str, ...]
    captures: Captures = field(default_factory=dict)
    score: tuple[float, float] | None = None
    """``(black, white)`` when the line ends the game."""


@dataclass(frozen=True)
class Try:
    """A turn the comments call impossible after ``before``."""

    before: tuple[str, ...]
    move: str
    reason: str
    repeats_turn: int | None = None


@dataclass(frozen=True)
class Problem:
    lines: tuple[Line, ...]
    """The main line first, then the variations in the order they are written."""
    tries: tuple[Try, ...] = ()
    computed: str | None = None
    """The result when the main line plays to the end (status ``ok``), else ``None`` (``unfinished``)."""


def line(moves: str, captures: Captures | None = None, score: tuple[float, float] | None = None) -> Line:
    return Line(tuple(moves.split()), captures or {}, score)


def tries(before: str, moves: str, reason: str, repeats_turn: int | None = None) -> tuple[Try, ...]:
    return tuple(Try(tuple(before.split()), m, reason, repeats_turn) for m in moves.split())


SUICIDE = ref.SUICIDE
SUPERKO = ref.SUPERKO
BLACK_GROUP_12 = "a1 a2 b1 b2 b3 b4 c3 c4 c5"

TABLE: dict[str, Problem] = {
    "01-black-to-link.keil": Problem(
        (line("d4"), line("d2 d4", caps(t2="d3"))),
    ),
    "02-white-to-crosscut.keil": Problem(
        (line("c4 b2 e5", caps(t3="d4")), line("b2 c4")),
    ),
    "03-black-double-threat.keil": Problem(
        (line("d3 d4 c1", caps(t3="c2")), line("d4 d3")),
        tries("", "c1", SUICIDE),
    ),
    "04-black-vital-point.keil": Problem(
        (line("e6"), line("d5 e6", caps(t2="e5"))),
    ),
    "05-white-line-is-not-a-group.keil": Problem(
        (line("f4 g6 g7", caps(t3="f5 f6 f7 g6")), line("e4 f4", caps(t2="g5"))),
    ),
    "06-black-wins-the-race.keil": Problem(
        (line("d2 d5 e2", caps(t3="e3 f3 f4 g4 g5")), line("e2 d2", caps(t2="e2"))),
        tries("d2", "e2", SUICIDE),
    ),
    "07-white-wins-the-race.keil": Problem(
        (line("c5 e3 d7", caps(t3="d5 d6 e5 e6 e7 f6 f7 g6 g7")), line("e4 d3")),
        tries("", "d7", SUICIDE),
    ),
    "08-white-ko.keil": Problem(
        (line("a1 f6 b2 g5", caps(t1="b2", t4="f5")), line("a1 f6 g5 b2", caps(t1="b2", t4="a1"))),
        # The retake that recreates the setup (turn 0), and the one that
        # repeats White's own turn 3.
        tries("a1", "b2", SUPERKO, 0) + tries("a1 f6 g5 b2", "a1", SUPERKO, 3),
    ),
    "09-black-retakes-the-ko.keil": Problem(
        (line("b2 f4 e5 a1", caps(t1="a1", t4="b2")), line("e5 b2")),
        tries("b2", "a1", SUPERKO, 0) + tries("b2 f4 e5 a1", "b2", SUPERKO, 3),
    ),
    "10-black-dame-before-button.keil": Problem(
        (
            line("c3 button pass pass", score=(10, 9.5)),
            line("button c3 pass pass", score=(9.5, 10)),
            line("c5 c3 button pass pass", score=(9.5, 10)),
        ),
        computed="B+0.5",
    ),
    "11-white-takes-the-button.keil": Problem(
        (line("button pass pass", score=(9, 10.5)), line("e4 button pass pass", score=(9.5, 10))),
        tries("button", "c1 e3 e4 e5", SUICIDE),
        computed="W+1.5",
    ),
    "12-black-passes-button-taken.keil": Problem(
        (line("pass pass", score=(10, 9.5)), line("a1 a3", caps(t2=BLACK_GROUP_12))),
        tries("pass", "a1 a3", SUICIDE),
        computed="B+0.5",
    ),
}

# --- reading the files -------------------------------------------------------


def _record(path: Path) -> keilref.Record:
    games = list(keilref.read_games(path))
    assert len(games) == 1, path
    (record,) = games
    assert isinstance(record, keilref.Record), record
    return record


def _lines(turns: tuple[Turn, ...], before: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    """Every line of ``turns`` as full lines from the start: the line itself,
    then each variation (which replaces the turn it follows), in file order."""
    yield before + tuple(t.move for t in turns)
    for i, turn in enumerate(turns):
        for variation in turn.variations:
            yield from _lines(variation.turns, before + tuple(t.move for t in turns[:i]))


@dataclass(frozen=True)
class Settings:
    rules: str
    size: int
    komi: float
    position: StartPosition


def _settings(record: keilref.Record) -> Settings:
    position = record.setup
    assert position is not None
    komi = record.tag_value("Komi")
    assert komi is not None
    return Settings(record.tag_value("Rules") or "keil", int(record.tag_value("Size") or 0), float(komi), position)


# --- the literal reference from a set-up position ----------------------------


_COLOR = {Color.BLACK: ref.BLACK, Color.WHITE: ref.WHITE}


def _start(s: Settings) -> ref.RefKeil:
    """The reference started from the record's setup (``setup=True``: the
    set-up position is the one the player who does not move first left)."""
    board = {p: ref.EMPTY for p in ref.board_neighbours(s.size)}
    for placed in s.position.black:
        board[placed.point] = ref.BLACK
    for placed in s.position.white:
        board[placed.point] = ref.WHITE
    holder = None if s.position.button_taken is None else _COLOR[s.position.button_taken]
    return ref.RefKeil(
        s.size, s.komi, s.rules, board=board, to_move=_COLOR[s.position.to_move], holder=holder, setup=True
    )


def _reference(s: Settings, moves: tuple[str, ...]) -> tuple[ref.RefKeil, list[frozenset[str]]]:
    game = _start(s)
    captured = []
    for n, move in enumerate(moves, start=1):
        verdict = game.play(move)
        assert verdict.reason is None, f"turn {n} {move}: {verdict.reason}"
        captured.append(verdict.captured)
    return game, captured


def _engine(s: Settings, moves: tuple[str, ...]) -> tuple[keilref.Game, list[frozenset[str]]]:
    game = keilref.Game.from_position(s.position, size=s.size, komi=s.komi, rules=s.rules)
    captured = []
    for move in moves:
        game.play(move)
        captured.append(game.last_captured)
    return game, captured


def _expected(ln: Line) -> list[frozenset[str]]:
    return [ln.captures.get(n, frozenset()) for n in range(1, len(ln.moves) + 1)]


# --- the tests ----------------------------------------------------------------


def test_the_table_covers_every_problem_file() -> None:
    assert sorted(p.name for p in PROBLEMS.glob("*.keil")) == sorted(TABLE)
    assert len(TABLE) == 12


@pytest.mark.parametrize("name", sorted(TABLE))
def test_the_file_holds_exactly_the_lines_of_the_table(name: str) -> None:
    record = _record(PROBLEMS / name)
    assert list(_lines(record.turns)) == [ln.moves for ln in TABLE[name].lines]
    assert len(TABLE[name].lines) >= 2, "a solution and at least one refutation"


@pytest.mark.parametrize("name", sorted(TABLE))
def test_every_line_is_legal_and_captures_what_the_comments_say(name: str) -> None:
    s = _settings(_record(PROBLEMS / name))
    for ln in TABLE[name].lines:
        game, captured = _reference(s, ln.moves)
        assert captured == _expected(ln), ln.moves
        assert game.is_over == (ln.score is not None), ln.moves
        if ln.score is not None:
            black, white, _ = game.score()
            assert (black, white) == ln.score, ln.moves


@pytest.mark.parametrize("name", sorted(TABLE))
def test_the_engine_agrees_with_the_reference_on_every_line(name: str) -> None:
    s = _settings(_record(PROBLEMS / name))
    for ln in TABLE[name].lines:
        game, captured = _engine(s, ln.moves)
        assert captured == _expected(ln), ln.moves
        assert game.is_over == (ln.score is not None), ln.moves
        if ln.score is not None:
            score = game.score()
            assert (score.black, score.white) == ln.score, ln.moves


def _all_tries() -> list[tuple[str, Try]]:
    return [(name, t) for name, problem in TABLE.items() for t in problem.tries]


@pytest.mark.parametrize(("name", "attempt"), _all_tries())
def test_the_reference_forbids_the_tries_the_comments_forbid(name: str, attempt: Try) -> None:
    s = _settings(_record(PROBLEMS / name))
    game, _ = _reference(s, attempt.before)
    verdict = game.check(attempt.move)
    assert (verdict.reason, verdict.repeats_turn) == (attempt.reason, attempt.repeats_turn)


@pytest.mark.parametrize(("name", "attempt"), _all_tries())
def test_the_engine_forbids_the_tries_the_comments_forbid(name: str, attempt: Try) -> None:
    s = _settings(_record(PROBLEMS / name))
    game, _ = _engine(s, attempt.before)
    refusal = game.check(attempt.move)
    assert refusal is not None
    assert refusal.reason.value == attempt.reason
    if attempt.reason == SUPERKO:
        assert refusal.repeats_turn == attempt.repeats_turn


@pytest.mark.parametrize("name", sorted(TABLE))
def test_each_problem_checks_unfinished_or_ok_with_no_warning(name: str) -> None:
    (verdict,) = keilref.check_file(PROBLEMS / name)
    expected = TABLE[name].computed
    assert verdict.status.value == ("ok" if expected else "unfinished")
    assert verdict.computed == expected
    assert verdict.warnings == ()
    assert verdict.turns == len(TABLE[name].lines[0].moves)


def _check(*paths: str) -> tuple[int, list[dict[str, object]]]:
    done = subprocess.run(
        [sys.executable, "-m", "keilref", "check", "--format", "jsonl", *paths],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    return done.returncode, [json.loads(ln) for ln in done.stdout.splitlines()]


def test_the_collection_and_the_archive_check_from_the_command_line() -> None:
    code, verdicts = _check("records/problems")
    assert code == 0
    assert sorted(Path(str(v["file"])).name for v in verdicts) == sorted(TABLE)
    assert {str(v["status"]) for v in verdicts} == {"ok", "unfinished"}
    assert [v["warnings"] for v in verdicts] == [[]] * len(TABLE)
    code, verdicts = _check("records/games")
    assert code == 0
    assert {v["status"] for v in verdicts} <= {"ok", "unfinished"}


# --- the finished positions ----------------------------------------------------

FINISHED = {
    # name: (computed, rule-sensitive, (black, white) under its own wording, under the other)
    "size4-keil-finished-position-rule-sensitive.keil": ("B+1.5", True, (19, 17.5), (17, 17.5)),
    "size5-keil2019-finished-position.keil": ("W+4", False, (28.5, 32.5), None),
}


@pytest.mark.parametrize("name", sorted(FINISHED))
def test_a_finished_position_is_scored_as_declared(name: str) -> None:
    computed, sensitive, score, _ = FINISHED[name]
    record = _record(GAMES / name)
    assert record.setup is not None and record.setup.button_taken is not None
    (verdict,) = keilref.check_file(GAMES / name)
    assert (verdict.status.value, verdict.computed, verdict.declared) == ("ok", computed, computed)
    assert verdict.rule_sensitive is sensitive
    assert verdict.warnings == ()
    s = _settings(record)
    game, captured = _reference(s, record.moves)
    assert game.is_over and captured == [frozenset(), frozenset()]
    black, white, _ = game.score()
    assert (black, white) == score


def test_the_rule_sensitive_position_scores_otherwise_under_keil_2019() -> None:
    name = "size4-keil-finished-position-rule-sensitive.keil"
    record = _record(GAMES / name)
    s = _settings(record)
    other = Settings("keil-2019", s.size, s.komi, s.position)
    game, _ = _reference(other, record.moves)
    black, white, parts = game.score()
    assert (black, white) == FINISHED[name][3]
    assert parts["neutral"] == 3  # d7 e7 f7, one territory under keil-2019
