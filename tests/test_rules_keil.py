"""Hand-built Keil positions, each checked against keil-rules.md.

Every expected value here was worked out from the rules document by hand; the
comments give the reasoning. Diagrams are drawn top row first; a point
``(c, r)`` sits at ``x = 2c - r``, so a point's six neighbours are left, right,
up-left, up-right, down-left and down-right of it. The size-2 and size-3
boards, with every point named:

    size 2             size 3
     3   b3 c3          5     c5 d5 e5
     2  a2 b2 c2        4   b4 c4 d4 e4
     1   a1 b1          3  a3 b3 c3 d3 e3
                        2   a2 b2 c2 d2
                        1     a1 b1 c1

The **wings** of two adjacent points are the points adjacent to both; the
wing used most below: a corner such as ``a1`` has three neighbours (``b1``,
``a2``, ``b2``), and ``b2`` is the single wing of the edge pairs ``a1-b1`` and
``a1-a2``, while ``b1`` and ``a2`` are the two wings of ``a1-b2``.
"""

from __future__ import annotations

import random
import re
import sys
from pathlib import Path

import pytest

from keilref.engine.generate import random_game

# The checkout root, for keilref when it is not installed.
_ROOT = str(Path(__file__).resolve().parent.parent)
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)

from keilref import (  # noqa: E402
    Color,
    ConfigError,
    Game,
    IllegalMoveError,
    InvalidMoveError,
    KeilGame,
    Reason,
    Result,
    ResultKind,
    Score,
    ScoreRow,
)
from keilref.engine.diagram import parse_hex, render_hex  # noqa: E402
from keilref.engine.geometry import hex_geometry  # noqa: E402

B, W = Color.BLACK, Color.WHITE
RULE_SETS = ("keil", "keil-2019")


def play(game: KeilGame, *moves: str) -> KeilGame:
    for move in moves:
        game.play(move)
    return game


def rejected(game: KeilGame, move: str) -> IllegalMoveError:
    """Play an illegal ``move``: return the error, after checking nothing changed."""
    before = (game.position, game.turn, game.to_move, game.moves, game.prisoners, game.is_over)
    verdict = game.check(move)
    with pytest.raises(IllegalMoveError) as info:
        game.play(move)
    assert (game.position, game.turn, game.to_move, game.moves, game.prisoners, game.is_over) == before
    assert verdict is not None
    assert verdict.reason is info.value.reason
    assert verdict.repeats_turn == info.value.repeats_turn
    assert info.value.turn == game.turn + 1
    return info.value


def group_set(game: KeilGame) -> set[tuple[Color, frozenset[str]]]:
    return {(g.color, g.points) for g in game.groups()}


def group_of(game: KeilGame, point: str):  # type: ignore[no-untyped-def]
    (found,) = [g for g in game.groups() if point in g.points]
    return found


def territory_set(game: KeilGame) -> set[tuple[frozenset[str], Color | None]]:
    return {(t.points, t.owner) for t in game.territories()}


def fs(*points: str) -> frozenset[str]:
    return frozenset(points)


# --- linking -------------------------------------------------------------------

CROSSCUT = """
 5    . . .
 4   . O X .
 3  . . X O .
 2   . . . .
 1    . . .
"""


@pytest.mark.parametrize("rules", RULE_SETS)
def test_crosscut_gives_four_one_stone_groups(rules: str) -> None:
    # Black c3 and d4 are adjacent; their wings are d3 and c4, both white.
    # keil: no wing is black -> not linked. keil-2019: no wing is "not white"
    # -> not linked. The white stones d3 and c4 are not even adjacent.
    game = KeilGame.from_diagram(CROSSCUT, rules=rules)
    assert game.stones(B) == fs("c3", "d4")
    assert game.stones(W) == fs("d3", "c4")
    assert group_set(game) == {(B, fs("c3")), (B, fs("d4")), (W, fs("d3")), (W, fs("c4"))}
    # c3's empty neighbours b3, c2, b2 each have an empty wing: all liberties.
    assert group_of(game, "c3").liberties == fs("b3", "c2", "b2")


LONE_PAIR = """
 5    . . .
 4   . . . .
 3  . . X X .
 2   . . . .
 1    . . .
"""


def test_two_lone_adjacent_stones_are_two_groups_under_keil() -> None:
    # c3-d3: wings d4 and c2, both empty; keil wants a wing of the stones' type.
    game = KeilGame.from_diagram(LONE_PAIR, rules="keil")
    assert group_set(game) == {(B, fs("c3")), (B, fs("d3"))}
    # Each stone's empty neighbours all have an empty (or black) wing.
    assert group_of(game, "c3").liberties == fs("b3", "c4", "d4", "c2", "b2")
    assert group_of(game, "d3").liberties == fs("e3", "d4", "e4", "d2", "c2")


def test_two_lone_adjacent_stones_are_one_group_under_keil_2019() -> None:
    # keil-2019: linked iff a wing is not white; d4 and c2 are empty.
    game = KeilGame.from_diagram(LONE_PAIR, rules="keil-2019")
    assert group_set(game) == {(B, fs("c3", "d3"))}
    assert group_of(game, "c3").liberties == fs("b3", "c4", "d4", "c2", "b2", "e3", "e4", "d2")


def test_third_stone_touching_both_links_the_pair_under_keil() -> None:
    game = KeilGame.from_diagram(LONE_PAIR, rules="keil", to_move=B)
    game.play("d4")  # a wing of c3-d3, and adjacent to both
    # c3-d3 now has a black wing; c3-d4 has wing d3 (black); d3-d4 has wing c3.
    assert group_set(game) == {(B, fs("c3", "d3", "d4"))}
    # A black stone touching only one of them does not link the pair.
    game2 = KeilGame.from_diagram(LONE_PAIR, rules="keil")
    game2.play("b3")  # adjacent to c3 only; c3-b3 has wings b2, c4 (empty)
    assert group_set(game2) == {(B, fs("c3")), (B, fs("d3")), (B, fs("b3"))}


def test_empty_points_with_stone_wings_are_linked_only_under_keil_2019() -> None:
    # a1-b2: wings b1 and a2, both black. keil: two empty points are linked
    # iff a wing is empty -> not linked. keil-2019: always linked.
    diagram = """
     3   . .
     2  X . .
     1   . X
    """
    keil = KeilGame.from_diagram(diagram, rules="keil")
    loose = KeilGame.from_diagram(diagram, rules="keil-2019")
    assert fs("a1") in {t.points for t in keil.territories()}
    assert {t.points for t in loose.territories()} == {fs("a1", "b2", "c2", "b3", "c3")}


# --- captures and suicide ---------------------------------------------------------


@pytest.mark.parametrize("rules", RULE_SETS)
def test_corner_stone_captured_by_two_stones(rules: str) -> None:
    game = KeilGame(size=3, rules=rules)
    play(game, "a1", "b1")
    # a1 still has a2 (wing b2 empty) and b2 (wings b1 white, a2 empty).
    assert game.stone_at("a1") is B
    assert group_of(game, "a1").liberties == fs("a2", "b2")
    play(game, "e5", "a2")
    # a1-b2 now has wings b1, a2 both white: b2 is not a liberty. Captured.
    assert game.stone_at("a1") is None
    assert game.last_captured == fs("a1")
    assert game.prisoners == {B: 0, W: 1}
    assert game.stones(W) == fs("b1", "a2")


@pytest.mark.parametrize("rules", RULE_SETS)
def test_corner_stone_captured_by_one_stone_on_the_inner_point(rules: str) -> None:
    # b2 is the single wing of a1-b1 and of a1-a2: a white b2 cuts both.
    game = play(KeilGame(size=3, rules=rules), "a1", "b2")
    assert game.stone_at("a1") is None
    assert game.last_captured == fs("a1")


@pytest.mark.parametrize("rules", RULE_SETS)
def test_capture_of_several_groups_at_once(rules: str) -> None:
    # Size 2: every outer point is a corner whose inner point is b2. Black a1
    # and c3 are two groups (not adjacent); White b2 captures both at once.
    game = play(KeilGame(size=2, rules=rules), "a1", "button", "c3")
    assert group_set(game) == {(B, fs("a1")), (B, fs("c3"))}
    game.play("b2")
    assert game.last_captured == fs("a1", "c3")
    assert game.prisoners == {B: 0, W: 2}
    assert game.stones(B) == fs()
    assert game.stones(W) == fs("b2")


TWO_ON_THE_EDGE = """
 5    X X O
 4   . . . .
 3  . . . . .
 2   . . . .
 1    . . .
"""


@pytest.mark.parametrize("rules", RULE_SETS)
def test_capture_of_two_adjacent_stones_two_groups_under_keil(rules: str) -> None:
    # Black c5 (a corner: neighbours d5, c4, b4) and d5 (neighbours e5, c5,
    # d4, c4). The single wing of c5-d5 is c4 (empty): keil wants a black
    # wing, so they are two groups, both captured by one move; keil-2019
    # links them (c4 is not white): one group, the same stones captured.
    game = KeilGame.from_diagram(TWO_ON_THE_EDGE, rules=rules, to_move=W)
    if rules == "keil":
        assert group_set(game) == {(B, fs("c5")), (B, fs("d5")), (W, fs("e5"))}
    else:
        assert group_set(game) == {(B, fs("c5", "d5")), (W, fs("e5"))}
    # White c4 is the single wing of c5-b4 and c5-d5, and with e5 the two
    # wings of d5-d4: no black stone keeps a liberty.
    game.play("c4")
    assert game.last_captured == fs("c5", "d5")
    assert game.prisoners == {B: 0, W: 2}
    assert game.stones(B) == fs()
    # c4-c5 has wings d5 and b4, empty again: White's stone has liberties.
    assert "c5" in group_of(game, "c4").liberties


TRIANGLE = """
 5    . O X
 4   . . X X
 3  . . . O .
 2   . . . .
 1    . . .
"""


@pytest.mark.parametrize("rules", RULE_SETS)
def test_capture_of_a_three_stone_group(rules: str) -> None:
    # Black d4, e4, e5 are pairwise adjacent; each pair's wings include the
    # third black stone, so they are one group under both wordings.
    # Liberties: e5 has no empty neighbour; e4's only one, e3, has the
    # single wing d3 (white); d4-c4 has wings d5 (white) and c3 (empty),
    # d4-c3 has wings d3 (white) and c4 (empty): liberties c4 and c3.
    game = KeilGame.from_diagram(TRIANGLE, rules=rules, to_move=W)
    group = group_of(game, "d4")
    assert (group.color, group.points, group.liberties) == (B, fs("d4", "e4", "e5"), fs("c4", "c3"))
    # White c3 fills one liberty and turns d4-c4's last empty wing white.
    game.play("c3")
    assert game.last_captured == fs("d4", "e4", "e5")
    assert game.prisoners == {B: 0, W: 3}
    assert game.stones(B) == fs()
    assert game.stones(W) == fs("d5", "d3", "c3")


SUICIDE_SETUP = ("button", "b2")


@pytest.mark.parametrize("rules", RULE_SETS)
def test_suicide_is_illegal_and_changes_nothing(rules: str) -> None:
    game = play(KeilGame(size=2, rules=rules), *SUICIDE_SETUP)
    # Black a1 next to white b2: a1-b1 and a1-a2 have the single wing b2
    # (white), b2 is occupied; nothing white is captured (b2 has liberties).
    error = rejected(game, "a1")
    assert error.reason is Reason.SUICIDE
    assert error.repeats_turn is None
    assert game.stone_at("a1") is None
    assert game.stones(W) == fs("b2") and game.stones(B) == fs()
    assert "a1" not in game.legal_moves()
    # Every outer point is such a corner on size 2: Black has no placement.
    assert game.legal_moves() == ["pass"]


CAPTURE_BUT_SUICIDE = """
 5    . . .
 4   . . . .
 3  . . . . .
 2   . O X .
 1    . X .
"""


@pytest.mark.parametrize("rules", RULE_SETS)
def test_placement_that_captures_and_still_has_no_liberty_is_suicide(rules: str) -> None:
    # Black b1's neighbours: a1, c1, b2 (O), c2 (X).
    #   b1-a1: wing b2 is white -> not a liberty.
    #   b1-c1: wing c2 is black -> c1 is b1's only liberty.
    #   b1-c2: wings c1 (empty) and b2 (white): linked under keil-2019 only.
    game = KeilGame.from_diagram(CAPTURE_BUT_SUICIDE, rules=rules, to_move=W)
    if rules == "keil":
        assert group_set(game) >= {(B, fs("b1")), (B, fs("c2"))}
        assert group_of(game, "b1").liberties == fs("c1")
    else:  # one group b1+c2; c2's empty neighbours all have an empty wing
        assert group_of(game, "b1").points == fs("b1", "c2")
        assert group_of(game, "b1").liberties == fs("c1", "c3", "d3", "d2")
    # White c1 (a corner: neighbours b1, c2, d2) takes b1's last liberty:
    # b1-c2 now has wings c1, b2 both white, so b1 is alone and dead. But
    # after removing b1, c1 is still dead: c1-b1 and c1-d2 have the single
    # wing c2 (black), and c2 is a black stone. Suicide, so nothing happens.
    before = game.position
    error = rejected(game, "c1")
    assert error.reason is Reason.SUICIDE
    assert game.position == before
    assert game.stone_at("b1") is B


@pytest.mark.parametrize("rules", RULE_SETS)
def test_liberty_through_a_wing_of_the_stones_colour(rules: str) -> None:
    # In the same position, b1's one liberty c1 is linked through the black
    # wing c2 (a stone and an empty point are linked when a wing is empty or
    # of the stone's colour). White a1 (next to b1) must not capture it.
    game = KeilGame.from_diagram(CAPTURE_BUT_SUICIDE, rules=rules, to_move=W)
    game.play("a1")  # a1-a2 has the white wing b2: a liberty for White
    assert game.last_captured == fs()
    assert game.stone_at("b1") is B
    assert "c1" in group_of(game, "b1").liberties


# --- ko and superko ---------------------------------------------------------------

# White c5 is a corner whose inner point is c4 (the single wing of c5-d5 and
# c5-b4). Black c4 captures it. Black c4's own neighbours are d4 O, b3 O,
# c5, d5, b4, c3; after White retakes c5, c4-d5 has wings c5, d4 (white),
# c4-b4 has wings b3, c5 (white), c4-c3 has wings d4, b3 (white): c4 dies
# and the board is back where it was -- a ko.
KO = """
 5    O . .
 4   . . O .
 3  . O . . .
 2   . . . .
 1    . . .
"""
# Turns 1-6 build KO from the empty board, with White moving last (turn 6).
KO_MOVES = ("button", "c5", "pass", "d4", "pass", "b3")


def test_ko_setup_matches_the_diagram() -> None:
    game = play(KeilGame(size=3), *KO_MOVES)
    assert game.position[:-1] == KeilGame.from_diagram(KO).position[:-1]
    assert game.to_move is B


@pytest.mark.parametrize("rules", RULE_SETS)
def test_ko_immediate_recapture_is_superko(rules: str) -> None:
    game = play(KeilGame(size=3, rules=rules), *KO_MOVES)
    game.play("c4")  # turn 7
    assert game.last_captured == fs("c5")
    # White c5 would capture c4 and restore the position after White's turn 6.
    error = rejected(game, "c5")
    assert error.reason is Reason.SUPERKO
    assert error.repeats_turn == 6
    assert error.turn == 8
    assert "c5" not in game.legal_moves()


@pytest.mark.parametrize("rules", RULE_SETS)
def test_ko_recapture_is_legal_after_an_exchange_elsewhere(rules: str) -> None:
    game = play(KeilGame(size=3, rules=rules), *KO_MOVES, "c4")
    play(game, "a1", "e3")  # turns 8, 9: far corners, inner points b2 and d3 empty
    game.play("c5")  # turn 10: a1 and e3 make this position new
    assert game.last_captured == fs("c4")
    assert game.stones(W) == fs("c5", "d4", "b3", "a1")
    # Black retaking at once would give c4 black, c5 empty, a1 and e3 as
    # now: the position Black left at turn 9.
    error = rejected(game, "c4")
    assert error.reason is Reason.SUPERKO
    assert error.repeats_turn == 9


def test_initial_position_counts_for_nobody() -> None:
    # From the drawn KO position (no history), Black takes and White retakes:
    # the retake restores the initial position, which is nobody's turn-end.
    game = KeilGame.from_diagram(KO)
    play(game, "c4", "c5")
    assert game.last_captured == fs("c4")
    # Black retaking repeats Black's own turn 1.
    error = rejected(game, "c4")
    assert (error.reason, error.repeats_turn) == (Reason.SUPERKO, 1)


@pytest.mark.parametrize("rules", RULE_SETS)
def test_superko_repeating_a_position_left_by_own_pass(rules: str) -> None:
    game = play(KeilGame(size=3, rules=rules), *KO_MOVES)
    play(game, "a1")  # turn 7, Black: leaves P (the ko shape plus a1)
    play(game, "pass")  # turn 8, White passes: White's position is P too
    play(game, "c4")  # turn 9, Black takes the ko
    error = rejected(game, "c5")  # would restore P, left by White's pass
    assert error.reason is Reason.SUPERKO
    assert error.repeats_turn == 8


def test_superko_names_the_turn_whose_position_is_repeated() -> None:
    # From the KO shape drawn with Black to move and the button taken.
    # White leaves R (KO + a1) at turn 4 and R + e3 at turn 6 (a pass); the
    # retake at turn 8 repeats turn 6, not turn 4 (a different board).
    game = KeilGame.from_diagram(KO, button_holder=B)
    play(game, "c4", "pass")  # 1 B takes c5; 2 W passes -> Q (c4 black)
    play(game, "a1", "c5")  # 3 B a1; 4 W retakes c5 (legal: Q + a1 is new) -> R
    assert game.last_captured == fs("c4")
    play(game, "e3", "pass")  # 5 B e3; 6 W pass -> R + e3
    play(game, "c4")  # 7 B takes the ko again -> Q + a1 + e3
    error = rejected(game, "c5")  # 8 W: R + e3 again = W's turn 6
    assert (error.reason, error.repeats_turn) == (Reason.SUPERKO, 6)


# Three kos, one in each of three far corners of a size-4 board, built like
# KO: a1 (inner point b2, white b3 and c2), g4 (inner f4, white e3 and f5)
# and d7 (inner d6, white c5 and e6). As drawn, Black holds the a1 and g4
# kos (black b2, f4) and White the d7 ko (white d7); the button is taken.
TRIPLE_KO = """
 7     O . . .
 6    . . O . .
 5   . O . . O .
 4  . . . . . X .
 3   . O . . O .
 2    . X O . .
 1     . . . .
"""


@pytest.mark.parametrize("rules", RULE_SETS)
def test_superko_names_the_latest_turn_when_a_position_was_left_twice(rules: str) -> None:
    # A player leaves the same position twice only by a pass after the
    # opponent's placement recreated it. Ko states (a1, g4, d7): B = Black
    # holds it, W = White holds it. Start B B W (nobody's position).
    game = KeilGame.from_diagram(TRIPLE_KO, rules=rules, button_holder=W)
    play(game, "pass")  # 1 B: BBW
    play(game, "a1")  # 2 W takes a1: WBW
    play(game, "d6")  # 3 B takes d7: WBB
    play(game, "pass")  # 4 W: WBB
    play(game, "b2")  # 5 B retakes a1: BBB (new for Black)
    play(game, "d7")  # 6 W retakes d7: BBW (new for White: Black's turn 1)
    play(game, "pass")  # 7 B: BBW again -- Black has left it at turns 1 and 7
    play(game, "g4")  # 8 W takes g4: BWW
    assert game.last_captured == fs("f4")
    # Black retaking g4 makes BBW: the position after turns 1 and 7.
    error = rejected(game, "f4")
    assert error.reason is Reason.SUPERKO
    assert error.repeats_turn == 7


@pytest.mark.parametrize("rules", RULE_SETS)
def test_button_bit_makes_equal_boards_different_positions(rules: str) -> None:
    game = KeilGame(size=3, rules=rules)
    play(game, "e3", "c5", "a1", "d4", "c1", "b3")  # 6: W leaves board P, button not taken
    after_6 = game.position
    play(game, "c4")  # 7: B takes the ko
    play(game, "button")  # 8: W takes the button
    play(game, "pass")  # 9: B passes
    game.play("c5")  # 10: W retakes: board P again, but with the button taken
    assert game.last_captured == fs("c4")
    assert game.position[:-1] == after_6[:-1]
    assert (after_6[-1], game.position[-1]) == (0, 1)


# --- the button, passes, the end ----------------------------------------------------


@pytest.mark.parametrize("rules", RULE_SETS)
def test_pass_before_the_button_is_taken_is_illegal(rules: str) -> None:
    game = KeilGame(size=3, rules=rules)
    assert rejected(game, "pass").reason is Reason.PASS_BEFORE_BUTTON
    play(game, "c3")
    assert rejected(game, "pass").reason is Reason.PASS_BEFORE_BUTTON
    assert game.legal_moves()[-1] == "button"
    play(game, "button")
    game.play("pass")  # legal once the button is taken
    assert game.button_holder is W and not game.is_over


@pytest.mark.parametrize("rules", RULE_SETS)
def test_button_cannot_be_taken_twice(rules: str) -> None:
    game = play(KeilGame(size=3, rules=rules), "button")
    assert game.button_holder is B
    assert rejected(game, "button").reason is Reason.BUTTON_TAKEN  # by White
    play(game, "c3")
    assert rejected(game, "button").reason is Reason.BUTTON_TAKEN  # by Black again
    assert game.button_holder is B
    assert "button" not in game.legal_moves()


def test_no_button_game_under_keil_2019() -> None:
    game = KeilGame(size=3, rules="keil-2019", button=False)
    assert rejected(game, "button").reason is Reason.BUTTON_TAKEN
    game.play("pass")  # passes are always allowed without a button
    assert game.legal_moves()[-1] == "pass"
    game.play("pass")
    assert game.is_over
    score = game.score()
    # Empty board: one territory linked to no stone -> nobody's; komi 0.
    assert (score.black, score.white, score.neutral) == (0, 0, 19)
    assert score.result.kind is ResultKind.DRAW
    assert str(score.result) == "Draw"


@pytest.mark.parametrize("rules", RULE_SETS)
def test_any_turn_after_two_passes_is_illegal(rules: str) -> None:
    game = play(KeilGame(size=3, rules=rules), "c3", "button", "pass")
    assert not game.is_over
    game.play("pass")
    assert game.is_over
    for move in ("pass", "button", "a1", "c3", "f1", "z9", "a0"):
        assert rejected(game, move).reason is Reason.GAME_OVER, move
    assert game.legal_moves() == []


@pytest.mark.parametrize("rules", RULE_SETS)
def test_a_placement_between_passes_breaks_the_succession(rules: str) -> None:
    game = play(KeilGame(size=3, rules=rules), "button", "pass", "c3", "pass")
    assert not game.is_over
    # A button turn between two passes cannot happen at all: passing needs
    # the button taken, and then it cannot be taken again.
    assert rejected(game, "button").reason is Reason.BUTTON_TAKEN
    game.play("pass")
    assert game.is_over


# --- territory and score ------------------------------------------------------------


@pytest.mark.parametrize("rules", RULE_SETS)
def test_territory_linked_to_no_stone_is_neutral(rules: str) -> None:
    game = KeilGame(size=3, rules=rules)
    # All empty: every pair of empty neighbours has an empty wing -> one territory.
    assert territory_set(game) == {(frozenset(game.points()), None)}
    assert game.score().neutral == 19


NEUTRAL = """
 3   O .
 2  . . .
 1   . X
"""


@pytest.mark.parametrize("rules", RULE_SETS)
def test_territory_touching_both_colours_is_neutral(rules: str) -> None:
    # Size 2, black b1 and white b3. Every empty pair has an empty wing
    # (only two stones), so the five empty points form one territory; b2 is
    # linked to b1 (wings a1, c2 empty) and to b3 (wings a2, c3 empty).
    game = KeilGame.from_diagram(NEUTRAL, rules=rules)
    assert game.stones(B) == fs("b1") and game.stones(W) == fs("b3")
    assert territory_set(game) == {(fs("a1", "a2", "b2", "c2", "c3"), None)}
    score = game.score()
    assert (score.black, score.white, score.neutral) == (1, 1, 5)


# The final position of the game below (size 2, Black holds the button).
SPLIT = """
 3   O O
 2  X . O
 1   . X
"""
SPLIT_GAME = ("b1", "c2", "a2", "b3", "button", "c3", "pass", "pass")


def test_split_game_reaches_the_diagram() -> None:
    for rules in RULE_SETS:
        game = play(KeilGame(size=2, rules=rules), *SPLIT_GAME)
        assert game.is_over and game.prisoners == {B: 0, W: 0}
        assert game.position[:-1] == KeilGame.from_diagram(SPLIT).position[:-1]


def test_territory_owned_under_keil_and_neutral_under_keil_2019() -> None:
    # a1-b2: wings b1, a2 are black. keil: two empty points are linked iff a
    # wing is empty -> a1 and b2 are separate territories. a1 is linked to b1
    # and to a2 (single wing b2, empty) and to no white stone: Black's. b2 is
    # linked to b1 (wing a1 empty) and to c2 (wing c3 white): neutral.
    keil = KeilGame.from_diagram(SPLIT, rules="keil")
    assert territory_set(keil) == {(fs("a1"), B), (fs("b2"), None)}
    # keil-2019: two empty points are always linked -> one territory {a1, b2}
    # touching both colours: neutral.
    loose = KeilGame.from_diagram(SPLIT, rules="keil-2019")
    assert territory_set(loose) == {(fs("a1", "b2"), None)}


def test_groups_differ_between_rule_sets() -> None:
    # White c2-c3 and b3-c3 each have the single wing b2 (empty): keil wants
    # a white wing (not linked), keil-2019 a wing that is not black (linked).
    keil = KeilGame.from_diagram(SPLIT, rules="keil")
    loose = KeilGame.from_diagram(SPLIT, rules="keil-2019")
    assert group_set(keil) == {(B, fs("b1")), (B, fs("a2")), (W, fs("c2")), (W, fs("c3")), (W, fs("b3"))}
    assert group_set(loose) == {(B, fs("b1")), (B, fs("a2")), (W, fs("c2", "c3", "b3"))}


def test_winner_differs_between_rule_sets() -> None:
    keil = play(KeilGame(size=2, komi=0, rules="keil"), *SPLIT_GAME)
    loose = play(KeilGame(size=2, komi=0, rules="keil-2019"), *SPLIT_GAME)
    # keil: Black 2 stones + 1 (a1) + 0.5 (button) = 3.5; White 3 stones + 0.
    s = keil.score()
    assert (s.black_stones, s.black_territory, s.white_stones, s.white_territory, s.neutral) == (2, 1, 3, 0, 1)
    assert (s.black, s.white) == (3.5, 3)
    assert str(s.result) == "B+0.5" and s.winner is B
    # keil-2019: Black 2 + 0.5 = 2.5; White 3.
    s = loose.score()
    assert (s.black_stones, s.black_territory, s.white_stones, s.white_territory, s.neutral) == (2, 0, 3, 0, 2)
    assert (s.black, s.white) == (2.5, 3)
    assert str(s.result) == "W+0.5" and s.winner is W


def test_worked_example_arithmetic() -> None:
    # Size 7 (127 points), komi 6, White took the button: Black 67 on the
    # board, White 60 on the board -> 67 against 60 + 6 + 0.5 = 66.5.
    assert hex_geometry(7).n_points == 127 == 67 + 60
    score = Score(
        rows=(ScoreRow("stones", 40, 35), ScoreRow("territory", 27, 25)),
        komi=6,
        half_point=W,
        neutral=0,
    )
    assert (score.black_stones + score.black_territory, score.white_stones + score.white_territory) == (67, 60)
    assert (score.black, score.white) == (67, 66.5)
    assert score.button is W
    assert score.result == Result(ResultKind.SCORE, B, 0.5)
    assert str(score.result) == "B+0.5"
    assert score.winner is B
    # The same count with Black holding the button instead: 67.5 vs 66.
    assert str(Score(rows=score.rows, komi=6, half_point=B).result) == "B+1.5"


def test_score_counts_komi_for_white() -> None:
    game = play(KeilGame(size=2, komi=-3, rules="keil"), *SPLIT_GAME)
    assert game.score().white == 3 - 3
    game = play(KeilGame(size=2, komi="6.5", rules="keil-2019"), *SPLIT_GAME)
    assert game.score().white == 9.5
    assert str(game.score().result) == "W+7"


# --- reason precedence -------------------------------------------------------------


@pytest.mark.parametrize("rules", RULE_SETS)
def test_reason_precedence(rules: str) -> None:
    game = KeilGame(size=3, rules=rules)
    assert rejected(game, "f1").reason is Reason.OFF_BOARD
    play(game, "button", "b2", "e5")  # 1 B button, 2 W b2, 3 B e5
    # Occupied before anything else: b2 is white (and Black there would
    # have no business anyway).
    assert rejected(game, "b2").reason is Reason.OCCUPIED
    assert rejected(game, "e5").reason is Reason.OCCUPIED
    game.play("pass")  # 4 W passes: White's position = Black's turn-3 position
    # Black a1 (white on its inner point b2) is suicide. Were the suicidal
    # stone simply taken off, the board would repeat Black's turn 3: the
    # reason must still be suicide, not superko.
    error = rejected(game, "a1")
    assert error.reason is Reason.SUICIDE
    assert error.repeats_turn is None
    # After the end, game-over comes first, even for an off-board point.
    play(game, "pass")  # 5 B passes: two passes in succession end the game
    assert game.is_over
    for move in ("f1", "b2", "a1", "c3"):  # off-board, occupied, suicide, legal before
        assert rejected(game, move).reason is Reason.GAME_OVER


# --- bad input ---------------------------------------------------------------------


@pytest.mark.parametrize("token", ["hello", "g", "7g", "", "a1b", "pas", "a-1", "a 1"])
def test_malformed_turn_is_invalid_and_names_the_value(token: str) -> None:
    game = play(KeilGame(size=3), "c3")
    before = game.position
    with pytest.raises(InvalidMoveError) as info:
        game.play(token)
    assert repr(token) in str(info.value)
    assert game.position == before and game.turn == 1


def test_unknown_rule_set_is_a_config_error() -> None:
    with pytest.raises(ConfigError) as info:
        Game(size=7, komi=6, rules="keil-2020")
    assert "'keil-2020'" in str(info.value)


@pytest.mark.parametrize("size", [1, 14, 0, -3])
@pytest.mark.parametrize("rules", RULE_SETS)
def test_size_out_of_range_is_a_config_error(size: int, rules: str) -> None:
    with pytest.raises(ConfigError) as info:
        Game(size=size, komi=0, rules=rules)
    assert re.search(rf"(?<![\d-]){size}(?!\d)", str(info.value))


@pytest.mark.parametrize("komi", [6.5, "6.5", -0.5, 0.25])
def test_half_komi_under_keil_is_a_config_error(komi: object) -> None:
    with pytest.raises(ConfigError) as info:
        Game(size=7, komi=komi, rules="keil")
    assert str(komi) in str(info.value)


def test_half_komi_is_fine_under_keil_2019() -> None:
    assert Game(size=7, komi=6.5, rules="keil-2019").komi == 6.5
    with pytest.raises(ConfigError) as info:
        Game(size=7, komi=0.25, rules="keil-2019")
    assert "0.25" in str(info.value)


def test_no_button_under_keil_is_a_config_error() -> None:
    with pytest.raises(ConfigError) as info:
        Game(size=7, komi=6, rules="keil", button=False)
    assert "keil" in str(info.value) and "button" in str(info.value).lower()
    assert Game(size=7, komi=6, rules="keil-2019", button=False).button_in_play is False


def test_game_dispatches_to_keil_game() -> None:
    game = Game(size=7, komi=6, rules="keil")
    assert isinstance(game, KeilGame)
    assert (game.size, game.komi, game.button_in_play) == (7, 6, True)
    assert len(game.points()) == 127


# --- legal_moves, check, copy --------------------------------------------------------


def _state(game: KeilGame) -> tuple[object, ...]:
    return (game.position, game.turn, game.to_move, game.moves, game.prisoners, game.last_captured, game.is_over)


@pytest.mark.parametrize("rules", RULE_SETS)
def test_legal_moves_agrees_with_check_and_changes_nothing(rules: str) -> None:
    # The ko position with Black having just taken: White's c5 is superko,
    # and several points are suicide for White.
    game = play(KeilGame(size=3, rules=rules), *KO_MOVES, "c4")
    before = _state(game)
    legal = game.legal_moves()
    assert _state(game) == before
    assert legal == game.legal_moves()  # asking twice gives the same answer
    for move in (*game.points(), "pass", "button"):
        assert (game.check(move) is None) == (move in legal), move
    assert "c5" not in legal and "pass" in legal and "button" not in legal
    # Every listed move really plays.
    for move in legal:
        trial = game.copy()
        trial.play(move)
        assert trial.turn == game.turn + 1


def test_copy_is_independent() -> None:
    game = play(KeilGame(size=3), *KO_MOVES, "c4")
    twin = game.copy()
    assert twin.position == game.position and twin.moves == game.moves
    twin.play("a1")
    assert game.stone_at("a1") is None and game.turn == 7 and game.to_move is W
    game.play("e3")
    assert twin.stone_at("e3") is None and twin.stone_at("a1") is W
    assert game.moves[-1] == "e3" and twin.moves[-1] == "a1"
    assert game.prisoners == twin.prisoners == {B: 1, W: 0}


def test_copy_keeps_superko_history_separate() -> None:
    game = play(KeilGame(size=3), *KO_MOVES, "c4")
    twin = game.copy()
    assert twin.check("c5").reason is Reason.SUPERKO  # type: ignore[union-attr]
    play(twin, "a1", "e3", "c5")  # exchange elsewhere, then retake: legal
    # The original still forbids the immediate retake, and its history did
    # not learn the twin's positions.
    error = rejected(game, "c5")
    assert (error.reason, error.repeats_turn) == (Reason.SUPERKO, 6)
    play(game, "a1", "e3")
    game.play("c5")  # legal here too: the same new position, not in game's history
    assert game.position == twin.position


# --- geometry and diagrams -----------------------------------------------------------


@pytest.mark.parametrize("n", range(2, 14))
def test_geometry_counts_and_neighbours(n: int) -> None:
    geo = hex_geometry(n)
    assert geo.n_points == 3 * n * (n - 1) + 1
    assert len(set(geo.names)) == geo.n_points
    a1 = geo.index["a1"]
    assert sorted(geo.names[q] for q in geo.neighbours[a1]) == ["a2", "b1", "b2"]
    at = {cr: p for p, cr in enumerate(geo.coords)}
    for p, (c, r) in enumerate(geo.coords):
        assert abs(c - r) <= n - 1 and 0 <= c <= 2 * n - 2 and 0 <= r <= 2 * n - 2
        assert geo.names[p] == "abcdefghijklmnopqrstuvwxyz"[c] + str(r + 1)
        formula = {(c + 1, r), (c - 1, r), (c, r + 1), (c, r - 1), (c + 1, r + 1), (c - 1, r - 1)}
        assert set(geo.neighbours[p]) == {at[cr] for cr in formula if cr in at}
        for q in geo.neighbours[p]:
            wings = set(geo.neighbours[p]) & set(geo.neighbours[q])
            assert set(geo.wings[(p, q)]) == wings
            # two wings inside the board, one along the edge
            along_edge = geo.is_edge(p) and geo.is_edge(q)
            assert len(wings) == (1 if along_edge else 2)
    inside = sum(1 for ns in geo.neighbours if len(ns) == 6)
    assert inside == 3 * (n - 1) * (n - 2) + 1
    corners = sum(1 for ns in geo.neighbours if len(ns) == 3)
    assert corners == 6


def test_documented_board_sizes() -> None:
    assert [hex_geometry(n).n_points for n in (5, 7, 9, 13)] == [61, 127, 217, 469]
    assert len({c for c, _ in hex_geometry(13).coords}) == 25


@pytest.mark.parametrize("n", range(2, 14))
def test_diagram_round_trip(n: int) -> None:
    geo = hex_geometry(n)
    rng = random.Random(n)
    glyphs = [rng.choice("XO.") for _ in range(geo.n_points)]
    text = render_hex(geo, glyphs)
    assert parse_hex(text) == (n, glyphs)
    mark = rng.randrange(geo.n_points)
    assert parse_hex(render_hex(geo, glyphs, mark)) == (n, glyphs)
    # and through a game: a position reached by play survives diagram() and
    # from_diagram() stone for stone (random glyphs may hold dead groups,
    # which from_diagram refuses)
    played = random_game(rng, size=n, fill=0.6)
    game = KeilGame(size=n, komi=played.komi)
    game.play_all(played.moves)
    assert KeilGame.from_diagram(game.diagram()).position[:-1] == game.position[:-1]


def test_a_diagram_with_a_group_without_liberty_is_refused() -> None:
    # White a1 touches a2 and b1 only through the black wing b2: no liberty.
    # Play never reaches such a position, so a set-up position may not either.
    with pytest.raises(ValueError, match="without a liberty: a1"):
        KeilGame.from_diagram(" 3   . .\n 2  . X .\n 1   O .")
    # The same stones with an empty centre are a legal position.
    game = KeilGame.from_diagram(" 3   . .\n 2  . . .\n 1   O .")
    assert game.stone_at("a1") is Color.WHITE
