"""The records of format version 2 in ``records/``, through the command line.

Each test pins what ``keilref check`` prints for one record in a plain-text
snapshot (``tests/__snapshots__/test_annotated_records/``) and states what
it means: the status, the exit code with and without ``--strict``, and
where each warning points, so that a snapshot blessed with a wrong answer
in it still fails. Every record is also already in the canonical layout.
"""

from __future__ import annotations

import json

import pytest
from syrupy.assertion import SnapshotAssertion

from cli_support import ROOT, lines_of, run, untimed

pytestmark = pytest.mark.usefixtures("at_the_root")

TEACHING = "records/games/size5-keil-teaching-nested-variations.keil"
BLITZ = "records/games/size5-keil-blitz-white-loses-on-time.keil"
GLYPHS = "records/games/size6-keil-glyphs-on-turns.keil"
VARIATION_FAULT = "records/faults/warning-variation-turn-occupied.keil"
CLOCK_FAULT = "records/faults/warning-clock-rises-past-increment.keil"
NOT_RUNNING = "records/faults/mismatch-time-loss-clock-not-running.keil"
ALL = (TEACHING, BLITZ, GLYPHS, VARIATION_FAULT, CLOCK_FAULT, NOT_RUNNING)


def _verdict(path: str) -> dict[str, object]:
    (line,) = lines_of(run("check", "--format", "jsonl", path).stdout)
    v: dict[str, object] = json.loads(line)
    return v


def _text_at(path: str, line: int, column: int) -> str:
    return (ROOT / path).read_text(encoding="utf-8").splitlines()[line - 1][column - 1 :]


@pytest.mark.parametrize("path", ALL, ids=lambda p: p.rsplit("/", 1)[1])
def test_each_record_is_in_the_canonical_layout(path: str) -> None:
    result = run("fmt", "--check", path)
    assert result.exit_code == 0, result.stderr


@pytest.mark.parametrize("path", (TEACHING, BLITZ, GLYPHS), ids=lambda p: p.rsplit("/", 1)[1])
def test_the_annotated_games_pass_a_strict_check(path: str, snapshot_txt: SnapshotAssertion) -> None:
    result = run("check", "--strict", path)
    assert result.exit_code == 0
    (verdict, summary) = lines_of(result.stdout)
    assert ": game 1: ok: " in verdict
    assert summary.startswith("1 game: 1 ok in ")
    assert _verdict(path)["warnings"] == []
    assert untimed(result.stdout) == snapshot_txt


def test_the_teaching_game_is_judged_by_its_main_line(snapshot_txt: SnapshotAssertion) -> None:
    from keilref.records.parser import parse_record

    record = parse_record((ROOT / TEACHING).read_text(encoding="utf-8"))
    opened = [(t, v) for t in record.turns for v in t.variations]
    nested = [w for _, v in opened for t in v.turns for w in t.variations]
    assert len(opened) == 3 and len(nested) == 2
    # Comments inside a variation, before its first turn, and after its ")".
    assert any(v.comments for _, v in opened) and any(v.after for _, v in opened)
    v = _verdict(TEACHING)
    assert (v["status"], v["computed"], v["declared"], v["turns"]) == ("ok", "B+4.5", "B+4.5", 58)
    # Each line in full, where it opens and the turn it replaces, since check
    # says nothing of a line that plays.
    starts = []
    stack = [record.tree()]
    while stack:
        node = stack.pop()
        stack.extend(node.variations)
        if node.starts_variation():
            starts.append(node)
    assert len(starts) == 5
    lines = []
    for node in sorted(starts, key=lambda n: (n.turn.line, n.turn.column)):  # type: ignore[union-attr]
        moves = [node.move, *(n.move for n in node.mainline())]
        lines.append(f"{node.line_name()} replaces turn {node.ply}: {' '.join(m or '' for m in moves)}")
        node.game()  # every line plays
    assert "\n".join(lines) + "\n" == snapshot_txt


def test_the_blitz_game_is_lost_on_the_clock_of_the_player_to_move() -> None:
    from keilref.records.parser import parse_record

    record = parse_record((ROOT / BLITZ).read_text(encoding="utf-8"))
    assert record.tag_value("TimeControl") == "180+2"
    clocks = [t.clock for t in record.turns]
    assert all(c is not None for c in clocks), "a clock after every turn"
    v = _verdict(BLITZ)
    assert (v["status"], v["declared"], v["turns"]) == ("ok", "B+T", 35)
    # 35 turns: White is to move, and White's last clock is under the increment.
    white_last = clocks[-2]
    assert white_last is not None and white_last.tenths <= 20
    # A clock may rise by the increment exactly: Black's turns 7 and 9.
    before, after = clocks[6], clocks[8]
    assert before is not None and after is not None and after.tenths - before.tenths == 20


def test_the_glyphs_are_kept_and_change_nothing() -> None:
    from keilref.records.parser import parse_record

    record = parse_record((ROOT / GLYPHS).read_text(encoding="utf-8"))
    suffixes = {t.glyphs[0] for t in record.turns if t.glyphs and t.glyphs[0][0] != "$"}
    assert suffixes == {"!", "?", "!!", "??", "!?", "?!"}
    assert any(len(t.glyphs) >= 2 and t.glyphs[0][0] != "$" for t in record.turns), "a suffix and a $N on one turn"
    v = _verdict(GLYPHS)
    assert (v["status"], v["computed"], v["declared"]) == ("ok", "B+7.5", "B+7.5")


def test_an_illegal_turn_in_a_variation_is_a_warning_at_that_turn(snapshot_txt: SnapshotAssertion) -> None:
    result = run("check", VARIATION_FAULT)
    assert result.exit_code == 0
    assert run("check", "--strict", VARIATION_FAULT).exit_code == 1
    (verdict, warning, summary) = lines_of(result.stdout)
    assert verdict.startswith(f"{VARIATION_FAULT}:1:1: game 1: ok: computed W+8.5, declared W+8.5")
    # The variation opens at 11:15 and replaces turn 20; its c3 at 11:22 was
    # taken by Black at turn 17, before the turn it replaces.
    assert warning == (
        f"{VARIATION_FAULT}:11:22: game 1: warning: variation at 11:15: move 10 (White) c3, turn 20: occupied"
    )
    assert _text_at(VARIATION_FAULT, 11, 15).startswith("(10... c3 ")
    assert _text_at(VARIATION_FAULT, 11, 22).startswith("c3 ")
    assert summary.startswith("1 game: 1 ok; 1 with warnings in ")
    # The earlier variation plays d6 before turn 5 took it: that is legal.
    assert _verdict(VARIATION_FAULT)["warnings"] == ["variation at 11:15: move 10 (White) c3, turn 20: occupied"]
    assert untimed(result.stdout) == snapshot_txt


def test_a_clock_rising_past_the_increment_is_a_warning_at_the_clock(snapshot_txt: SnapshotAssertion) -> None:
    result = run("check", CLOCK_FAULT)
    assert result.exit_code == 0
    assert run("check", "--strict", CLOCK_FAULT).exit_code == 1
    (verdict, warning, summary) = lines_of(result.stdout)
    assert verdict.startswith(f"{CLOCK_FAULT}:1:1: game 1: ok: computed -, declared W+R")
    assert warning == (
        f"{CLOCK_FAULT}:13:2: game 1: warning: move 7 (White) c4, turn 14: "
        "clock rises from 0:00:35.7 to 0:00:53.7, more than the increments since (0:00:01)"
    )
    assert _text_at(CLOCK_FAULT, 13, 2).startswith("[%clk 0:00:53.7]")
    assert summary.startswith("1 game: 1 ok; 1 with warnings in ")
    assert untimed(result.stdout) == snapshot_txt


def test_a_time_loss_for_the_player_not_to_move_is_a_mismatch(snapshot_txt: SnapshotAssertion) -> None:
    result = run("check", NOT_RUNNING)
    assert result.exit_code == 1
    (verdict, summary) = lines_of(result.stdout)
    # At the result token, which opens line 17; White's low clock (0:00:00.8)
    # shows no fall, since after 24 turns only Black's clock runs.
    assert verdict == (
        f"{NOT_RUNNING}:17:1: game 1: mismatch: computed -, declared B+T; "
        "a loss on time is claimed for White, but Black was to move when the record ends"
    )
    assert _text_at(NOT_RUNNING, 17, 1) == "B+T"
    assert summary.startswith("1 game: 1 mismatch in ")
    v = _verdict(NOT_RUNNING)
    assert (v["turns"], v["warnings"]) == (24, [])
    assert untimed(result.stdout) == snapshot_txt
