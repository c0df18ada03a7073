"""Property tests: the Dehil engine against the literal reference (tests/reference_dehil.py).

Random games are played on the engine and the reference side by side. Every
turn -- legal, illegal or not a turn at all -- is decided by both and the
decisions must agree; after every turn the boards, turn counts and the end
of the game must agree; groups, the areas each group leaves behind (so which
groups have partitions) and the score are compared at checkpoints and at the
end, and so are the lists of legal turns.
"""

from __future__ import annotations

import random
import sys
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

for _path in (Path(__file__).resolve().parent.parent, Path(__file__).resolve().parent):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

import reference_dehil as R  # noqa: E402

import keilref.engine.dehil  # noqa: E402,F401  (registers the rule set)
from keilref import Color, Game, IllegalMoveError, InvalidMoveError  # noqa: E402
from keilref.engine.dehil import DehilGame, areas_without_each_node  # noqa: E402
from keilref.engine.geometry import hex_geometry  # noqa: E402

COLOR = {R.BLACK: Color.BLACK, R.WHITE: Color.WHITE}
NOT_TURNS = ("button", "hello", "e", "pass!")


# --- comparing one engine game with one reference game --------------------------------


def engine_board(game: DehilGame) -> dict[str, int]:
    return {p: int(stone) if (stone := game.stone_at(p)) else 0 for p in game.points()}


def assert_same_state(eng: DehilGame, ref: R.RefDehil) -> None:
    assert engine_board(eng) == ref.board
    assert eng.turn == ref.turn
    assert eng.to_move is COLOR[ref.to_move]
    assert eng.is_over == ref.is_over
    assert eng.first_pass == (None if ref.first_pass is None else COLOR[ref.first_pass])


def assert_same_analysis(eng: DehilGame, ref: R.RefDehil) -> Counter[str]:
    """Groups, their areas, and the score agree. Returns what was seen."""
    assert {(g.color, g.points) for g in eng.groups()} == {(COLOR[c], pts) for c, pts in ref.groups()}
    assert len(eng.groups()) == len(ref.groups())
    found = sorted((int(g.color), sorted(g.points), areas) for g, areas in eng.partitions())
    expected = sorted((color, sorted(points), areas) for color, points, areas in ref.partitions())
    assert found == expected
    black, white, parts = ref.score()
    score = eng.score()
    assert (score.black, score.white) == (black, white)
    plus, minus = score.part("groups with partitions"), score.part("groups without")
    assert (plus.black, plus.white) == (parts["black_plus"], parts["white_plus"])
    assert (minus.black, minus.white) == (parts["black_minus"], parts["white_minus"])
    assert len(eng.explain_score()) == len(expected)
    return Counter("partitioned" if areas >= 2 else "unpartitioned" for *_, areas in expected)


def step(eng: DehilGame, ref: R.RefDehil, move: str) -> R.Verdict | None:
    """Decide ``move`` on both, play it if legal, and compare. ``None`` for a non-turn."""
    before = eng.position
    try:
        expected = ref.check(move)
    except ValueError:
        with pytest.raises(InvalidMoveError):
            eng.check(move)
        with pytest.raises(InvalidMoveError):
            eng.play(move)
        assert eng.position == before
        assert_same_state(eng, ref)
        return None
    found = eng.check(move)
    if expected.reason is None:
        assert found is None, f"{move}: engine says {found}, reference says legal"
        eng.play(move)
        ref.play(move)
        assert eng.moves[-1] == move.lower()
    else:
        assert found is not None, f"{move}: engine says legal, reference says {expected.reason}"
        assert found.reason.value == expected.reason, move
        assert found.turn == ref.turn + 1
        with pytest.raises(IllegalMoveError) as info:
            eng.play(move)
        assert info.value.reason.value == expected.reason
        assert eng.position == before  # a rejected turn changes nothing
    assert_same_state(eng, ref)
    return expected


def assert_same_legal_moves(eng: DehilGame, ref: R.RefDehil) -> None:
    expected = ref.legal_moves()
    assert eng.legal_moves() == expected  # placements in point order, then pass
    assert eng.legal_moves() == expected  # and asking changed nothing


def new_pair(size: int, komi: int) -> tuple[DehilGame, R.RefDehil]:
    eng = Game(size=size, komi=komi, rules="dehil")
    assert isinstance(eng, DehilGame)
    return eng, R.RefDehil(size, komi)


def off_board_names(size: int) -> list[str]:
    """Well-formed point names that are not on a board of this size."""
    out = ["a0", f"a{2 * size}", f"{chr(ord('a') + 2 * size - 1)}1", "z99"]
    out += [R.point_name(0, size), R.point_name(size, 0), R.point_name(2 * size - 2, 0)]
    return sorted(set(out))


def draw_move(data: st.DataObject, ref: R.RefDehil) -> str:
    """Mostly an empty point; sometimes a pass, an occupied or off-board point, or a non-turn."""
    kind = data.draw(st.integers(0, 99), label="kind")
    empties = ref.empty_points()
    occupied = ref.occupied_points()
    if kind < 80 and empties:
        point = data.draw(st.sampled_from(empties), label="point")
        return point.upper() if kind == 0 else point
    if kind < 88:
        return "pass"
    if kind < 94 and occupied:
        return data.draw(st.sampled_from(occupied), label="occupied")
    if kind < 97:
        return data.draw(st.sampled_from(off_board_names(ref.size)), label="off-board")
    return data.draw(st.sampled_from(NOT_TURNS), label="not a turn")


# --- the reference's board is keilref's board ------------------------------------------


@pytest.mark.parametrize("size", range(2, 14))
def test_reference_board_matches_geometry(size: int) -> None:
    geo = hex_geometry(size)
    nbrs = R.board_neighbours(size)
    assert set(geo.names) == set(nbrs)
    for p, name in enumerate(geo.names):
        assert {geo.names[q] for q in geo.neighbours[p]} == nbrs[name]
        assert geo.is_edge(p) == (name in R.edge_points(size))
    assert len(R.small_triangles(size)) == 6 * (size - 1) ** 2


# --- random turns, every kind of turn, sizes 2..6 ----------------------------------------


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(size=st.integers(2, 6), komi=st.integers(-5, 8), data=st.data())
def test_engine_matches_reference_on_random_turns(size: int, komi: int, data: st.DataObject) -> None:
    eng, ref = new_pair(size, komi)
    n_turns = data.draw(st.integers(1, 90), label="turns")
    for _ in range(n_turns):
        verdict = step(eng, ref, draw_move(data, ref))
        event(f"decision: {'not a turn' if verdict is None else verdict.reason or 'legal'}")
        if data.draw(st.integers(0, 9), label="checkpoint") == 0:
            assert_same_analysis(eng, ref)
            assert_same_legal_moves(eng, ref)
    assert_same_analysis(eng, ref)
    assert_same_legal_moves(eng, ref)
    if ref.is_over:
        # Any turn after the end is illegal: game-over before every other reason.
        for move in ["pass", *ref.points[:3], *off_board_names(size)[:2]]:
            verdict = step(eng, ref, move)
            assert verdict is not None and verdict.reason == R.GAME_OVER


# --- whole games: fill the board until nobody can place ----------------------------------------


def play_full_game(
    rng: random.Random, size: int, komi: int, stats: Counter[str], *, every: int = 10, crowd: bool = False
) -> tuple[DehilGame, R.RefDehil]:
    """Random placements (every candidate tried is compared) until two passes end it.

    ``crowd`` prefers points next to the mover's own stones, which makes
    triangles, and so hourglasses, far more common than uniform play does.
    """
    eng, ref = new_pair(size, komi)
    nbrs = R.board_neighbours(size)
    while not ref.is_over:
        if rng.random() < 0.02:
            step(eng, ref, "pass")
            stats["early pass"] += 1
            continue
        candidates = ref.empty_points()
        rng.shuffle(candidates)
        if crowd:
            candidates.sort(key=lambda p: -sum(ref.board[q] == ref.to_move for q in nbrs[p]) + 2 * rng.random())
        for point in candidates:
            verdict = step(eng, ref, point)
            assert verdict is not None
            stats[verdict.reason or "legal"] += 1
            if verdict.reason is None:
                stats["triangles created"] += verdict.triangles_created
                stats["several triangles at once"] += verdict.triangles_created > 1
                stats["hourglass support"] += verdict.hourglass_support
                break
        else:
            step(eng, ref, "pass")
        if ref.turn % every == 0:
            stats.update(assert_same_analysis(eng, ref))
            assert_same_legal_moves(eng, ref)
    stats.update(assert_same_analysis(eng, ref))
    assert eng.legal_moves() == []
    stats["games"] += 1
    return eng, ref


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(size=st.integers(3, 6), komi=st.integers(-3, 6), crowd=st.booleans(), seed=st.integers(0, 2**32 - 1))
def test_whole_games_match_reference(size: int, komi: int, crowd: bool, seed: int) -> None:
    stats: Counter[str] = Counter()
    play_full_game(random.Random(seed), size, komi, stats, crowd=crowd)
    for key in ("triangle", "triangles created", "hourglass support", "partitioned", "unpartitioned"):
        event(f"{key} happened" if stats[key] else f"no {key}")


def test_fixed_sample_exercises_every_branch() -> None:
    """The drivers really reach what the rules are about, so the comparison means something."""
    stats: Counter[str] = Counter()
    for seed in range(8):
        play_full_game(random.Random(seed), 4 + seed % 3, seed % 4 - 1, stats, every=30, crowd=seed % 2 == 1)
    assert stats["games"] == 8
    assert stats["triangle"] >= 50, stats  # the restriction really rejects placements
    assert stats["triangles created"] >= 10, stats  # ... and really allows some
    assert stats["several triangles at once"] > 0, stats
    assert stats["hourglass support"] > 0, stats  # case (ii) decides some placements
    assert stats["partitioned"] >= 10, stats
    assert stats["unpartitioned"] >= 10, stats
    assert stats["occupied"] == stats["off-board"] == 0, stats  # the driver only tries empty points


# --- the articulation count on its own, against deleting each node ----------------------------


def components_without(adjacency: list[set[int]], removed: int) -> int:
    left = set(range(len(adjacency))) - {removed}
    count = 0
    while left:
        count += 1
        frontier = [left.pop()]
        while frontier:
            v = frontier.pop()
            for w in adjacency[v]:
                if w in left:
                    left.remove(w)
                    frontier.append(w)
    return count


@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_areas_without_each_node_on_random_connected_graphs(data: st.DataObject) -> None:
    n = data.draw(st.integers(1, 14), label="nodes")
    adjacency: list[set[int]] = [set() for _ in range(n)]
    for v in range(1, n):  # a random spanning tree keeps it connected ...
        u = data.draw(st.integers(0, v - 1), label="parent")
        adjacency[u].add(v)
        adjacency[v].add(u)
    for _ in range(data.draw(st.integers(0, 2 * n), label="extra edges")):  # ... then cycles
        u, v = data.draw(st.integers(0, n - 1)), data.draw(st.integers(0, n - 1))
        if u != v:
            adjacency[u].add(v)
            adjacency[v].add(u)
    assert areas_without_each_node(adjacency) == [components_without(adjacency, v) for v in range(n)]
