"""The clock checks as the record format states them, one reading per test.

Each check is a warning at the clock it is about, reported on its own; only
``--strict`` fails it, so every test gives the exit code with and without
it. Every game here is ``ok`` (a resignation, or a time result for the
player to move), so a warning is the only thing ``--strict`` can fail.
"""

from __future__ import annotations

import json
from pathlib import Path

from cli_support import lines_of, run

TAGS = '[Rules "keil"] [Size "2"] [Komi "0"] [Button "yes"]'


def _check(tmp_path: Path, text: str) -> tuple[list[str], list[str]]:
    """The warnings ``check`` prints (``line:column: message``) and the
    jsonl warnings, after asserting the status and both exit codes."""
    path = tmp_path / "game.keil"
    path.write_text(text, encoding="utf-8")
    (line,) = lines_of(run("check", "--format", "jsonl", str(path)).stdout)
    verdict = json.loads(line)
    assert verdict["status"] == "ok"
    plain = run("check", str(path))
    assert plain.exit_code == 0
    strict = run("check", "--strict", str(path))
    assert strict.exit_code == (1 if verdict["warnings"] else 0)
    prefix = f"{path}:"
    printed = [
        ln[len(prefix) :].replace(": game 1: warning: ", ": ", 1)
        for ln in lines_of(plain.stdout)
        if ": warning: " in ln
    ]
    return printed, verdict["warnings"]


def test_a_negative_clock_is_warned_without_a_time_control(tmp_path: Path) -> None:
    # TimeControl "-": the first clock (a1's, at 2:8) is warned as a clock in
    # a game without time control, and b1's negative clock (2:28) as well.
    printed, warnings = _check(
        tmp_path, TAGS + ' [TimeControl "-"]\n1. a1 {[%clk 0:00:05]} b1 {[%clk -0:00:02]} B+R\n'
    )
    assert printed == [
        '2:8: move 1 (Black) a1, turn 1: a clock in a game without time control (TimeControl "-")',
        "2:28: move 1 (White) b1, turn 2: clock -0:00:02 is negative",
    ]
    assert warnings == [p.split(": ", 1)[1] for p in printed]


def test_a_negative_first_clock_without_a_time_control_gets_both_warnings(tmp_path: Path) -> None:
    printed, _ = _check(tmp_path, TAGS + ' [TimeControl "-"]\n1. a1 {[%clk -0:00:01]} B+R\n')
    assert printed == [
        '2:8: move 1 (Black) a1, turn 1: a clock in a game without time control (TimeControl "-")',
        "2:8: move 1 (Black) a1, turn 1: clock -0:00:01 is negative",
    ]


def test_a_negative_clock_is_warned_under_every_time_control(tmp_path: Path) -> None:
    for control in ('[TimeControl "60+2"]', '[TimeControl "60"]', '[TimeControl "?"]', ""):
        printed, _ = _check(tmp_path, f"{TAGS} {control}\n1. a1 {{[%clk -0:00:00.5]}} B+R\n")
        assert printed == ["2:8: move 1 (Black) a1, turn 1: clock -0:00:00.5 is negative"], control


def test_without_a_time_control_only_the_games_first_clock_is_warned(tmp_path: Path) -> None:
    # Four clocks, one in a variation that stands before the main line's
    # next clock: one warning, at the first clock in the file (2:8).
    printed, _ = _check(
        tmp_path,
        TAGS + ' [TimeControl "-"]\n1. a1 {[%clk 0:00:05]} (1. b1 {[%clk 0:00:06]}) b1 {[%clk 0:00:04]}\n'
        "2. c3 {[%clk 0:00:03]} B+R\n",
    )
    assert printed == ['2:8: move 1 (Black) a1, turn 1: a clock in a game without time control (TimeControl "-")']
    # The variation's clock alone: it is the game's first clock.
    printed, _ = _check(
        tmp_path, TAGS + ' [TimeControl "-"]\n1. a1 (1. b1 {[%clk 0:00:06]}) b1 {[%clk 0:00:04]} B+R\n'
    )
    assert printed == ['2:15: move 1 (Black) b1, turn 1: a clock in a game without time control (TimeControl "-")']


def test_a_clock_that_is_negative_and_rose_gets_both_warnings(tmp_path: Path) -> None:
    # No increment: Black's clock goes from -0:00:03 (turn 1) to -0:00:01
    # (turn 3), up 2 s where nothing may be added.
    printed, _ = _check(
        tmp_path,
        TAGS + ' [TimeControl "60"]\n1. a1 {[%clk -0:00:03]} b1 {[%clk 0:00:50]} 2. c3 {[%clk -0:00:01]} B+R\n',
    )
    assert printed == [
        "2:8: move 1 (Black) a1, turn 1: clock -0:00:03 is negative",
        "2:52: move 2 (Black) c3, turn 3: clock -0:00:01 is negative",
        "2:52: move 2 (Black) c3, turn 3: clock rises from -0:00:03 to -0:00:01, "
        "more than the increments since (0:00:00)",
    ]


def test_a_first_clock_on_a_later_turn_may_stand_at_base_plus_the_increments_so_far(tmp_path: Path) -> None:
    # 60+2: Black's first clock is on Black's second turn (turn 3), after
    # two increments, so 60 + 2 x 2 = 64 s is the most it may show.
    at_limit = TAGS + ' [TimeControl "60+2"]\n1. a1 b1 2. c3 {[%clk 0:01:04]} B+R\n'
    printed, _ = _check(tmp_path, at_limit)
    assert printed == []
    printed, _ = _check(tmp_path, at_limit.replace("0:01:04", "0:01:04.1"))
    assert printed == ["2:17: move 2 (Black) c3, turn 3: clock 0:01:04.1 is above the time control allows so far (0:01:04)"]
    # White's first clock, on White's first turn (turn 2): 60 + 2 = 62 s.
    printed, _ = _check(tmp_path, TAGS + ' [TimeControl "60+2"]\n1. a1 b1 {[%clk 0:01:02.1]} B+R\n')
    assert printed == ["2:11: move 1 (White) b1, turn 2: clock 0:01:02.1 is above the time control allows so far (0:01:02)"]


def test_a_time_result_needs_no_clock_to_show_the_fall(tmp_path: Path) -> None:
    # Three turns: White is to move, so W loses on time (B+T). White's last
    # clock shows 45 s, far above the 2 s increment: the flag fell later,
    # on the clock that ran. No warning, and --strict passes.
    printed, warnings = _check(
        tmp_path,
        TAGS + ' [TimeControl "60+2"]\n1. a1 {[%clk 0:00:55]} b1 {[%clk 0:00:45]} 2. c3 {[%clk 0:00:40]} B+T\n',
    )
    assert (printed, warnings) == ([], [])
    # The same with the loss in the Result tag alone, and with no increment.
    printed, warnings = _check(
        tmp_path,
        TAGS + ' [TimeControl "60"] [Result "B+T"]\n1. a1 {[%clk 0:00:55]} b1 {[%clk 0:00:45]} 2. c3\n',
    )
    assert (printed, warnings) == ([], [])
