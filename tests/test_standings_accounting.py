"""Standings lose no game: every game read is counted, or listed as not counted with its reason.

The event below has 28 games: 27 in one file of the event "Spring open"
(two not ok, one without a Round), and a server match, which has no Event.
Counted plus not counted is 28 in the text, the JSON and the HTML report.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from cli_support import ROOT, run
from test_standings import DRAW, ILLEGAL, MISMATCH, WIN_BLACK, WIN_WHITE
from test_wording import test_no_other_module_spells_a_wording as spelt_elsewhere

from keilref.referee.standings import player_key

SAMPLES = ROOT.parent / "shared" / "interop-samples" / "abstract_games"
needs_samples = pytest.mark.skipif(not SAMPLES.is_dir(), reason=f"the server's samples are not at {SAMPLES}")

PLAYERS = ["Ana", "Ben", "Cai", "Dee", "Eva", "Fay", "Gus", "Hal"]


def _event_games() -> list[str]:
    """27 games of 'Spring open': game 5 illegal, game 12 a mismatch, game 20 without a Round."""
    games = []
    for i in range(1, 28):
        black, white = PLAYERS[i % 8], PLAYERS[(i * 3 + 1) % 8]
        if black == white:
            white = PLAYERS[(i + 1) % 8]
        body = {5: ILLEGAL, 12: MISMATCH}.get(i, (WIN_BLACK, WIN_WHITE, DRAW)[i % 3])
        round_tag = "" if i == 20 else f' [Round "{(i - 1) // 4 + 1}"]'
        games.append(f'[Event "Spring open"]{round_tag} [Black "{black}"] [White "{white}"]\n{body}')
    return games


@pytest.fixture
def event(tmp_path: Path) -> list[str]:
    (tmp_path / "open.keil").write_text("\n".join(_event_games()), encoding="utf-8")
    shutil.copy(SAMPLES / "sample1-keil4.match.json", tmp_path / "server.match.json")  # dana - bruno, B+0.5, ok
    return [str(tmp_path / "open.keil"), str(tmp_path / "server.match.json")]


@needs_samples
def test_the_json_accounts_for_all_28_games(event: list[str]) -> None:
    result = run("stats", "-j", "1", "--standings", "-f", "json", *event)
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert (out["games_read"], out["counted"], out["not_counted"]) == (28, 26, 2)
    assert [e["event"] for e in out["events"]] == ["Spring open", None]  # the no-event group last
    assert sum(len(e["games"]) for e in out["events"]) == 28
    spring, loose = out["events"]
    left = [(g["game"], g["status"], g["reason"]) for g in spring["games"] if not g["counted"]]
    assert left == [(5, "illegal", "illegal"), (12, "mismatch", "mismatch")]
    no_round = next(g for g in spring["games"] if g["game"] == 20)
    assert (no_round["round"], no_round["counted"]) == (None, True)
    assert [(g["black"], g["white"], g["counted"]) for g in loose["games"]] == [("dana", "bruno", True)]
    assert [(r["player"], r["points"]) for r in loose["standings"]] == [("dana", 1.0), ("bruno", 0.0)]


@needs_samples
def test_the_text_accounts_for_all_28_games(event: list[str]) -> None:
    result = run("stats", "-j", "1", "--standings", *event)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == "Spring open: 8 players, 25 games counted, 2 not counted"
    assert "(no event): 2 players, 1 games counted, 0 not counted" in lines  # 25 + 2 + 1 = 28
    assert lines[-2] == "28 games read: 26 counted, 2 not counted"
    assert lines[-1].startswith("SB: Sonneborn-Berger, the tie-break after points")
    assert f"  round 2, Fay - Ana: illegal at {event[0]}:19:7 (game 5)" in lines
    assert sum(1 for line in lines if line.startswith("  round ")) == 2


def _counts(html: str) -> list[tuple[int, int]]:
    return [(int(c), int(n)) for c, n in re.findall(r"<p>\d+ players, (\d+) games counted, (\d+) not counted\.</p>", html)]


@needs_samples
def test_the_html_report_accounts_for_all_28_games(event: list[str], tmp_path: Path) -> None:
    report = tmp_path / "report.html"
    result = run("check", "-j", "1", "--format", "html", "-o", str(report), *event)
    assert result.exit_code == 1  # two games fail
    html = report.read_text(encoding="utf-8")
    assert '<p class="accounted">28 games read: 26 counted, 2 not counted</p>' in html
    counts = _counts(html)
    assert counts == [(25, 2), (1, 0)]
    assert sum(c + n for c, n in counts) == 28
    assert "<h3>(no event)</h3>" in html
    listed = re.findall(r'<li><a href="#game=(\d+)">([^<]*)</a></li>', html)
    assert [(row, text.split(" at ")[0]) for row, text in listed] == [
        ("5", "round 2, Fay - Ana: illegal"),
        ("12", "round 3, Eva - Fay: mismatch"),
    ]
    assert "SB: Sonneborn-Berger" in html


def test_a_game_without_both_players_or_with_a_bye_is_listed_with_its_reason(tmp_path: Path) -> None:
    path = tmp_path / "byes.keil"
    path.write_text(
        "\n".join([
            f'[Event "E"] [Round "1"] [Black "Ana"] [White "Ben"]\n{WIN_BLACK}',
            f'[Event "E"] [Round "1"] [Black "Cai"] [White "BYE"]\n{WIN_BLACK}',
            f'[Event "E"] [Round "2"] [Black "Ana"]\n{WIN_BLACK}',
            f'[Event "E"] [Round "2"] [Black "Ben"] [White " "]\n{WIN_WHITE}',
        ]),
        encoding="utf-8",
    )
    result = run("stats", "-j", "1", "--standings", str(path))
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == "E: 2 players, 1 games counted, 3 not counted"
    assert [line for line in lines if line.startswith("  round ")] == [
        f"  round 1, Cai - BYE: a bye: no game was played at {path}:5:1 (game 2)",
        f"  round 2, Ana - ?: no players: a game needs both a Black and a White tag at {path}:9:1 (game 3)",
        f"  round 2, Ben - ?: no players: a game needs both a Black and a White tag at {path}:13:1 (game 4)",
    ]
    assert lines[-2] == "4 games read: 1 counted, 3 not counted"
    reasons = [g["reason"] for e in json.loads(run("stats", "--standings", "-f", "json", str(path)).stdout)["events"]
               for g in e["games"]]
    assert reasons == [None, "bye", "no players", "no players"]


def test_names_alike_are_warned_about_with_where_each_is_written(tmp_path: Path) -> None:
    a, b = tmp_path / "a.keil", tmp_path / "b.keil"
    a.write_text(
        f'[Event "E"] [Round "1"] [Black "Gloria Paz"] [White "José Ruiz"]\n{WIN_BLACK}\n'
        f'[Event "E"] [Round "2"] [Black "José Ruiz"] [White "Gloria Paz"]\n{WIN_BLACK}',
        encoding="utf-8",
    )
    b.write_text(
        f'[Event "E"] [Round "3"] [Black "gloria paz"] [White "Jose  Ruiz"]\n{DRAW}', encoding="utf-8"
    )
    result = run("stats", "-j", "1", "--standings", str(a), str(b))
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == "E: 4 players, 3 games counted, 0 not counted"  # kept apart, not merged
    warnings = [line for line in result.stdout.splitlines() if line.startswith("warning:")]
    assert warnings == [
        f"warning: likely the same player, counted as 2: 'Gloria Paz' ({a}:1, {a}:5) and 'gloria paz' ({b}:1) "
        "(the names differ only in case, white space or accents)",
        f"warning: likely the same player, counted as 2: 'José Ruiz' ({a}:1, {a}:5) and 'Jose  Ruiz' ({b}:1) "
        "(the names differ only in case, white space or accents)",
    ]
    alike = json.loads(run("stats", "--standings", "-f", "json", str(a), str(b)).stdout)["likely_same"]
    assert alike[0] == [
        {"name": "Gloria Paz", "places": [{"file": str(a), "line": 1}, {"file": str(a), "line": 5}]},
        {"name": "gloria paz", "places": [{"file": str(b), "line": 1}]},
    ]


def test_the_key_folds_case_accents_compatibility_forms_and_spaces() -> None:
    assert player_key("  José\u00a0 PAZ ") == "jose paz"
    assert player_key("Jose\u0301") == player_key("Jos\u00e9") == "jose"
    assert player_key("Ｇｌｏｒｉａ") == "gloria"  # full-width letters
    assert player_key("Straße") == "strasse"  # casefold, not lower
    assert player_key("Ana") != player_key("Ann")


def test_sb_is_explained_under_the_text_standings(tmp_path: Path) -> None:
    path = tmp_path / "one.keil"
    path.write_text(f'[Event "E"] [Round "1"] [Black "A"] [White "B"]\n{WIN_BLACK}', encoding="utf-8")
    lines = run("stats", "--standings", str(path)).stdout.splitlines()
    assert lines[-1] == (
        "SB: Sonneborn-Berger, the tie-break after points: the points of every opponent beaten, "
        "plus half the points of every opponent drawn with"
    )


@pytest.mark.parametrize("fragment", [r"likely the same player", r"games read:", r"no players:", r"a bye:", r"no event\)"])
def test_only_the_wording_module_words_the_accounting(fragment: str) -> None:
    spelt_elsewhere(fragment)


def test_a_crosstable_past_64_players_is_left_out_and_said_so(tmp_path: Path) -> None:
    path = tmp_path / "crowd.keil"
    path.write_text(
        "\n".join(f'[Black "P{2 * i}"] [White "P{2 * i + 1}"]\n{WIN_BLACK}' for i in range(33)), encoding="utf-8"
    )
    lines = run("stats", "-j", "1", "--standings", str(path)).stdout.splitlines()
    assert lines[0] == "(no event): 66 players, 33 games counted, 0 not counted"
    assert "crosstable left out: 66 players, more than one table can show (at most 64)" in lines
    assert not any(line.startswith("crosstable:") for line in lines)
    html = tmp_path / "crowd.html"
    assert run("check", "-j", "1", "-f", "html", "-o", str(html), str(path)).exit_code == 0
    page = html.read_text(encoding="utf-8")
    assert 'class="crosstable"' not in page and "crosstable left out: 66 players" in page


@needs_samples
def test_the_reports_not_counted_list_past_its_cap_says_how_many_more(
    event: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from keilref.formats import html

    monkeypatch.setattr(html, "NOT_COUNTED_SHOWN", 1)
    report = tmp_path / "report.html"
    run("check", "-j", "1", "--format", "html", "-o", str(report), *event)
    page = report.read_text(encoding="utf-8")
    assert re.findall(r'<li><a href="#game=(\d+)">', page) == ["5"]
    assert "<li>and 1 more not counted: the table of every game lists each with its status</li>" in page
