"""Property tests: the fast engine against the literal reference (tests/reference.py).

Random games under both rule sets are played on the engine and on the
reference side by side. Every turn -- legal or not -- is decided by both and
the decisions (reason, repeated turn) must agree; after every legal turn the
boards (so the captures) must agree; groups, territories and the score are
compared at checkpoints and at the end.
"""

from __future__ import annotations

import random
import sys
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

# The checkout root (for keilref, when it is not installed) and this folder (for reference).
for _path in (Path(__file__).resolve().parent.parent, Path(__file__).resolve().parent):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

import reference as R  # noqa: E402

from keilref import Color, Game, IllegalMoveError, KeilGame  # noqa: E402
from keilref.engine.diagram import render_hex  # noqa: E402
from keilref.engine.geometry import hex_geometry  # noqa: E402

COLOR = {R.BLACK: Color.BLACK, R.WHITE: Color.WHITE}


# --- comparing one engine game with one reference game -----------------------


def engine_board(game: KeilGame) -> dict[str, int]:
    out = {}
    for p in game.points():
        stone = game.stone_at(p)
        out[p] = 0 if stone is None else int(stone)
    return out


def assert_same_state(eng: KeilGame, ref: R.RefKeil) -> None:
    assert engine_board(eng) == ref.board
    assert eng.turn == ref.turn
    assert eng.to_move is COLOR[ref.to_move]
    assert eng.is_over == ref.is_over
    assert eng.button_holder == (None if ref.holder is None else COLOR[ref.holder])
    assert eng.position[-1] == int(ref.button_taken)


def assert_same_analysis(eng: KeilGame, ref: R.RefKeil) -> None:
    """Groups (with liberties), territories (with owners) and the score."""
    eng_groups = {(g.color, g.points, g.liberties) for g in eng.groups()}
    ref_groups = {(COLOR[c], stones, libs) for c, stones, libs in ref.groups()}
    assert eng_groups == ref_groups
    assert len(eng.groups()) == len(ref.groups())
    eng_terr = {(t.points, t.owner) for t in eng.territories()}
    ref_terr = {(area, None if owner is None else COLOR[owner]) for area, owner in ref.territories()}
    assert eng_terr == ref_terr
    assert len(eng.territories()) == len(ref.territories())
    black, white, parts = ref.score()
    score = eng.score()
    assert (score.black, score.white) == (black, white)
    assert score.black_stones == parts["black_stones"]
    assert score.white_stones == parts["white_stones"]
    assert score.black_territory == parts["black_territory"]
    assert score.white_territory == parts["white_territory"]
    assert score.neutral == parts["neutral"]


def assert_same_legal_moves(eng: KeilGame, ref: R.RefKeil) -> None:
    expected = set(ref.legal_moves())
    # placements in point order, then button or pass
    order = [p for p in eng.points() if p in expected] + [m for m in ("button", "pass") if m in expected]
    before = (eng.position, eng.turn, eng.moves, eng.prisoners, eng.last_captured)
    assert eng.legal_moves() == order
    assert (eng.position, eng.turn, eng.moves, eng.prisoners, eng.last_captured) == before


def step(eng: KeilGame, ref: R.RefKeil, move: str) -> R.Verdict:
    """Decide ``move`` on both, play it if legal, and compare everything."""
    expected = ref.check(move)
    found = eng.check(move)
    if expected.reason is None:
        assert found is None, f"{move}: engine says {found}, reference says legal"
    else:
        assert found is not None, f"{move}: engine says legal, reference says {expected.reason}"
        assert found.reason.value == expected.reason, move
        assert found.repeats_turn == expected.repeats_turn, move
        assert found.turn == ref.turn + 1
    before = eng.position
    if expected.reason is None:
        eng.play(move)
        ref.play(move, expected)
        assert eng.last_captured == ref.last_captured
        assert eng.prisoners == {Color.BLACK: ref.prisoners[R.BLACK], Color.WHITE: ref.prisoners[R.WHITE]}
        assert eng.moves[-1] == move
    else:
        with pytest.raises(IllegalMoveError) as info:
            eng.play(move)
        assert info.value.reason.value == expected.reason
        assert info.value.repeats_turn == expected.repeats_turn
        assert eng.position == before  # a rejected turn changes nothing
    assert_same_state(eng, ref)
    return expected


def new_pair(size: int, rules: str, komi: float, button: bool) -> tuple[KeilGame, R.RefKeil]:
    eng = Game(size=size, komi=komi, rules=rules, button=button)
    assert isinstance(eng, KeilGame)
    return eng, R.RefKeil(size, komi, rules, button)


def off_board_names(size: int) -> list[str]:
    """Well-formed point names that are not on a board of this size."""
    out = ["a0", f"a{2 * size}", f"{chr(ord('a') + 2 * size - 1)}1", "z99"]
    out += [R.point_name(0, size), R.point_name(size, 0), R.point_name(2 * size - 2, 0)]
    out += [R.point_name(2 * size - 1, 2 * size - 1)]
    return sorted(set(out))


# --- strategies ------------------------------------------------------------------


@st.composite
def configs(draw: st.DrawFn, sizes: tuple[int, int] = (2, 6)) -> tuple[int, str, float, bool]:
    size = draw(st.integers(*sizes))
    rules = draw(st.sampled_from(R.RULE_SETS))
    if rules == "keil":
        komi: float = draw(st.integers(-3, 8))
        button = True
    else:
        komi = draw(st.integers(-6, 16)) / 2
        button = draw(st.integers(0, 3)) > 0  # button=False one time in four
    return size, rules, komi, button


def draw_move(data: st.DataObject, ref: R.RefKeil) -> str:
    """Mostly a random empty point; sometimes pass/button, an occupied or an off-board point."""
    kind = data.draw(st.integers(0, 99), label="kind")
    empties = ref.empty_points()
    occupied = ref.occupied_points()
    if kind < 78 and empties:
        return data.draw(st.sampled_from(empties), label="point")
    if kind < 90:
        return data.draw(st.sampled_from(["pass", "button"]), label="word")
    if kind < 96 and occupied:
        return data.draw(st.sampled_from(occupied), label="occupied")
    return data.draw(st.sampled_from(off_board_names(ref.size)), label="off-board")


# --- the coordinates the reference rebuilt agree with keilref.engine.geometry -------------


@pytest.mark.parametrize("size", range(2, 14))
def test_reference_board_matches_geometry(size: int) -> None:
    geo = hex_geometry(size)
    nbrs = R.board_neighbours(size)
    assert set(geo.names) == set(nbrs)
    for p, name in enumerate(geo.names):
        assert {geo.names[q] for q in geo.neighbours[p]} == nbrs[name]
        for q in geo.neighbours[p]:
            assert {geo.names[w] for w in geo.wings[(p, q)]} == nbrs[name] & nbrs[geo.names[q]]


# --- random turns, every kind of turn, sizes 2..6 ------------------------------------


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(config=configs(), data=st.data())
def test_engine_matches_reference_on_random_turns(config: tuple[int, str, float, bool], data: st.DataObject) -> None:
    size, rules, komi, button = config
    eng, ref = new_pair(size, rules, komi, button)
    n_turns = data.draw(st.integers(1, 70), label="turns")
    for _ in range(n_turns):
        verdict = step(eng, ref, draw_move(data, ref))
        event(f"decision: {verdict.reason or 'legal'}")
        if data.draw(st.integers(0, 9), label="checkpoint") == 0:
            assert_same_analysis(eng, ref)
            assert_same_legal_moves(eng, ref)  # and play on: it must change nothing
    assert_same_analysis(eng, ref)
    assert_same_legal_moves(eng, ref)
    if ref.is_over:
        # Any turn after the end is illegal, even a malformed-looking off-board one.
        for move in ["pass", "button", *ref.points[:3], *off_board_names(size)[:2]]:
            assert step(eng, ref, move).reason == R.GAME_OVER


# --- random start positions (set up with from_diagram) ------------------------------


@st.composite
def start_positions(draw: st.DrawFn) -> tuple[str, dict[str, int], int, int | None, str]:
    """A random position in which every group has a liberty, as a diagram.

    Groups without liberties cannot arise in play (captures remove the
    opponent's, suicide forbids one's own, and a placement can only take
    liberties from groups next to it); they are taken off here.
    """
    size = draw(st.integers(2, 5))
    rules = draw(st.sampled_from(R.RULE_SETS))
    geo = hex_geometry(size)
    glyphs = draw(st.lists(st.sampled_from("..XO"), min_size=geo.n_points, max_size=geo.n_points))
    ref = R.RefKeil(size, rules=rules)
    board = {geo.names[i]: ".XO".index(g) for i, g in enumerate(glyphs)}
    while True:
        dead = [stones for _, stones, libs in ref.groups(board) if not libs]
        if not dead:
            break
        for p in dead[0]:
            board[p] = R.EMPTY
    diagram = render_hex(geo, [".XO"[board[p]] for p in geo.names])
    to_move = draw(st.sampled_from([R.BLACK, R.WHITE]))
    holder = draw(st.sampled_from([None, R.BLACK, R.WHITE]))
    return diagram, board, to_move, holder, rules


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(start=start_positions(), data=st.data())
def test_engine_matches_reference_from_random_positions(
    start: tuple[str, dict[str, int], int, int | None, str], data: st.DataObject
) -> None:
    diagram, board, to_move, holder, rules = start
    eng = KeilGame.from_diagram(
        diagram, rules=rules, to_move=COLOR[to_move], button_holder=None if holder is None else COLOR[holder]
    )
    ref = R.RefKeil(eng.size, 0, rules, True, board=board, to_move=to_move, holder=holder)
    assert_same_state(eng, ref)
    assert_same_analysis(eng, ref)
    assert_same_legal_moves(eng, ref)
    for _ in range(data.draw(st.integers(0, 30), label="turns")):
        step(eng, ref, draw_move(data, ref))
    assert_same_analysis(eng, ref)


# --- long games on small boards: captures, ko and superko really happen ------------

MAX_TURNS = 1500


def play_long_game(
    rng: random.Random,
    size: int,
    rules: str,
    komi: float,
    button: bool,
    stats: Counter[str],
    every: int = 15,
    fill_until: int = 60,
) -> tuple[KeilGame, R.RefKeil]:
    """Fill the board at random until no placement is legal and two passes end it."""
    eng, ref = new_pair(size, rules, komi, button)
    while not ref.is_over:
        button_available = ref.button_in_play and not ref.button_taken
        if ref.turn >= MAX_TURNS:
            step(eng, ref, "button" if button_available else "pass")
            stats["capped"] += ref.is_over
            continue
        if button_available and rng.random() < 0.04:
            step(eng, ref, "button")
            continue
        roll = rng.random()
        if roll < 0.03 and ref.occupied_points():
            assert step(eng, ref, rng.choice(ref.occupied_points())).reason == R.OCCUPIED
        elif roll < 0.04:
            assert step(eng, ref, rng.choice(off_board_names(size))).reason == R.OFF_BOARD
        elif roll < 0.05:
            word = "pass" if button_available else "button"
            stats["early " + word] += 1
            step(eng, ref, word)
            continue
        # Random play; after turn ``fill_until`` a player no longer fills the
        # one-point territories they own (their "eyes"): that is what lets
        # random games end by passes in reasonable time.
        eyes = set()
        if ref.turn >= fill_until:
            eyes = {p for t in eng.territories() if t.owner is COLOR[ref.to_move] and len(t.points) == 1 for p in t.points}
        candidates = [p for p in ref.empty_points() if p not in eyes]
        rng.shuffle(candidates)
        for point in candidates:
            verdict = step(eng, ref, point)
            stats[verdict.reason or "legal"] += 1
            if verdict.reason is None:
                if verdict.captured:
                    stats["captures"] += 1
                    stats["stones captured"] += len(verdict.captured)
                break
            if verdict.reason == R.SUPERKO:
                # repeats_turn == ref.turn - 1: the player's own previous turn (a ko)
                long = verdict.repeats_turn != ref.turn - 1
                stats["superko (longer cycle)" if long else "ko (immediate recapture)"] += 1
        else:
            step(eng, ref, "button" if button_available else "pass")
        if ref.turn % every == 0:
            assert_same_analysis(eng, ref)
    assert_same_analysis(eng, ref)
    assert eng.legal_moves() == []
    if rules == "keil":
        # whole komi and the button always taken: every finished game has a winner
        assert eng.score().winner is not None
    stats["games"] += 1
    stats["turns"] += ref.turn
    return eng, ref


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(config=configs(sizes=(3, 4)), seed=st.integers(0, 2**32 - 1), fill_until=st.integers(0, 200))
def test_long_games_match_reference(config: tuple[int, str, float, bool], seed: int, fill_until: int) -> None:
    size, rules, komi, button = config
    rng = random.Random(seed)  # drawn by hypothesis; a whole game draws too much to draw turn by turn
    stats: Counter[str] = Counter()
    play_long_game(rng, size, rules, komi, button, stats, fill_until=fill_until)
    assert stats["capped"] == 0
    for key in ("captures", "superko", "ko (immediate recapture)", "suicide"):
        event(f"{key} happened" if stats[key] else f"no {key}")


def test_fixed_sample_has_captures_ko_and_superko() -> None:
    """The long-game driver really reaches captures, suicides and superko."""
    stats: Counter[str] = Counter()
    for seed in range(6):
        rng = random.Random(seed)
        size = 3 + seed % 2
        rules = R.RULE_SETS[seed % 2 == 0]
        play_long_game(rng, size, rules, komi=seed % 3, button=True, stats=stats, every=40, fill_until=100)
    assert stats["games"] == 6
    assert stats["captures"] >= 10, stats
    assert stats["stones captured"] > stats["captures"], stats  # some multi-stone captures
    assert stats["suicide"] > 0, stats
    assert stats["superko"] > 0, stats
    assert stats["ko (immediate recapture)"] > 0, stats
    assert stats["capped"] == 0, stats  # every game ended by itself


# --- the two rule sets agree on legality and captures ---------------------------------


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(size=st.integers(2, 5), komi=st.integers(-2, 7), data=st.data())
def test_rule_sets_agree_on_legality_and_captures(size: int, komi: int, data: st.DataObject) -> None:
    engines = {rules: KeilGame(size=size, komi=komi, rules=rules) for rules in R.RULE_SETS}
    refs = {rules: R.RefKeil(size, komi, rules) for rules in R.RULE_SETS}
    n_turns = data.draw(st.integers(1, 90), label="turns")
    for _ in range(n_turns):
        move = draw_move(data, refs["keil"])
        verdicts = {rules: step(engines[rules], refs[rules], move) for rules in R.RULE_SETS}
        assert verdicts["keil"].reason == verdicts["keil-2019"].reason
        assert verdicts["keil"].repeats_turn == verdicts["keil-2019"].repeats_turn
        assert verdicts["keil"].captured == verdicts["keil-2019"].captured
        assert refs["keil"].board == refs["keil-2019"].board
        assert engines["keil"].position == engines["keil-2019"].position
    for rules in R.RULE_SETS:
        assert_same_analysis(engines[rules], refs[rules])


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(size=st.integers(3, 4), seed=st.integers(0, 2**32 - 1))
def test_rule_sets_agree_over_long_games(size: int, seed: int) -> None:
    """A whole long game under keil, replayed under keil-2019: same decisions, same boards."""
    rng = random.Random(seed)
    stats: Counter[str] = Counter()
    eng, ref = play_long_game(rng, size, "keil", 0, True, stats, every=1000, fill_until=rng.randrange(200))
    eng2019, ref2019 = new_pair(size, "keil-2019", 0, True)
    replay = KeilGame(size=size, komi=0, rules="keil")
    for move in eng.moves:
        v2019 = step(eng2019, ref2019, move)
        assert v2019.reason is None, move
        replay.play(move)
        assert eng2019.position == replay.position
        assert eng2019.last_captured == replay.last_captured
    assert eng2019.is_over
    assert_same_analysis(eng2019, ref2019)
