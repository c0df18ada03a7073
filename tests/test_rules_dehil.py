"""Dehil rules on hand-built positions, drawn as diagrams.

``X`` is Black, ``O`` White, ``.`` empty, and ``+`` marks the empty point the
test places on (Black to move). Every expected value is worked out from
dehil-rules.md in the comment beside it, not taken from the engine.

Coordinates (keil-rules.md): column ``c`` and row ``r`` from 0; the
neighbours of ``(c, r)`` are ``(c±1, r)``, ``(c, r±1)``, ``(c+1, r+1)`` and
``(c-1, r-1)``. In a diagram the two neighbours in the row above stand
diagonally left and right, so a small triangle looks like one. On size 5 the
edge points are row 1, row 9, column a, column i and the two slanted sides;
``b2``, ``c3``, ``e5``... are inside.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import keilref.engine.dehil  # noqa: E402,F401  (registers the rule set)
from keilref import Color, ConfigError, Game, IllegalMoveError, InvalidMoveError, Reason  # noqa: E402
from keilref.engine.dehil import DehilGame  # noqa: E402
from keilref.engine.diagram import parse_hex  # noqa: E402
from keilref.engine.geometry import hex_geometry  # noqa: E402


def setup(diagram: str, *, komi: int = 0) -> tuple[DehilGame, str]:
    """The drawn position, and the name of the point marked ``+``."""
    size, glyphs = parse_hex(diagram)
    marked = [hex_geometry(size).names[p] for p, g in enumerate(glyphs) if g == "+"]
    assert len(marked) == 1, "mark exactly one point with +"
    return DehilGame.from_diagram(diagram.replace("+", "."), komi=komi), marked[0]


def reason_of(game: DehilGame, move: str) -> Reason | None:
    """The decision on ``move``, checked to agree between ``check`` and ``play``."""
    error = game.check(move)
    before = game.position
    if error is None:
        game.copy().play(move)
        return None
    with pytest.raises(IllegalMoveError) as info:
        game.play(move)
    assert info.value.reason is error.reason
    assert game.position == before and game.turn == 0
    return error.reason


# --- the triangle restriction ----------------------------------------------------


def test_triangle_with_two_edge_stones_is_illegal_even_with_support() -> None:
    # Triangle a1-b1-b2: a1 and b1 are on row 1, the edge; b2 is inside.
    # b2's only other friendly neighbour, b3, is a lone stone (no triangle),
    # so the support condition holds: the edge count alone forbids it.
    game, point = setup(
        """
         9      . . . . .
         8     . . . . . .
         7    . . . . . . .
         6   . . . . . . . .
         5  . . . . . . . . .
         4   . . . . . . . .  i
         3    . X . . . . .  h
         2     . + . . . .  g
         1      X X . . .  f
                 a b c d e
        """
    )
    assert point == "b2"
    assert reason_of(game, "b2") is Reason.TRIANGLE


def test_triangle_with_one_edge_stone_and_supported_inner_stones_is_legal() -> None:
    # Triangle b1-b2-c2: b1 on the edge; b2 is supported by the lone a2,
    # c2 by the lone d2 (neither touches another stone).
    game, point = setup(
        """
         9      . . . . .
         8     . . . . . .
         7    . . . . . . .
         6   . . . . . . . .
         5  . . . . . . . . .
         4   . . . . . . . .  i
         3    . . . . . . .  h
         2     X X + X . .  g
         1      . X . . .  f
                 a b c d e
        """
    )
    assert point == "c2"
    assert reason_of(game, "c2") is None


UNSUPPORTED = """
 9      . . . . .
 8     . . . . . .
 7    . . . . . . .
 6   . . . . . . . .
 5  . . . . . . . . .
 4   . . . + . . . .  i
 3    . . X X . . .  h
 2     . X . X . .  g
 1      . . . . .  f
         a b c d e
"""


def test_triangle_whose_inner_stone_lacks_support_is_illegal() -> None:
    # Triangle c3-d3-d4, no edge stone, so all three need support. c3 has
    # the lone b2, d3 the lone d2; d4's friendly neighbours are c3 and d3
    # only, both in the triangle: d4 is unsupported.
    game, point = setup(UNSUPPORTED)
    assert point == "d4"
    assert reason_of(game, "d4") is Reason.TRIANGLE


def test_same_triangle_is_legal_with_a_lone_supporting_stone() -> None:
    # As above plus a Black stone on e5, next to d4. e5 touches no other
    # stone, so it is outside the triangle and part of no triangle pattern.
    game, point = setup(
        """
         9      . . . . .
         8     . . . . . .
         7    . . . . . . .
         6   . . . . . . . .
         5  . . . . X . . . .
         4   . . . + . . . .  i
         3    . . X X . . .  h
         2     . X . X . .  g
         1      . . . . .  f
                 a b c d e
        """
    )
    assert reason_of(game, point) is None
    game.play(point)
    assert game.stone_at("d4") is Color.BLACK


def test_a_supporter_inside_another_triangle_does_not_count() -> None:
    # e5 is now part of the triangle e5-f5-f6 (and is no hourglass centre),
    # so it no longer supports d4.
    game, point = setup(
        """
         9      . . . . .
         8     . . . . . .
         7    . . . . . . .
         6   . . . . X . . .
         5  . . . . X X . . .
         4   . . . + . . . .  i
         3    . . X X . . .  h
         2     . X . X . .  g
         1      . . . . .  f
                 a b c d e
        """
    )
    assert reason_of(game, point) is Reason.TRIANGLE


def test_a_white_neighbour_is_no_support() -> None:
    # The support must be a friendly stone: a White e5 does not help d4.
    game, point = setup(UNSUPPORTED.replace("5  . . . . .", "5  . . . . O"))
    assert game.stone_at("e5") is Color.WHITE
    assert reason_of(game, point) is Reason.TRIANGLE


HOURGLASS = """
 9      . . . . .
 8     . . . . . .
 7    . . . . . . .
 6   . . . . X . . .
 5  . . . X X X . . .
 4   . . . X X . . .  i
 3    . . . X + . .  h
 2     . . X . X .  g
 1      . . . . .  f
         a b c d e
"""


def test_support_from_an_hourglass_centre() -> None:
    # e3 creates one triangle, e3-d3-e4 (no edge stone). d3 is supported by
    # the lone c2, e3 by the lone e2. e4's friendly neighbours outside the
    # triangle are d4, e5 and f5, all in triangle patterns -- but e5 is the
    # centre of an hourglass: e5-f5-f6 and e5-d5-d4 are point reflections
    # of each other through e5. So e4 is supported and the placement legal.
    game, point = setup(HOURGLASS)
    assert point == "e3"
    assert reason_of(game, point) is None


def test_without_the_hourglass_the_same_triangle_is_illegal() -> None:
    # Without f6, e5 is in triangles but centres no hourglass, so e4 has no
    # support. e5 still holds two triangle patterns that share only e5
    # (e5-d5-d4 and e5-e4-f5), but they stand at 120 degrees, not on
    # opposite sides of e5: not an hourglass.
    game, point = setup(HOURGLASS.replace("6   . . . . X", "6   . . . . ."))
    assert game.stone_at("f6") is None
    assert reason_of(game, point) is Reason.TRIANGLE


def test_reading_the_hourglass_centre_may_belong_to_the_triangle() -> None:
    # b2 creates one triangle, b1-b2-c2 (b1 on the edge). It also completes
    # the hourglass centred on c2: c2-b2-b1 and c2-d2-d3 are reflections
    # through c2. b2's only friendly neighbours are b1 and c2, both in the
    # triangle; c2 is an hourglass centre, and case (ii) of the rule does not
    # ask it to be outside the triangle, so b2 is supported. c2 in turn is
    # supported by d3, centre of the hourglass d3-c2-d2 / d3-d4-e4.
    game, point = setup(
        """
         9      . . . . .
         8     . . . . . .
         7    . . . . . . .
         6   . . . . . . . .
         5  . . . . . . . . .
         4   . . . X X . . .  i
         3    . . . X . . .  h
         2     . + X X . .  g
         1      . X . . .  f
                 a b c d e
        """
    )
    assert point == "b2"
    assert reason_of(game, point) is None
    # Take away d4: d3 centres nothing, so c2 has no support.
    weaker = DehilGame.from_diagram(game.diagram().replace("4   . . . X X", "4   . . . . X"))
    assert weaker.stone_at("d4") is None
    assert reason_of(weaker, point) is Reason.TRIANGLE


TWO_TRIANGLES = """
 9      . . . . .
 8     . . . . . .
 7    . . . . . . .
 6   . . . . . . . .
 5  . . . . . . . . .
 4   . . X . . . . .  i
 3    . . + X X . .  h
 2     X X X . . .  g
 1      . . X . .  f
         a b c d e
"""


def test_a_placement_creating_two_supported_triangles_is_legal() -> None:
    # c3 creates c3-b2-c2 and c3-c2-d3, all inside. Supports, each a lone
    # stone touching one triangle stone: b2<-a2, c2<-c1, c3<-c4, d3<-e3.
    game, point = setup(TWO_TRIANGLES)
    assert point == "c3"
    assert reason_of(game, point) is None


def test_a_placement_creating_two_triangles_one_unsupported_is_illegal() -> None:
    # Without e3, d3 (only in the second triangle) has no support; the first
    # triangle is still fine, but every created triangle must pass.
    game, point = setup(TWO_TRIANGLES.replace("3    . . + X X", "3    . . + X ."))
    assert game.stone_at("e3") is None
    assert reason_of(game, point) is Reason.TRIANGLE


def test_triangles_that_existed_before_are_not_rejudged() -> None:
    # The drawn position already holds a forbidden triangle (a1-b1-b2, two
    # edge stones). b3 touches it but creates no triangle: legal. c2 would
    # create b1-b2-c2, whose inner stones have no support: that one is judged.
    game, _ = setup(
        """
         5    . . .
         4   . . . .
         3  . + . . .
         2   . X . .  e
         1    X X .  d
               a b c
        """
    )
    assert reason_of(game, "b3") is None
    assert reason_of(game, "c2") is Reason.TRIANGLE


def test_no_placement_is_legal_but_pass_is() -> None:
    # On size 2 every triangle holds the centre and two edge points, so no
    # triangle can ever be made. Each empty point here would make one.
    game = DehilGame.from_diagram(
        """
         3   X .
         2  . X X
         1   X .
        """
    )
    assert game.legal_moves() == ["pass"]
    for point in ("c3", "a2", "b1"):
        assert reason_of(game, point) is Reason.TRIANGLE


# --- turns, precedence, the end --------------------------------------------------------


def test_precedence_off_board_then_occupied_then_triangle() -> None:
    game, point = setup(UNSUPPORTED)
    assert reason_of(game, "a9") is Reason.OFF_BOARD  # well formed, not on a size-5 board
    assert reason_of(game, "c3") is Reason.OCCUPIED  # occupied, so never judged for triangles
    assert reason_of(game, point) is Reason.TRIANGLE


def test_passes_are_always_legal() -> None:
    game, point = setup(UNSUPPORTED)
    assert game.check("pass") is None
    assert game.legal_moves()[-1] == "pass"
    assert point not in game.legal_moves()
    game.play("pass")
    assert game.check("pass") is None  # a second pass is legal (and ends the game)


def test_game_over_after_two_passes_and_it_takes_precedence() -> None:
    game = Game(size=3, rules="dehil")
    game.play_all(["b2", "pass", "c3", "pass"])  # a placement breaks the succession
    assert not game.is_over
    game.play("pass")
    assert game.is_over
    assert game.legal_moves() == []
    for move in ("pass", "a1", "b2", "a5"):  # empty, occupied, off-board
        err = game.check(move)
        assert err is not None and err.reason is Reason.GAME_OVER, move
        with pytest.raises(IllegalMoveError) as info:
            game.play(move)
        assert info.value.reason is Reason.GAME_OVER
        assert info.value.turn == 6


def test_button_is_not_a_dehil_turn() -> None:
    game = Game(size=9, rules="dehil")
    assert not game.button_in_play and game.button_holder is None
    assert "button" not in game.legal_moves()
    for call in (game.play, game.check):
        with pytest.raises(InvalidMoveError, match="'button' is not a turn in dehil"):
            call("button")
    assert game.turn == 0
    with pytest.raises(ConfigError, match="no button"):
        Game(size=9, rules="dehil", button=True)


def test_malformed_tokens_are_invalid_and_named() -> None:
    game = Game(size=5, rules="dehil")
    for token in ("hello", "e", "5e", ""):
        with pytest.raises(InvalidMoveError) as info:
            game.play(token)
        assert repr(token) in str(info.value)
    game.play("E5")  # upper case is accepted, recorded in lower case
    assert game.moves == ("e5",)
    assert game.stone_at("e5") is Color.BLACK and game.to_move is Color.WHITE


def test_nothing_is_captured() -> None:
    # A White stone in a corner, surrounded by Black on all three neighbours, stays.
    game = Game(size=3, rules="dehil")
    game.play_all(["b1", "a1", "a2", "pass", "b2"])  # b1-a2-b2: a path around a1, no triangle
    assert game.stone_at("a1") is Color.WHITE
    assert game.last_captured == frozenset()
    assert game.prisoners == {Color.BLACK: 0, Color.WHITE: 0}


# --- partitions and the score -----------------------------------------------------------


def test_a_wall_from_edge_to_edge_has_partitions() -> None:
    # Row 4 filled with Black (a4..g4, 7 stones): without it, the rows above
    # and the rows below are two areas. White's lone e6 leaves one area.
    game = DehilGame.from_diagram(
        """
         7     . . . .
         6    . . O . .
         5   . . . . . .
         4  X X X X X X X
         3   . . . . . .  g
         2    . . . . .  f
         1     . . . .  e
                a b c d
        """
    )
    groups = {(g.color, len(g.points)): areas for g, areas in game.partitions()}
    assert groups == {(Color.BLACK, 7): 2, (Color.WHITE, 1): 1}
    score = game.score()
    assert score.part("groups with partitions").black == 7
    assert score.part("groups without").white == -1
    assert (score.black, score.white) == (7, -1)
    assert str(score.result) == "B+8"
    assert game.explain_score() == [
        "Black group at a4, 7 stones: has partitions (2 areas), counts +7",
        "White group at e6, 1 stone: no partitions (1 area), counts -1",
    ]


def test_a_ring_around_empty_points_has_partitions() -> None:
    # Six Black stones around the empty d4: without them, d4 is an area of
    # its own, the rest another.
    game = DehilGame.from_diagram(
        """
         7     . . . .
         6    . . . . .
         5   . . X X . .
         4  . . X . X . .
         3   . . X X . .  g
         2    . . . . .  f
         1     . . . .  e
                a b c d
        """
    )
    assert [areas for _, areas in game.partitions()] == [2]
    assert (game.score().black, game.score().white) == (6, 0)


def test_a_ring_around_a_stone_has_partitions_whatever_the_areas_hold() -> None:
    # The enclosed White stone is an area too; the White stone itself leaves
    # one area (the ring joins to the outside), so White counts -1.
    game = DehilGame.from_diagram(
        """
         7     . . . .
         6    . . . . .
         5   . . X X . .
         4  . . X O X . .
         3   . . X X . .  g
         2    . . . . .  f
         1     . . . .  e
                a b c d
        """
    )
    assert (game.score().black, game.score().white) == (6, -1)


def test_cutting_off_a_corner_has_partitions() -> None:
    # b1-b2-a2 is a path around the corner a1: without it, a1 is alone.
    game = DehilGame.from_diagram(
        """
         7     . . . .
         6    . . . . .
         5   . . . . . .
         4  . . . . . . .
         3   . . . . . .  g
         2    X X . . .  f
         1     . X . .  e
                a b c d
        """
    )
    assert [areas for _, areas in game.partitions()] == [2]
    assert game.score().black == 3


def test_a_blob_has_no_partitions() -> None:
    # d4 and its six neighbours: the board without them is one ring-shaped area.
    game = DehilGame.from_diagram(
        """
         7     . . . .
         6    . . . . .
         5   . . X X . .
         4  . . X X X . .
         3   . . X X . .  g
         2    . . . . .  f
         1     . . . .  e
                a b c d
        """
    )
    assert [areas for _, areas in game.partitions()] == [1]
    assert game.score().part("groups without").black == -7
    assert game.score().black == -7


def test_explanations_list_black_then_white_in_board_order() -> None:
    game = DehilGame.from_diagram(
        """
         5    O . X
         4   . . . .
         3  X . . . O
         2   . . . .  e
         1    . . X  d
               a b c
        """
    )
    assert game.explain_score() == [
        "Black group at a3, 1 stone: no partitions (1 area), counts -1",
        "Black group at c1, 1 stone: no partitions (1 area), counts -1",
        "Black group at e5, 1 stone: no partitions (1 area), counts -1",
        "White group at c5, 1 stone: no partitions (1 area), counts -1",
        "White group at e3, 1 stone: no partitions (1 area), counts -1",
    ]


def test_the_half_point_goes_to_the_first_player_to_pass() -> None:
    game = Game(size=3, rules="dehil")
    game.play_all(["pass", "c3", "pass", "pass"])  # Black passed first
    assert game.is_over
    score = game.score()
    assert score.half_point is Color.BLACK and score.half_point_label == "first pass"
    # White's lone c3 (the centre) leaves the ring around it in one piece: -1.
    assert (score.black, score.white) == (0.5, -1)
    assert str(score.result) == "B+1.5"

    game = Game(size=3, rules="dehil")
    game.play_all(["b2", "pass", "pass"])  # White passed first
    score = game.score()
    assert score.half_point is Color.WHITE
    assert (score.black, score.white) == (-1, 0.5)
    assert str(score.result) == "W+1.5"


def test_no_half_point_before_anybody_passed() -> None:
    game = Game(size=3, rules="dehil")
    game.play("b2")
    assert game.score().half_point is None


def test_negative_komi_counts_against_white() -> None:
    game = Game(size=3, komi=-3, rules="dehil")
    game.play_all(["pass", "pass"])
    score = game.score()
    assert score.komi == -3
    assert (score.black, score.white) == (0.5, -3)
    assert str(score.result) == "B+3.5"
    game = Game(size=3, komi=1, rules="dehil")
    game.play_all(["pass", "pass"])
    assert str(game.score().result) == "W+0.5"  # 0.5 against 1


def test_no_territory_liberties_or_captures_to_report() -> None:
    game = DehilGame.from_diagram(HOURGLASS.replace("+", "."))
    assert game.territories() == []
    assert all(g.liberties == frozenset() for g in game.groups())
    assert game.score().neutral is None
    assert game.diagram(territory=True) == game.diagram()


def test_score_as_only_knows_dehil() -> None:
    game = Game(size=3, rules="dehil")
    assert game.score_as("dehil") == game.score()
    with pytest.raises(ConfigError, match="'keil'"):
        game.score_as("keil")


# --- settings -------------------------------------------------------------------------


def test_the_registry_returns_a_dehil_game_with_defaults() -> None:
    game = Game(rules="dehil")
    assert isinstance(game, DehilGame)
    assert game.size == 9 and game.komi == 0 and len(game.points()) == 217


@pytest.mark.parametrize(
    ("kwargs", "named"),
    [
        ({"size": 14}, "size 14"),
        ({"size": 1}, "size 1"),
        ({"komi": 6.5}, "komi 6.5"),
        ({"komi": "6.5"}, "komi 6.5"),
        ({"komi": "six"}, "'six'"),
    ],
)
def test_bad_settings_are_config_errors_naming_the_value(kwargs: dict[str, object], named: str) -> None:
    with pytest.raises(ConfigError, match=named):
        Game(rules="dehil", **kwargs)


def test_a_dehil_game_refuses_other_rule_sets() -> None:
    with pytest.raises(ConfigError, match="'keil'"):
        DehilGame(size=5, rules="keil")
