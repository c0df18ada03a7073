"""``keilref stats`` on timed games: the time each player used, and how many
games were decided on time, with every number worked out by hand below."""

from __future__ import annotations

import json
from pathlib import Path

from cli_support import run
from keilref.referee.clocks import TimeUsed, time_used
from keilref.records.parser import parse_record

TAGS = '[Rules "keil"] [Size "2"] [Komi "0"] [Button "yes"]'

GAMES = [
    # Black: 2 turns, last clock 40 s: 60 + 2 x 2 - 40 = 24 s.
    # White: 1 turn, last clock 1 s: 60 + 2 - 1 = 61 s.
    # Three turns: White is to move, so B+T is accepted: on time.
    TAGS + ' [TimeControl "60+2"]\n1. a1 {[%clk 0:00:55]} b1 {[%clk 0:00:01]} 2. c3 {[%clk 0:00:40]} B+T\n',
    # No increment: Black 100 - 90 = 10 s, White 100 - 80.5 = 19.5 s.
    TAGS + ' [TimeControl "100"]\n1. a1 {[%clk 0:01:30]} b1 {[%clk 0:01:20.5]} *\n',
    # Clocks, but no time control that gives a base: a game with clocks,
    # without time used. Two turns: Black is to move, W+T is accepted.
    TAGS + ' [TimeControl "?"]\n1. a1 {[%clk 0:00:30]} b1 {[%clk 0:00:00]} W+T\n',
    # No clock at all: left out of everything the clocks say.
    TAGS + ' [TimeControl "60+2"]\n1. a1 b1 2. c3 B+T\n',
    # Only Black's clock: Black 60 + 2 - 59 = 3 s; White's time is unknown.
    TAGS + ' [TimeControl "60+2"]\n1. a1 {[%clk 0:00:59]} b1 *\n',
    # A loss on time claimed for the player who was not to move: a mismatch,
    # so not decided on time; Black still used 60 + 2 - 1 = 61 s.
    TAGS + ' [TimeControl "60+2"]\n1. a1 {[%clk 0:00:01]} W+T\n',
]
# Games with clocks: 1, 2, 3, 5 and 6. Decided on time: 1 and 3, 2 of 5.
# Black: 24, 10, 3, 61 -> median (10 + 24) / 2 = 17 s.
# White: 61, 19.5 -> median 40.25 s.


def _archive(tmp_path: Path) -> Path:
    path = tmp_path / "timed.keil"
    path.write_text("\n".join(GAMES), encoding="utf-8")
    return path


def test_time_used_per_game() -> None:
    assert [time_used(parse_record(text)) for text in GAMES] == [
        TimeUsed(240, 610),
        TimeUsed(100, 195),
        TimeUsed(None, None),
        None,
        TimeUsed(30, None),
        TimeUsed(610, None),
    ]


def test_stats_json_says_the_time_used_and_the_share_decided_on_time(tmp_path: Path) -> None:
    result = run("stats", "--format", "json", str(_archive(tmp_path)))
    assert result.exit_code == 0, result.stderr
    clocks = json.loads(result.stdout)["clocks"]
    assert clocks["games"] == 5
    on_time = clocks["decided_on_time"]
    assert (on_time["count"], on_time["of"], on_time["rate"]) == (2, 5, 0.4)
    assert on_time["low"] < 0.4 < on_time["high"]
    assert clocks["time_used"] == {
        "black": {"games": 4, "median_seconds": 17.0},
        "white": {"games": 2, "median_seconds": 40.25},
    }


def test_stats_text_says_the_same(tmp_path: Path) -> None:
    result = run("stats", str(_archive(tmp_path)))
    assert result.exit_code == 0, result.stderr
    section = result.stdout.split("\n\nclocks ", 1)[1].splitlines()
    assert section[0].startswith("(5 games with [%clk] on the main line; time used = base + increment")
    assert section[1].split() == ["player", "games", "median", "time", "used", "(s)"]
    assert section[2].split() == ["Black", "4", "17"]
    assert section[3].split() == ["White", "2", "40.25"]
    assert section[4].startswith("decided on time (an accepted B+T or W+T): 2 40.0% [")
    assert len(section) == 5


def test_an_archive_without_clocks_says_nothing_of_them(tmp_path: Path) -> None:
    path = tmp_path / "untimed.keil"
    path.write_text(GAMES[3], encoding="utf-8")
    text = run("stats", str(path)).stdout
    assert "clocks" not in text and "[%clk" not in text
    assert "clocks" not in json.loads(run("stats", "--format", "json", str(path)).stdout)
