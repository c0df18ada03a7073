"""A game that starts from a position, written as a record and read back.

``Game.to_record`` writes a position's tags (``Setup``, and ``ToMove``,
``ButtonTaken`` and ``FirstPass`` where they say more than their defaults)
for a game made by ``Game.from_position`` or drawn by ``from_diagram``;
``write_record`` writes it as version 3, numbered from ``1...`` when White
plays first; reading it back and replaying gives the same game: the same
position before the first turn and after the last, the same player to move,
the same button and first pass. A game its record would not replay is
refused with the reason.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import keilref
from keilref import Color, Game, StartPosition
from keilref.engine.recording import start_position_of
from keilref.records.parser import parse_record
from keilref.referee.verdict import adjudicate

FAMILIES: dict[str, tuple[tuple[int, int], tuple[float, ...], tuple[bool | None, ...]]] = {
    "keil": ((2, 4), (0, 3, -2), (None,)),
    "keil-2019": ((2, 4), (0, 2.5), (True, False)),
    "yugo": ((2, 5), (0, 4), (None,)),
    "dehil": ((2, 4), (0, 5), (None,)),
}


def state(game: Game, *, diagram: bool = False) -> dict[str, Any]:
    """Everything a game holds but where ``pop`` goes back to, and the start
    position's own order of stones (a record writes them sorted). A
    diagram's position is at the end of nobody's turn, a record's at the end
    of a turn of the player who does not move first: the key superko
    compares with differs (:func:`test_a_diagram_game_that_recreates_its_position_where_a_record_forbids_it_is_refused`)."""
    left_out = ("_start_state", "_start_position", *(("_start_key",) if diagram else ()))
    return {k: v for k, v in vars(game).items() if k not in left_out}


def observed(game: Game) -> tuple[object, ...]:
    is_king = getattr(game, "is_king", None)
    return (
        game.turn,
        game.to_move,
        game.moves,
        game.button_holder,
        getattr(game, "first_pass", None),
        game.is_over,
        game.is_final,
        dict(game.prisoners),
        tuple(game.stone_at(p) for p in game.points()),
        tuple(is_king(p) for p in game.points()) if is_king else (),
        game.legal_moves(),
        game.score(),
    )


def play_randomly(game: Game, draw: st.DrawFn, most: int, label: str) -> None:
    for _ in range(draw(st.integers(0, most), label=f"{label} turns")):
        legal = game.legal_moves()
        if not legal or game.is_over:
            break
        placements = [m for m in legal if m not in ("pass", "button")]
        if placements and draw(st.integers(0, 9), label="kind") > 1:
            game.play(draw(st.sampled_from(placements), label="placement"))
        else:
            game.play(draw(st.sampled_from(legal), label="other"))


def board_of(game: Game, to_move: Color) -> StartPosition:
    """The game's position as a ``Setup`` gives it, with ``to_move`` to play."""
    is_king = getattr(game, "is_king", None)

    def stones(color: Color) -> tuple[keilref.Placed, ...]:
        return tuple(keilref.Placed(p, bool(is_king and is_king(p))) for p in sorted(game.stones(color)))

    return StartPosition(stones(Color.BLACK), stones(Color.WHITE), to_move, game.button_holder, getattr(game, "first_pass", None))


@st.composite
def games_from_positions(draw: st.DrawFn, rules: str) -> Game:
    """A random game cut at a random turn, set up from its position with
    either player to move, then played on at random."""
    (low, high), komis, buttons = FAMILIES[rules]
    size = draw(st.integers(low, high), label="size")
    komi = draw(st.sampled_from(komis), label="komi")
    button = draw(st.sampled_from(buttons), label="button")
    before = keilref.Game(size=size, komi=komi, rules=rules, button=button)
    play_randomly(before, draw, 30, "before")
    to_move = draw(st.sampled_from([Color.BLACK, Color.WHITE]), label="to move")
    game = Game.from_position(board_of(before, to_move), size=size, komi=komi, rules=rules, button=button)
    play_randomly(game, draw, 30, "after")
    if rules == "yugo" and game.is_over and not game.is_final and draw(st.booleans(), label="removal"):
        pieces = [p for p in game.points() if game.stone_at(p) is not None]
        if pieces:
            game.agree_removal(draw(st.lists(st.sampled_from(pieces), min_size=1, max_size=3), label="removed"))
    return game


def written_and_read(game: Game) -> tuple[str, keilref.Record, Game]:
    record = game.to_record({"Event": "from a position"})
    text = keilref.write_record(record)
    parsed = parse_record(text)
    assert parsed == record
    return text, parsed, parsed.replay()


def assert_same_game(again: Game, game: Game, *, diagram: bool = False) -> None:
    assert again.moves == game.moves
    assert state(again, diagram=diagram) == state(game, diagram=diagram)
    assert observed(again) == observed(game)
    start, start_again = start_position_of(game), again.start_position
    assert start is not None and start_again is not None
    assert again.white_first == (start.to_move is Color.WHITE)
    if not diagram:  # a diagram's game has no start position to say who moved first
        assert again.white_first == game.white_first
    assert start_again.tags() == start.tags()
    assert set(start_again.stones()) == set(start.stones())
    # Back at the start, the two games stand on the same position.
    while again.moves:
        again.pop()
    assert observed(again)[1:] == observed(again._start())[1:]


@pytest.mark.parametrize("rules", list(FAMILIES))
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_game_from_a_position_written_as_a_record_replays_to_the_same_game(rules: str, data: st.DataObject) -> None:
    game = data.draw(games_from_positions(rules))
    text, parsed, again = written_and_read(game)
    assert_same_game(again, game)
    assert parsed.setup is not None
    if game.white_first and game.moves:
        assert "\n1... " in text
    # The referee agrees with what the game says of itself, without a warning.
    verdict = adjudicate(parsed, file="-", game=1)
    assert verdict.status.value == ("ok" if game.is_over else "unfinished")
    assert verdict.warnings == ()
    # Written any other way (tags in another order, the Setup spelt
    # otherwise, a turn more that may be illegal), the canonical text of it
    # has the same verdict.
    extra = data.draw(st.sampled_from([*game.points(), "pass"]), label="extra turn") if not game.is_over else ""
    messy = keilref.read_game(_messy(text, extra))
    canonical = keilref.read_game(keilref.write_record(messy))
    assert keilref.write_record(canonical) == keilref.write_record(messy)
    assert _unplaced(adjudicate(canonical, file="-", game=1)) == _unplaced(adjudicate(messy, file="-", game=1))


def _messy(text: str, extra: str) -> str:
    """The record with its tags reversed, its Setup's lists reversed and in
    upper case, and ``extra`` as one more turn (before the result)."""
    head, _, moves = text.partition("\n\n")
    tags = head.splitlines()[::-1]
    for i, tag in enumerate(tags):
        if tag.startswith("[Setup "):
            value = tag[len('[Setup "') : -2]
            black, _, white = value[len("B: ") :].partition("W:")
            tags[i] = f'[Setup "B:  {" ".join(black.split()[::-1]).upper()}  W: {" ".join(white.split()[::-1]).upper()}"]'
    words = moves.split()
    if extra:
        words.insert(len(words) - 1, extra)
    return "\n".join(tags) + "\n\n" + " ".join(w for w in words if not w[0].isdigit() or not w.endswith(".")) + "\n"


def _unplaced(verdict: keilref.Verdict) -> dict[str, Any]:
    data = verdict.to_json()
    for key in ("line", "warning_places", "mismatch"):
        data.pop(key)
    for part in (data["illegal"], data["error"]):
        if part is not None:
            part.pop("line")
            part.pop("column")
    return data


def test_a_white_first_position_is_written_as_version_3_byte_for_byte() -> None:
    game = Game.from_position("B: b1 a1 W: c3", size=3, to_move="White", button_taken="Black")
    game.play_all(["b2", "a2", "c1", "pass", "pass"])
    text = keilref.write_record(game.to_record({"Event": "Problem 4"}))
    assert text == (
        '[Event "Problem 4"]\n[Rules "keil"]\n[Size "3"]\n[Komi "0"]\n[Button "yes"]\n'
        '[Setup "B: a1 b1 W: c3"]\n[ToMove "White"]\n[ButtonTaken "Black"]\n'
        f"\n1... b2 2. a2 c1 3. pass pass {game.score().result}\n"
    )
    (verdict,) = keilref.check_text(text)
    assert verdict.status is keilref.Status.OK and verdict.warnings == ()
    assert_same_game(keilref.read_game(text).replay(), game)


def test_a_dehil_first_pass_and_a_yugo_king_are_written() -> None:
    dehil = Game.from_position("B: a1 W: c3", rules="dehil", size=3, first_pass="White")
    assert [(t.name, t.value) for t in dehil.to_record().tags][-2:] == [("Setup", "B: a1 W: c3"), ("FirstPass", "White")]
    assert_same_game(keilref.read_game(keilref.write_record(dehil.to_record())).replay(), dehil)
    yugo = Game.from_position("B: K@c3 b2 W: d4", rules="yugo", size=5)
    yugo.play("a1")
    assert yugo.to_record().tag_value("Setup") == "B: b2 K@c3 W: d4"
    assert_same_game(keilref.read_game(keilref.write_record(yugo.to_record())).replay(), yugo)


def _diagram(rules: str, moves: tuple[str, ...], size: int = 3) -> str:
    game = keilref.Game(size=size, rules=rules)
    game.play_all(moves)
    return game.diagram()


@pytest.mark.parametrize(
    "make",
    [
        lambda: keilref.KeilGame.from_diagram(
            _diagram("keil", ("a1", "c3")), to_move=Color.WHITE, button_holder=Color.BLACK
        ),
        lambda: keilref.YugoGame.from_diagram(_diagram("yugo", ("a1", "c3")).replace("X", "K")),
        lambda: keilref.DehilGame.from_diagram(_diagram("dehil", ("a1", "c3")), to_move=Color.WHITE),
    ],
    ids=["keil", "yugo", "dehil"],
)
def test_a_game_drawn_from_a_diagram_is_written_from_its_position(make: Any) -> None:
    game = make()
    start = start_position_of(game)
    assert start is not None
    game.play(game.legal_moves()[0])
    text, parsed, again = written_and_read(game)
    assert parsed.setup is not None and parsed.setup.tags() == start.tags()
    assert set(parsed.setup.stones()) == set(start.stones())
    assert_same_game(again, game, diagram=True)


def test_a_game_from_the_empty_board_writes_no_position_and_may_not_be_given_one() -> None:
    game = keilref.Game(size=3)
    game.play("a1")
    game.pop()  # a game that went back to the start is still one from the empty board
    game.play("b1")
    assert [t.name for t in game.to_record().tags] == ["Rules", "Size", "Komi", "Button"]
    with pytest.raises(ValueError, match="tag Setup 'B: a1 W:' disagrees with the game, which starts from the empty board"):
        game.to_record({"Setup": "B: a1 W:"})


def test_position_tags_given_must_say_what_the_game_says() -> None:
    game = Game.from_position("B: b1 a1 W: c3", size=3, to_move="White")
    # The same position in another spelling, and a default said out loud, are the game's own.
    record = game.to_record({"Setup": "B: a1  b1 W: C3", "ButtonTaken": "no"})
    assert [(t.name, t.value) for t in record.tags if t.name in ("Setup", "ToMove", "ButtonTaken")] == [
        ("Setup", "B: a1 b1 W: c3"),
        ("ToMove", "White"),
    ]
    with pytest.raises(ValueError, match="tag ToMove 'Black' disagrees with the game, which has 'White'"):
        game.to_record({"ToMove": "Black"})
    with pytest.raises(ValueError, match="tag Setup 'B: a1 W: c3' disagrees with the game, which has 'B: a1 b1 W: c3'"):
        game.to_record({"Setup": "B: a1 W: c3"})


def test_a_diagram_no_record_could_start_from_is_refused() -> None:
    # A Yugo pawn surrounded, a Dehil triangle of edge stones: positions no play could leave.
    yugo = keilref.YugoGame.from_diagram(" 3  . . .\n 2  O . .\n 1  X O .\n    a b c\n")
    with pytest.raises(ValueError, match=r"cannot be written as a record: the position it was set up from cannot be a record's Setup \(Setup: no legal play"):
        yugo.to_record()
    dehil = keilref.DehilGame.from_diagram(" 3   . .\n 2  . X .\n 1   X X  c\n      a b\n")
    with pytest.raises(ValueError, match="cannot be a record's Setup"):
        dehil.to_record()


def test_a_diagram_game_that_recreates_its_position_where_a_record_forbids_it_is_refused() -> None:
    """A diagram's position is at the end of nobody's turn; a record's
    ``Setup`` is at the end of the last turn of the player who does not move
    first, who may not recreate it. Written, this game would be illegal."""
    record = keilref.read_game("records/faults/illegal-superko.keil")
    cut = record.replay(turn=29)
    game = keilref.KeilGame.from_diagram(
        cut.diagram(), rules=cut.rules.name, komi=cut.komi, to_move=cut.to_move, button_holder=cut.button_holder
    )
    game.play(record.turns[29].move)
    game.play("e2")  # the diagram's position again, after Black's turn
    with pytest.raises(ValueError, match=r"its turns do not replay from its position .*superko \(repeats the setup position\)"):
        game.to_record()
    game.pop()
    assert game.to_record().tag_value("ToMove") == "White"  # one turn fewer is a record


def test_legal_moves_leave_out_a_placement_that_recreates_the_setup_position() -> None:
    """The turn that superko forbids because it recreates the setup position
    is not among the legal moves, as it is not legal."""
    game = Game.from_position("B: a2 a3 b1 b3 b4 c3 c4 d4 e3 W: c2", size=3, to_move="White", button_taken="White")
    game.play("b2")  # captures b1
    assert game.check("b1") is not None and game.check("b1").reason is keilref.Reason.SUPERKO  # type: ignore[union-attr]
    assert "b1" not in game.legal_moves()
    assert all(game.is_legal(move) for move in game.legal_moves())
