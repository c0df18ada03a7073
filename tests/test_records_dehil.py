"""The curated Dehil records in ``records/games/dehil`` and ``records/faults/dehil``.

``records/games/dehil`` holds hand-made games that must pass (``ok`` or
``unfinished``); ``records/faults/dehil`` holds one record per way a Dehil
record can fail. The table below says, for every file, exactly what the
referee must answer, and the tests check it through the library
(``keilref.referee.batches``), not through the command line. A file added to either
folder without a row here fails ``test_every_dehil_record_file_is_in_the_table``.

Every number in the table was worked out by hand from dehil-rules.md and the
record format; the comments say how. Every game is also replayed through the
literal reference implementation (``tests/reference_dehil.py``), which shares
no code with the engine: it must find every turn legal, and for a finished
game count the same groups, the same partitions and the same score.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TESTS = Path(__file__).resolve().parent
for _path in (ROOT, TESTS):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

import reference_dehil as R  # noqa: E402

import keilref.engine.dehil  # noqa: E402,F401  (registers the rule set)
from keilref.referee.batches import check_sources  # noqa: E402
from keilref.records.sources import Source, expand_paths, read_source  # noqa: E402
from keilref.values import Color  # noqa: E402
from keilref.engine.game import new_game  # noqa: E402
from keilref.records.record import Record  # noqa: E402
from keilref.referee.settings import read_setup  # noqa: E402
from keilref.referee.replay import replay  # noqa: E402
from keilref.referee.verdict import Status, Verdict  # noqa: E402
from record_support import Expect, Illegal, assert_verdict, error  # noqa: E402

RECORDS = ROOT / "records"
GAMES = RECORDS / "games" / "dehil"
FAULTS = RECORDS / "faults" / "dehil"


def ok(size: int, komi: float, turns: int, declared: str | None, computed: str | None,
       score: tuple[float, float]) -> Expect:
    return Expect("ok", size=size, komi=komi, turns=turns, declared=declared, computed=computed, score=score)


def unfinished(size: int, komi: float, turns: int, score: tuple[float, float]) -> Expect:
    return Expect("unfinished", size=size, komi=komi, turns=turns, declared="*", score=score)


def illegal(size: int, komi: float, illegal: Illegal, score: tuple[float, float], declared: str = "*") -> Expect:
    return Expect("illegal", size=size, komi=komi, turns=illegal.turn - 1, declared=declared, score=score, illegal=illegal)


def mismatch(size: int, komi: float, turns: int, declared: str, computed: str,
             score: tuple[float, float]) -> Expect:
    return Expect("mismatch", size=size, komi=komi, turns=turns, declared=declared, computed=computed, score=score)


# Every file of records/games/dehil and records/faults/dehil, relative to
# records/, with the verdict of its one game.
EXPECTED: dict[str, Expect] = {
    # --- games: every one passes ---------------------------------------------
    # Black's wall a5..f5, g6, h6, h5..m5 (round White's g5) plus a6: 15 stones
    # from the left edge to the lower right one. White's wall e13..j13, k14,
    # l14, l13..q13 (round Black's k13) plus d12 and q12: 16. Three-stone
    # corners: a1, i1 (Black), q17, q9 (White). Lone stones: b9, h16, k13
    # (Black), a8, g5, i16 (White). Black passed first (turn 49).
    # Black 15 + 3 + 3 - 3 + 0.5 = 18.5; White 16 + 3 + 3 - 3 + 2 = 21.
    "games/dehil/size9-walls-edge-to-edge.keil": ok(9, 2, 52, "W+2.5", "W+2.5", (18.5, 21.0)),
    # Black's one group: row 7 from a7 to m7 (b7, c8, d8, d7 round White's c7)
    # with the triangles and hourglasses around g7 and h7 and their supports:
    # a7 b7 c8 d8 d7 e7 f7 g7 h7 i7 j7 k7 l7 m7, f6 h6 h8 h5 e5 f5 d4 f4 = 22.
    # White: row 10, d10..m10 = 10; corners g13, a1, m13 = 9; c7 alone = -1;
    # White passed first (turn 42): 18 + 0.5 + 2 = 20.5.
    "games/dehil/size7-triangles-lone-and-hourglass-support.keil": ok(7, 2, 45, "B+1.5", "B+1.5", (22.0, 20.5)),
    # Black: the ring f6 g6 h6 i7 i8 h8 g8 f7 round g7 and h7, plus e7 and j9:
    # 10; corners g13 and m7: 6; lone e3 and b6: -2; first pass: 0.5 = 14.5.
    # White: wall a3 b3 c3 d3 e4 f4 f3 g3 h3 i3: 10; corner m13: 3; the open
    # ring d6 d7 c7 c5 b5 round c6: -5; komi 3 = 11.
    "games/dehil/size7-ring-around-empty-points.keil": ok(7, 3, 38, "B+3.5", "B+3.5", (14.5, 11.0)),
    # Corners a1 and e1 for Black, i9 and i5 for White, one lone stone each
    # (e8, d8): 5 each. Black passed at turn 3, the first pass of the game,
    # although White passed first in the final pair: B+0.5. No Result tag:
    # the result token is the declared result.
    "games/dehil/size5-won-by-the-first-pass.keil": ok(5, 0, 17, "B+0.5", "B+0.5", (5.5, 5.0)),
    # Black: c1 c2 b2 b3 a3 round a1 a2 b1 (5) and the corner g1 (3), first
    # pass: 8.5. White: corners m13, a7, g13: 9, komi -3: 6.
    "games/dehil/size7-negative-komi.keil": ok(7, -3, 20, "B+2.5", "B+2.5", (8.5, 6.0)),
    # White resigns after 35 turns (no pass: the game did not end). The last
    # position: Black's wall a6..p6 round e6 and k6, 18 stones, +18. White:
    # e1..e6 (-6), k3..k6 (-4), g16-h16 (-2), j16 m16 p16 s16 u16 (-5),
    # komi 4: -13.
    "games/dehil/size11-white-resigns.keil": ok(11, 4, 35, "B+R", None, (18.0, -13.0)),
    # Adjourned: Black's ring round k11 (6) and corner u21 (3): 9. White's
    # row-4 pieces a4..e4 (-5), g4, j4, l4, n4 (-4), komi 5: -4.
    "games/dehil/size11-unfinished.keil": unfinished(11, 5, 18, (9.0, -4.0)),
    # --- faults: each fails in exactly one way --------------------------------
    # b2 makes a1-b1-b2: a1 and b1 are both on row 1. b2 has the lone b3.
    # Before it: Black a1-b1 (-2) and b3 (-1); White's corner i9 (+3).
    "faults/dehil/illegal-triangle-two-edge-stones.keil": illegal(
        5, 0, Illegal(7, "b2", "triangle", 6, 31), (-3.0, 3.0)),
    # e2 makes d1-d2-e2: only d1 on the edge, but d2 and e2 touch no friendly
    # stone outside the triangle (f3 is White). Before: Black -2, White -2 + 2.
    "faults/dehil/illegal-triangle-unsupported-inner-stones.keil": illegal(
        7, 2, Illegal(5, "e2", "triangle", 6, 23), (-2.0, 0.0)),
    # Black f6, h8 (-2); White g7, f8, not adjacent (-2) + 3.
    "faults/dehil/illegal-occupied.keil": illegal(7, 3, Illegal(5, "g7", "occupied", 6, 22), (-2.0, 1.0)),
    # f1 is column 5, row 0: |5 - 0| > 4 on size 5. Black e5, c3 (-2); White d4 (-1) + 1.
    "faults/dehil/illegal-off-board.keil": illegal(5, 1, Illegal(4, "f1", "off-board", 6, 16), (-2.0, 0.0)),
    # The game ended at turn 8; Black's corner a1 and first pass 3.5, White's corner i9 3.
    "faults/dehil/illegal-game-over.keil": illegal(
        5, 0, Illegal(9, "e5", "game-over", 7, 44), (3.5, 3.0), declared="B+0.5"),
    # Same corners; Black's pass at turn 3 is the first, so B+0.5, not W+0.5.
    "faults/dehil/mismatch-wrong-winner.keil": mismatch(5, 0, 9, "W+0.5", "B+0.5", (3.5, 3.0)),
    "faults/dehil/tag-error-button-tag.keil": error("a Button tag is not allowed under rules 'dehil'", 5, 1),
    "faults/dehil/error-button-turn.keil": error("'button' is not a turn in dehil", 6, 17),
    "faults/dehil/tag-error-half-komi.keil": error('Komi "6.5" is not allowed under rules \'dehil\'', 4, 1),
}


def _files_under(folder: Path) -> set[str]:
    """Every file (not only ``.keil`` ones: a stray file is a mistake too), relative to records/."""
    return {p.relative_to(RECORDS).as_posix() for p in folder.rglob("*") if p.is_file()}


def _verdicts(relative: str) -> list[Verdict]:
    return list(check_sources([Source(str(RECORDS / relative))]))


def _record(relative: str) -> Record:
    (item,) = list(read_source(Source(str(RECORDS / relative))))
    assert isinstance(item, Record), relative
    return item


GAME_FILES = sorted(n for n in EXPECTED if n.startswith("games/"))
FAULT_FILES = sorted(n for n in EXPECTED if n.startswith("faults/"))


# --- the table and the folders --------------------------------------------------


def test_every_dehil_record_file_is_in_the_table() -> None:
    files = _files_under(GAMES) | _files_under(FAULTS)
    assert files, "records/*/dehil is empty"
    assert sorted(files - set(EXPECTED)) == [], "records without an expected verdict"
    assert sorted(set(EXPECTED) - files) == [], "expected verdicts for missing records"


def test_the_dehil_archive_has_what_it_promises() -> None:
    assert len(EXPECTED) >= 10
    games = [EXPECTED[n] for n in GAME_FILES]
    assert {e.size for e in games} >= {5, 7, 9, 11}
    assert {e.status for e in games} == {"ok", "unfinished"}
    assert any(e.komi is not None and e.komi < 0 for e in games), "a game with negative komi"
    assert any(e.declared in ("B+R", "W+R") for e in games), "a resignation"
    assert any(e.computed in ("B+0.5", "W+0.5") for e in games), "a game won by the half point"
    assert any(e.size == 9 and e.computed is not None and (e.turns or 0) >= 40 for e in games), "a full game on 9"
    faults = [EXPECTED[n] for n in FAULT_FILES]
    assert {e.status for e in faults} == {"illegal", "mismatch", "error"}
    reasons = sorted(e.illegal.reason for e in faults if e.illegal)
    assert reasons == ["game-over", "occupied", "off-board", "triangle", "triangle"]


@pytest.mark.parametrize("relative", sorted(EXPECTED))
def test_record_verdicts(relative: str) -> None:
    (v,) = _verdicts(relative)
    e = EXPECTED[relative]
    # Dehil has no repetition rule: the table's illegal turns repeat nothing.
    assert_verdict(v, e, file=str(RECORDS / relative), rules="dehil")
    if e.status == "error":
        return
    assert bool(v.detail) == (e.status == "mismatch")
    # Dehil has one rule set: nothing to compare a final position against.
    assert v.other_results == () and not v.rule_sensitive
    # Every record is fully tagged, and Dehil asks for no Button tag.
    assert v.warnings == ()


def test_the_games_folder_passes() -> None:
    verdicts = list(check_sources(expand_paths([str(GAMES)])))
    assert len(verdicts) == len(GAME_FILES)
    assert [(v.file, v.status) for v in verdicts if v.status.failed] == []
    assert {v.status for v in verdicts} == {Status.OK, Status.UNFINISHED}


@pytest.mark.parametrize("relative", FAULT_FILES)
def test_every_fault_fails(relative: str) -> None:
    verdicts = _verdicts(relative)
    assert len(verdicts) == 1, "a fault record holds one game, failing one way"
    assert verdicts[0].status.failed


def test_the_faults_folder_fails_game_by_game() -> None:
    verdicts = list(check_sources(expand_paths([str(FAULTS)])))
    assert len(verdicts) == len(FAULT_FILES)
    assert all(v.status.failed for v in verdicts)


@pytest.mark.parametrize("relative", sorted(EXPECTED))
def test_records_name_their_purpose(relative: str) -> None:
    """Each record opens with an Event tag saying what it shows, and says dehil."""
    text = (RECORDS / relative).read_text(encoding="utf-8")
    assert text.startswith('[Event "'), relative
    record = _record(relative)
    assert record.tags[0].name == "Event"
    assert len(record.tags[0].value) > 20
    assert record.tag_value("Rules") == "dehil"
    name = Path(relative).stem
    if relative.startswith("faults/"):
        status = EXPECTED[relative].status
        assert name.split("-")[0] in {"illegal": ["illegal"], "mismatch": ["mismatch"],
                                      "error": ["error", "tag"]}[status]
    else:
        assert name.startswith(f"size{EXPECTED[relative].size}-")


# --- the literal reference ---------------------------------------------------------


def _reference_replay(relative: str) -> tuple[R.RefDehil, list[R.Verdict]]:
    """Every turn through the reference, stopping before the first it refuses."""
    record = _record(relative)
    setup = read_setup(record)
    assert setup.komi == int(setup.komi)
    ref = R.RefDehil(setup.size, int(setup.komi))
    decisions = []
    for turn in record.turns:
        decision = ref.check(turn.move)
        decisions.append(decision)
        if decision.reason is not None:
            break
        ref.play(turn.move)
    return ref, decisions


@pytest.mark.parametrize("relative", GAME_FILES)
def test_games_agree_with_the_reference(relative: str) -> None:
    """Every turn legal in the reference too, and the same count at the end."""
    ref, decisions = _reference_replay(relative)
    assert [d.reason for d in decisions] == [None] * len(_record(relative).turns)
    (v,) = _verdicts(relative)
    assert ref.is_over == (v.computed is not None)
    black, white, _ = ref.score()
    assert v.score is not None
    assert (black, white) == (v.score.black, v.score.white)
    if ref.is_over:
        expected = f"{'B' if black > white else 'W'}+{abs(black - white):g}"
        assert v.computed == expected
    # Group by group: the same stones, the same number of areas.
    rep = replay(_record(relative))
    engine = sorted(
        (int(group.color), tuple(sorted(group.points)), areas) for group, areas in rep.game.partitions()
    )
    reference = sorted((color, tuple(sorted(group)), areas) for color, group, areas in ref.partitions())
    assert engine == reference


@pytest.mark.parametrize("relative", sorted(n for n in FAULT_FILES if EXPECTED[n].illegal))
def test_illegal_faults_agree_with_the_reference(relative: str) -> None:
    """The reference refuses the same turn, for the same reason, and allows all before it."""
    _, decisions = _reference_replay(relative)
    e = EXPECTED[relative].illegal
    assert e is not None
    assert len(decisions) == e.turn
    assert [d.reason for d in decisions[:-1]] == [None] * (e.turn - 1)
    assert decisions[-1].reason == e.reason


def test_the_button_turn_is_no_turn_for_the_reference_either() -> None:
    record = _record("faults/dehil/error-button-turn.keil")
    ref = R.RefDehil(7, 2)
    for turn in record.turns[:3]:
        ref.play(turn.move)
    assert record.turns[3].move == "button"
    with pytest.raises(ValueError):
        ref.check("button")


def test_the_mismatch_agrees_with_the_reference() -> None:
    ref, _ = _reference_replay("faults/dehil/mismatch-wrong-winner.keil")
    assert ref.is_over
    assert ref.first_pass == R.BLACK
    assert ref.score()[:2] == (3.5, 3)


# --- what each game shows, checked on its own terms ---------------------------------


def _final(relative: str):  # type: ignore[no-untyped-def]
    return replay(_record(relative)).game


def _areas_of(ref: R.RefDehil, group: frozenset[str]) -> list[set[str]]:
    """The areas the board falls into without ``group`` (flood fill)."""
    nbrs = R.board_neighbours(ref.size)
    left = set(ref.points) - group
    areas = []
    while left:
        seed = left.pop()
        area = {seed}
        frontier = [seed]
        while frontier:
            for q in nbrs[frontier.pop()]:
                if q in left:
                    left.remove(q)
                    area.add(q)
                    frontier.append(q)
        areas.append(area)
    return areas


def _group_at(ref: R.RefDehil, point: str) -> frozenset[str]:
    (group,) = [g for _, g in ref.groups() if point in g]
    return group


def test_the_size9_walls_run_from_edge_to_edge() -> None:
    ref, _ = _reference_replay("games/dehil/size9-walls-edge-to-edge.keil")
    edges = R.edge_points(9)
    black = _group_at(ref, "a5")
    white = _group_at(ref, "e13")
    assert len(black) == 15 and len(white) == 16
    # Each wall touches the rim at both ends, on two different sides.
    assert {"a5", "m5"} <= black & edges and {"e13", "q13"} <= white & edges
    for wall, below, above in ((black, "e1", "e9"), (white, "i12", "i17")):
        areas = _areas_of(ref, wall)
        assert len(areas) == 2
        assert not any(below in a and above in a for a in areas)
    # The lines bend round the blocking stones, which count against their owners.
    assert {"g6", "h6"} <= black and ref.board["g5"] == R.WHITE
    assert {"k14", "l14"} <= white and ref.board["k13"] == R.BLACK
    lines = _final("games/dehil/size9-walls-edge-to-edge.keil").explain_score()
    assert "Black group at a5, 15 stones: has partitions (2 areas), counts +15" in lines
    assert "White group at d12, 16 stones: has partitions (2 areas), counts +16" in lines
    assert "White group at g5, 1 stone: no partitions (1 area), counts -1" in lines


def test_the_ring_encloses_two_empty_points() -> None:
    ref, _ = _reference_replay("games/dehil/size7-ring-around-empty-points.keil")
    ring = _group_at(ref, "f6")
    assert {"f6", "g6", "h6", "i7", "i8", "h8", "g8", "f7"} <= ring
    areas = sorted(_areas_of(ref, ring), key=len)
    assert len(areas) == 2
    assert areas[0] == {"g7", "h7"}
    assert all(ref.board[p] == R.EMPTY for p in areas[0])
    # White's open ring round c6, plugged by Black's b6, cuts nothing.
    horseshoe = _group_at(ref, "c7")
    assert horseshoe == {"d6", "d7", "c7", "c5", "b5"}
    assert ref.board["b6"] == R.BLACK and ref.board["c6"] == R.EMPTY
    assert len(_areas_of(ref, horseshoe)) == 1


def test_the_triangles_are_supported_by_lone_stones_then_by_hourglass_centres() -> None:
    """The reference, which rebuilds every pattern from scratch, says how each
    created triangle was supported."""
    relative = "games/dehil/size7-triangles-lone-and-hourglass-support.keil"
    _, decisions = _reference_replay(relative)
    record = _record(relative)
    made = {
        (t, record.turns[t - 1].move): (d.triangles_created, d.hourglass_support)
        for t, d in enumerate(decisions, 1)
        if d.triangles_created
    }
    assert made == {
        (11, "h6"): (1, False),  # h6-h7-i7: every stone has a lone neighbour
        (17, "g7"): (2, True),  # completes the hourglasses round g7 and h7
        (25, "f5"): (1, True),  # f6's support is the centre g7, outside the triangle
    }
    # Just before g7, neither centre exists yet, and after it both do.
    before = R.RefDehil(7, 2)
    for turn in record.turns[:16]:
        before.play(turn.move)
    assert before.hourglass_centres(before.board) == set()
    before.play("g7")
    assert before.hourglass_centres(before.board) == {"g7", "h7"}
    # At f5, f6's friendly neighbours other than the triangle's are all in
    # triangles, so only a centre can support it: g7, not in the triangle.
    before = R.RefDehil(7, 2)
    for turn in record.turns[:25]:
        before.play(turn.move)
    patterns = before.triangle_patterns(before.board)
    in_some = set().union(*patterns)
    friends = {q for q in R.board_neighbours(7)["f6"] if before.board[q] == R.BLACK}
    assert friends == {"e5", "f5", "f7", "g7"}
    assert friends <= in_some
    assert "g7" in before.hourglass_centres(before.board)


def test_the_half_point_goes_to_the_first_pass_of_the_game() -> None:
    relative = "games/dehil/size5-won-by-the-first-pass.keil"
    moves = [t.move for t in _record(relative).turns]
    assert moves.index("pass") == 2  # turn 3, Black's
    assert moves[-2:] == ["pass", "pass"]  # White then Black end it
    game = _final(relative)
    assert game.first_pass is Color.BLACK
    score = game.score()
    assert score.black - score.white == 0.5
    assert score.half_point is Color.BLACK
    # Without the half point the groups and komi tie.
    assert sum(r.black for r in score.rows) == sum(r.white for r in score.rows) + score.komi


def test_the_negative_komi_decides_the_game() -> None:
    relative = "games/dehil/size7-negative-komi.keil"
    ref, _ = _reference_replay(relative)
    assert ref.komi == -3
    black, white, _ = ref.score()
    assert black > white
    same = R.RefDehil(7, 0)
    for turn in _record(relative).turns:
        same.play(turn.move)
    black0, white0, _ = same.score()
    assert white0 > black0, "with komi 0 White would win"


def test_the_resigned_and_unfinished_games_did_not_end() -> None:
    for relative in ("games/dehil/size11-white-resigns.keil", "games/dehil/size11-unfinished.keil"):
        ref, _ = _reference_replay(relative)
        assert not ref.is_over
        assert "pass" not in ref.history
        game = _final(relative)
        assert not game.is_over and game.first_pass is None


def test_the_two_edge_stones_fault_fails_only_the_edge_test() -> None:
    """b3 supports b2, so the support test alone would pass: the edge count decides."""
    relative = "faults/dehil/illegal-triangle-two-edge-stones.keil"
    ref, _ = _reference_replay(relative)
    edges = R.edge_points(5)
    assert {"a1", "b1"} <= edges and "b2" not in edges
    assert ref.board["a1"] == ref.board["b1"] == ref.board["b3"] == R.BLACK
    assert R.board_neighbours(5)["b2"] >= {"a1", "b1", "b3"}
    after = dict(ref.board, b2=R.BLACK)
    created = [t for t in ref.triangle_patterns(after) if "b2" in t]
    assert created == [frozenset({"a1", "b1", "b2"})]
    assert "b3" not in set().union(*ref.triangle_patterns(after))  # b3 is lone


def test_the_unsupported_fault_passes_the_edge_test() -> None:
    relative = "faults/dehil/illegal-triangle-unsupported-inner-stones.keil"
    ref, _ = _reference_replay(relative)
    after = dict(ref.board, e2=R.BLACK)
    (created,) = [t for t in ref.triangle_patterns(after) if "e2" in t]
    assert created == {"d1", "d2", "e2"}
    assert created & R.edge_points(7) == {"d1"}
    assert ref.board["f3"] == R.WHITE  # the only other stone touching e2


def test_the_engine_and_the_records_agree_on_legal_turns_at_every_step() -> None:
    """Replaying each game turn by turn, the engine's legal moves contain each next turn."""
    for relative in GAME_FILES:
        record = _record(relative)
        setup = read_setup(record)
        game = new_game("dehil", setup.size, setup.komi)
        for turn in record.turns:
            assert turn.move in game.legal_moves(), (relative, turn.move)
            game.play(turn.move)
