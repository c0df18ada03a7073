"""The result vocabulary of format version 2: winner-only results, and time
results that must name the player to move as the loser."""

from __future__ import annotations

import pytest

import keilref
from keilref.values import Color, Result, ResultKind
from keilref.records.parser import parse_record
from keilref.referee.verdict import Status
from keilref.records.writer import write_record

# Size 2, komi 0: Black a1, White takes the button, both pass. Black 7 points
# (a stone and six of territory) against White's half point: B+6.5.
ENDED = '[Rules "keil"]\n[Size "2"]\n[Komi "0"]\n[Button "yes"]\n\n1. a1 button 2. pass pass {}\n'
# Three turns: White to move where the record ends.
WHITE_TO_MOVE = '[Rules "keil"]\n[Size "2"]\n[Komi "0"]\n[Button "yes"]\n\n1. a1 b1 2. c3 {}\n'
# Four turns: Black to move.
BLACK_TO_MOVE = '[Rules "keil"]\n[Size "2"]\n[Komi "0"]\n[Button "yes"]\n\n1. a1 b1 2. c3 button {}\n'


def _verdict(text: str) -> keilref.Verdict:
    (v,) = keilref.check_text(text)
    return v


@pytest.mark.parametrize("token, winner", [("B+", Color.BLACK), ("W+", Color.WHITE)])
def test_a_winner_only_result_reads_and_writes_as_itself(token: str, winner: Color) -> None:
    result = Result.parse(token)
    assert (result.kind, result.winner, result.margin) == (ResultKind.WINNER, winner, None)
    assert str(result) == token
    record = parse_record(ENDED.format(token))
    assert record.result == token
    assert parse_record(write_record(record)) == record


def test_the_result_tag_takes_a_winner_only_result_too() -> None:
    text = ENDED.replace('[Button "yes"]', '[Button "yes"]\n[Result "B+"]').format("B+")
    v = _verdict(text)
    assert (v.status, v.declared, v.computed) == (Status.OK, "B+", "B+6.5")


def test_winner_only_names_the_computed_winner_of_a_game_ended_by_two_passes() -> None:
    v = _verdict(ENDED.format("B+"))
    assert (v.status, v.declared, v.computed, v.detail) == (Status.OK, "B+", "B+6.5", None)
    assert (v.score.black, v.score.white) == (7.0, 0.5)  # type: ignore[union-attr]


def test_winner_only_for_the_loser_is_a_wrong_winner() -> None:
    v = _verdict(ENDED.format("W+"))
    assert (v.status, v.computed, v.detail) == (Status.MISMATCH, "B+6.5", "wrong winner")
    assert v.location == (6, 27)  # at the declared result


@pytest.mark.parametrize("text", [WHITE_TO_MOVE, BLACK_TO_MOVE])
def test_winner_only_for_a_game_that_did_not_end_is_a_mismatch(text: str) -> None:
    v = _verdict(text.format("B+"))
    assert (v.status, v.computed) == (Status.MISMATCH, None)
    assert v.detail == "a winner-only result is claimed, but the game did not end"


@pytest.mark.parametrize(
    "text, token, status",
    [
        (WHITE_TO_MOVE, "B+T", Status.OK),  # White's clock runs: White can lose on time
        (WHITE_TO_MOVE, "W+T", Status.MISMATCH),
        (BLACK_TO_MOVE, "W+T", Status.OK),
        (BLACK_TO_MOVE, "B+T", Status.MISMATCH),
    ],
)
def test_a_time_result_names_the_player_to_move_as_the_loser(text: str, token: str, status: Status) -> None:
    v = _verdict(text.format(token))
    assert (v.status, v.declared, v.computed) == (status, token, None)
    if status is Status.MISMATCH:
        loser, mover = ("White", "Black") if token == "B+T" else ("Black", "White")
        assert v.detail == f"a loss on time is claimed for {loser}, but {mover} was to move when the record ends"
        assert v.fails()


@pytest.mark.parametrize("token", ["B+R", "W+R", "B+F", "W+F"])
def test_resignation_and_forfeit_stay_free_of_the_turn(token: str) -> None:
    for text in (WHITE_TO_MOVE, BLACK_TO_MOVE):
        assert _verdict(text.format(token)).status is Status.OK


def test_a_time_result_after_two_passes_is_still_a_mismatch() -> None:
    v = _verdict(ENDED.format("W+T"))
    assert (v.status, v.detail) == (Status.MISMATCH, "a loss on time is claimed, but the game ended by two passes")


@pytest.mark.parametrize("word", ["B+x", "b+", "B+-", "W++"])
def test_what_is_still_not_a_result(word: str) -> None:
    v = _verdict(ENDED.format(word))
    assert v.status is Status.ERROR
    assert v.error is not None and (v.error.line, v.error.column) == (6, 27)
