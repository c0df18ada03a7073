"""Elo ratings from verified games in date order, against values worked out by hand.

Start 1500, K = 32; the expected score of R against S is 1 / (1 + 10^((S - R) / 400)).

  game 1, 2024-05-01, A beats B, both at 1500: expected 0.5 each,
    A = 1500 + 32 × (1 − 0.5) = 1516, B = 1500 − 16 = 1484.
  game 2, 2024-05-02, C (White) beats A: A 1516 against C 1500,
    10^(−16/400) = 10^−0.04 = 0.912011, A expected 1 / 1.912011 = 0.523010,
    A = 1516 − 32 × 0.523010 = 1516 − 16.7363 = 1499.2637, C = 1500 + 16.7363 = 1516.7363.
  game 3, 2024-05-03, B and C draw: B 1484 against C 1516.7363,
    10^(32.7363/400) = 10^0.081841 = 1.207371, B expected 1 / 2.207371 = 0.453028,
    B = 1484 + 32 × (0.5 − 0.453028) = 1484 + 1.5031 = 1485.5031, C = 1516.7363 − 1.5031 = 1515.2332.

Shown rounded: C 1515, A 1499, B 1486 (sum 4500: what one gains the other loses).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from cli_support import run
from test_standings import DRAW, MISMATCH, WIN_BLACK, WIN_WHITE

from keilref.referee.ratings import date_key

A_BEATS_B = ("2024-05-01", "A", "B", WIN_BLACK)
C_BEATS_A = ("2024.05.02", "A", "C", WIN_WHITE)
B_DRAWS_C = ("2024/05/03", "B", "C", DRAW)

EXPECTED = {"C": 1515.2332, "A": 1499.2637, "B": 1485.5031}


def _write(path: Path, games: list[tuple[str | None, str, str, str]]) -> Path:
    records = []
    for date, black, white, body in games:
        date_tag = "" if date is None else f' [Date "{date}"]'
        records.append(f'[Event "Club"] [Round "1"]{date_tag} [Black "{black}"] [White "{white}"]\n{body}')
    path.write_text("\n".join(records), encoding="utf-8")
    return path


def _ratings(path: Path) -> dict[str, tuple[float, int]]:
    result = run("stats", "-j", "1", "--standings", "--ratings", "-f", "json", str(path))
    assert result.exit_code == 0, result.output
    rated = json.loads(result.stdout)["ratings"]
    assert (rated["system"], rated["start"], rated["k"]) == ("elo", 1500, 32)
    return {r["player"]: (r["rating"], r["games"]) for r in rated["players"]}


def test_the_first_game_moves_both_by_16(tmp_path: Path) -> None:
    assert _ratings(_write(tmp_path / "one.keil", [A_BEATS_B])) == {"A": (1516.0, 1), "B": (1484.0, 1)}


def test_three_games_give_the_hand_computed_ratings(tmp_path: Path) -> None:
    got = _ratings(_write(tmp_path / "three.keil", [A_BEATS_B, C_BEATS_A, B_DRAWS_C]))
    assert list(got) == ["C", "A", "B"]  # highest first
    assert {p: round(r, 4) for p, (r, _) in got.items()} == EXPECTED
    assert {p: n for p, (_, n) in got.items()} == {"C": 2, "A": 2, "B": 2}
    assert sum(r for r, _ in got.values()) == pytest.approx(4500)


def test_games_are_rated_in_date_order_not_file_order(tmp_path: Path) -> None:
    shuffled = _write(tmp_path / "shuffled.keil", [B_DRAWS_C, C_BEATS_A, A_BEATS_B])
    assert {p: round(r, 4) for p, (r, _) in _ratings(shuffled).items()} == EXPECTED


def test_games_without_a_date_come_after_the_dated_ones_in_the_order_read(tmp_path: Path) -> None:
    # Undated, read first: still rated after the dated game, so A beats B (1516 / 1484) first,
    # then A (1516) loses to C (1500) as in game 2 above.
    undated = ("", "A", "C", WIN_WHITE)
    got = _ratings(_write(tmp_path / "undated.keil", [undated, A_BEATS_B]))
    assert {p: round(r, 4) for p, (r, _) in got.items()} == {"C": 1516.7363, "A": 1499.2637, "B": 1484.0}


def test_a_game_that_is_not_ok_is_not_rated(tmp_path: Path) -> None:
    got = _ratings(_write(tmp_path / "mismatch.keil", [A_BEATS_B, ("2024-05-02", "A", "C", MISMATCH)]))
    assert got == {"A": (1516.0, 1), "B": (1484.0, 1)}


def test_the_text_shows_whole_numbers_and_how_they_were_computed(tmp_path: Path) -> None:
    path = _write(tmp_path / "three.keil", [A_BEATS_B, C_BEATS_A, B_DRAWS_C])
    result = run("stats", "-j", "1", "--ratings", str(path))  # --ratings implies --standings
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    at = lines.index(
        "ratings: Elo from 3 counted games in date order (Date tag, then as read), starting at 1500, K = 32; shown rounded"
    )
    assert lines[at + 2 : at + 6] == [
        "#  player  rating  games",
        "1  C         1515      2",
        "2  A         1499      2",
        "3  B         1486      2",
    ]


def test_without_ratings_none_are_shown(tmp_path: Path) -> None:
    path = _write(tmp_path / "one.keil", [A_BEATS_B])
    assert "ratings" not in json.loads(run("stats", "--standings", "-f", "json", str(path)).stdout)
    assert "Elo" not in run("stats", "--standings", str(path)).stdout


@pytest.mark.parametrize(
    ("date", "key"),
    [
        ("2024-05-01", (2024, 5, 1)),
        ("2024.05.01", (2024, 5, 1)),
        ("2024/5/1", (2024, 5, 1)),
        ("2024.??.??", (2024, 0, 0)),
        ("2024-05", (2024, 5, 0)),
        ("2024", (2024, 0, 0)),
        ("", None),
        ("May 2024", None),
        (None, None),
    ],
)
def test_dates_are_read_as_the_ratings_docs_say(date: str | None, key: tuple[int, int, int] | None) -> None:
    assert date_key(date) == key


def test_the_html_report_shows_the_same_ratings(tmp_path: Path) -> None:
    path = _write(tmp_path / "three.keil", [A_BEATS_B, C_BEATS_A, B_DRAWS_C])
    report = tmp_path / "report.html"
    assert run("check", "-j", "1", "-f", "html", "-o", str(report), str(path)).exit_code == 0
    table = report.read_text(encoding="utf-8").split('<table class="ratings">', 1)[1].split("</table>", 1)[0]
    rows = re.findall(r'<tr><td>(\d+)</td><th scope="row">(\w+)</th><td>(\d+)</td><td>(\d+)</td></tr>', table)
    assert rows == [("1", "C", "1515", "2"), ("2", "A", "1499", "2"), ("3", "B", "1486", "2")]
