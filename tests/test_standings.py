"""Standings from verified results: a hand-made round robin of six players.

Fifteen games over five rounds, one of them illegal and one a mismatch: the
two are listed as not counted and leave the table. Every figure below was
worked out by hand from the results, not read from keilref's output.
"""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from keilref.cli import EXIT_OK, app

WIN_BLACK = '[Rules "keil"] [Size "3"] [Komi "2"] [Button "yes"]\n1. e3 a1 B+R\n'
WIN_WHITE = '[Rules "keil"] [Size "3"] [Komi "2"] [Button "yes"]\n1. e3 a1 W+R\n'
DRAW = '[Rules "keil-2019"] [Size "2"] [Komi "7"] [Button "no"]\n1. b2 pass 2. pass Draw\n'
ILLEGAL = '[Rules "keil"] [Size "3"] [Komi "2"] [Button "yes"]\n1. e3 e3 W+R\n'
MISMATCH = '[Rules "keil"] [Size "3"] [Komi "2"] [Button "yes"]\n1. e3 a1 B+3\n'

# (round, Black, White, game)
ROUND_ROBIN = [
    (1, "Ana", "Fay", WIN_BLACK),
    (1, "Ben", "Eva", WIN_WHITE),
    (1, "Cai", "Dee", DRAW),
    (2, "Fay", "Dee", WIN_BLACK),
    (2, "Eva", "Cai", DRAW),
    (2, "Ana", "Ben", WIN_BLACK),
    (3, "Ben", "Fay", WIN_BLACK),
    (3, "Cai", "Ana", ILLEGAL),
    (3, "Dee", "Eva", WIN_BLACK),
    (4, "Fay", "Eva", WIN_WHITE),
    (4, "Ana", "Dee", DRAW),
    (4, "Ben", "Cai", MISMATCH),
    (5, "Cai", "Fay", WIN_BLACK),
    (5, "Dee", "Ben", WIN_WHITE),
    (5, "Eva", "Ana", WIN_WHITE),
]

# rank, player, points, wins, draws, losses, games counted, Sonneborn-Berger
EXPECTED = [
    (1, "Ana", 3.5, 3, 1, 0, 4, 6.5),  # beat Fay 1, Ben 2, Eva 2.5; drew Dee 2 / 2
    (2, "Eva", 2.5, 2, 1, 2, 5, 4.0),  # beat Ben 2, Fay 1; drew Cai 2 / 2
    (3, "Dee", 2.0, 1, 2, 2, 5, 5.25),  # beat Eva 2.5; drew Cai 2 / 2, Ana 3.5 / 2
    (4, "Cai", 2.0, 1, 2, 0, 3, 3.25),  # beat Fay 1; drew Dee 2 / 2, Eva 2.5 / 2
    (5, "Ben", 2.0, 2, 0, 2, 4, 3.0),  # beat Fay 1, Dee 2
    (6, "Fay", 1.0, 1, 0, 4, 5, 2.0),  # beat Dee 2
]


def archive(tmp_path: Path) -> Path:
    games = []
    for round_, black, white, game in ROUND_ROBIN:
        games.append(f'[Event "Club round robin"] [Round "{round_}"] [Black "{black}"] [White "{white}"]\n{game}')
    path = tmp_path / "rr.keil"
    path.write_text("\n".join(games), encoding="utf-8")
    return path


def test_the_json_standings_are_the_hand_computed_ones(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["stats", "--standings", "--format", "json", str(archive(tmp_path))])
    assert result.exit_code == EXIT_OK, result.output
    (event,) = json.loads(result.stdout)["events"]
    assert event["event"] == "Club round robin"
    got = [
        (r["rank"], r["player"], r["points"], r["wins"], r["draws"], r["losses"], r["games"], r["tiebreak"])
        for r in event["standings"]
    ]
    assert got == EXPECTED
    left = [(g["round"], g["black"], g["white"], g["status"]) for g in event["games"] if not g["counted"]]
    assert left == [("3", "Cai", "Ana", "illegal"), ("4", "Ben", "Cai", "mismatch")]
    illegal = next(g for g in event["games"] if g["status"] == "illegal")
    assert (illegal["line"], illegal["column"], illegal["game"]) == (31, 7, 8)  # the second e3: game 8 starts on line 29, four lines a game
    assert sum(r["points"] for r in event["standings"]) == 13  # the 13 counted games


def test_the_text_standings_show_the_table_the_crosstable_and_what_is_left_out(tmp_path: Path) -> None:
    path = archive(tmp_path)
    result = CliRunner().invoke(app, ["stats", "--standings", str(path)])
    assert result.exit_code == EXIT_OK, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == "Club round robin: 6 players, 13 games counted, 2 not counted"
    table = [line.split() for line in lines[3:9]]
    assert [(int(r[0]), r[1], float(r[2]), float(r[7])) for r in table] == [(e[0], e[1], e[2], e[7]) for e in EXPECTED]
    cross = {line.split()[1]: line.split()[2:] for line in lines[12:18]}
    # Columns in standings order: Ana, Eva, Dee, Cai, Ben, Fay.
    assert cross["Ana"] == ["-", "1", "½", "x", "1", "1"]
    assert cross["Cai"] == ["x", "½", "½", "-", "x", "1"]
    assert cross["Fay"] == ["0", "0", "1", "0", "0", "-"]
    assert lines[-5:-3] == [
        f"  round 3, Cai - Ana: illegal at {path}:31:7 (game 8)",
        f"  round 4, Ben - Cai: mismatch at {path}:47:10 (game 12)",
    ]
    assert lines[-3:-1] == ["", "15 games read: 13 counted, 2 not counted"]
    assert lines[-1].startswith("SB: Sonneborn-Berger")


def test_a_game_without_players_makes_no_standings(tmp_path: Path) -> None:
    path = tmp_path / "loose.keil"
    path.write_text('[Event "E"] [Round "1"]\n' + WIN_BLACK, encoding="utf-8")
    result = CliRunner().invoke(app, ["stats", "--standings", str(path)])
    expected = "no standings: none of the 1 games read names both its players (Black and White tags)\n"
    assert (result.exit_code, result.stdout) == (EXIT_OK, expected)
