"""The command line on Yugo records, pinned by plain-text snapshots.

Every snapshot lives in ``tests/__snapshots__/test_cli_yugo/`` as the exact
text the command printed (the timing in ``check``'s summary line is replaced
by a placeholder first). Each test also states what the output *means* --
the exit code, the statuses, the score cells, the pieces on the diagram --
so that a snapshot blessed with a wrong answer in it still fails.

The records are the curated ones of ``records/games/yugo`` and
``records/faults/yugo`` (see test_records_yugo.py for what each shows).
Regenerate after an intended change with ``pytest --snapshot-update`` and
read every changed file before committing it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from syrupy.assertion import SnapshotAssertion

from cli_support import lines_of, run, table_row, untimed

pytestmark = pytest.mark.usefixtures("at_the_root")

GAMES = "records/games/yugo"
FAULTS = "records/faults/yugo"
TWO_GROUPS = f"{GAMES}/size5-king-strips-two-groups.keil"
KINGS = f"{GAMES}/size6-kings-surrounded-own-pawns-stripped.keil"
RESUMED = f"{GAMES}/size8-play-resumed-after-double-pass.keil"
STOPPED = f"{GAMES}/size9-stopped-no-removal.keil"
REMOVAL = f"{GAMES}/size10-dead-groups-removed-by-agreement.keil"
UNFINISHED = f"{GAMES}/size11-unfinished.keil"
RESIGNED = f"{GAMES}/size12-white-resigns.keil"
UNCLAIMED = f"{GAMES}/size13-no-result-claimed.keil"




def board(out: str) -> dict[str, str]:
    """The glyph on every point of the square diagram in ``out``, by point name.

    The size comes from the header. A row line is its number, then one glyph
    per column from ``a`` on; the brackets around the last move are not glyphs.
    """
    size = int(re.search(r"size (\d+)", out).group(1))  # type: ignore[union-attr]
    points: dict[str, str] = {}
    rows = []
    for ln in out.splitlines():
        m = re.match(r"^\s*(\d+) (.*)$", ln)
        if m is None:
            continue
        glyphs = re.findall(r"[^\s()]", m.group(2))
        assert len(glyphs) == size, ln
        rows.append(int(m.group(1)))
        for c, g in enumerate(glyphs):
            points[f"{chr(ord('a') + c)}{m.group(1)}"] = g
    assert rows == list(range(size, 0, -1)), "one line per row, top row first"
    columns = next(ln for ln in out.splitlines() if ln.strip() == " ".join(chr(ord("a") + c) for c in range(size)))
    assert columns
    return points


def counts(out: str) -> dict[str, int]:
    found: dict[str, int] = {}
    for g in board(out).values():
        found[g] = found.get(g, 0) + 1
    return found


# --- check ---------------------------------------------------------------------


def test_check_yugo_games_text(snapshot_txt: SnapshotAssertion) -> None:
    result = run("check", GAMES)
    assert result.exit_code == 0
    out = result.stdout
    lines = lines_of(out)
    assert len(lines) == 11  # ten games and the summary
    assert sum(": ok: " in ln for ln in lines) == 9
    assert f"{UNFINISHED}:1:1: game 1: unfinished: computed -, declared *; score so far W+4.5" in lines
    assert f"{REMOVAL}:1:1: game 1: ok: computed W+1.5, declared W+1.5" in lines
    assert f"{RESUMED}:1:1: game 1: ok: computed B+0.5, declared B+0.5" in lines
    assert f"{RESIGNED}:1:1: game 1: ok: computed -, declared B+R" in lines
    assert f"{UNCLAIMED}:2:1: game 1: ok: computed W+0.5, declared -" in lines
    assert f"{GAMES}/size5-passes-resume-play.keil:1:1: game 1: ok: computed B+1.5, declared B+1.5" in lines
    assert lines[-1].startswith("10 games: 9 ok, 1 unfinished in ")
    assert result.stderr == ""
    assert untimed(out) == snapshot_txt


def test_check_yugo_games_strict_fails_on_the_unfinished_game() -> None:
    result = run("check", "--strict", GAMES)
    assert result.exit_code == 1
    assert f"{UNFINISHED}:1:1: game 1: unfinished" in result.stdout


def test_check_yugo_faults_text(snapshot_txt: SnapshotAssertion) -> None:
    result = run("check", FAULTS)
    assert result.exit_code == 1
    out = result.stdout
    lines = lines_of(out)
    assert len(lines) == 12
    assert sum(": illegal: " in ln for ln in lines) == 7
    assert sum(": mismatch: " in ln for ln in lines) == 1
    assert sum(": error: " in ln for ln in lines) == 3
    assert f"{FAULTS}/illegal-pawn-surrounds.keil:8:77: game 1: illegal: move 16 (Black) b8, turn 31: pawn-surrounds" in lines
    assert (
        f"{FAULTS}/illegal-king-captures-nothing.keil:8:44: game 1: illegal: move 13 (Black) K@a7, turn 25: king-captures-nothing"
        in lines
    )
    assert f"{FAULTS}/illegal-game-over.keil:10:55: game 1: illegal: move 16 (White) b2, turn 32: game-over" in lines
    assert f"{FAULTS}/illegal-off-board.keil:7:43: game 1: illegal: move 5 (White) K@l5, turn 10: off-board" in lines
    assert (
        f"{FAULTS}/mismatch-result-counted-before-removal.keil:12:30: game 1: mismatch: "
        "computed W+1.5, declared W+2.5; wrong margin"
    ) in lines
    assert f"{FAULTS}/tag-error-removed-empty-point.keil:6:1: game 1: error: Removed point 'd1' holds no piece" in lines
    assert any(
        ln.startswith(f"{FAULTS}/tag-error-removed-after-resumption.keil:6:1: game 1: error: a Removed agreement")
        for ln in lines
    )
    assert any(
        ln.startswith(f"{FAULTS}/tag-error-removed-under-keil.keil:6:1: game 1: error: a Removed tag is not allowed")
        for ln in lines
    )
    assert lines[-1].startswith("11 games: 1 mismatch, 7 illegal, 3 error in ")
    assert untimed(out) == snapshot_txt


def test_check_yugo_games_jsonl(snapshot_txt: SnapshotAssertion) -> None:
    result = run("check", "--format", "jsonl", GAMES)
    assert result.exit_code == 0
    verdicts = {Path(v["file"]).stem: v for v in map(json.loads, lines_of(result.stdout))}
    assert len(verdicts) == 10
    assert {v["rules"] for v in verdicts.values()} == {"yugo"}
    assert sorted(v["size"] for v in verdicts.values()) == [5, *range(5, 14)]
    removal = verdicts["size10-dead-groups-removed-by-agreement"]
    assert (removal["status"], removal["computed"], removal["declared"]) == ("ok", "W+1.5", "W+1.5")
    assert removal["score"] == {"black": 50.5, "white": 52.0}
    assert removal["turns"] == 34
    kings = verdicts["size6-kings-surrounded-own-pawns-stripped"]
    assert kings["score"] == {"black": 17.5, "white": 19.0}
    resigned = verdicts["size12-white-resigns"]
    assert (resigned["status"], resigned["computed"], resigned["declared"]) == ("ok", None, "B+R")
    unclaimed = verdicts["size13-no-result-claimed"]
    assert (unclaimed["status"], unclaimed["computed"], unclaimed["declared"]) == ("ok", "W+0.5", None)
    assert unclaimed["line"] == 2
    assert verdicts["size11-unfinished"]["status"] == "unfinished"
    assert verdicts["size11-unfinished"]["computed"] is None
    assert all(v["illegal"] is None and v["error"] is None and v["warnings"] == [] for v in verdicts.values())
    assert not any(v["rule_sensitive"] for v in verdicts.values())
    assert result.stdout == snapshot_txt


def test_check_yugo_faults_jsonl(snapshot_txt: SnapshotAssertion) -> None:
    result = run("check", "--format", "jsonl", FAULTS)
    assert result.exit_code == 1
    verdicts = {Path(v["file"]).stem: v for v in map(json.loads, lines_of(result.stdout))}
    assert len(verdicts) == 11
    pawn = verdicts["illegal-pawn-surrounds"]
    assert pawn["illegal"] == {"turn": 31, "point": "b8", "reason": "pawn-surrounds", "line": 8, "column": 77}
    assert pawn["turns"] == 30 and pawn["computed"] is None
    king = verdicts["illegal-king-captures-nothing"]
    assert king["illegal"]["point"] == "K@a7" and king["illegal"]["reason"] == "king-captures-nothing"
    assert verdicts["illegal-occupied"]["illegal"]["point"] == "K@a2"
    assert verdicts["illegal-button-taken"]["illegal"]["turn"] == 22
    assert verdicts["illegal-pass-before-button"]["illegal"]["reason"] == "pass-before-button"
    assert all("repeats_turn" not in v["illegal"] for v in verdicts.values() if v["illegal"])
    mismatch = verdicts["mismatch-result-counted-before-removal"]
    assert (mismatch["status"], mismatch["computed"], mismatch["declared"]) == ("mismatch", "W+1.5", "W+2.5")
    for name in ("tag-error-removed-empty-point", "tag-error-removed-after-resumption", "tag-error-removed-under-keil"):
        v = verdicts[name]
        assert v["status"] == "error" and v["score"] is None, name
        assert (v["error"]["line"], v["error"]["column"]) == (6, 1), name
    assert {v["status"] for v in verdicts.values()} == {"illegal", "mismatch", "error"}
    assert result.stdout == snapshot_txt


# --- score ---------------------------------------------------------------------


def test_score_after_agreed_removal(snapshot_txt: SnapshotAssertion) -> None:
    """The position after removal is counted: both corners are territory again."""
    result = run("score", REMOVAL)
    assert result.exit_code == 0
    out = result.stdout
    assert "after turn 34 of 34" in out
    assert table_row(out, "territory") == ("36", "36")
    assert table_row(out, "pieces") == ("14", "14")
    assert table_row(out, "enemy kings") == ("0", "0")
    assert table_row(out, "komi") == ("", "2")
    assert table_row(out, "button") == ("0.5", "")
    assert table_row(out, "total") == ("50.5", "52")
    assert "neutral points: 0" in out
    assert "result: W+1.5" in out
    assert "removed by agreement: b1 c1 h9" in out
    points = board(out)
    assert counts(out) == {"X": 14, "O": 14, "x": 36, "o": 36}
    assert (points["b1"], points["c1"], points["h9"]) == ("x", "x", "o")
    assert out == snapshot_txt


def test_score_surrounded_kings(snapshot_txt: SnapshotAssertion) -> None:
    """Each surrounded king counts for the other side, and not as its owner's piece."""
    result = run("score", KINGS)
    assert result.exit_code == 0
    out = result.stdout
    assert table_row(out, "territory") == ("9", "7")
    assert table_row(out, "pieces") == ("7", "11")
    assert table_row(out, "enemy kings") == ("1", "1")
    assert table_row(out, "komi") == ("", "0")
    assert table_row(out, "button") == ("0.5", "")
    assert table_row(out, "total") == ("17.5", "19")
    assert "result: W+1.5" in out
    assert "White's surrounded group at a1: 1 king counts for Black" in out
    assert "Black's surrounded group at b1: 1 king counts for White" in out
    points = board(out)
    assert (points["a1"], points["b1"], points["c1"]) == ("Q", "K", "Q")
    # 7 black pawns; 10 white pawns and the king c1 alive (11 pieces); a1, b1 surrounded.
    assert counts(out) == {"X": 7, "K": 1, "O": 10, "Q": 2, "x": 9, "o": 7}
    assert out == snapshot_txt


def test_score_two_groups_stripped(snapshot_txt: SnapshotAssertion) -> None:
    result = run("score", TWO_GROUPS)
    assert result.exit_code == 0
    out = result.stdout
    assert table_row(out, "territory") == ("4", "5")
    assert table_row(out, "pieces") == ("11", "5")
    assert table_row(out, "komi") == ("", "4")
    assert table_row(out, "total") == ("15", "14.5")
    assert "result: B+0.5" in out
    points = board(out)
    assert [points[p] for p in ("a1", "b1", "c1", "d1", "e1")] == ["x", "x", "K", "x", "x"]
    assert counts(out) == {"X": 10, "K": 1, "O": 5, "x": 4, "o": 5}
    assert out == snapshot_txt


def test_score_of_the_resumed_game_counts_its_end() -> None:
    """``score`` counts the end of the record: the resumed game's final position."""
    result = run("score", RESUMED)
    assert result.exit_code == 0
    assert table_row(result.stdout, "total") == ("32.5", "32")
    assert "removed by agreement" not in result.stdout


# --- show ----------------------------------------------------------------------


def test_show_end_of_resumed_game(snapshot_txt: SnapshotAssertion) -> None:
    result = run("show", RESUMED)
    assert result.exit_code == 0
    out = result.stdout
    assert "after turn 31 of 31" in out
    assert "last turn: 31 pass (Black)" in out
    assert "captured: by Black 3, by White 0" in out
    assert "button: taken by Black" in out
    assert "game over" in out
    points = board(out)
    assert points["a1"] == "K" and points["b2"] == "."
    assert counts(out) == {"X": 12, "K": 1, "O": 8, ".": 43}
    assert out == snapshot_txt


def test_show_unicode_kings(snapshot_txt: SnapshotAssertion) -> None:
    result = run("show", "--unicode", KINGS)
    assert result.exit_code == 0
    out = result.stdout
    assert counts(out) == {"●": 7, "♚": 1, "○": 10, "♔": 2, "·": 16}
    points = board(out)
    assert (points["a1"], points["b1"], points["c1"]) == ("♔", "♚", "♔")
    # The same picture as the ASCII one, glyph for glyph.
    ascii_out = run("show", KINGS).stdout
    assert out.translate(str.maketrans("●○·♚♔", "XO.KQ")) == ascii_out
    # Stopped at two passes where the record ends, not over: as the board's caption and repr(game) say.
    assert "play stopped; Black may resume" in out and "game over" not in out
    assert out == snapshot_txt


def test_show_turn_own_pawn_stripped(snapshot_txt: SnapshotAssertion) -> None:
    """After turn 25 (K@b1) Black's own pawn c1 is gone; it is nobody's prisoner."""
    result = run("show", "--turn", "25", KINGS)
    assert result.exit_code == 0
    out = result.stdout
    assert "after turn 25 of 28" in out
    assert "last turn: 25 K@b1 (Black)" in out
    assert "captured: by Black 0, by White 3" in out
    assert "to move: White" in out
    assert "(K)" in out  # the king just placed is marked
    points = board(out)
    assert (points["a1"], points["b1"], points["c1"], points["d1"]) == ("Q", "K", ".", "O")
    assert counts(out) == {"X": 7, "K": 1, "O": 10, "Q": 1, ".": 17}
    assert out == snapshot_txt


def test_show_territory_at_the_stop(snapshot_txt: SnapshotAssertion) -> None:
    result = run("show", "--territory", STOPPED)
    assert result.exit_code == 0
    out = result.stdout
    assert "after turn 33 of 33" in out
    assert "captured: by Black 2, by White 0" in out
    points = board(out)
    assert points["b8"] == "K" and points["b7"] == "x" and points["c7"] == "x"
    # Black 14 pawns and the king (15 pieces) + 26 territory; White 9 + 31.
    assert counts(out) == {"X": 14, "K": 1, "x": 26, "O": 9, "o": 31}
    assert out == snapshot_txt


def test_show_of_an_illegal_yugo_record_shows_the_position_before_the_fault() -> None:
    result = run("show", f"{FAULTS}/illegal-pawn-surrounds.keil")
    assert result.exit_code == 1
    assert "after turn 30 of 31" in result.stdout
    assert result.stderr.splitlines() == [
        f"keilref: {FAULTS}/illegal-pawn-surrounds.keil:8:77: game 1: illegal: move 16 (Black) b8, turn 31:"
        " pawn-surrounds; showing the position before it",
        "    10. button c7 11. c6 b7 12. d7 pass 13. b6 pass 14. c8 pass 15. a7 pass 16. b8",
        "    " + " " * 76 + "^",
    ]
    assert board(result.stdout)["b8"] == "."


def test_score_of_a_bad_removal_fails_in_one_line_and_points_at_the_tag() -> None:
    result = run("score", f"{FAULTS}/tag-error-removed-empty-point.keil")
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr.splitlines() == [
        f"keilref: {FAULTS}/tag-error-removed-empty-point.keil:6:1: game 1: Removed point 'd1' holds no piece",
        '    [Removed "c1 d1"]',
        "    ^",
    ]


# --- legal ---------------------------------------------------------------------


def test_legal_pawns_and_kings(snapshot_txt: SnapshotAssertion) -> None:
    """Before K@c1: pawns only on the empty top row; c1 only for a king."""
    result = run("legal", "--turn", "20", TWO_GROUPS)
    assert result.exit_code == 0
    out = result.stdout
    lines = out.splitlines()
    assert lines[1:] == [
        "Black to move",
        "5 pawn placements:",
        "  a5 b5 c5 d5 e5",
        "1 king placement:",
        "  K@c1",
        "other: pass",
    ]
    assert out == snapshot_txt


def test_legal_after_the_final_double_pass() -> None:
    result = run("legal", RESUMED)
    assert result.exit_code == 0
    assert "the game is over: no turn is legal" in result.stdout


def test_legal_at_the_first_double_pass_lists_the_turns_that_resume_play() -> None:
    result = run("legal", "--turn", "20", RESUMED)
    assert result.exit_code == 0
    assert "no turn is legal" not in result.stdout
    assert "Black to move" in result.stdout
    # Play may resume with any placement, or end for good with... a pass that resumes.
    assert "other: pass" in result.stdout
    shown = run("show", "--turn", "20", RESUMED).stdout
    assert "play stopped; Black may resume" in shown


def test_a_game_stopped_at_two_passes_is_worded_alike_by_show_the_caption_and_repr() -> None:
    from keilref.formats import svg
    from keilref.records.parser import parse_record
    from keilref.referee.replay import replay

    path = f"{GAMES}/size9-stopped-no-removal.keil"
    game = replay(parse_record(Path(path).read_text(encoding="utf-8"))).game
    assert game.is_over and not game.is_final
    shown = run("show", path).stdout.splitlines()[-1]
    caption = re.findall(r"<text [^>]*>([^<]*)</text>", svg.board(game))[-1]
    assert shown == caption == "play stopped; White may resume"
    assert repr(game).endswith("; White may resume>") and "over" not in repr(game)
