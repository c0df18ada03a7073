"""The curated archive in ``records/``: every file, every game, its exact verdict.

``records/games`` holds well-played games that must pass; ``records/faults``
holds one record per way a record can fail. The table below says, for every
file, what the referee must answer for each of its games, and the tests
check it through the library (``keilref.referee.batches`` and ``keilref.referee.verdict``),
not through the command line. A file added to ``records/`` without a row
here fails ``test_every_record_file_is_in_the_table``.

Finished games are also replayed through the literal reference
implementation (``tests/reference.py``), which shares no code with the
engine: both must agree on every turn and on the final count.
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TESTS = Path(__file__).resolve().parent
for _path in (ROOT, TESTS):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

from keilref.referee.batches import check_sources  # noqa: E402
from keilref.records.sources import Source, expand_paths, read_source  # noqa: E402
from keilref.records.record import Record  # noqa: E402
from keilref.referee.settings import read_setup  # noqa: E402
from keilref.referee.verdict import Status, Verdict, adjudicate  # noqa: E402
from keilref.values import Color  # noqa: E402
from record_support import Expect, Illegal, assert_verdict, error  # noqa: E402

RECORDS = ROOT / "records"
GAMES = RECORDS / "games"
FAULTS = RECORDS / "faults"


def ok(rules: str, size: int, komi: float, turns: int, declared: str | None, computed: str | None,
       score: tuple[float, float], other: tuple[tuple[str, str], ...] | None = None, start: int = 1) -> Expect:
    return Expect("ok", rules, size, komi, turns, declared, computed, score, other=other, start=start)


def illegal(rules: str, size: int, komi: float, illegal: Illegal, declared: str | None = "*") -> Expect:
    return Expect("illegal", rules, size, komi, illegal.turn - 1, declared, None, illegal=illegal)


def mismatch(rules: str, size: int, komi: float, turns: int, declared: str, computed: str | None,
             score: tuple[float, float]) -> Expect:
    return Expect("mismatch", rules, size, komi, turns, declared, computed, score)


# Every file of records/, relative to it, with the verdict of each game in order.
# The numbers were worked out by hand from the rules (keil-rules.md) and the
# record format (record-format.md); the comments say why.
EXPECTED: dict[str, list[Expect]] = {
    # --- games: well played, every one passes ---------------------------
    # 63 turns; Black invades White's right side at turn 37 and lives:
    # Black 29 stones + 39 territory + button = 68.5, White 28 + 31 + 6 = 65.
    "games/size7-keil-invasion-annotated.keil": [
        ok("keil", 7, 6, 63, "B+3.5", "B+3.5", (68.5, 65.0), other=(("keil-2019", "B+3.5"),), start=3),
    ],
    # White resigns after 41 turns; the game did not end, so B+R is right.
    "games/size7-keil-white-resigns.keil": [
        ok("keil", 7, 6, 41, "B+R", None, (75.0, 55.0)),
    ],
    # The corner ko e1/e2: retaken at turns 33 and 38, each after an exchange.
    "games/size5-keil-corner-ko.keil": [
        ok("keil", 5, 3, 42, "W+5.5", "W+5.5", (29.5, 35.0), other=(("keil-2019", "W+5.5"),)),
    ],
    # f5 stays empty: it splits from e5 under keil (both wings black) but
    # joins Black's 32 points to White's stones under keil-2019.
    "games/size6-keil-rule-sensitive.keil": [
        ok("keil", 6, 7, 42, "B+1.5", "B+1.5", (49.5, 48.0), other=(("keil-2019", "W+30.5"),)),
    ],
    # No button, komi 3: 11 + 9 against 11 + 6 + 3.
    "games/size4-keil2019-draw-no-button.keil": [
        ok("keil-2019", 4, 3, 24, "Draw", "Draw", (20.0, 20.0), other=(("keil", "Draw"),)),
    ],
    # Ended by passes, no result written: ok, and the referee reports B+4.5.
    "games/size4-keil-no-result-claimed.keil": [
        ok("keil", 4, 6, 26, None, "B+4.5", (24.0, 19.5), other=(("keil-2019", "B+4.5"),)),
    ],
    # A match of the abstract_games server as imported: the server keeps the
    # winner, not the margin. Black 12 stones + 9 territory = 21; White
    # 11 + 5 + the button = 16.5, no komi (it was named 0).
    "games/size4-keil-winner-only-imported.keil": [
        ok("keil", 4, 0, 40, "B+", "B+4.5", (21.0, 16.5), other=(("keil-2019", "B+4.5"),)),
    ],
    "games/size8-keil2019-black-loses-on-time.keil": [
        ok("keil-2019", 8, 7.5, 36, "W+T", None, (19.0, 24.5)),
    ],
    # Version 2. Three lines branch off the main line, two of them with a
    # line inside; none changes the verdict, which is the main line's:
    # Black 32 against White 24.5 + 3.
    "games/size5-keil-teaching-nested-variations.keil": [
        ok("keil", 5, 3, 58, "B+4.5", "B+4.5", (32.0, 27.5), other=(("keil-2019", "B+5.5"),), start=3),
    ],
    # 35 turns: White is to move, and White's last clock shows 1.4 s, under
    # the 2 s increment, so the flag fell on White's clock.
    "games/size5-keil-blitz-white-loses-on-time.keil": [
        ok("keil", 5, 3, 35, "B+T", None, (29.0, 18.0), start=3),
    ],
    # Glyphs never change a verdict: 45.5 against 35 + 3.
    "games/size6-keil-glyphs-on-turns.keil": [
        ok("keil", 6, 3, 85, "B+7.5", "B+7.5", (45.5, 38.0), other=(("keil-2019", "B+5.5"),), start=4),
    ],
    # Finished positions, scored with two passes. Under keil d7 and e7 are
    # territories of their own (their wings d6 and e6 are black), under
    # keil-2019 they join f7 and touch White: 12 + 7 against 12 + 5 + 0.5.
    "games/size4-keil-finished-position-rule-sensitive.keil": [
        ok("keil", 4, 0, 2, "B+1.5", "B+1.5", (19.0, 17.5), other=(("keil-2019", "W+0.5"),)),
    ],
    # White to move: 28 stones + the button against 29 stones + 3.5; the
    # four empty points in the corner are neutral (under keil three are White's).
    "games/size5-keil2019-finished-position.keil": [
        ok("keil-2019", 5, 3.5, 2, "W+4", "W+4", (28.5, 32.5), other=(("keil", "W+7"),)),
    ],
    "games/size9-keil-unfinished.keil": [
        Expect("unfinished", "keil", 9, 8, 20, "*", None, (12.0, 18.0)),
    ],
    "games/small-boards-three-games.keil": [
        # After b2 every white placement is suicide: 7 against 7 + 0.5.
        ok("keil", 2, 7, 4, "W+0.5", "W+0.5", (7.0, 7.5), other=(("keil-2019", "W+0.5"),), start=2),
        # Half komi: 6 + 4 + 0.5 against 6 + 3 + 2.5.
        ok("keil-2019", 3, 2.5, 15, "W+1", "W+1", (10.5, 11.5), other=(("keil", "W+1"),), start=12),
        # No button, so Black may pass at once: 7 against 7.
        ok("keil-2019", 2, 7, 3, "Draw", "Draw", (7.0, 7.0), other=(("keil", "Draw"),), start=20),
    ],
    # --- faults: each fails in exactly one way ----------------------------
    "faults/illegal-off-board.keil": [
        illegal("keil", 5, 3, Illegal(6, "f1", "off-board", 7, 25)),
    ],
    "faults/illegal-occupied.keil": [
        illegal("keil-2019", 8, 7.5, Illegal(20, "i7", "occupied", 8, 17)),
    ],
    # h4 was captured at turn 27; both its empty neighbour's wings are black now.
    "faults/illegal-suicide.keil": [
        illegal("keil", 7, 6, Illegal(28, "h4", "suicide", 8, 73)),
    ],
    # Turn 30 captured e2; retaking at once recreates the board after turn 29.
    "faults/illegal-superko.keil": [
        illegal("keil", 5, 3, Illegal(31, "e2", "superko", 8, 79, repeats_turn=29)),
    ],
    "faults/illegal-pass-before-button.keil": [
        illegal("keil", 3, 3, Illegal(13, "pass", "pass-before-button", 7, 58)),
    ],
    "faults/illegal-button-taken.keil": [
        illegal("keil", 4, 6, Illegal(25, "button", "button-taken", 8, 39)),
    ],
    "faults/illegal-button-not-in-play.keil": [
        illegal("keil-2019", 4, 3, Illegal(23, "button", "button-taken", 8, 25)),
    ],
    "faults/illegal-game-over.keil": [
        illegal("keil", 2, 7, Illegal(5, "a1", "game-over", 7, 30)),
    ],
    "faults/mismatch-wrong-margin.keil": [
        mismatch("keil", 4, 6, 26, "B+5.5", "B+4.5", (24.0, 19.5)),
    ],
    "faults/mismatch-wrong-winner.keil": [
        mismatch("keil", 2, 7, 4, "B+0.5", "W+0.5", (7.0, 7.5)),
    ],
    "faults/mismatch-score-for-unfinished-game.keil": [
        mismatch("keil", 9, 8, 20, "W+6", None, (12.0, 18.0)),
    ],
    # Ten turns, so Black is to move at the end: only Black's clock runs.
    "faults/mismatch-time-loss-of-player-not-to-move.keil": [
        mismatch("keil", 5, 9, 10, "B+T", None, (6.0, 15.0)),
    ],
    # The same ten turns: the game did not end, so no winner can be counted.
    "faults/mismatch-winner-only-for-unfinished-game.keil": [
        mismatch("keil", 5, 9, 10, "W+", None, (6.0, 15.0)),
    ],
    # 24 turns, so Black is to move: White's clock was not running, however
    # low it shows.
    "faults/mismatch-time-loss-clock-not-running.keil": [
        mismatch("keil", 4, 4, 24, "B+T", None, (19.0, 19.0)),
    ],
    # Warnings: the main line is right, so the status is ok, and only
    # --strict fails them (test_annotated_records.py checks each warning).
    # The variation replacing turn 20 plays c3, which Black took at turn 17.
    "faults/warning-variation-turn-occupied.keil": [
        ok("keil", 4, 3, 37, "W+8.5", "W+8.5", (15.5, 24.0), other=(("keil-2019", "W+8.5"),)),
    ],
    # White's clock goes from 0:00:35.7 at turn 12 to 0:00:53.7 at turn 14.
    "faults/warning-clock-rises-past-increment.keil": [
        ok("keil", 4, 4, 22, "W+R", None, (12.0, 18.0)),
    ],
    "faults/mismatch-resignation-after-passes.keil": [
        mismatch("keil-2019", 3, 2.5, 15, "W+R", "W+1", (10.5, 11.5)),
    ],
    "faults/error-bad-token.keil": [error("'hh6'", 7, 16)],
    "faults/error-unterminated-comment.keil": [error("comment never closed", 6, 25)],
    "faults/error-unterminated-tag.keil": [error("tag value not closed", 3, 8)],
    "faults/error-wrong-move-number.keil": [error("wrong move number '4.'", 6, 19)],
    "faults/error-no-game.keil": [error("no game in file", 1, 1)],
    "faults/error-invalid-utf8.keil": [error("not valid UTF-8", 2, 14)],
    "faults/tag-error-half-komi-under-keil.keil": [error('Komi "6.5"', 4, 1)],
    "faults/tag-error-size-14.keil": [error('Size "14"', 3, 1)],
    "faults/tag-error-unknown-rules.keil": [error('Rules "go" is not a known rule set', 2, 1)],
    "faults/tag-error-button-no-under-keil.keil": [error('Button "no"', 5, 1)],
    "faults/tag-error-result-tag-disagrees.keil": [error('Result "B+0.5" disagrees', 6, 1)],
    "faults/tag-error-duplicate-tag.keil": [error("duplicate tag 'Komi'", 5, 1)],
}


FAMILY_DIRS = ("yugo", "dehil")
"""Kindred games keep their records in subfolders, with tables of their own."""

PROBLEMS_DIR = "problems"
"""The problems have their table in test_problem_collection.py."""


def _record_files() -> set[str]:
    """The Keil records: every file outside the kindred games' subfolders and the problems."""
    return {
        rel
        for p in RECORDS.rglob("*")
        if p.is_file()
        and (rel := p.relative_to(RECORDS).as_posix()).split("/")[1] not in FAMILY_DIRS
        and not rel.startswith(PROBLEMS_DIR + "/")
    }


def _verdicts(relative: str) -> list[Verdict]:
    return list(check_sources([Source(str(RECORDS / relative))]))


def test_every_record_file_is_in_the_table() -> None:
    files = _record_files()
    assert files, "records/ is empty"
    assert sorted(files - set(EXPECTED)) == [], "records without an expected verdict"
    assert sorted(set(EXPECTED) - files) == [], "expected verdicts for missing records"


def test_the_archive_has_what_it_promises() -> None:
    """At least 30 records; every size 2..9 and both rule sets among the games."""
    assert len(EXPECTED) >= 30
    games = [e for name, es in EXPECTED.items() if name.startswith("games/") for e in es]
    assert {e.size for e in games} >= set(range(2, 10))
    assert {e.rules for e in games} == {"keil", "keil-2019"}
    statuses = {e.status for name, es in EXPECTED.items() if name.startswith("faults/") for e in es}
    assert statuses == {"illegal", "mismatch", "error", "ok"}
    # A fault that is only a warning says so in its name.
    assert all(
        name.startswith("faults/warning-") == (es[0].status == "ok")
        for name, es in EXPECTED.items()
        if name.startswith("faults/")
    )
    reasons = {e.illegal.reason for es in EXPECTED.values() for e in es if e.illegal}
    assert reasons == {
        "off-board", "occupied", "suicide", "superko", "pass-before-button", "button-taken", "game-over",
    }
    long_sevens = [e for e in games if e.size == 7 and (e.turns or 0) >= 40]
    assert len(long_sevens) >= 2


@pytest.mark.parametrize("relative", sorted(EXPECTED))
def test_record_verdicts(relative: str) -> None:
    verdicts = _verdicts(relative)
    expected = EXPECTED[relative]
    assert [v.status.value for v in verdicts] == [e.status for e in expected]
    for number, (v, e) in enumerate(zip(verdicts, expected), 1):
        where = f"{relative} game {number}"
        assert_verdict(v, e, file=str(RECORDS / relative), game=number)
        if e.status == "error":
            continue
        if e.status == "mismatch":
            assert v.detail, where
        if e.computed is None:
            # No final position, nothing to compare across rule sets.
            assert v.other_results == () and not v.rule_sensitive, where
        if e.other is not None:
            assert v.other_results == e.other, where
            mine = e.computed
            assert v.rule_sensitive == any(
                _winner(result) != _winner(mine) for _, result in e.other  # type: ignore[arg-type]
            ), where


def _winner(result: str) -> str:
    return "-" if result == "Draw" else result[0]


def test_only_the_rule_sensitive_games_are_rule_sensitive() -> None:
    """The rule-sensitive records are the only ones whose winner changes with the wording."""
    sensitive = [
        (name, v.game)
        for name in EXPECTED
        if name.startswith("games/")
        for v in _verdicts(name)
        if v.rule_sensitive
    ]
    assert sorted(sensitive) == [
        ("games/size4-keil-finished-position-rule-sensitive.keil", 1),
        ("games/size6-keil-rule-sensitive.keil", 1),
    ]


def test_games_directory_passes() -> None:
    # The whole folder, kindred games included, is what `keilref check records/games` sees.
    verdicts = list(check_sources(expand_paths([str(GAMES)])))
    assert [v for v in verdicts if v.status.failed] == []
    assert {v.status for v in verdicts} == {Status.OK, Status.UNFINISHED}
    keil = [v for v in verdicts if Path(v.file).parent == GAMES]
    assert len(keil) == sum(len(es) for name, es in EXPECTED.items() if name.startswith("games/"))
    # Every Keil game is fully tagged: no setting is left to a default.
    assert [(v.file, v.warnings) for v in keil if v.warnings] == []


@pytest.mark.parametrize("relative", sorted(n for n in EXPECTED if n.startswith("faults/")))
def test_every_fault_fails(relative: str) -> None:
    verdicts = _verdicts(relative)
    assert len(verdicts) == 1, "a fault record holds one game, failing one way"
    (v,) = verdicts
    if relative.startswith("faults/warning-"):
        # A warning fails only a strict check, and it is the game's one fault.
        assert not v.fails() and v.fails(strict=True)
        assert len(v.warnings) == 1
    else:
        assert v.status.failed


def test_records_name_their_purpose() -> None:
    """Each game opens with an Event tag saying what it shows (the file with no
    game can only say it in a comment)."""
    for relative in sorted(EXPECTED):
        text = (RECORDS / relative).read_bytes().decode("utf-8", "replace")
        if relative == "faults/error-no-game.keil":
            assert text.startswith("; Event:")
            continue
        lines = [ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith(";")]
        assert lines[0].startswith("[Event "), relative
        for item in read_source(Source(str(RECORDS / relative))):
            if isinstance(item, Record):
                assert item.tags[0].name == "Event", relative


def test_adjudicate_agrees_with_check() -> None:
    """``verdict.adjudicate`` on parsed records gives what ``check_sources`` gives.

    Except ``line`` on an unreadable game: a bare RecordError does not know where
    its game starts, so ``adjudicate`` falls back to the error's own line.
    """
    for relative in sorted(EXPECTED):
        source = Source(str(RECORDS / relative))
        direct = [
            adjudicate(item, file=source.name, game=i) for i, item in enumerate(read_source(source), 1)
        ]
        via_check = _verdicts(relative)
        assert len(direct) == len(via_check), relative
        for d, c in zip(direct, via_check):
            if c.status is Status.ERROR:
                assert c.error is not None
                assert d.line in (c.line, c.error.line), relative
                d = dataclasses.replace(d, line=c.line)
            assert d == c, relative


# --- the literal reference implementation ---------------------------------


def _reference():  # type: ignore[no-untyped-def]
    try:
        import reference
    except ImportError:  # pragma: no cover - the reference lives beside this file
        pytest.skip("tests/reference.py is not there")
    return reference


def _game_records() -> list[tuple[str, int, Record]]:
    out = []
    for relative in sorted(n for n in EXPECTED if n.startswith("games/")):
        for i, item in enumerate(read_source(Source(str(RECORDS / relative))), 1):
            assert isinstance(item, Record), relative
            out.append((relative, i, item))
    return out


def _start(R, size, position):  # type: ignore[no-untyped-def]
    """The reference's start from a set-up position, its stones placed
    directly; nothing for the empty board."""
    if position is None:
        return {}
    colour = {Color.BLACK: R.BLACK, Color.WHITE: R.WHITE}
    board = {p: R.EMPTY for p in R.board_neighbours(size)}
    board.update({p.point: R.BLACK for p in position.black})
    board.update({p.point: R.WHITE for p in position.white})
    holder = None if position.button_taken is None else colour[position.button_taken]
    return {"board": board, "to_move": colour[position.to_move], "holder": holder, "setup": True}


@pytest.mark.parametrize(
    "relative,number,record",
    _game_records(),
    ids=[f"{r}#{n}" for r, n, _ in _game_records()],
)
def test_games_agree_with_the_reference(relative: str, number: int, record: Record) -> None:
    """Every turn legal in the reference too; finished games count the same."""
    R = _reference()
    setup = read_setup(record)
    ref = R.RefKeil(setup.size, setup.komi, setup.rules, setup.button, **_start(R, setup.size, setup.position))
    for t, turn in enumerate(record.turns, 1):
        verdict = ref.play(turn.move)
        assert verdict.reason is None, f"{relative}#{number}: turn {t} {turn.move}: {verdict.reason}"
    v = _verdicts(relative)[number - 1]
    assert ref.is_over == (v.computed is not None)
    black, white, parts = ref.score()
    assert v.score is not None
    assert (black, white) == (v.score.black, v.score.white)
    assert parts["neutral"] == v.score.neutral
    if ref.is_over:
        expected = "Draw" if black == white else f"{'B' if black > white else 'W'}+{abs(black - white):g}"
        assert v.computed == expected


@pytest.mark.parametrize("relative", sorted(n for n in EXPECTED if n.startswith("faults/illegal-")))
def test_illegal_faults_agree_with_the_reference(relative: str) -> None:
    """The reference rejects the same turn for the same reason."""
    R = _reference()
    (item,) = list(read_source(Source(str(RECORDS / relative))))
    assert isinstance(item, Record)
    setup = read_setup(item)
    ref = R.RefKeil(setup.size, setup.komi, setup.rules, setup.button)
    (e,) = EXPECTED[relative]
    assert e.illegal is not None
    for t, turn in enumerate(item.turns, 1):
        verdict = ref.play(turn.move)
        if verdict.reason is not None:
            assert (t, verdict.reason, verdict.repeats_turn) == (
                e.illegal.turn, e.illegal.reason, e.illegal.repeats_turn,
            )
            return
    pytest.fail(f"{relative}: the reference found every turn legal")
