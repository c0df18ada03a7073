"""``keilref generate --players``: a round-robin test event a director can
check and rank without scripting; ``--komi`` and ``--event`` for every game."""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_support import run

import keilref
from keilref.engine.generate import round_robin

EIGHT = ["ana", "ben", "carla", "dino", "eva", "femi", "gloria paz", "hugo"]


@pytest.fixture
def here(tmp_path: Path) -> Iterator[Path]:
    before = os.getcwd()
    os.chdir(tmp_path)
    try:
        yield tmp_path
    finally:
        os.chdir(before)


def _players(names: list[str]) -> list[str]:
    return [arg for name in names for arg in ("--players", name)]


def _games(path: Path) -> list[keilref.Record]:
    games = list(keilref.read_games(path))
    assert all(isinstance(g, keilref.Record) for g in games)
    return games  # type: ignore[return-value]


def test_eight_players_make_a_round_robin_that_passes_strict_and_is_ranked(here: Path) -> None:
    made = run("generate", *_players(EIGHT), "--size", "3", "--komi", "2", "--event", "Club test", "-o", "club.keil")
    assert made.exit_code == 0, made.output
    games = _games(here / "club.keil")
    assert len(games) == 28  # 8 × 7 / 2: every pair once
    assert {g.tag_value("Event") for g in games} == {"Club test"}
    assert {g.tag_value("Komi") for g in games} == {"2"}
    assert Counter(frozenset((g.tag_value("Black"), g.tag_value("White"))) for g in games) == Counter(
        {frozenset((a, b)): 1 for i, a in enumerate(EIGHT) for b in EIGHT[i + 1 :]}
    )
    rounds = [int(g.tag_value("Round") or 0) for g in games]
    assert rounds == sorted(rounds) and set(rounds) == set(range(1, 8))
    for r in range(1, 8):
        seated = [p for g in games if g.tag_value("Round") == str(r) for p in (g.tag_value("Black"), g.tag_value("White"))]
        assert sorted(seated) == sorted(EIGHT)  # each plays once a round
    blacks = Counter(g.tag_value("Black") for g in games)
    assert all(blacks[p] in (3, 4) for p in EIGHT)  # 7 games each: 3 or 4 as Black

    check = run("check", "--strict", "club.keil")
    assert check.exit_code == 0, check.output
    assert check.output.splitlines()[-1].startswith("28 games: 28 ok")

    table = run("stats", "--standings", "club.keil")
    assert table.exit_code == 0, table.output
    assert "Club test: 8 players, 28 games counted, 0 not counted" in table.stdout
    as_json = json.loads(run("stats", "--standings", "--format", "json", "club.keil").stdout)
    assert json.dumps(as_json).count('"Club test"') >= 1
    assert all(name in table.stdout for name in EIGHT)


def test_n_counts_round_robins_and_the_second_swaps_colours(here: Path) -> None:
    made = run("generate", *_players(["ana", "ben", "carla"]), "-n", "2", "--size", "3", "-o", "two.keil")
    assert made.exit_code == 0, made.output
    games = _games(here / "two.keil")
    # Three players: three rounds a cycle, one sitting out each; six in all.
    assert [g.tag_value("Round") for g in games] == ["1", "2", "3", "4", "5", "6"]
    colours = [(g.tag_value("Black"), g.tag_value("White")) for g in games]
    assert sorted(colours[3:]) == sorted((w, b) for b, w in colours[:3])
    assert {g.tag_value("Event") for g in games} == {"keilref generate --seed 0"}
    assert run("check", "--strict", "two.keil").exit_code == 0


def test_round_robin_balances_colours_for_any_count() -> None:
    for n in range(2, 13):
        names = [f"p{i}" for i in range(n)]
        games = round_robin(names)
        assert len(games) == n * (n - 1) // 2
        black = Counter(p.black for p in games)
        white = Counter(p.white for p in games)
        assert all(abs(black[p] - white[p]) <= 1 for p in names), n
        double = round_robin(names, 2)
        assert Counter((p.black, p.white) for p in double) == Counter(
            {(a, b): 1 for a in names for b in names if a != b}
        )


def test_komi_and_event_without_players(here: Path) -> None:
    r = run("generate", "-n", "3", "--size", "3", "--komi", "5", "--event", "Bench")
    (here / "bench.keil").write_text(r.stdout, encoding="utf-8")
    games = _games(here / "bench.keil")
    assert r.exit_code == 0 and len(games) == 3
    assert [(g.tag_value("Event"), g.tag_value("Komi")) for g in games] == [("Bench", "5")] * 3
    plain = run("generate", "-n", "2", "--size", "3")
    assert [g.tag_value("Event") for g in keilref.read_games(plain.stdout)] == [  # type: ignore[union-attr]
        "keilref generate --seed 0, game 1",
        "keilref generate --seed 0, game 2",
    ]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--players", "ana"], "--players: a round robin takes two players or more"),
        (["--players", "ana", "--players", "ana"], "--players: 'ana' is given twice"),
        (["--players", "ana", "--players", " "], "--players: a player's name is empty"),
        (["--komi", "6.5"], "komi 6.5 is not allowed under rules 'keil': it must be a whole number"),
        (["--komi", "six"], "komi 'six' is not a number such as 6, -3 or 6.5"),
    ],
)
def test_bad_values_are_usage_errors(args: list[str], message: str) -> None:
    r = run("generate", *args)
    assert r.exit_code == 2 and r.stdout == ""
    assert r.stderr == f"keilref: {message}\n"
