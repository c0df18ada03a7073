"""Yugo's rules on hand-built positions, each drawn as a diagram.

Every expected value here was worked out from yugo-rules.md by hand; the
comments give the reasoning (which group loses which liberty, who touches
which empty area), so a reader can check the numbers without the engine.

Diagrams: ``X``/``O`` pawns, ``K``/``Q`` Black's and White's kings, ``.`` empty;
top row first, column ``a`` on the left, as records name the points.
"""

from __future__ import annotations

import random
from textwrap import dedent

import pytest

import keilref.engine.yugo  # noqa: F401  (registers the rule set until the package imports it)
from keilref import Color, ConfigError, Game, IllegalMoveError, InvalidMoveError, Reason
from keilref.engine.diagram import SQUARE_ASCII, SQUARE_UNICODE, parse_square, render_square
from keilref.engine.geometry import square_geometry
from keilref.engine.yugo import YugoGame


def position(text: str, **kwargs: object) -> YugoGame:
    return YugoGame.from_diagram(dedent(text), **kwargs)  # type: ignore[arg-type]


def assert_board(game: YugoGame, expected: str) -> None:
    """The pieces on the board are those drawn (marks and spacing aside)."""
    assert parse_square(game.diagram()) == parse_square(dedent(expected)), "\n" + game.diagram()


def reason_of(game: YugoGame, move: str) -> Reason | None:
    """The reason ``play`` gives, checking that ``check`` agrees and that nothing changed."""
    before = game.position
    found = game.check(move)
    try:
        game.copy().play(move)
    except IllegalMoveError as e:
        assert found is not None and found.reason is e.reason
        assert game.position == before
        return e.reason
    assert found is None
    return None


# --- pawns ---------------------------------------------------------------------


ENEMY_IN_ATARI = """
     4  . . . .
     3  . X . .
     2  X O . .
     1  . X . .
        a b c d
"""


def test_pawn_that_would_surround_an_enemy_group_is_illegal() -> None:
    # White b2's only liberty is c2 (a2, b1, b3 are Black): a pawn there
    # would raise the number of surrounded groups from 0 to 1.
    game = position(ENEMY_IN_ATARI)
    for spelling in ("c2", "C2", "P@c2", "P@C2"):
        assert reason_of(game, spelling) is Reason.PAWN_SURROUNDS
    with pytest.raises(IllegalMoveError) as info:
        game.play("c2")
    assert info.value.reason is Reason.PAWN_SURROUNDS
    assert info.value.turn == 1
    assert game.turn == 0 and game.stone_at("c2") is None
    # A pawn elsewhere surrounds nothing and is legal.
    game.play("P@d4")
    assert game.stone_at("d4") is Color.BLACK and not game.is_king("d4")
    assert game.moves == ("d4",)  # canonical notation drops the pawn prefix


def test_pawn_that_would_surround_its_own_group_is_illegal() -> None:
    # a2 and b1 have one liberty, a1. A black pawn there joins them into
    # a1-a2-b1, whose other neighbours a3, b2, c1 are all White: surrounded.
    # Each white pawn keeps two liberties, so only Black's group is at stake.
    game = position(
        """
         4  . . . .
         3  O . . .
         2  X O . .
         1  . X O .
            a b c d
        """
    )
    assert reason_of(game, "a1") is Reason.PAWN_SURROUNDS
    # White may not fill a1 either: that would surround Black's two pawns.
    assert reason_of(position(game.diagram(), to_move=Color.WHITE), "a1") is Reason.PAWN_SURROUNDS
    assert "a1" not in game.legal_moves()
    assert "K@a1" not in game.legal_moves()  # and a king there surrounds no enemy group


# --- kings -----------------------------------------------------------------------


def test_king_that_surrounds_nothing_new_is_illegal() -> None:
    # White's king d4 is already surrounded (c4 and d3 are Black). Black king
    # moves that surround no further white group leave the count at 1.
    game = position(
        """
         4  . . X Q
         3  . O . X
         2  . . . .
         1  . . . .
            a b c d
        """
    )
    assert reason_of(game, "K@a1") is Reason.KING_CAPTURES_NOTHING  # far from everything
    assert reason_of(game, "K@c3") is Reason.KING_CAPTURES_NOTHING  # b3 keeps a3, b4, b2
    assert reason_of(game, "K@b4") is Reason.KING_CAPTURES_NOTHING
    # The same points are fine for pawns: they surround nothing either.
    assert reason_of(game, "a1") is None
    assert reason_of(game, "c3") is None
    # A king on an occupied point is "occupied", whatever it would capture.
    assert reason_of(game, "K@b3") is Reason.OCCUPIED
    assert reason_of(game, "K@d4") is Reason.OCCUPIED


def test_king_that_surrounds_two_enemy_groups_strips_both() -> None:
    # b3 and c2 (White) each have c3 as their only liberty. K@c3 surrounds
    # both (0 -> 2 surrounded white groups): both lose their pawns. Black's
    # new group c3-d3-d2 keeps liberties (c4, e3, ...): Black loses nothing.
    game = position(
        """
         5  . . . . .
         4  . X . . .
         3  X O . X .
         2  . X O X .
         1  . . X . .
            a b c d e
        """
    )
    assert reason_of(game, "c3") is Reason.PAWN_SURROUNDS
    game.play("K@c3")
    assert_board(
        game,
        """
         5  . . . . .
         4  . X . . .
         3  X . K X .
         2  . X . X .
         1  . . X . .
        """,
    )
    assert game.is_king("c3")
    assert game.last_captured == frozenset({"b3", "c2"})
    assert game.prisoners == {Color.BLACK: 2, Color.WHITE: 0}
    assert game.moves == ("K@c3",)
    assert game.to_move is Color.WHITE


def test_king_whose_group_stays_surrounded_loses_own_pawns_and_keeps_kings() -> None:
    # White's group b1(Q)-b2(Q)-c1 has a1 as its only liberty. K@a1 surrounds
    # it; step 1 strips its pawn c1, its kings b1 and b2 stay. In the position
    # that leaves, Black's group a1-a2 touches only a3 (O), b1 (Q), b2 (Q):
    # still surrounded, so step 2 strips Black's pawn a2; the king a1 stays.
    game = position(
        """
         4  . . . .
         3  O X . .
         2  X Q X .
         1  . Q O X
            a b c d
        """
    )
    assert reason_of(game, "a1") is Reason.PAWN_SURROUNDS
    game.play("K@a1")
    assert_board(
        game,
        """
         4  . . . .
         3  O X . .
         2  . Q X .
         1  K Q . X
        """,
    )
    assert game.is_king("a1") and game.is_king("b1") and game.is_king("b2")
    assert game.last_captured == frozenset({"c1", "a2"})
    # Prisoners count the enemy pawns stripped; Black's own a2 is nobody's prisoner.
    assert game.prisoners == {Color.BLACK: 1, Color.WHITE: 0}
    # Afterwards nothing is surrounded: a1 has a2, and b1-b2 has c1.
    assert all(g.liberties for g in game.groups())


def test_white_king_strips_black_and_kings_are_never_removed() -> None:
    # The same rule for White. Black's c2-c1(K) has liberties c3 and b1. Once
    # White fills c3, K@b1 takes the last one: the pawn c2 is stripped, the
    # king c1 stays, and White's b1-b2 keeps a1, a2, b3 and now c2.
    game = position(
        """
         3  . . .
         2  . O X
         1  . . K
            a b c
        """,
        to_move=Color.WHITE,
    )
    # A pawn on c3 is legal: c2-c1 keeps b1, and c3 has b3.
    game.play("c3")
    game.play("a3")  # Black elsewhere
    assert reason_of(game, "b1") is Reason.PAWN_SURROUNDS
    game.play("K@b1")
    assert_board(
        game,
        """
         3  X . O
         2  . O .
         1  . Q K
        """,
    )
    assert game.is_king("c1") and game.stone_at("c1") is Color.BLACK
    assert game.prisoners == {Color.BLACK: 0, Color.WHITE: 1}


def test_king_strips_every_surrounded_group_even_distant_drawn_ones() -> None:
    # A drawn position may hold surrounded groups of pawns, which play never
    # produces: White's b5 (a5, c5, b4 are Black) and Black's a1 (a2, b1 are
    # White). Pawns stay legal beside them: the count stays at 2. K@e2 takes
    # e1's last liberty (surrounded white groups: 1 -> 2). Step 1 strips
    # *every* surrounded white group, e1 and the distant b5; step 2, in the
    # position that leaves, every surrounded black group: the distant a1.
    game = position(
        """
         5  X O X . .
         4  . X . . .
         3  . . . . .
         2  O . . . .
         1  X O . X O
            a b c d e
        """
    )
    assert reason_of(game, "c3") is None
    assert reason_of(game, "e2") is Reason.PAWN_SURROUNDS
    assert reason_of(game, "K@c3") is Reason.KING_CAPTURES_NOTHING
    game.play("K@e2")
    assert_board(
        game,
        """
         5  X . X . .
         4  . X . . .
         3  . . . . .
         2  O . . . K
         1  . O . X .
        """,
    )
    assert game.last_captured == frozenset({"b5", "e1", "a1"})
    assert game.prisoners == {Color.BLACK: 2, Color.WHITE: 0}


# --- score -------------------------------------------------------------------------


def test_surrounded_enemy_kings_score_for_the_opponent() -> None:
    # White's kings b3-b2 are surrounded. Black's pieces: b4, a3, a2, c3, c2,
    # b1 = 6 (each group has a liberty). Black territory: a4 (touches a3, b4)
    # and a1 (touches a2, b1) = 2. Enemy kings: b3, b2 = 2 for Black.
    # White: d1 (liberties c1, d2) = 1 piece; its surrounded kings count
    # nothing for White. c4-d4-d3-d2 touches c3 (X) and d1 (O), c1 touches
    # b1 (X) and d1 (O): 5 neutral points.
    game = position(
        """
         4  . X . .
         3  X Q X .
         2  X Q X .
         1  . X . O
            a b c d
        """,
        komi=3,
        button_holder=Color.WHITE,
    )
    score = game.score()
    assert (score.part("territory").black, score.part("territory").white) == (2, 0)
    assert (score.part("pieces").black, score.part("pieces").white) == (6, 1)
    assert (score.part("enemy kings").black, score.part("enemy kings").white) == (2, 0)
    assert score.neutral == 5
    assert score.black == 10
    assert score.white == 1 + 3 + 0.5  # a piece, the komi, the button
    assert str(score.result) == "B+5.5"
    assert any("b2 b3" in line and "2 kings count for Black" in line for line in game.explain_score())


def test_territory_touching_both_colours_scores_for_nobody() -> None:
    # a4 touches only Black (b4, a3): Black's. The other eight empty points
    # form one area that touches Black (b3, b4...) and White (d4...): nobody's.
    game = position(
        """
         4  . X . O
         3  X X . O
         2  . . . O
         1  . . . O
            a b c d
        """,
        button_holder=Color.BLACK,
    )
    owners = {t.points: t.owner for t in game.territories()}
    assert owners == {
        frozenset({"a4"}): Color.BLACK,
        frozenset({"c4", "c3", "c2", "c1", "b2", "b1", "a2", "a1"}): None,
    }
    score = game.score()
    assert score.neutral == 8
    assert (score.part("territory").black, score.part("territory").white) == (1, 0)
    assert (score.black, score.white) == (1 + 3 + 0.5, 4)
    assert str(score.result) == "B+0.5"
    territory = game.diagram(territory=True)
    assert parse_square(territory)[1][square_geometry(4).index["a4"]] == "x"
    assert parse_square(territory)[1][square_geometry(4).index["a1"]] == "."


# --- the end of the game: stop, agreement, resumption ------------------------------

TO_REMOVE = """
     4  . . . .
     3  . X X .
     2  . K O .
     1  . . . .
        a b c d
"""


def stopped_game() -> YugoGame:
    """Black takes the button, both pass: play stops at the first double pass."""
    game = position(TO_REMOVE)
    game.play_all(["button", "pass", "pass"])
    assert game.is_over
    return game


def test_agreement_removes_whole_groups_kings_included_and_ends_the_game() -> None:
    game = stopped_game()
    # Naming the pawn b3 removes its whole group: b3, c3 and the king b2.
    game.agree_removal(["b3"])
    assert_board(
        game,
        """
         4  . . . .
         3  . . . .
         2  . . O .
         1  . . . .
        """,
    )
    assert game.removed == frozenset({"b2", "b3", "c3"})
    assert game.is_over and game.is_final
    # White: c2 (1 piece) and the other 15 points, which touch only c2.
    score = game.score()
    assert (score.black, score.white) == (0.5, 16)
    assert str(score.result) == "W+15.5"
    # Over for good: no turn and no second agreement.
    with pytest.raises(IllegalMoveError) as info:
        game.play("a1")
    assert info.value.reason is Reason.GAME_OVER
    with pytest.raises(ConfigError):
        game.agree_removal(["c2"])


def test_agreement_may_name_a_king_and_several_groups() -> None:
    game = stopped_game()
    game.agree_removal("b2 c2")  # the Removed tag's text: the king's group, and White's pawn
    assert game.removed == frozenset({"b2", "b3", "c3", "c2"})
    assert all(game.stone_at(p) is None for p in game.points())
    assert game.legal_moves() == []


def test_play_resumes_after_a_double_pass_and_the_next_one_is_final() -> None:
    game = stopped_game()
    assert game.turn == 3 and game.to_move is Color.WHITE
    # The stop can be undone by playing on: a legal turn, and play is no longer over.
    assert reason_of(game, "d4") is None
    game.play("d4")
    assert not game.is_over and game.resumed
    # After resuming, passes count afresh: one pass does not end the game...
    game.play("pass")
    assert not game.is_over
    # ...the next double pass ends it for good.
    game.play("pass")
    assert game.is_over and game.is_final
    for move in ("a1", "K@a1", "pass", "button", "z9"):
        assert reason_of(game, move) is Reason.GAME_OVER
    assert game.legal_moves() == []


def test_a_pass_right_after_the_stop_resumes_play() -> None:
    # Turns 2-3 stop play; turn 4 (a pass) resumes it, so the stop's two
    # passes do not count again: turns 4-5 are the double pass that ends it.
    game = stopped_game()
    game.play("pass")
    assert not game.is_over and game.resumed
    game.play("pass")
    assert game.is_final


def test_agree_removal_after_resumption_raises() -> None:
    game = stopped_game()
    game.play("d4")
    with pytest.raises(ConfigError, match="only possible when play stopped at the first double pass"):
        game.agree_removal(["b3"])
    game.play_all(["pass", "pass"])
    with pytest.raises(ConfigError, match="only possible when play stopped at the first double pass"):
        game.agree_removal(["b3"])
    assert game.stone_at("b3") is Color.BLACK  # nothing was removed


def test_agree_removal_before_play_stops_raises() -> None:
    game = position(TO_REMOVE)
    with pytest.raises(ConfigError, match="only possible when play stopped at the first double pass"):
        game.agree_removal(["b3"])


def test_agree_removal_at_an_empty_point_raises_naming_it() -> None:
    game = stopped_game()
    with pytest.raises(ConfigError, match="'a1'"):
        game.agree_removal(["b3", "a1"])
    with pytest.raises(ConfigError, match="'z9'"):
        game.agree_removal(["z9"])
    # A refused agreement changes nothing; play is still stopped, and can end by agreement.
    assert game.stone_at("b3") is Color.BLACK and game.stone_at("c3") is Color.BLACK
    assert game.is_over and not game.is_final
    game.agree_removal([])
    assert game.is_final and game.stone_at("b3") is Color.BLACK


def test_the_removed_text_is_split_at_white_space_only() -> None:
    # Space, tab and line breaks separate points; a no-break space or a
    # control character is part of a point, which then names none.
    game = stopped_game()
    with pytest.raises(ConfigError, match="'b2\\\\xa0c2'"):
        game.agree_removal("b2\xa0c2")
    assert game.is_over and not game.is_final
    game.agree_removal(" b2\tc2\r\n")
    assert game.removed == frozenset({"b2", "b3", "c3", "c2"})


@pytest.mark.parametrize(
    "gap, error",
    [
        (" ", None),
        ("\t", None),
        ("\xa0", "'c1\\xa0h9' is not a point (such as d4): U+00A0 (no-break space) separates nothing"),
        ("\x1f", "'c1\\x1fh9' is not a point (such as d4): U+001F (unit separator, a control character) separates nothing"),
    ],
)
def test_a_removed_tag_separates_its_points_by_white_space_only(gap: str, error: str | None) -> None:
    from pathlib import Path

    from keilref import check_text

    path = Path(__file__).resolve().parent.parent / "records/games/yugo/size10-dead-groups-removed-by-agreement.keil"
    (verdict,) = check_text(path.read_text(encoding="utf-8").replace('"c1 h9"', f'"c1{gap}h9"'))
    if error is None:
        assert verdict.status.value == "ok"
    else:
        assert verdict.status.value == "error" and verdict.error is not None
        assert verdict.error.message == f'Removed "c1{gap}h9": {error}'
        assert (verdict.error.line, verdict.error.column) == (11, 1)


# --- button and pass, precedence ------------------------------------------------------


def test_button_and_pass_follow_keil() -> None:
    game = Game(size=5, komi=0, rules="yugo")
    assert reason_of(game, "pass") is Reason.PASS_BEFORE_BUTTON  # type: ignore[arg-type]
    game.play("button")
    assert game.button_holder is Color.BLACK
    assert reason_of(game, "button") is Reason.BUTTON_TAKEN  # type: ignore[arg-type]
    assert game.legal_moves()[-1] == "pass"


def test_precedence_game_over_then_off_board_then_occupied() -> None:
    game = position(ENEMY_IN_ATARI)
    assert reason_of(game, "e1") is Reason.OFF_BOARD
    assert reason_of(game, "K@a5") is Reason.OFF_BOARD
    assert reason_of(game, "K@b2") is Reason.OCCUPIED
    assert reason_of(game, "P@b1") is Reason.OCCUPIED
    game.play_all(["button", "pass", "pass", "pass", "pass"])
    assert reason_of(game, "e1") is Reason.GAME_OVER
    assert reason_of(game, "b2") is Reason.GAME_OVER


def test_legal_moves_lists_pawns_then_kings_then_pass() -> None:
    # On this 2x2 board a1 (Black) has liberties a2 and b1. A White pawn on
    # either leaves it a liberty; a White king on either surrounds nothing.
    game = position(
        """
         2  . .
         1  X .
            a b
        """,
        to_move=Color.WHITE,
        button_holder=Color.BLACK,
    )
    assert game.legal_moves() == ["a2", "b1", "b2", "pass"]
    game.play("a2")
    # Black: a pawn on b1 leaves a2 its liberty b2 and a1-b1 the same b2: legal.
    # A pawn on b2 would take a2's last liberty: illegal. A king there is legal
    # for the same reason; a king on b1 surrounds nothing.
    assert game.legal_moves() == ["b1", "K@b2", "pass"]


# --- diagrams ---------------------------------------------------------------------


def test_square_diagram_format() -> None:
    geo = square_geometry(3)
    glyphs = ["."] * 9
    glyphs[geo.index["a1"]] = "X"
    glyphs[geo.index["b2"]] = "K"
    glyphs[geo.index["c3"]] = "Q"
    assert render_square(geo, glyphs, mark=geo.index["b2"]) == (
        " 3  . . Q\n"
        " 2  .(K).\n"
        " 1  X . .\n"
        "    a b c\n"
    )


@pytest.mark.parametrize("size", [2, 3, 7, 13, 19, 25])
@pytest.mark.parametrize("glyph_set", [SQUARE_ASCII, SQUARE_UNICODE], ids=["ascii", "unicode"])
def test_square_diagram_round_trip(size: int, glyph_set: dict[str, str]) -> None:
    rng = random.Random(size)
    geo = square_geometry(size)
    glyphs = [rng.choice(list(glyph_set.values())) for _ in range(geo.n_points)]
    mark = rng.randrange(geo.n_points)
    assert parse_square(render_square(geo, glyphs, mark)) == (size, glyphs)
    assert parse_square(render_square(geo, glyphs)) == (size, glyphs)


def test_game_diagram_round_trips_through_from_diagram() -> None:
    game = position(ENEMY_IN_ATARI)
    game.play("K@c2")
    again = YugoGame.from_diagram(game.diagram(unicode=True))
    assert again.position == game.position
    assert "♚" in game.diagram(unicode=True)


def test_parse_square_refuses_malformed_diagrams() -> None:
    with pytest.raises(ValueError, match="row 2 has 1 points"):
        parse_square(" 2  .\n 1  . .\n")
    with pytest.raises(ValueError, match="count down"):
        parse_square(" 3  . . .\n 1  . . .\n 2  . . .\n")


# --- configuration and tokens ----------------------------------------------------


def test_game_factory_returns_a_yugo_game() -> None:
    game = Game(size=13, komi=0, rules="yugo")
    assert isinstance(game, YugoGame)
    assert game.size == 13 and game.piece_prefixes == ("", "K@")
    assert YugoGame().size == 13


@pytest.mark.parametrize("size", [1, 26])
def test_size_out_of_range_is_refused_naming_it(size: int) -> None:
    with pytest.raises(ConfigError, match=f"size {size} "):
        Game(size=size, komi=0, rules="yugo")


def test_half_komi_and_no_button_are_refused() -> None:
    with pytest.raises(ConfigError, match="6.5"):
        Game(size=9, komi=6.5, rules="yugo")
    with pytest.raises(ConfigError, match="6.5"):
        Game(size=9, komi="6.5", rules="yugo")
    with pytest.raises(ConfigError, match="button"):
        Game(size=9, komi=0, rules="yugo", button=False)


@pytest.mark.parametrize("token", ["k@d4", "Q@d4", "K@", "d", "4d", "hello", "K@pass", "P@K@d4"])
def test_malformed_token_is_invalid_naming_it(token: str) -> None:
    game = Game(size=9, komi=0, rules="yugo")
    with pytest.raises(InvalidMoveError) as info:
        game.play(token)
    assert repr(token) in str(info.value)
    assert game.turn == 0


@pytest.mark.parametrize("token", ["j1", "a10", "K@j9", "P@a0", "z99"])
def test_off_board_token_is_illegal(token: str) -> None:
    game = Game(size=9, komi=0, rules="yugo")
    with pytest.raises(IllegalMoveError) as info:
        game.play(token)
    assert info.value.reason is Reason.OFF_BOARD and info.value.move == token


def test_score_as_accepts_only_the_yugo_family() -> None:
    game = position(ENEMY_IN_ATARI, button_holder=Color.BLACK)
    assert game.score_as("yugo") == game.score()
    with pytest.raises(ConfigError, match="'keil'"):
        game.score_as("keil")
