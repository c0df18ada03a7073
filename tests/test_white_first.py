"""A game that White starts, from a set-up position (format version 3).

Its first move number is ``1...``; its turns are named with their player
(``move 2 (Black)``); a repeat of the setup position by the player who did
not move first names it; its clocks are each their mover's; a time result
names as loser the player to move. And the format document's own example
checks as the document says.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from cli_support import run
from keilref.engine.game import Game
from keilref.errors import IllegalMoveError
from keilref.referee.batches import check_text
from keilref.referee.clocks import TimeUsed, last_clocks
from keilref.records.parser import parse_record
from keilref.values import Color, turn_player

HEAD = '[Rules "keil"]\n[Size "3"]\n[Komi "0"]\n[Button "yes"]\n[Setup "B: a1 b1 W: c3"]\n'
WHITE = HEAD + '[ToMove "White"]\n\n'
BLACK = HEAD + '[ToMove "Black"]\n\n'
MOVES_LINE = 8
WRONG = "wrong move number "


def check(text: str):  # type: ignore[no-untyped-def]
    (v,) = check_text(text)
    return v


# --- move numbers ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("moves", "turns"),
    [
        ("1... b2 *", 1),
        ("1... b2 2. c1 2... a2 *", 3),
        ("b2 c1 a2 *", 3),
        ("1... b2 c1 2... a2 *", 3),
        ("b2 2. c1 a2 *", 3),
        ("1... b2 {a comment} 2. c1 {and another} 2... a2 *", 3),
        ("1... b2 (1... a2 2. c1) 2. c1 *", 2),
        ("1... b2 (1... a2 (1... c1) 2. b2) 2. c1 (2. a2 2... c2) 2... a3 *", 3),
        ("1... b2 2. c1 (2. a2 2... c1) *", 2),
    ],
)
def test_a_white_first_record_numbers_its_turns_from_1_dots(moves: str, turns: int) -> None:
    v = check(WHITE + moves + "\n")
    assert (v.status.value, v.error, v.illegal, v.warnings, v.turns) == ("unfinished", None, None, (), turns)


@pytest.mark.parametrize(
    ("moves", "number", "message"),
    [
        (
            "1. b2 *",
            "1.",
            "wrong move number '1.': the turn after it is White's turn of move 1, numbered '1...' "
            '(ToMove "White": White plays the first turn)',
        ),
        (
            "1... b2 (1. a2) 2. c1 *",
            "1. a2",
            "wrong move number '1.': the turn after it is White's turn of move 1, numbered '1...' "
            '(ToMove "White": White plays the first turn)',
        ),
        ("1... b2 2... c1 *", "2...", f"{WRONG}'2...': the turn after it is Black's turn of move 2, numbered '2.'"),
        ("1... b2 1... c1 *", "1... c1", f"{WRONG}'1...': the turn after it is Black's turn of move 2, numbered '2.'"),
        ("1... b2 2. c1 3. a2 *", "3.", f"{WRONG}'3.': the turn after it is White's turn of move 2, numbered '2...'"),
        (
            "1... b2 2. c1 (2... a2) *",
            "2... a2",
            "wrong move number '2...': the turn after it is Black's turn of move 2, numbered '2.'",
        ),
    ],
)
def test_a_wrong_move_number_in_a_white_first_record_is_an_error_at_it(moves: str, number: str, message: str) -> None:
    v = check(WHITE + moves + "\n")
    assert v.status.value == "error"
    assert (v.error.message, v.error.line, v.error.column) == (message, MOVES_LINE, moves.index(number) + 1)


def test_black_to_move_numbers_as_ever() -> None:
    assert check(BLACK + "1. b2 c2 2. a2 *\n").status.value == "unfinished"
    v = check(BLACK + "1... b2 *\n")
    assert v.status.value == "error"
    assert v.error.message == "wrong move number '1...': the turn after it is Black's turn of move 1, numbered '1.'"


@pytest.mark.parametrize("value", ["white", "WHITE", "W", ""])
def test_a_first_number_that_a_misspelt_to_move_would_explain_says_so(value: str) -> None:
    v = check(HEAD + f'[ToMove "{value}"]\n\n1... b2 *\n')
    assert (v.status.value, v.error.line, v.error.column) == ("error", MOVES_LINE, 1)
    assert v.error.message == (
        "wrong move number '1...': the turn after it is Black's turn of move 1, numbered '1.' "
        f'(ToMove "{value}" is not Black or White)'
    )
    v = check(HEAD + f'[ToMove "{value}"]\n\n1. b2 *\n')
    assert (v.error.message, v.error.line, v.error.column) == (f'ToMove "{value}" is not Black or White', 6, 1)


# --- turns named with their player ---------------------------------------------------


@pytest.mark.parametrize(
    ("moves", "turn", "named"),
    [
        ("1... b2 2. b2 *", 2, "move 2 (Black) b2, turn 2: occupied"),
        ("1... b2 2. c1 2... c1 *", 3, "move 2 (White) c1, turn 3: occupied"),
        ("1... z9 *", 1, "move 1 (White) z9, turn 1: off-board"),
        ("1... pass *", 1, "move 1 (White) pass, turn 1: pass-before-button"),
    ],
)
def test_an_illegal_turn_names_its_player_and_move_in_text_and_jsonl(
    tmp_path: Path, moves: str, turn: int, named: str
) -> None:
    path = tmp_path / "w.keil"
    path.write_text(WHITE + moves + "\n", encoding="utf-8")
    point = moves.split()[-2]
    column = moves.rindex(f" {point} ") + 2
    found = json.loads(run("check", "--format", "jsonl", str(path)).output)
    assert found["status"] == "illegal"
    illegal = found["illegal"]
    assert (illegal["turn"], illegal["point"], illegal["line"], illegal["column"]) == (turn, point, MOVES_LINE, column)
    assert "repeats_turn" not in illegal or illegal["repeats_turn"] is None
    text = run("check", str(path)).output.splitlines()[0]
    assert text == f"{path}:{MOVES_LINE}:{column}: game 1: illegal: {named}"


def test_a_node_of_the_tree_of_lines_names_its_player() -> None:
    from keilref.referee.lines import tree

    root = tree(parse_record(WHITE + "1... b2 2. c1 (2. a2) *\n"))
    assert [repr(n) for n in root.mainline()] == [
        "<Node move 1 (White) b2, turn 1 (main line)>",
        "<Node move 2 (Black) c1, turn 2 (main line)>",
    ]
    assert repr(root.variations[0].variations[1]) == "<Node move 2 (Black) a2, turn 2 (8:15 line)>"


def test_a_variations_illegal_turn_names_its_player() -> None:
    v = check(WHITE + "1... b2 2. c1 (2. b2) *\n")
    assert v.status.value == "unfinished"
    assert v.warnings == ("variation at 8:15: move 2 (Black) b2, turn 2: occupied",)


# --- superko: the setup position is the one the second player left ------------------------

KO = {
    # The first player captures; the other's recapture would recreate the setup.
    "White": ('[Setup "B: d5 b4 W: d4"]\n[ToMove "White"]\n', "1... c5 2. d5 *", "move 2 (Black) d5, turn 2"),
    "Black": ('[Setup "B: c5 d4 b3 W: e4 d2 c3 b1"]\n', "1. c2 c3 *", "move 1 (White) c3, turn 2"),
}


@pytest.mark.parametrize("first", list(KO))
def test_recreating_the_setup_position_is_superko_naming_the_setup(tmp_path: Path, first: str) -> None:
    tags, moves, named = KO[first]
    text = '[Rules "keil"]\n[Size "3"]\n[Komi "0"]\n[Button "yes"]\n' + tags + "\n" + moves + "\n"
    path = tmp_path / "ko.keil"
    path.write_text(text, encoding="utf-8")
    line = text.count("\n", 0, text.index(moves)) + 1
    column = moves.rindex(" ", 0, moves.rindex(" ")) + 2
    found = json.loads(run("check", "--format", "jsonl", str(path)).output)
    assert found["status"] == "illegal"
    assert found["illegal"]["reason"] == "superko"
    assert found["illegal"]["repeats_turn"] == 0
    assert (found["illegal"]["turn"], found["illegal"]["line"], found["illegal"]["column"]) == (2, line, column)
    said = run("check", str(path)).output.splitlines()[0]
    assert said == f"{path}:{line}:{column}: game 1: illegal: {named}: superko (repeats the setup position)"


@pytest.mark.parametrize("first", list(KO))
def test_the_same_placement_after_the_position_changed_is_legal(first: str) -> None:
    """Not every recapture is refused: only one that recreates the setup."""
    tags, moves, _ = KO[first]
    setup = tags.split('"')[1]
    game = Game.from_position(setup, size=3, to_move=first)
    capture, recapture = moves.replace("1...", "").replace("1.", "").replace("2.", "").split()[:2]
    game.play(capture)
    with pytest.raises(IllegalMoveError) as refused:
        game.copy().play(recapture)
    assert refused.value.repeats_turn == 0
    assert refused.value.reason.value == "superko"


# --- clocks -------------------------------------------------------------------------------

TIMED = WHITE.replace("\n\n", '\n[TimeControl "60+5"]\n\n')
TIMED_LINE = MOVES_LINE + 1


def test_a_white_first_clock_is_whites_and_is_worded_so() -> None:
    moves = "1... b2 {[%clk 0:01:06]} 2. c1 {[%clk 0:01:04]} 2... a2 {[%clk 0:01:10]} 3. a3 {[%clk 0:01:10]} *"
    v = check(TIMED + moves + "\n")
    assert v.status.value == "unfinished"
    # White may stand at 1:05 after one turn (60 + 5), and rise by 5 a turn;
    # Black likewise: 1:04 then 1:10 is a rise of 6 over one turn of Black's.
    assert v.placed_warnings == (
        ("move 1 (White) b2, turn 1: clock 0:01:06 is above the time control allows so far (0:01:05)",
         TIMED_LINE, moves.index("[%clk 0:01:06]") + 1),
        ("move 3 (Black) a3, turn 4: clock rises from 0:01:04 to 0:01:10, more than the increments since (0:00:05)",
         TIMED_LINE, moves.index("[%clk 0:01:10]", moves.index("a3")) + 1),
    )


def test_the_time_used_of_a_white_first_game_is_each_players_own() -> None:
    moves = "1... b2 {[%clk 0:00:50]} 2. c1 {[%clk 0:00:40]} 2... a2 {[%clk 0:00:45]} *"
    v = check(TIMED + moves + "\n")
    # White: 60 + 2 x 5 - 45 = 25 s; Black: 60 + 5 - 40 = 25 s... and 50 s left after White's first turn.
    assert v.time_used == TimeUsed(black=250, white=250)
    v = check(TIMED + "1... b2 {[%clk 0:00:50]} *\n")
    assert v.time_used == TimeUsed(black=None, white=150)


def test_last_clocks_follow_the_player_who_began() -> None:
    record = parse_record(TIMED + "1... b2 {[%clk 0:00:50]} 2. c1 {[%clk 0:00:40]} *\n")
    black, white = last_clocks(record.turns, white_first=True)
    assert (str(black), str(white)) == ("0:00:40", "0:00:50")
    assert last_clocks(record.turns[:1], white_first=True)[0] is None


def test_who_moves_each_turn() -> None:
    assert [turn_player(t) for t in (1, 2, 3)] == [Color.BLACK, Color.WHITE, Color.BLACK]
    assert [turn_player(t, True) for t in (1, 2, 3)] == [Color.WHITE, Color.BLACK, Color.WHITE]


@pytest.mark.parametrize(
    ("moves", "status", "detail"),
    [
        ("1... b2 W+T", "ok", None),
        ("1... b2 B+T", "mismatch", "a loss on time is claimed for White, but Black was to move when the record ends"),
        ("1... b2 2. c1 B+T", "ok", None),
        ("1... b2 2. c1 W+T", "mismatch", "a loss on time is claimed for Black, but White was to move when the record ends"),
        ("W+T", "mismatch", "a loss on time is claimed for Black, but White was to move when the record ends"),
        ("B+T", "ok", None),
    ],
)
def test_a_time_result_names_as_loser_the_player_to_move(moves: str, status: str, detail: str | None) -> None:
    v = check(TIMED + moves + "\n")
    assert (v.status.value, v.detail) == (status, detail)


# --- the format document's example --------------------------------------------------------

PROBLEM_4 = """[Event "Problem 4: White to capture"]
[Rules "keil"]
[Size "3"]
[Komi "0"]
[Setup "B: a1 b1 W: c3"]
[ToMove "White"]
[Result "*"]

1... b2 *
"""


def test_the_docs_give_problem_4_in_the_canonical_layout() -> None:
    """docs/record-format.md shows the example as ``fmt`` writes it, with its
    Button tag: the same game, the same verdict."""
    document = (Path(__file__).resolve().parent.parent / "docs" / "record-format.md").read_text(encoding="utf-8")
    (shown,) = re.findall(r"```keil[^\n]*\n(\[Event \"Problem 4[^`]*)```", document)
    assert shown != PROBLEM_4
    mine, theirs = check(shown), check(PROBLEM_4)
    assert (mine.status, mine.turns, mine.computed, mine.score) == (theirs.status, theirs.turns, theirs.computed, theirs.score)
    assert mine.warnings == ()  # the docs give the Button tag too


def test_the_format_documents_problem_checks_as_it_says(tmp_path: Path) -> None:
    v = check(PROBLEM_4)
    assert (v.status.value, v.turns, v.computed, v.illegal, v.error) == ("unfinished", 1, None, None, None)
    game = Game.from_position("B: a1 b1 W: c3", size=3, komi=0, to_move="White")
    assert game.to_move is Color.WHITE
    game.play("b2")
    assert game.last_captured == frozenset({"a1"})
    assert game.stones(Color.BLACK) == {"b1"}
    assert game.stones(Color.WHITE) == {"b2", "c3"}
    assert (v.score.black, v.score.white) == (game.score().black, game.score().white)
    path = tmp_path / "p4.keil"
    path.write_text(PROBLEM_4, encoding="utf-8")
    done = run("check", str(path))
    assert done.exit_code == 0
    assert done.output.splitlines()[0] == f"{path}:1:1: game 1: unfinished: computed -, declared *; score so far W+2"
    assert run("check", "--strict", str(path)).exit_code == 1
