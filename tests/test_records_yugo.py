"""The curated Yugo records in ``records/games/yugo`` and ``records/faults/yugo``.

``records/games/yugo`` holds hand-made games that must pass; each shows one
part of the rules (yugo-rules.md) or of the record format (``Removed``,
``K@``/``P@`` tokens, resumption after a double pass). ``records/faults/yugo``
holds one record per way a Yugo record can fail. The table below says, for
every file, exactly what the referee must answer, and the tests check it
through the library (``keilref.referee.batches`` and ``keilref.referee.verdict``), not through
the command line. A file added to either folder without a row here fails
``test_every_yugo_record_file_is_in_the_table``.

Every number in the table was worked out by hand from the rules; the
comments give the count. Finished games are also replayed through the
literal reference implementation (``tests/reference_yugo.py``), which shares
no code with the engine: both must accept every turn and agree on the final
count.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TESTS = Path(__file__).resolve().parent
for _path in (ROOT, TESTS):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

import reference_yugo as R  # noqa: E402

from keilref import Color, ConfigError  # noqa: E402
from keilref.referee.batches import check_sources  # noqa: E402
from keilref.records.sources import Source, expand_paths, read_source  # noqa: E402
from keilref.values import Result  # noqa: E402
from keilref.records.record import Record  # noqa: E402
from keilref.referee.settings import read_setup  # noqa: E402
from keilref.referee.replay import replay  # noqa: E402
from keilref.referee.verdict import Status, Verdict, adjudicate  # noqa: E402
from keilref.engine.yugo import YugoGame  # noqa: E402
from record_support import Expect, Illegal, assert_verdict, error  # noqa: E402

RECORDS = ROOT / "records"
GAMES = RECORDS / "games" / "yugo"
FAULTS = RECORDS / "faults" / "yugo"


def ok(size: int, komi: float, turns: int, declared: str | None, computed: str | None,
       score: tuple[float, float], start: int = 1) -> Expect:
    return Expect("ok", size=size, komi=komi, turns=turns, declared=declared, computed=computed, score=score, start=start)


def illegal(size: int, komi: float, score: tuple[float, float], illegal: Illegal) -> Expect:
    return Expect("illegal", size=size, komi=komi, turns=illegal.turn - 1, declared="*", score=score, illegal=illegal)


# Every file under records/games/yugo and records/faults/yugo, relative to
# records/, with the verdict of its one game.
EXPECTED: dict[str, Expect] = {
    # --- games: every one passes ---------------------------------------------
    # K@c1 takes the last liberty of a1-b1 and of d1-e1 at once and strips
    # all four pawns. Black: 10 pawns + the king c1 = 11 pieces, territory
    # a1 b1 d1 e1 = 4, so 15; White: 5 pawns + row 5 (5) + komi 4 + button = 14.5.
    "games/yugo/size5-king-strips-two-groups.keil": ok(5, 4, 23, "B+0.5", "B+0.5", (15.0, 14.5)),
    # Four passes in a row: turns 12-13 stop play, turn 14 (a pass) resumes
    # it and turn 15 makes the second double pass. Black: column c (5) + 10
    # territory + the button = 15.5; White: column d (5) + 5 + komi 4 = 14.
    "games/yugo/size5-passes-resume-play.keil": ok(5, 4, 15, "B+1.5", "B+1.5", (15.5, 14.0)),
    # K@b1 surrounds the lone white king a1 and leaves its own group b1-c1
    # surrounded, so Black's own pawn c1 goes; K@c1 then surrounds b1.
    # Black: pieces d4 d5 d6 c3 b3 a3 a2 = 7 (b1 is surrounded), territory
    # a4-c6 = 9, the white king a1 = 1, the button: 17.5. White: pieces
    # e4 e5 e6 d3 c2 b2 d2 e2 e1 d1 c1 = 11 (a1 is surrounded), territory
    # f1-f6 and e3 = 7, the black king b1 = 1, komi 0: 19.
    "games/yugo/size6-kings-surrounded-own-pawns-stripped.keil":
        ok(6, 0, 28, "W+1.5", "W+1.5", (17.5, 19.0)),
    # K@a7 strips five pawns. Black: 13 pieces + 12 territory + button = 25.5;
    # White: 7 pieces + 17 territory + komi 1 = 25. The first tag is on line 3.
    "games/yugo/size7-invasion-killed-pawn-prefixes.keil":
        ok(7, 1, 29, "B+0.5", "B+0.5", (25.5, 25.0), start=3),
    # Stopped at turn 20 with White's b2 on the board (that count would be
    # W+24.5); play resumed and K@a1 stripped a2 b1 b2; turns 30-31 end it.
    # Black: 8 wall + c2 b3 c1 a3 + K@a1 = 13 pieces, 19 territory, button:
    # 32.5; White: 8 pieces + 24 territory = 32.
    "games/yugo/size8-play-resumed-after-double-pass.keil":
        ok(8, 0, 31, "B+0.5", "B+0.5", (32.5, 32.0)),
    # Ends at the first double pass with no Removed tag: counted as it stands.
    # Black: 9 wall + c6 d7 b6 c8 a7 + K@b8 = 15 pieces, 26 territory,
    # button = 41.5; White: 9 pieces + 31 territory + komi 1 = 41.
    "games/yugo/size9-stopped-no-removal.keil": ok(9, 1, 33, "B+0.5", "B+0.5", (41.5, 41.0)),
    # Removed "c1 h9" takes b1-c1 and h9. Black: 14 pieces + 28 + 8 territory
    # + button = 50.5; White: 14 pieces + 28 + 8 territory + komi 2 = 52.
    "games/yugo/size10-dead-groups-removed-by-agreement.keil":
        ok(10, 2, 34, "W+1.5", "W+1.5", (50.5, 52.0)),
    # 13 turns, the button among them; no territory yet (one area touches
    # both): Black 6 pieces + button, White 6 pieces + komi 5.
    "games/yugo/size11-unfinished.keil": Expect("unfinished", size=11, komi=5, turns=13, declared="*", score=(6.5, 11.0)),
    # White resigns after turn 23, before any double pass. Black: 11 pawns +
    # the king a1, territory a2 b2 c2 c3 = 4; White: 6 pieces + komi 6 + button.
    "games/yugo/size12-white-resigns.keil": ok(12, 6, 23, "B+R", None, (16.0, 12.5)),
    # No result written. Black: 13 pieces + 71 territory + button = 84.5;
    # White: 13 + 72 = 85. The first tag is on line 2.
    "games/yugo/size13-no-result-claimed.keil": ok(13, 0, 29, None, "W+0.5", (84.5, 85.0), start=2),
    # --- faults: each fails in exactly one way --------------------------------
    # b7-c7's last liberty is b8: a pawn there surrounds it (the king would do).
    "faults/yugo/illegal-pawn-surrounds.keil":
        illegal(9, 1, (32.5, 43.0), Illegal(31, "b8", "pawn-surrounds", 8, 77)),
    # White's a5-a6-b5-b6-c5 still has a4 as well as a7.
    "faults/yugo/illegal-king-captures-nothing.keil":
        illegal(7, 1, (12.5, 30.0), Illegal(25, "K@a7", "king-captures-nothing", 8, 44)),
    "faults/yugo/illegal-pass-before-button.keil":
        illegal(5, 4, (1.0, 5.0), Illegal(3, "pass", "pass-before-button", 7, 13)),
    # Black took the button at turn 19.
    "faults/yugo/illegal-button-taken.keil":
        illegal(6, 0, (16.5, 17.0), Illegal(22, "button", "button-taken", 8, 24)),
    # The resumed game of size8-play-resumed-after-double-pass, ended for good
    # at turn 31; a 32nd turn follows.
    "faults/yugo/illegal-game-over.keil":
        illegal(8, 0, (32.5, 32.0), Illegal(32, "b2", "game-over", 10, 55)),
    "faults/yugo/illegal-occupied.keil":
        illegal(12, 6, (11.0, 16.5), Illegal(23, "K@a2", "occupied", 8, 29)),
    "faults/yugo/illegal-off-board.keil":
        illegal(11, 5, (5.0, 9.0), Illegal(10, "K@l5", "off-board", 7, 43)),
    # The game of size10-dead-groups-removed-by-agreement, declaring the count
    # before removal: Black 15 pieces + 28 territory + button = 43.5, White 16
    # pieces + 28 territory + komi 2 = 46, W+2.5 (13 neutral points).
    "faults/yugo/mismatch-result-counted-before-removal.keil":
        Expect("mismatch", size=10, komi=2, turns=34, declared="W+2.5", computed="W+1.5", score=(50.5, 52.0)),
    "faults/yugo/tag-error-removed-empty-point.keil": error("Removed point 'd1' holds no piece", 6, 1),
    "faults/yugo/tag-error-removed-after-resumption.keil":
        error("a Removed agreement is only possible when play stopped at the first double pass", 6, 1),
    "faults/yugo/tag-error-removed-under-keil.keil": error("a Removed tag is not allowed under rules 'keil'", 6, 1),
}


def _yugo_files() -> set[str]:
    return {
        p.relative_to(RECORDS).as_posix()
        for folder in (GAMES, FAULTS)
        for p in folder.rglob("*")
        if p.is_file()
    }


def _verdicts(relative: str) -> list[Verdict]:
    return list(check_sources([Source(str(RECORDS / relative))]))


def _record(relative: str) -> Record:
    (item,) = list(read_source(Source(str(RECORDS / relative))))
    assert isinstance(item, Record), relative
    return item


def test_every_yugo_record_file_is_in_the_table() -> None:
    files = _yugo_files()
    assert files, "records/*/yugo is empty"
    assert sorted(files - set(EXPECTED)) == [], "records without an expected verdict"
    assert sorted(set(EXPECTED) - files) == [], "expected verdicts for missing records"


def test_the_archive_has_what_it_promises() -> None:
    games = {name: e for name, e in EXPECTED.items() if name.startswith("games/")}
    faults = {name: e for name, e in EXPECTED.items() if name.startswith("faults/")}
    assert len(EXPECTED) >= 10 and len(games) >= 10
    assert {e.size for e in games.values()} == set(range(5, 14)), "one game of every size 5..13"
    assert {e.status for e in games.values()} == {"ok", "unfinished"}
    assert {e.status for e in faults.values()} == {"illegal", "mismatch", "error"}
    reasons = {e.illegal.reason for e in faults.values() if e.illegal}
    assert reasons == {
        "pawn-surrounds", "king-captures-nothing", "pass-before-button", "button-taken",
        "game-over", "occupied", "off-board",
    }
    declared = [e.declared for e in games.values()]
    assert "B+R" in declared and None in declared and "*" in declared


def _tokens(relative: str) -> list[str]:
    return [t.text for t in _record(relative).turns]


def test_token_forms() -> None:
    """``P@`` pawns appear in exactly one record, and replay as plain pawns."""
    with_prefix = [name for name in sorted(EXPECTED) if any(t.startswith("P@") for t in _tokens(name))]
    assert with_prefix == ["games/yugo/size7-invasion-killed-pawn-prefixes.keil"]
    tokens = _tokens(with_prefix[0])
    assert [t for t in tokens if "@" in t] == ["P@b4", "P@c6", "K@a7"]
    game = _replay(with_prefix[0])
    assert game.stone_at("b4") is Color.BLACK and not game.is_king("b4")
    assert "b4" in game.moves and "P@b4" not in game.moves


@pytest.mark.parametrize("relative", sorted(EXPECTED))
def test_record_verdicts(relative: str) -> None:
    (v,) = _verdicts(relative)
    e = EXPECTED[relative]
    # Yugo has no repetition rule: the table's illegal turns repeat nothing.
    assert_verdict(v, e, file=str(RECORDS / relative), rules="yugo")
    if e.status == "error":
        return
    if e.status == "mismatch":
        assert v.detail == "wrong margin"
    # Yugo has one rule set: no sibling to compare with.
    assert v.other_results == () and not v.rule_sensitive


def test_adjudicate_agrees_with_check() -> None:
    for relative in sorted(EXPECTED):
        source = Source(str(RECORDS / relative))
        direct = [adjudicate(item, file=source.name, game=i) for i, item in enumerate(read_source(source), 1)]
        assert direct == _verdicts(relative), relative


def test_yugo_games_pass() -> None:
    verdicts = list(check_sources(expand_paths([str(GAMES)])))
    assert len(verdicts) == sum(name.startswith("games/") for name in EXPECTED)
    assert [v for v in verdicts if v.status.failed] == []
    assert {v.status for v in verdicts} == {Status.OK, Status.UNFINISHED}
    # Every game is fully tagged: no setting is left to a default.
    assert [(v.file, v.warnings) for v in verdicts if v.warnings] == []


def test_yugo_faults_fail() -> None:
    verdicts = list(check_sources(expand_paths([str(FAULTS)])))
    assert len(verdicts) == sum(name.startswith("faults/") for name in EXPECTED)
    assert all(v.status.failed for v in verdicts), [(v.file, v.status) for v in verdicts if not v.status.failed]


def test_records_name_their_purpose() -> None:
    """Each record opens with an Event tag saying what it shows."""
    for relative in sorted(EXPECTED):
        record = _record(relative)
        assert record.tags[0].name == "Event", relative
        event = record.tags[0].value
        assert event.startswith("Yugo archive: " if relative.startswith("games/") else "Yugo fault: "), relative
        if relative.startswith("faults/"):
            # The fault's kind is in both its name and its Event.
            kind = Path(relative).stem.split("-")[0]
            assert event.startswith(f"Yugo fault: {'error' if kind == 'tag' else kind}, "), relative


def test_games_carry_comments() -> None:
    commented = [name for name in EXPECTED if name.startswith("games/")
                 if any(t.comments for t in _record(name).turns)]
    assert len(commented) >= 7


# --- what each game shows, checked on the replay --------------------------------


def _replay(relative: str, stop: int | None = None) -> YugoGame:
    game = replay(_record(relative), stop=stop).game
    assert isinstance(game, YugoGame)
    return game


def test_one_king_strips_two_groups() -> None:
    name = "games/yugo/size5-king-strips-two-groups.keil"
    before = _replay(name, 20)
    white_in_atari = [g for g in before.groups() if g.color is Color.WHITE and g.liberties == {"c1"}]
    assert sorted(sorted(g.points) for g in white_in_atari) == [["a1", "b1"], ["d1", "e1"]]
    refusal = before.check("c1")
    assert refusal is not None and refusal.reason.value == "pawn-surrounds"
    after = _replay(name, 21)
    assert after.moves[-1] == "K@c1"
    assert after.last_captured == {"a1", "b1", "d1", "e1"}
    assert after.prisoners == {Color.BLACK: 4, Color.WHITE: 0}
    assert after.is_king("c1")


def test_a_king_strips_its_own_surrounded_group() -> None:
    name = "games/yugo/size6-kings-surrounded-own-pawns-stripped.keil"
    game = _replay(name, 25)
    assert game.moves[-1] == "K@b1"
    # Only Black's own pawn c1 went: the white king a1 was surrounded but kept.
    assert game.last_captured == {"c1"}
    assert game.prisoners == {Color.BLACK: 0, Color.WHITE: 3}
    assert game.is_king("a1") and game.stone_at("a1") is Color.WHITE
    assert game.is_king("b1") and game.stone_at("c1") is None


def test_surrounded_kings_score_for_the_opponent() -> None:
    game = _replay("games/yugo/size6-kings-surrounded-own-pawns-stripped.keil")
    surrounded = {(g.color, tuple(sorted(g.points))) for g in game.groups() if not g.liberties}
    assert surrounded == {(Color.WHITE, ("a1",)), (Color.BLACK, ("b1",))}
    score = game.score()
    kings = score.part("enemy kings")
    assert (kings.black, kings.white) == (1, 1)
    pieces = score.part("pieces")
    assert (pieces.black, pieces.white) == (7, 11)


def test_play_resumed_after_the_first_double_pass() -> None:
    name = "games/yugo/size8-play-resumed-after-double-pass.keil"
    stopped = _replay(name, 20)
    assert stopped.is_over and not stopped.is_final and not stopped.resumed
    assert stopped.moves[-2:] == ("pass", "pass")
    assert str(stopped.score().result) == "W+24.5"
    resumed = _replay(name, 21)
    assert not resumed.is_over and resumed.resumed
    final = _replay(name)
    assert final.is_over and final.is_final and final.resumed


def test_a_pass_after_the_stop_resumes_play_and_passes_count_afresh() -> None:
    name = "games/yugo/size5-passes-resume-play.keil"
    stopped = _replay(name, 13)
    assert stopped.is_over and not stopped.resumed
    resumed = _replay(name, 14)
    assert resumed.moves[-3:] == ("pass", "pass", "pass")
    assert not resumed.is_over and resumed.resumed
    final = _replay(name)
    assert final.is_over and final.is_final
    assert final.legal_moves() == []


def test_stopped_game_ends_at_its_first_double_pass() -> None:
    game = _replay("games/yugo/size9-stopped-no-removal.keil")
    assert game.is_over and not game.resumed and not game.is_final
    assert game.removed == frozenset()


def test_removal_changes_the_margin_but_not_the_winner() -> None:
    name = "games/yugo/size10-dead-groups-removed-by-agreement.keil"
    agreed = _replay(name)
    assert agreed.is_final and agreed.removed == {"b1", "c1", "h9"}
    # The same turns without the agreement: counted as they stand.
    record = _record(name)
    as_stood = replay(Record(tuple(t for t in record.tags if t.name != "Removed"), record.turns, None)).game
    assert isinstance(as_stood, YugoGame)
    assert as_stood.is_over and not as_stood.is_final
    before, after = as_stood.score().result, agreed.score().result
    assert (str(before), str(after)) == ("W+2.5", "W+1.5")
    assert before.winner == after.winner == Color.WHITE
    assert as_stood.score().neutral == 13 and agreed.score().neutral == 0


def test_the_unfinished_and_resigned_games_did_not_end() -> None:
    for name in ("games/yugo/size11-unfinished.keil", "games/yugo/size12-white-resigns.keil"):
        assert not _replay(name).is_over, name


# --- the literal reference implementation -------------------------------------


def _reference_replay(record: Record) -> tuple[R.RefYugo, list[str | None]]:
    setup = read_setup(record)
    assert setup.rules == "yugo" and setup.button
    assert setup.komi == int(setup.komi)
    ref = R.RefYugo(setup.size, int(setup.komi))
    return ref, [ref.play(turn.move).reason for turn in record.turns]


@pytest.mark.parametrize("relative", sorted(n for n in EXPECTED if n.startswith("games/")))
def test_games_agree_with_the_reference(relative: str) -> None:
    """Every turn legal in the reference too; the final counts agree."""
    record = _record(relative)
    ref, reasons = _reference_replay(record)
    assert reasons == [None] * len(record.turns), relative
    removed = read_setup(record).removed
    if removed is not None:
        assert ref.agree(list(removed)) is None
    black, white, parts = ref.score()
    (v,) = _verdicts(relative)
    assert v.score is not None
    assert (black, white) == (v.score.black, v.score.white) == EXPECTED[relative].score
    assert parts["neutral"] == v.score.neutral
    for row, key in (("territory", "territory"), ("pieces", "pieces"), ("enemy kings", "enemy_kings")):
        part = v.score.part(row)
        assert (part.black, part.white) == (parts[f"black_{key}"], parts[f"white_{key}"]), row
    assert ref.is_over == (v.computed is not None)
    if ref.is_over:
        margin = abs(black - white)
        expected = f"{'B' if black > white else 'W'}+{margin:g}"
        assert v.computed == expected == str(Result.parse(expected))


@pytest.mark.parametrize("relative", sorted(n for n in EXPECTED if n.startswith("faults/yugo/illegal-")))
def test_illegal_faults_agree_with_the_reference(relative: str) -> None:
    """The reference rejects the same turn for the same reason, and counts the same position."""
    record = _record(relative)
    e = EXPECTED[relative]
    assert e.illegal is not None
    ref, reasons = _reference_replay(record)
    first = next(i for i, r in enumerate(reasons, 1) if r is not None)
    assert (first, reasons[first - 1]) == (e.illegal.turn, e.illegal.reason)
    # Replay the legal part alone, and count it as the referee did.
    ref = R.RefYugo(ref.size, ref.komi)
    for turn in record.turns[: first - 1]:
        assert ref.play(turn.move).reason is None
    black, white, _ = ref.score()
    assert (black, white) == e.score


def test_removed_errors_agree_with_the_reference() -> None:
    """The reference refuses the same agreements the referee reports as errors."""
    empty = _record("faults/yugo/tag-error-removed-empty-point.keil")
    ref, reasons = _reference_replay(empty)
    assert set(reasons) == {None} and ref.stopped
    assert ref.agree(["c1", "d1"]) == "'d1' holds no piece"
    resumed = _record("faults/yugo/tag-error-removed-after-resumption.keil")
    ref, reasons = _reference_replay(resumed)
    assert set(reasons) == {None} and ref.resumed and ref.ended
    assert ref.agree(["a1"]) is not None
    # And the engine, asked directly, names the same problems.
    for record, phrase in ((empty, "'d1' holds no piece"), (resumed, "only possible when play stopped")):
        game = replay(Record(tuple(t for t in record.tags if t.name != "Removed"), record.turns, None)).game
        with pytest.raises(ConfigError, match=re.escape(phrase)):
            game.agree_removal(read_setup(record).removed or ())
