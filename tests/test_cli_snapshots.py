"""The command line, pinned by plain-text snapshots of its output.

Every snapshot lives in ``tests/__snapshots__/test_cli_snapshots/`` as the
exact text the command printed (the timing in ``check``'s summary line is
replaced by a placeholder first). Each test also states what the output
*means* — the exit code, the status, the score — so that a snapshot blessed
with a wrong answer in it still fails.

Regenerate after an intended change with ``pytest --snapshot-update`` and
read every changed file before committing it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from syrupy.assertion import SnapshotAssertion
from typer.testing import Result

from cli_support import count_glyphs, lines_of, run, table_row, untimed

pytestmark = pytest.mark.usefixtures("at_the_root")

GAMES = "records/games"
FAULTS = "records/faults"
ANNOTATED = f"{GAMES}/size7-keil-invasion-annotated.keil"
KO = f"{GAMES}/size5-keil-corner-ko.keil"
SENSITIVE = f"{GAMES}/size6-keil-rule-sensitive.keil"
DRAW = f"{GAMES}/size4-keil2019-draw-no-button.keil"
SMALL = f"{GAMES}/small-boards-three-games.keil"
UNFINISHED = f"{GAMES}/size9-keil-unfinished.keil"




_KNOWN_RULES = re.compile(r"\(known: ([a-z0-9, -]+)\)")


def known_rules_fixed(text: str) -> str:
    """The list of known rule sets in an unknown-rules message depends on which
    rule families this process has imported (the registry is filled by imports),
    so it differs between a lone run and the whole suite: check that it names
    both Keil rule sets, then fix it."""
    lists = _KNOWN_RULES.findall(text)
    assert lists, "expected the unknown-rules message"
    for names in lists:
        assert {"keil", "keil-2019"} <= set(names.split(", "))
    return _KNOWN_RULES.sub("(known: <rule sets>)", text)


# --- check ---------------------------------------------------------------


def keil_only(lines: list[str]) -> list[str]:
    """The verdict lines of Keil records (the kindred games live in subfolders)."""
    return [ln for ln in lines if not any(f"/{family}/" in ln for family in ("yugo", "dehil"))]


def assert_summary(lines: list[str]) -> None:
    """The summary line counts the verdict lines above it, status by status,
    and the games with a warning line of their own."""
    games = [ln for ln in lines[:-1] if ": warning: " not in ln]
    warned = {ln.split(": warning: ")[0] for ln in lines[:-1] if ": warning: " in ln}
    counts = {s: sum(f": {s}: " in ln for ln in games) for s in ("ok", "unfinished", "mismatch", "illegal", "error")}
    parts = ", ".join(f"{n} {s}" for s, n in counts.items() if n)
    if warned:
        parts += f"; {len(warned)} with warnings"
    assert lines[-1].startswith(f"{len(games)} games: {parts} in ")
    assert sum(counts.values()) == len(games)


def test_check_games_text(snapshot_txt: SnapshotAssertion) -> None:
    result = run("check", GAMES)
    assert result.exit_code == 0
    out = result.stdout
    everything = lines_of(out)
    assert_summary(everything)
    assert all(": ok: " in ln or ": unfinished: " in ln for ln in everything[:-1])
    assert any("/yugo/" in ln for ln in everything) and any("/dehil/" in ln for ln in everything)
    lines = keil_only(everything[:-1])
    assert len(lines) == 17
    assert sum(": ok: " in ln for ln in lines) == 16
    assert sum(": unfinished: " in ln for ln in lines) == 1
    assert f"{UNFINISHED}:1:1: game 1: unfinished" in out
    assert f"{SENSITIVE}:1:1: game 1: ok: computed B+1.5, declared B+1.5" in out
    assert "W+30.5 under keil-2019" in out
    assert f"{GAMES}/size4-keil-winner-only-imported.keil:1:1: game 1: ok: computed B+4.5, declared B+\n" in out
    assert result.stderr == ""
    assert untimed(out) == snapshot_txt


def test_check_games_strict_fails_on_the_unfinished_game() -> None:
    result = run("check", "--strict", GAMES)
    assert result.exit_code == 1
    assert f"{UNFINISHED}:1:1: game 1: unfinished" in result.stdout


def test_check_faults_text(snapshot_txt: SnapshotAssertion) -> None:
    result = run("check", FAULTS)
    assert result.exit_code == 1
    out = result.stdout
    everything = lines_of(out)
    assert_summary(everything)
    # A fault that is only a warning leaves its game ok, with the warning on a line of its own.
    assert all(
        f"{FAULTS}/warning-" in ln
        for ln in everything[:-1]
        if ": ok: " in ln or ": unfinished: " in ln or ": warning: " in ln
    )
    assert any("/yugo/" in ln for ln in everything) and any("/dehil/" in ln for ln in everything)
    lines = keil_only(everything[:-1])
    assert len(lines) == 31
    assert sum(": illegal: " in ln for ln in lines) == 8
    assert sum(": mismatch: " in ln for ln in lines) == 7
    assert sum(": error: " in ln for ln in lines) == 12
    assert sum(": ok: " in ln for ln in lines) == sum(": warning: " in ln for ln in lines) == 2
    # Line 10 of the record is "16. e2 {...}": the e2 at column 5 is Black's 31st turn.
    assert f"{FAULTS}/illegal-superko.keil:8:79: game 1: illegal: move 16 (Black) e2, turn 31: superko (repeats turn 29)" in out
    assert f"{FAULTS}/error-no-game.keil:1:1: game 1: error: no game in file" in out
    assert "computed B+4.5, declared B+5.5" in out
    assert (
        f"{FAULTS}/mismatch-time-loss-of-player-not-to-move.keil:8:45: game 1: mismatch: computed -, declared B+T; "
        "a loss on time is claimed for White, but Black was to move when the record ends\n"
    ) in out
    assert (
        f"{FAULTS}/mismatch-winner-only-for-unfinished-game.keil:7:46: game 1: mismatch: computed -, declared W+; "
        "a winner-only result is claimed, but the game did not end\n"
    ) in out
    assert known_rules_fixed(untimed(out)) == snapshot_txt


def test_check_games_jsonl(snapshot_txt: SnapshotAssertion) -> None:
    result = run("check", "--format", "jsonl", GAMES)
    assert result.exit_code == 0
    verdicts = [json.loads(ln) for ln in keil_only(lines_of(result.stdout))]
    assert len(verdicts) == 17
    by_name = {(Path(v["file"]).name, v["game"]): v for v in verdicts}
    annotated = by_name[("size7-keil-invasion-annotated.keil", 1)]
    assert annotated["status"] == "ok"
    assert (annotated["computed"], annotated["declared"]) == ("B+3.5", "B+3.5")
    assert annotated["score"] == {"black": 68.5, "white": 65.0}
    assert annotated["turns"] == 63
    resigned = by_name[("size7-keil-white-resigns.keil", 1)]
    assert (resigned["status"], resigned["computed"], resigned["declared"]) == ("ok", None, "B+R")
    draw = by_name[("size4-keil2019-draw-no-button.keil", 1)]
    assert (draw["computed"], draw["score"]) == ("Draw", {"black": 20.0, "white": 20.0})
    unclaimed = by_name[("size4-keil-no-result-claimed.keil", 1)]
    assert (unclaimed["status"], unclaimed["computed"], unclaimed["declared"]) == ("ok", "B+4.5", None)
    assert by_name[("size9-keil-unfinished.keil", 1)]["status"] == "unfinished"
    winner_only = by_name[("size4-keil-winner-only-imported.keil", 1)]
    assert (winner_only["status"], winner_only["computed"], winner_only["declared"]) == ("ok", "B+4.5", "B+")
    assert (winner_only["black"], winner_only["white"]) == ("chen", "dana")
    assert [v["rule_sensitive"] for v in verdicts].count(True) == 2
    assert by_name[("size6-keil-rule-sensitive.keil", 1)]["rule_sensitive"] is True
    assert by_name[("size4-keil-finished-position-rule-sensitive.keil", 1)]["rule_sensitive"] is True
    position = by_name[("size5-keil2019-finished-position.keil", 1)]
    assert (position["status"], position["turns"], position["computed"]) == ("ok", 2, "W+4")
    assert all(v["illegal"] is None and v["error"] is None for v in verdicts)
    assert result.stdout == snapshot_txt


def test_check_faults_jsonl(snapshot_txt: SnapshotAssertion) -> None:
    result = run("check", "--format", "jsonl", FAULTS)
    assert result.exit_code == 1
    verdicts = {Path(v["file"]).stem: v for v in map(json.loads, keil_only(lines_of(result.stdout)))}
    assert len(verdicts) == 29
    ko = verdicts["illegal-superko"]
    assert ko["status"] == "illegal"
    assert ko["illegal"] == {"turn": 31, "point": "e2", "reason": "superko", "line": 8, "column": 79, "repeats_turn": 29}
    assert ko["turns"] == 30
    assert verdicts["illegal-pass-before-button"]["illegal"]["reason"] == "pass-before-button"
    assert "repeats_turn" not in verdicts["illegal-suicide"]["illegal"]
    margin = verdicts["mismatch-wrong-margin"]
    assert (margin["status"], margin["computed"], margin["declared"]) == ("mismatch", "B+4.5", "B+5.5")
    unended = verdicts["mismatch-score-for-unfinished-game"]
    assert (unended["computed"], unended["declared"]) == (None, "W+6")
    for stem, declared in (("mismatch-time-loss-of-player-not-to-move", "B+T"), ("mismatch-winner-only-for-unfinished-game", "W+")):
        v = verdicts[stem]
        assert (v["status"], v["computed"], v["declared"], v["turns"]) == ("mismatch", None, declared, 10)
    utf8 = verdicts["error-invalid-utf8"]
    assert utf8["status"] == "error" and utf8["score"] is None
    assert (utf8["error"]["line"], utf8["error"]["column"]) == (2, 14)
    assert {v["status"] for s, v in verdicts.items() if not s.startswith("warning-")} == {"illegal", "mismatch", "error"}
    assert all(v["status"] == "ok" and len(v["warnings"]) == 1 for s, v in verdicts.items() if s.startswith("warning-"))
    assert known_rules_fixed(result.stdout) == snapshot_txt


def test_check_rules_override_changes_the_verdict() -> None:
    """Replayed under keil-2019, the rule-sensitive game's B+1.5 is a mismatch."""
    result = run("check", "--format", "jsonl", "--rules", "keil-2019", SENSITIVE)
    assert result.exit_code == 1
    (v,) = map(json.loads, lines_of(result.stdout))
    assert (v["status"], v["rules"], v["computed"], v["declared"]) == ("mismatch", "keil-2019", "W+30.5", "B+1.5")


# --- score ---------------------------------------------------------------


def test_score_annotated_game(snapshot_txt: SnapshotAssertion) -> None:
    result = run("score", ANNOTATED)
    assert result.exit_code == 0
    out = result.stdout
    assert "result: B+3.5" in out
    assert table_row(out, "stones") == ("29", "28")
    assert table_row(out, "territory") == ("39", "31")
    assert table_row(out, "komi") == ("", "6")
    assert table_row(out, "button") == ("0.5", "")
    assert table_row(out, "total") == ("68.5", "65")
    assert "neutral points: 0" in out
    # The diagram: every point is a stone or owned territory, and they add up.
    assert count_glyphs(out, "X") == 29 and count_glyphs(out, "O") == 28
    assert count_glyphs(out, "x") == 39 and count_glyphs(out, "o") == 31
    assert count_glyphs(out, ".") == 0
    assert out == snapshot_txt


def test_score_rule_sensitive_game_both_ways(snapshot_txt: SnapshotAssertion) -> None:
    keil = run("score", SENSITIVE)
    assert keil.exit_code == 0
    assert "result: B+1.5" in keil.stdout
    assert table_row(keil.stdout, "territory") == ("32", "21")
    assert "neutral points: 1" in keil.stdout
    old = run("score", "--rules", "keil-2019", SENSITIVE)
    assert old.exit_code == 0
    assert "result: W+30.5" in old.stdout
    assert table_row(old.stdout, "territory") == ("0", "21")
    assert "neutral points: 33" in old.stdout
    assert table_row(old.stdout, "stones") == table_row(keil.stdout, "stones") == ("17", "20")
    # The pictures agree with the tables: f5 is the one neutral point under
    # keil; under keil-2019 it takes Black's whole area with it.
    assert [count_glyphs(keil.stdout, g) for g in "XOxo."] == [17, 20, 32, 21, 1]
    assert [count_glyphs(old.stdout, g) for g in "XOxo."] == [17, 20, 0, 21, 33]
    assert keil.stdout + "----\n" + old.stdout == snapshot_txt


def test_score_draw_without_button(snapshot_txt: SnapshotAssertion) -> None:
    result = run("score", DRAW)
    assert result.exit_code == 0
    out = result.stdout
    assert "result: Draw" in out
    assert table_row(out, "stones") == ("11", "11")
    assert table_row(out, "territory") == ("9", "6")
    assert table_row(out, "komi") == ("", "3")
    assert table_row(out, "total") == ("20", "20")
    assert [count_glyphs(out, g) for g in "XOxo."] == [11, 11, 9, 6, 0]
    assert "button" not in [ln.split(" ")[0] for ln in out.splitlines()], "no button row without a button"
    assert out == snapshot_txt


def test_score_second_game_of_a_file(snapshot_txt: SnapshotAssertion) -> None:
    result = run("score", "--game", "2", SMALL)
    assert result.exit_code == 0
    out = result.stdout
    assert "game 2: rules keil-2019, size 3, komi 2.5" in out
    assert "result: W+1" in out
    assert table_row(out, "komi") == ("", "2.5")
    assert table_row(out, "button") == ("0.5", "")
    assert table_row(out, "total") == ("10.5", "11.5")
    assert [count_glyphs(out, g) for g in "XOxo."] == [6, 6, 4, 3, 0]
    assert out == snapshot_txt


def test_score_unfinished_game_says_so(snapshot_txt: SnapshotAssertion) -> None:
    result = run("score", UNFINISHED)
    assert result.exit_code == 0
    out = result.stdout
    assert "the game has not ended" in out
    assert table_row(out, "total") == ("12", "18")
    assert table_row(out, "button") == ("", "")
    assert "result: W+6" in out
    assert "neutral points: 195" in out
    assert [count_glyphs(out, g) for g in "XOxo"] == [10, 10, 2, 0]
    assert out == snapshot_txt


# --- show ------------------------------------------------------------------


def test_show_end_of_ko_game(snapshot_txt: SnapshotAssertion) -> None:
    result = run("show", KO)
    assert result.exit_code == 0
    out = result.stdout
    assert "after turn 42 of 42" in out
    assert count_glyphs(out, "X") == 14 and count_glyphs(out, "O") == 19
    assert count_glyphs(out, ".") == 61 - 33
    assert "game over" in out
    assert "captured: by Black 1, by White 4" in out
    assert "button: taken by Black" in out
    assert out == snapshot_txt


def test_show_unicode(snapshot_txt: SnapshotAssertion) -> None:
    result = run("show", "--unicode", KO)
    assert result.exit_code == 0
    out = result.stdout
    assert count_glyphs(out, "●") == 14 and count_glyphs(out, "○") == 19
    assert count_glyphs(out, "·") == 28
    assert count_glyphs(out, "XO") == 0
    # The same picture as the ASCII one, glyph for glyph.
    ascii_out = run("show", KO).stdout
    assert out.translate(str.maketrans("●○·", "XO.")) == ascii_out
    assert out == snapshot_txt


def test_show_territory(snapshot_txt: SnapshotAssertion) -> None:
    result = run("show", "--territory", KO)
    assert result.exit_code == 0
    out = result.stdout
    # Black 14 stones + 15 territory, White 19 + 13, no neutral point.
    assert count_glyphs(out, "X") == 14 and count_glyphs(out, "x") == 15
    assert count_glyphs(out, "O") == 19 and count_glyphs(out, "o") == 13
    assert count_glyphs(out, ".") == 0
    assert out == snapshot_txt


def test_show_turn_in_the_ko_fight(snapshot_txt: SnapshotAssertion) -> None:
    """After turn 30 White has just captured e2 with e1: the ko is on."""
    result = run("show", "--turn", "30", KO)
    assert result.exit_code == 0
    out = result.stdout
    assert "after turn 30 of 42" in out
    assert "last turn: 30 e1 (White)" in out
    assert "captured: by Black 0, by White 1" in out
    assert "to move: Black" in out
    assert "(O)" in out  # the last stone played is marked
    assert count_glyphs(out, "X") == 14 and count_glyphs(out, "O") == 15
    assert out == snapshot_txt


def test_show_unicode_territory_at_a_turn(snapshot_txt: SnapshotAssertion) -> None:
    result = run("show", "--unicode", "--territory", "--turn", "36", SENSITIVE)
    assert result.exit_code == 0
    out = result.stdout
    assert "after turn 36 of 42" in out
    assert "last turn: 36 i4 (White)" in out
    assert "captured: by Black 0, by White 1" in out
    assert "button: not taken" in out
    assert out == snapshot_txt


# --- legal ---------------------------------------------------------------


def test_legal_during_the_ko(snapshot_txt: SnapshotAssertion) -> None:
    """Black may not retake e2 at once: superko. Passing is not allowed before the button."""
    result = run("legal", "--turn", "30", KO)
    assert result.exit_code == 0
    out = result.stdout
    assert "Black to move" in out
    listed = " ".join(ln.strip() for ln in out.splitlines()[3:-1]).split()
    assert "e2" not in listed
    assert "e1" not in listed  # occupied
    assert out.splitlines()[-1] == "other: button"
    assert f"{len(listed)} placements:" in out
    assert out == snapshot_txt


def test_legal_on_size_2_after_black_takes_the_centre(snapshot_txt: SnapshotAssertion) -> None:
    """Every white placement would be suicide: only the button is left."""
    result = run("legal", "--turn", "1", SMALL)
    assert result.exit_code == 0
    out = result.stdout
    assert "White to move" in out
    assert "0 placements:" in out
    assert out.splitlines()[-1] == "other: button"
    assert out == snapshot_txt


def test_legal_after_the_end() -> None:
    result = run("legal", KO)
    assert result.exit_code == 0
    assert "the game is over: no turn is legal" in result.stdout


# --- bad input: exit 2, one line on stderr, never a traceback -------------


def assert_usage_error(result: Result, *phrases: str) -> None:
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    err = result.stderr
    assert len(err.splitlines()) == 1, err
    for phrase in phrases:
        assert phrase in err
    assert "Traceback" not in result.output


def test_nonexistent_path() -> None:
    assert_usage_error(run("check", "records/no-such-dir"), "records/no-such-dir", "no such file")


def test_directory_without_records(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("not a record\n", encoding="utf-8")
    assert_usage_error(run("check", str(tmp_path)), str(tmp_path), "no .keil records")


def test_game_number_beyond_the_file() -> None:
    assert_usage_error(run("show", "--game", "99", SMALL), "no game 99", "holds 3")


def test_turn_beyond_the_end() -> None:
    assert_usage_error(run("show", "--turn", "43", KO), "turn 43", "42 turns")
    assert_usage_error(run("legal", "--turn", "100", KO), "turn 100")


def test_unknown_format() -> None:
    assert_usage_error(run("check", "--format", "xml", GAMES), "--format: unknown value 'xml'", "expected text, jsonl")


def test_unknown_rules() -> None:
    assert_usage_error(run("check", "--rules", "nonsense", GAMES), "nonsense")
    assert_usage_error(run("score", "--rules", "nonsense", KO), "nonsense")


def test_show_of_an_unreadable_record_fails_in_one_line_and_points_at_the_fault() -> None:
    result = run("show", f"{FAULTS}/error-unterminated-tag.keil")
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr.splitlines() == [
        f"keilref: {FAULTS}/error-unterminated-tag.keil:3:8: game 1: tag value not closed:"
        " a value ends with '\"' on the same line",
        '    [White "Marcos Lage]',
        "           ^",
    ]


def test_show_of_an_illegal_record_shows_the_position_before_the_fault() -> None:
    result = run("show", f"{FAULTS}/illegal-superko.keil")
    # The legal part is shown, but the record is faulty: exit 1, as check would.
    assert result.exit_code == 1
    assert "after turn 30 of 31" in result.stdout
    assert "game 1: illegal: move 16 (Black) e2, turn 31: superko (repeats turn 29)" in result.stderr
