"""The command line on the Dehil records, pinned by plain-text snapshots.

Every snapshot lives in ``tests/__snapshots__/test_cli_dehil/`` as the exact
text the command printed (the timing in ``check``'s summary line is replaced
by a placeholder first). Each test also states what the output *means*: the
exit code, the statuses, the score cells, every group's line of the
explanation and the stones on the diagram, so that a snapshot blessed with a
wrong answer in it still fails.

Regenerate after an intended change with ``pytest --snapshot-update`` and
read every changed file before committing it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from syrupy.assertion import SnapshotAssertion

from cli_support import count_glyphs, lines_of, run, table_row, untimed

pytestmark = pytest.mark.usefixtures("at_the_root")

GAMES = "records/games/dehil"
FAULTS = "records/faults/dehil"
WALLS = f"{GAMES}/size9-walls-edge-to-edge.keil"
RING = f"{GAMES}/size7-ring-around-empty-points.keil"
TRIANGLES = f"{GAMES}/size7-triangles-lone-and-hourglass-support.keil"
FIRST_PASS = f"{GAMES}/size5-won-by-the-first-pass.keil"
NEGATIVE = f"{GAMES}/size7-negative-komi.keil"
RESIGNS = f"{GAMES}/size11-white-resigns.keil"
UNFINISHED = f"{GAMES}/size11-unfinished.keil"


_EXPLAIN = re.compile(
    r"^(Black|White) group at ([a-u]\d+), (\d+) (stone|stones): "
    r"(has partitions|no partitions) \((\d+) (area|areas)\), counts ([+-]\d+)$"
)


def explanation(out: str) -> list[tuple[str, str, int, bool, int, int]]:
    """The per-group lines after the table: (colour, point, stones, has partitions, areas, counts).

    Each line must be consistent in itself: partitions exactly when there
    are two areas or more, and the count is the stone count, signed by that.
    """
    groups = []
    for ln in out.splitlines():
        m = _EXPLAIN.match(ln)
        if m is None:
            assert " group at " not in ln, ln
            continue
        color, point, stones, noun, verdict, areas, area_noun, counts = m.groups()
        n, a, c = int(stones), int(areas), int(counts)
        assert (noun == "stone") == (n == 1) and (area_noun == "area") == (a == 1), ln
        has = verdict == "has partitions"
        assert has == (a >= 2), ln
        assert c == (n if has else -n), ln
        groups.append((color, point, n, has, a, c))
    return groups


def assert_explanation_matches_table(out: str) -> list[tuple[str, str, int, bool, int, int]]:
    """Black's groups then White's, and they add up to the table and the diagram."""
    groups = explanation(out)
    assert groups, "no group lines"
    colours = [g[0] for g in groups]
    assert colours == sorted(colours), "Black's groups come first"
    for colour, glyph, cell in (("Black", "X", 0), ("White", "O", 1)):
        mine = [g for g in groups if g[0] == colour]
        plus = sum(g[5] for g in mine if g[3])
        minus = sum(g[5] for g in mine if not g[3])
        assert table_row(out, "groups with partitions")[cell] == str(plus)
        assert table_row(out, "groups without")[cell] == str(minus)
        assert sum(g[2] for g in mine) == count_glyphs(out, glyph), "every stone is in one group"
    return groups


# --- check ---------------------------------------------------------------------


def test_check_dehil_games_text(snapshot_txt: SnapshotAssertion) -> None:
    result = run("check", GAMES)
    assert result.exit_code == 0
    out = result.stdout
    lines = lines_of(out)
    assert len(lines) == 8  # seven games and the summary
    assert sum(": ok: " in ln for ln in lines) == 6
    assert f"{WALLS}:1:1: game 1: ok: computed W+2.5, declared W+2.5" in lines
    assert f"{TRIANGLES}:1:1: game 1: ok: computed B+1.5, declared B+1.5" in lines
    assert f"{RING}:1:1: game 1: ok: computed B+3.5, declared B+3.5" in lines
    assert f"{FIRST_PASS}:1:1: game 1: ok: computed B+0.5, declared B+0.5" in lines
    assert f"{NEGATIVE}:1:1: game 1: ok: computed B+2.5, declared B+2.5" in lines
    assert f"{RESIGNS}:1:1: game 1: ok: computed -, declared B+R" in lines
    assert f"{UNFINISHED}:1:1: game 1: unfinished: computed -, declared *; score so far B+13" in lines
    assert lines[-1].startswith("7 games: 6 ok, 1 unfinished in ")
    assert "rule-sensitive" not in out
    assert result.stderr == ""
    assert untimed(out) == snapshot_txt


def test_check_dehil_games_strict_fails_on_the_unfinished_game() -> None:
    result = run("check", "--strict", GAMES)
    assert result.exit_code == 1
    assert f"{UNFINISHED}:1:1: game 1: unfinished" in result.stdout


def test_check_dehil_faults_text(snapshot_txt: SnapshotAssertion) -> None:
    result = run("check", FAULTS)
    assert result.exit_code == 1
    out = result.stdout
    lines = lines_of(out)
    assert len(lines) == 10
    assert sum(": illegal: " in ln for ln in lines) == 5
    assert sum(": mismatch: " in ln for ln in lines) == 1
    assert sum(": error: " in ln for ln in lines) == 3
    f = FAULTS
    assert f"{f}/illegal-triangle-two-edge-stones.keil:6:31: game 1: illegal: move 4 (Black) b2, turn 7: triangle" in lines
    assert f"{f}/illegal-triangle-unsupported-inner-stones.keil:6:23: game 1: illegal: move 3 (Black) e2, turn 5: triangle" in lines
    assert f"{f}/illegal-occupied.keil:6:22: game 1: illegal: move 3 (Black) g7, turn 5: occupied" in lines
    assert f"{f}/illegal-off-board.keil:6:16: game 1: illegal: move 2 (White) f1, turn 4: off-board" in lines
    assert f"{f}/illegal-game-over.keil:7:44: game 1: illegal: move 5 (Black) e5, turn 9: game-over" in lines
    assert f"{f}/mismatch-wrong-winner.keil:8:67: game 1: mismatch: computed B+0.5, declared W+0.5; wrong winner" in lines
    assert any(ln.startswith(f"{f}/tag-error-button-tag.keil:5:1: game 1: error: a Button tag") for ln in lines)
    assert any(ln.startswith(f"{f}/error-button-turn.keil:6:17: game 1: error: 'button' is not a turn")
               for ln in lines)
    assert any(ln.startswith(f'{f}/tag-error-half-komi.keil:4:1: game 1: error: Komi "6.5"') for ln in lines)
    assert lines[-1].startswith("9 games: 1 mismatch, 5 illegal, 3 error in ")
    assert untimed(out) == snapshot_txt


def test_an_upper_case_point_is_reported_as_written(tmp_path: Path) -> None:
    # The curated records are in canonical (lower case) form, so the upper
    # case spelling is exercised here.
    path = tmp_path / "upper.keil"
    path.write_text('[Rules "dehil"]\n[Size "7"]\n[Komi "3"]\n\n1. f6 g7 2. h8 f8\n3. G7 *\n', encoding="utf-8")
    result = run("check", "--format", "jsonl", str(path))
    assert result.exit_code == 1
    (verdict,) = map(json.loads, lines_of(result.stdout))
    assert verdict["illegal"] == {"turn": 5, "point": "G7", "reason": "occupied", "line": 6, "column": 4}

def test_check_dehil_games_jsonl(snapshot_txt: SnapshotAssertion) -> None:
    result = run("check", "--format", "jsonl", GAMES)
    assert result.exit_code == 0
    verdicts = {Path(v["file"]).stem: v for v in map(json.loads, lines_of(result.stdout))}
    assert len(verdicts) == 7
    assert {v["rules"] for v in verdicts.values()} == {"dehil"}
    assert all(v["illegal"] is None and v["error"] is None and v["warnings"] == [] for v in verdicts.values())
    walls = verdicts["size9-walls-edge-to-edge"]
    assert (walls["status"], walls["size"], walls["komi"], walls["turns"]) == ("ok", 9, 2.0, 52)
    assert (walls["computed"], walls["declared"]) == ("W+2.5", "W+2.5")
    assert walls["score"] == {"black": 18.5, "white": 21.0}
    negative = verdicts["size7-negative-komi"]
    assert negative["komi"] == -3.0
    assert negative["score"] == {"black": 8.5, "white": 6.0}
    first = verdicts["size5-won-by-the-first-pass"]
    assert (first["computed"], first["score"]) == ("B+0.5", {"black": 5.5, "white": 5.0})
    resigned = verdicts["size11-white-resigns"]
    assert (resigned["status"], resigned["computed"], resigned["declared"]) == ("ok", None, "B+R")
    assert resigned["score"] == {"black": 18.0, "white": -13.0}
    unfinished = verdicts["size11-unfinished"]
    assert (unfinished["status"], unfinished["computed"], unfinished["declared"]) == ("unfinished", None, "*")
    assert not any(v["rule_sensitive"] for v in verdicts.values())
    assert result.stdout == snapshot_txt


def test_check_dehil_faults_jsonl(snapshot_txt: SnapshotAssertion) -> None:
    result = run("check", "--format", "jsonl", FAULTS)
    assert result.exit_code == 1
    verdicts = {Path(v["file"]).stem: v for v in map(json.loads, lines_of(result.stdout))}
    assert len(verdicts) == 9
    edge = verdicts["illegal-triangle-two-edge-stones"]
    assert edge["illegal"] == {"turn": 7, "point": "b2", "reason": "triangle", "line": 6, "column": 31}
    assert edge["turns"] == 6
    assert verdicts["illegal-occupied"]["illegal"]["point"] == "g7"
    over = verdicts["illegal-game-over"]
    assert (over["illegal"]["reason"], over["computed"], over["score"]) == (
        "game-over", None, {"black": 3.5, "white": 3.0})
    wrong = verdicts["mismatch-wrong-winner"]
    assert (wrong["status"], wrong["computed"], wrong["declared"]) == ("mismatch", "B+0.5", "W+0.5")
    for name, line, column in (("tag-error-button-tag", 5, 1), ("error-button-turn", 6, 17),
                               ("tag-error-half-komi", 4, 1)):
        v = verdicts[name]
        assert v["status"] == "error" and v["score"] is None
        # A bad tag stops before the game is set up; a bad turn is found in
        # the replay, which says what it used and how far it got.
        replayed = name == "error-button-turn"
        assert v["rules"] == ("dehil" if replayed else None)
        assert v["turns"] == (3 if replayed else 0)
        assert (v["error"]["line"], v["error"]["column"]) == (line, column)
    assert {v["status"] for v in verdicts.values()} == {"illegal", "mismatch", "error"}
    assert result.stdout == snapshot_txt


# --- score -------------------------------------------------------------------


def test_score_walls_game(snapshot_txt: SnapshotAssertion) -> None:
    result = run("score", WALLS)
    assert result.exit_code == 0
    out = result.stdout
    assert "rules dehil, size 9, komi 2, after turn 52 of 52" in out
    assert "the game has not ended" not in out
    assert table_row(out, "groups with partitions") == ("21", "22")
    assert table_row(out, "groups without") == ("-3", "-3")
    assert table_row(out, "komi") == ("", "2")
    assert table_row(out, "first pass") == ("0.5", "")
    assert table_row(out, "total") == ("18.5", "21")
    assert "result: W+2.5" in out
    assert "neutral points" not in out and "territory" not in out
    groups = assert_explanation_matches_table(out)
    assert len(groups) == 12
    assert [g[:5] for g in groups if g[3]] == [
        ("Black", "a2", 3, True, 2),  # the corner a1
        ("Black", "a5", 15, True, 2),  # the wall from a5 to m5, and a6
        ("Black", "h1", 3, True, 2),  # the corner i1
        ("White", "d12", 16, True, 2),  # the wall from e13 to q13, d12 and q12
        ("White", "p8", 3, True, 2),  # the corner q9
        ("White", "p16", 3, True, 2),  # the corner q17
    ]
    assert sorted(g[1] for g in groups if not g[3]) == ["a8", "b9", "g5", "h16", "i16", "k13"]
    assert all(g[2] == 1 for g in groups if not g[3])
    assert count_glyphs(out, "X") == 24 and count_glyphs(out, "O") == 25
    assert count_glyphs(out, ".") == 217 - 49
    assert out == snapshot_txt


def test_score_ring_game(snapshot_txt: SnapshotAssertion) -> None:
    result = run("score", RING)
    assert result.exit_code == 0
    out = result.stdout
    assert table_row(out, "groups with partitions") == ("16", "13")
    assert table_row(out, "groups without") == ("-2", "-5")
    assert table_row(out, "komi") == ("", "3")
    assert table_row(out, "first pass") == ("0.5", "")
    assert table_row(out, "total") == ("14.5", "11")
    assert "result: B+3.5" in out
    groups = assert_explanation_matches_table(out)
    assert ("Black", "e7", 10, True, 2, 10) in groups  # the ring, with e7 and j9
    assert ("White", "b5", 5, False, 1, -5) in groups  # the open ring round c6
    assert ("White", "a3", 10, True, 2, 10) in groups  # the wall on row 3
    assert len(groups) == 8
    assert count_glyphs(out, "X") == 18 and count_glyphs(out, "O") == 18
    assert out == snapshot_txt


def test_score_triangle_game(snapshot_txt: SnapshotAssertion) -> None:
    result = run("score", TRIANGLES)
    assert result.exit_code == 0
    out = result.stdout
    assert table_row(out, "groups with partitions") == ("22", "19")
    assert table_row(out, "groups without") == ("0", "-1")
    assert table_row(out, "first pass") == ("", "0.5")
    assert table_row(out, "total") == ("22", "20.5")
    assert "result: B+1.5" in out
    groups = assert_explanation_matches_table(out)
    assert [g for g in groups if g[0] == "Black"] == [("Black", "a7", 22, True, 2, 22)]
    assert ("White", "c7", 1, False, 1, -1) in groups
    assert len(groups) == 6
    assert out == snapshot_txt


def test_score_negative_komi_game(snapshot_txt: SnapshotAssertion) -> None:
    result = run("score", NEGATIVE)
    assert result.exit_code == 0
    out = result.stdout
    assert "komi -3" in out.splitlines()[0]
    assert table_row(out, "groups with partitions") == ("8", "9")
    assert table_row(out, "groups without") == ("0", "0")
    assert table_row(out, "komi") == ("", "-3")
    assert table_row(out, "first pass") == ("0.5", "")
    assert table_row(out, "total") == ("8.5", "6")
    assert "result: B+2.5" in out
    groups = assert_explanation_matches_table(out)
    assert [g[:3] for g in groups] == [
        ("Black", "a3", 5), ("Black", "f1", 3), ("White", "a6", 3), ("White", "f12", 3), ("White", "l12", 3),
    ]
    assert out == snapshot_txt


def test_score_unfinished_game_counts_the_current_position(snapshot_txt: SnapshotAssertion) -> None:
    result = run("score", UNFINISHED)
    assert result.exit_code == 0
    out = result.stdout
    assert "the game has not ended: this counts the current position" in out
    # Nobody has passed, so nobody has the half point: no row for it.
    assert "first pass" not in out
    assert table_row(out, "groups with partitions") == ("9", "0")
    assert table_row(out, "groups without") == ("0", "-9")
    assert table_row(out, "total") == ("9", "-4")
    assert "result: B+13" in out
    groups = assert_explanation_matches_table(out)
    assert ("Black", "j10", 6, True, 2, 6) in groups  # the ring round k11
    assert len(groups) == 7
    assert out == snapshot_txt


# --- show ----------------------------------------------------------------------


def test_show_ring_game(snapshot_txt: SnapshotAssertion) -> None:
    result = run("show", RING)
    assert result.exit_code == 0
    out = result.stdout
    assert "rules dehil, size 7, komi 3, after turn 38 of 38" in out
    assert count_glyphs(out, "X") == 18 and count_glyphs(out, "O") == 18
    assert count_glyphs(out, ".") == 127 - 36
    assert "last turn: 38 pass (White)" in out
    board = [ln for ln in out.splitlines() if re.match(r"^\s*\d+ ", ln)]
    assert len(board) == 13
    assert not any("(" in ln for ln in board), "no stone is marked after a pass"
    assert "captured" not in out  # nothing is ever captured in Dehil
    assert "button" not in out.split("last turn:")[1]  # Dehil has no button at all
    assert "game over" in out
    assert out == snapshot_txt


def test_show_unicode(snapshot_txt: SnapshotAssertion) -> None:
    result = run("show", "--unicode", RING)
    assert result.exit_code == 0
    out = result.stdout
    assert count_glyphs(out, "●") == 18 and count_glyphs(out, "○") == 18
    assert count_glyphs(out, "·") == 127 - 36
    assert count_glyphs(out, "XO.") == 0
    # The same picture as the ASCII one, glyph for glyph.
    assert out.translate(str.maketrans("●○·", "XO.")) == run("show", RING).stdout
    assert out == snapshot_txt


def test_show_turn_the_hourglasses_appear(snapshot_txt: SnapshotAssertion) -> None:
    """After turn 17 Black's g7 has made the two hourglasses round g7 and h7."""
    result = run("show", "--turn", "17", TRIANGLES)
    assert result.exit_code == 0
    out = result.stdout
    assert "after turn 17 of 45" in out
    assert "last turn: 17 g7 (Black)" in out
    assert "to move: White" in out
    assert count_glyphs(out, "X") == 9 and count_glyphs(out, "O") == 8
    assert "(X)" in out  # the last stone played is marked
    row7 = next(ln for ln in out.splitlines() if ln.startswith(" 7 "))
    assert row7.split()[1:] == [".", ".", "O", ".", ".", "X(X)X", "X", "X", ".", ".", "."]
    assert out == snapshot_txt


def test_show_unicode_at_a_turn_of_the_unfinished_game(snapshot_txt: SnapshotAssertion) -> None:
    result = run("show", "--unicode", "--turn", "11", UNFINISHED)
    assert result.exit_code == 0
    out = result.stdout
    assert "after turn 11 of 18" in out
    assert "last turn: 11 j11 (Black)" in out
    assert "to move: White" in out
    assert count_glyphs(out, "●") == 6 and count_glyphs(out, "○") == 5
    assert "(●)" in out
    assert out == snapshot_txt


def test_show_of_an_illegal_fault_shows_the_position_before_it() -> None:
    result = run("show", f"{FAULTS}/illegal-triangle-two-edge-stones.keil")
    assert result.exit_code == 1
    assert "after turn 6 of 7" in result.stdout
    assert "game 1: illegal: move 4 (Black) b2, turn 7: triangle; showing the position before it" in result.stderr
    assert count_glyphs(result.stdout, "X") == 3 and count_glyphs(result.stdout, "O") == 3


def test_show_of_the_button_turn_fails_in_one_line_and_points_at_it() -> None:
    result = run("show", f"{FAULTS}/error-button-turn.keil")
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr.splitlines() == [
        f"keilref: {FAULTS}/error-button-turn.keil:6:17: game 1: 'button' is not a turn in dehil:"
        " the game has no button (expected a point or 'pass')",
        "    1. g7 c3 2. j10 button 3. g12 *",
        "                    ^",
    ]


# --- legal -----------------------------------------------------------------------


def legal_listed(out: str) -> list[str]:
    body = out.splitlines()
    start = next(i for i, ln in enumerate(body) if ln.endswith(" placements:"))
    return " ".join(ln.strip() for ln in body[start + 1 : -1]).split()


def test_legal_the_triangle_rule_removes_two_points(snapshot_txt: SnapshotAssertion) -> None:
    """After turn 6 of the size-5 game Black has a2 and b2. a1 would make
    a1-a2-b2, two edge stones; b3 would make a2-b2-b3, with no support for b2
    or b3. Every other empty point is legal."""
    result = run("legal", "--turn", "6", FIRST_PASS)
    assert result.exit_code == 0
    out = result.stdout
    assert "Black to move" in out
    listed = legal_listed(out)
    assert "a1" not in listed and "b3" not in listed
    assert not {"a2", "b2", "h8", "h9", "i8"} & set(listed)  # occupied
    assert len(listed) == 61 - 5 - 2
    assert f"{len(listed)} placements:" in out
    assert out.splitlines()[-1] == "other: pass"
    assert out == snapshot_txt


def test_legal_before_the_hourglasses(snapshot_txt: SnapshotAssertion) -> None:
    """Before turn 17: g7 is legal (it makes two hourglasses whose centres touch),
    while i8, i6, j8, e6 and g5 would each make a triangle without support."""
    result = run("legal", "--turn", "16", TRIANGLES)
    assert result.exit_code == 0
    out = result.stdout
    assert "Black to move" in out
    listed = legal_listed(out)
    assert "g7" in listed
    assert not {"e6", "g5", "i6", "i8", "j8"} & set(listed)
    assert len(listed) == 127 - 16 - 5
    assert out.splitlines()[-1] == "other: pass"
    assert out == snapshot_txt


def test_legal_after_the_end() -> None:
    result = run("legal", WALLS)
    assert result.exit_code == 0
    assert "the game is over: no turn is legal" in result.stdout
