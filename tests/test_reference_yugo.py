"""Property tests: the fast Yugo engine against the literal reference (tests/reference_yugo.py).

Random games are played on the engine and on the reference side by side.
Every turn -- legal, illegal or malformed -- is decided by both and the
decisions (reason) must agree; after every turn the boards (pawns and kings),
whose turn it is, the button, ``is_over``, the stripped points and the
prisoners must agree; groups, territories and the score are compared at
checkpoints and at the end. Games run through double passes, resumption and
agreed removals, and some start from arbitrary drawn positions (which may hold
surrounded groups of pawns, the engine's slow path).
"""

from __future__ import annotations

import random
import sys
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

# The checkout root (for keilref, when it is not installed) and this folder (for the reference).
for _path in (Path(__file__).resolve().parent.parent, Path(__file__).resolve().parent):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

import reference_yugo as R  # noqa: E402

import keilref.engine.yugo  # noqa: E402,F401  (registers the rule set until the package imports it)
from keilref import Color, ConfigError, Game, IllegalMoveError, InvalidMoveError  # noqa: E402
from keilref.engine.diagram import render_square  # noqa: E402
from keilref.engine.geometry import square_geometry  # noqa: E402
from keilref.engine.yugo import YugoGame  # noqa: E402

COLOR = {R.BLACK: Color.BLACK, R.WHITE: Color.WHITE}
GLYPH = {None: ".", (R.BLACK, R.PAWN): "X", (R.WHITE, R.PAWN): "O", (R.BLACK, R.KING): "K", (R.WHITE, R.KING): "Q"}


# --- comparing one engine game with one reference game -----------------------


def engine_board(game: YugoGame) -> dict[str, R.Piece | None]:
    out: dict[str, R.Piece | None] = {}
    for p in game.points():
        color = game.stone_at(p)
        out[p] = None if color is None else (int(color), R.KING if game.is_king(p) else R.PAWN)
    return out


def assert_same_state(eng: YugoGame, ref: R.RefYugo) -> None:
    assert engine_board(eng) == ref.board
    assert eng.turn == ref.turn
    assert eng.to_move is COLOR[ref.to_move]
    assert eng.is_over == ref.is_over
    assert eng.is_final == ref.ended
    assert eng.resumed == ref.resumed
    assert eng.button_holder == (None if ref.holder is None else COLOR[ref.holder])
    assert eng.prisoners == {Color.BLACK: ref.prisoners[R.BLACK], Color.WHITE: ref.prisoners[R.WHITE]}


def assert_same_analysis(eng: YugoGame, ref: R.RefYugo) -> None:
    """Groups (with liberties), territories (with owners) and the score, part by part."""
    eng_groups = {(g.color, g.points, g.liberties) for g in eng.groups()}
    ref_groups = {(COLOR[c], pts, libs) for c, pts, libs in ref.groups()}
    assert eng_groups == ref_groups
    assert len(eng.groups()) == len(ref.groups())
    eng_terr = {(t.points, t.owner) for t in eng.territories()}
    ref_terr = {(area, None if owner is None else COLOR[owner]) for area, owner in ref.territories()}
    assert eng_terr == ref_terr
    black, white, parts = ref.score()
    score = eng.score()
    assert (score.black, score.white) == (black, white)
    for label, key in (("territory", "territory"), ("pieces", "pieces"), ("enemy kings", "enemy_kings")):
        row = score.part(label)
        assert (row.black, row.white) == (parts[f"black_{key}"], parts[f"white_{key}"]), label
    assert score.neutral == parts["neutral"]
    assert score.komi == ref.komi
    assert score.half_point == (None if ref.holder is None else COLOR[ref.holder])


def step(eng: YugoGame, ref: R.RefYugo, move: str) -> R.Verdict:
    """Decide ``move`` on both, play it if legal, and compare everything."""
    expected = ref.check(move)
    found = eng.check(move)
    if expected.reason is None:
        assert found is None, f"{move}: engine says {found}, reference says legal"
    else:
        assert found is not None, f"{move}: engine says legal, reference says {expected.reason}"
        assert found.reason.value == expected.reason, move
        assert found.turn == ref.turn + 1
    before = eng.position
    if expected.reason is None:
        eng.play(move)
        verdict = ref.play(move)
        assert eng.last_captured == verdict.stripped
        assert eng.moves[-1] == ref.history[-1]
    else:
        with pytest.raises(IllegalMoveError) as info:
            eng.play(move)
        assert info.value.reason.value == expected.reason
        assert eng.position == before  # a rejected turn changes nothing
        verdict = expected
    assert_same_state(eng, ref)
    return verdict


def try_agreement(eng: YugoGame, ref: R.RefYugo, points: list[str]) -> bool:
    """Offer the same agreement to both; they must accept or refuse it alike."""
    before = eng.position
    problem = ref.agree(points)
    if problem is None:
        eng.agree_removal(points)
    else:
        with pytest.raises(ConfigError):
            eng.agree_removal(points)
        assert eng.position == before
    assert_same_state(eng, ref)
    return problem is None


def new_pair(size: int, komi: int) -> tuple[YugoGame, R.RefYugo]:
    eng = Game(size=size, komi=komi, rules="yugo")
    assert isinstance(eng, YugoGame)
    return eng, R.RefYugo(size, komi)


def off_board_names(size: int) -> list[str]:
    """Well-formed point names that are not on a board of this size."""
    return ["a0", f"a{size + 1}", f"{R.LETTERS[size]}1", "z99", f"{R.LETTERS[size]}{size + 1}"]


MALFORMED = ["", "k@a1", "K@", "P@", "K@pass", "Q@a1", "a", "11", "a1000", "Pass", "K@K@a1", "P@K@a1", "a1 "]


# --- strategies ------------------------------------------------------------------


def spell(data: st.DataObject, point: str, king: bool) -> str:
    """A placement token, in any of its accepted spellings."""
    upper = data.draw(st.booleans(), label="upper")
    name = point.upper() if upper else point
    if king:
        return "K@" + name
    return data.draw(st.sampled_from([name, "P@" + name]), label="pawn prefix")


def draw_move(data: st.DataObject, ref: R.RefYugo) -> str:
    """Mostly pawns and kings (kings often where they capture); passes, buttons and errors too."""
    if ref.history and ref.history[-1] == "pass" and data.draw(st.integers(0, 2), label="answer pass") == 0:
        return "pass"
    kind = data.draw(st.integers(0, 99), label="kind")
    empties = ref.empty_points()
    occupied = ref.occupied_points()
    targets = ref.last_liberties()
    if kind < 45 and empties:
        return spell(data, data.draw(st.sampled_from(empties), label="pawn"), king=False)
    if kind < 65 and targets:
        return spell(data, data.draw(st.sampled_from(targets), label="king target"), king=True)
    if kind < 72 and empties:
        return spell(data, data.draw(st.sampled_from(empties), label="king"), king=True)
    if kind < 88:
        return data.draw(st.sampled_from(["pass", "button"]), label="word")
    if kind < 94 and occupied:
        return spell(data, data.draw(st.sampled_from(occupied), label="occupied"), king=data.draw(st.booleans()))
    return data.draw(st.sampled_from(off_board_names(ref.size)), label="off-board")


def draw_agreement(data: st.DataObject, ref: R.RefYugo) -> list[str]:
    """Some pieces to remove; now and then an empty point, which must be refused."""
    occupied = ref.occupied_points()
    points = data.draw(st.lists(st.sampled_from(occupied), max_size=3), label="removed") if occupied else []
    if data.draw(st.integers(0, 5), label="bad removal") == 0 and ref.empty_points():
        points.append(data.draw(st.sampled_from(ref.empty_points()), label="empty removed"))
    return points


# --- the square geometry agrees with the document's board ---------------------------


@pytest.mark.parametrize("size", range(2, 26))
def test_reference_board_matches_geometry(size: int) -> None:
    geo = square_geometry(size)
    nbrs = R.board_neighbours(size)
    assert list(geo.names) == R.board_points(size)
    for p, name in enumerate(geo.names):
        assert {geo.names[q] for q in geo.neighbours[p]} == nbrs[name]
        assert geo.point(name) == p
        assert geo.point(name.upper()) == p


# --- random turns, every kind of turn, sizes 2..6 ------------------------------------


def play_random_turns(eng: YugoGame, ref: R.RefYugo, data: st.DataObject, n_turns: int) -> None:
    for _ in range(n_turns):
        if ref.stopped and data.draw(st.integers(0, 3), label="agree?") == 0:
            accepted = try_agreement(eng, ref, draw_agreement(data, ref))
            event("agreement accepted" if accepted else "agreement refused")
            if accepted:
                break
        if data.draw(st.integers(0, 40), label="malformed?") == 0:
            token = data.draw(st.sampled_from(MALFORMED), label="malformed")
            with pytest.raises(ValueError):
                R.parse_token(token)
            with pytest.raises(InvalidMoveError):
                eng.play(token)
            with pytest.raises(InvalidMoveError):
                eng.check(token)
            continue
        verdict = step(eng, ref, draw_move(data, ref))
        event(f"decision: {verdict.reason or 'legal'}")
        if verdict.stripped:
            event("a king stripped pawns")
        if data.draw(st.integers(0, 9), label="checkpoint") == 0:
            assert_same_analysis(eng, ref)
    if ref.resumed:
        event("play resumed")


def assert_same_end(eng: YugoGame, ref: R.RefYugo) -> None:
    assert_same_analysis(eng, ref)
    expected = set(ref.legal_moves())
    # pawns in point order, then kings in point order, then button or pass
    order = [p for p in eng.points() if p in expected]
    order += ["K@" + p for p in eng.points() if "K@" + p in expected]
    order += [m for m in ("button", "pass") if m in expected]
    assert eng.legal_moves() == order
    if ref.ended:
        for move in ["pass", "button", ref.points[0], "K@" + ref.points[-1], *off_board_names(ref.size)[:2]]:
            assert step(eng, ref, move).reason == R.GAME_OVER
    elif not ref.stopped:
        # Removal by agreement is only possible while stopped at the first double pass.
        assert not try_agreement(eng, ref, ref.occupied_points()[:1])


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(size=st.integers(2, 6), komi=st.integers(-3, 8), data=st.data())
def test_engine_matches_reference_on_random_turns(size: int, komi: int, data: st.DataObject) -> None:
    eng, ref = new_pair(size, komi)
    play_random_turns(eng, ref, data, data.draw(st.integers(1, 80), label="turns"))
    assert_same_end(eng, ref)


@st.composite
def positions(draw: st.DrawFn) -> tuple[int, dict[str, R.Piece | None]]:
    """An arbitrary drawn position: it may hold surrounded groups, even of pawns."""
    size = draw(st.integers(2, 6))
    pieces = [None, (R.BLACK, R.PAWN), (R.WHITE, R.PAWN), (R.BLACK, R.KING), (R.WHITE, R.KING)]
    weights = st.sampled_from([None, None, None, *pieces[1:], pieces[1], pieces[2]])
    cells = draw(st.lists(weights, min_size=size * size, max_size=size * size))
    return size, dict(zip(R.board_points(size), cells))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(position=positions(), to_move=st.sampled_from([R.BLACK, R.WHITE]), data=st.data())
def test_engine_matches_reference_from_drawn_positions(
    position: tuple[int, dict[str, R.Piece | None]], to_move: int, data: st.DataObject
) -> None:
    size, board = position
    geo = square_geometry(size)
    text = render_square(geo, [GLYPH[board[name]] for name in geo.names])
    eng = YugoGame.from_diagram(text, to_move=COLOR[to_move])
    ref = R.RefYugo(size, 0, board=board, to_move=to_move)
    dirty = any(board[q] == (c, R.PAWN) for c, pts, libs in ref.groups() if not libs for q in pts)
    event("drawn with a surrounded pawn" if dirty else "drawn clean")
    assert_same_state(eng, ref)
    assert_same_analysis(eng, ref)
    play_random_turns(eng, ref, data, data.draw(st.integers(1, 30), label="turns"))
    assert_same_end(eng, ref)


# --- whole games on small boards: kings capture, play resumes, groups are removed ----

MAX_TURNS = 400


def choose_turn(rng: random.Random, eng: YugoGame, ref: R.RefYugo, stats: Counter[str]) -> None:
    """One legal turn chosen at random (trying illegal ones on the way, which both must refuse)."""
    button_available = ref.holder is None
    if button_available and rng.random() < 0.05:
        step(eng, ref, "button")
        return
    roll = rng.random()
    if roll < 0.03 and ref.occupied_points():
        assert step(eng, ref, rng.choice(ref.occupied_points())).reason == R.OCCUPIED
    elif roll < 0.04:
        assert step(eng, ref, rng.choice(off_board_names(ref.size))).reason == R.OFF_BOARD
    elif roll < 0.05:
        word = "pass" if button_available else "button"
        assert step(eng, ref, word).reason in (R.PASS_BEFORE_BUTTON, R.BUTTON_TAKEN)
    kings = ["K@" + p for p in ref.last_liberties()]
    pawns = ref.empty_points()
    rng.shuffle(kings)
    rng.shuffle(pawns)
    # Kings first a third of the time, so that pawns do not always fill the board first.
    candidates = kings + pawns if rng.random() < 0.33 else pawns + kings
    for move in candidates:
        verdict = step(eng, ref, move)
        stats[verdict.reason or "legal"] += 1
        if verdict.reason is None:
            if move.startswith("K@"):
                stats["kings placed"] += 1
                stats["kings stripping enemy pawns"] += verdict.enemy_stripped > 0
                stats["enemy pawns stripped"] += verdict.enemy_stripped
                stats["kings stripping two or more groups"] += verdict.groups_stripped >= 2
                stats["kings stripping own pawns"] += verdict.own_stripped > 0
            return
    step(eng, ref, "button" if button_available else "pass")


def play_whole_game(rng: random.Random, size: int, komi: int, stats: Counter[str], every: int = 20) -> None:
    """Play until the game is over for good, through a stop, a resumption or an agreement."""
    eng, ref = new_pair(size, komi)
    stopped_once = False
    while not (ref.ended or (ref.stopped and stopped_once)):
        if ref.turn >= MAX_TURNS and not ref.is_over:
            step(eng, ref, "button" if ref.holder is None else "pass")
            stats["capped"] += ref.is_over
            continue
        if ref.stopped:
            stopped_once = True
            roll = rng.random()
            if roll < 0.4:
                pieces = ref.occupied_points()
                chosen = rng.sample(pieces, min(len(pieces), rng.randint(0, 2)))
                assert try_agreement(eng, ref, chosen)
                stats["agreements"] += 1
                break
            if roll < 0.55:
                stats["stopped for good at the first double pass"] += 1
                break
            stats["resumptions"] += 1
        elif rng.random() < 0.12 and ref.holder is not None:
            step(eng, ref, "pass")  # an early pass now and then, so that stops happen before the board fills
            continue
        choose_turn(rng, eng, ref, stats)
        if ref.turn % every == 0:
            assert_same_analysis(eng, ref)
    stats["ended by a second double pass"] += ref.ended and not ref.agreed
    assert_same_end(eng, ref)
    stats["games"] += 1
    stats["turns"] += ref.turn


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(size=st.integers(3, 5), komi=st.integers(-2, 7), seed=st.integers(0, 2**32 - 1))
def test_whole_games_match_reference(size: int, komi: int, seed: int) -> None:
    stats: Counter[str] = Counter()
    play_whole_game(random.Random(seed), size, komi, stats)  # a whole game draws too much to draw turn by turn
    for key in ("kings stripping enemy pawns", "kings stripping own pawns", "resumptions", "agreements"):
        event(f"{key}: yes" if stats[key] else f"{key}: no")


def test_fixed_sample_has_king_captures_resumption_and_agreement() -> None:
    """The whole-game driver really reaches every rule the tests claim to compare."""
    stats: Counter[str] = Counter()
    for seed in range(10):
        play_whole_game(random.Random(seed), 3 + seed % 3, komi=seed % 4, stats=stats, every=50)
    assert stats["games"] == 10
    assert stats["capped"] == 0, stats  # every game ended by itself
    assert stats["kings stripping enemy pawns"] >= 20, stats
    assert stats["enemy pawns stripped"] > stats["kings stripping enemy pawns"], stats  # multi-pawn strips
    assert stats["kings stripping two or more groups"] > 0, stats
    assert stats["kings stripping own pawns"] > 0, stats
    assert stats[R.KING_CAPTURES_NOTHING] > 0 and stats[R.PAWN_SURROUNDS] > 0, stats
    assert stats["resumptions"] > 0, stats
    assert stats["agreements"] > 0, stats
    assert stats["ended by a second double pass"] > 0, stats
