"""The HTML report: self-contained, and right in a real browser.

The browser tests open the report of ``records/faults`` in headless
Chromium and read the DOM after the page's script ran (tests/test_html_viewer.py
clicks and presses keys in it). They skip only when no browser is installed;
with ``KEILREF_REQUIRE_BROWSER`` set (as CI sets it) a missing browser is a
failure.
"""

from __future__ import annotations

import gzip
import json
import functools
import os
import re
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest

from browser_support import find_browser
from cli_support import ROOT, run, runner
from keilref.cli import app
from keilref.formats import FORMATS
from keilref import Color
from keilref import wording
from keilref.formats import html
from keilref.errors import RecordError
from keilref.records.parser import parse_record
from keilref.records.record import Record
from keilref.referee.settings import read_setup, start_game
from keilref.referee.lines import find_line, replay_node
from keilref.referee.replay import replay
from lines_support import ANNOTATED, write_annotated


def dump_dom(url: str) -> str:
    """The DOM after the page's scripts ran, as headless Chromium serialises it."""
    browser = find_browser()
    with tempfile.TemporaryDirectory() as profile:
        done = subprocess.run(
            [
                browser,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
                f"--user-data-dir={profile}",
                "--virtual-time-budget=5000",
                "--dump-dom",
                url,
            ],
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "<html" in done.stdout
    return done.stdout


def verdicts_of(path: str) -> list[dict[str, object]]:
    result = run("check", "--format", "jsonl", path)
    return [json.loads(line) for line in result.stdout.splitlines()]


@pytest.fixture(scope="module")
def faults_report(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, object]]]:
    out = tmp_path_factory.mktemp("report") / "report.html"
    here = os.getcwd()
    os.chdir(ROOT)
    try:
        result = run("check", "records/faults", "--format", "html", "-o", str(out))
        verdicts = verdicts_of("records/faults")
    finally:
        os.chdir(here)
    assert result.exit_code == 1
    # The report is in the file; the terminal gets the summary, as for every format.
    assert re.fullmatch(r"49 games: 2 ok, 9 mismatch, 20 illegal, 18 error; 2 with warnings in \S+ s \(\S+ games/s\)\n", result.stdout)
    return out, verdicts


def sections(page: str) -> dict[int, str]:
    """Each game's section of the page, by its number in the report."""
    found = re.findall(r'<section class="game(?: failing)?" id="game-(\d+)"[^>]*>(.*?)</section>', page, re.S)
    return {int(n): body for n, body in found}


def viewer_layer(page: str, row: int) -> str:
    start = page.index(f'data-game="{row}"')
    layer = page.index('<g class="viewer-layer">', start)
    return page[layer : page.index("</svg>", layer)]


def count(text: str, cls: str) -> int:
    return text.count(f'class="{cls}"')


def stones_at(file: str, turn: int) -> tuple[int, int]:
    record = parse_record((ROOT / file).read_text(encoding="utf-8"))
    game = replay(record, stop=turn).game
    return len(game.stones(Color.BLACK)), len(game.stones(Color.WHITE))


# --- without a browser ----------------------------------------------------------


def test_the_report_fetches_nothing(faults_report: tuple[Path, list[dict[str, object]]]) -> None:
    page = faults_report[0].read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>")
    # The SVG namespace is a name, not an address: nothing is fetched from it.
    without_ns = page.replace("http://www.w3.org/2000/svg", "")
    assert not re.search(r"https?://|<link|<img|<iframe|\bsrc=|@import|url\(", without_ns)
    assert '<meta name="viewport"' in page


def test_the_summary_and_table_count_every_status(faults_report: tuple[Path, list[dict[str, object]]]) -> None:
    path, verdicts = faults_report
    page = path.read_text(encoding="utf-8")
    for status in ("ok", "unfinished", "mismatch", "illegal", "error"):
        n = sum(1 for v in verdicts if v["status"] == status)
        assert re.search(rf'class="status s-{status}">[^<]* {status}</span></td><td>{n}</td>', page), status
    rows = re.findall(r'<tr id="row-(\d+)" class="(\w+)"(?: data-rules="[^"]*")?>(.*?)</tr>', page)
    assert [int(r[0]) for r in rows] == list(range(1, len(verdicts) + 1))
    for (_, kind, cells), v in zip(rows, verdicts):
        assert f'<td class="file">{v["file"]}</td><td data-label="game">{v["game"]}</td>' in cells
        assert f"s-{v['status']}" in cells and f" {v['status']}</span>" in cells
        # A fault that is only a warning fails a strict check alone.
        assert kind == ("passing" if v["status"] == "ok" and v["warnings"] else "failing")


def test_the_boards_stop_at_the_cap(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, at_the_root: None) -> None:
    monkeypatch.setattr(html, "FAILING_DETAIL_CAP", 3)
    out = tmp_path / "r.html"
    run("check", "records/faults/yugo", "--format", "html", "-o", str(out), "--jobs", "1")
    page = out.read_text(encoding="utf-8")
    failing = len(verdicts_of("records/faults/yugo"))
    # Every failing game says why and where; only the first ones carry a viewer.
    found = sections(page)
    assert len(found) == failing > 3
    assert [row for row, body in found.items() if 'class="viewer"' in body] == sorted(found)[:3]
    assert all('class="place"' in body for body in found.values())
    assert wording.viewers_stop(3) in page



def test_a_compressed_file_and_standard_input_get_their_boards(tmp_path: Path, at_the_root: None) -> None:
    record = (ROOT / "records/faults/illegal-superko.keil").read_bytes()
    packed = tmp_path / "superko.keil.gz"
    packed.write_bytes(gzip.compress(record))
    piped = runner.invoke(app, ["check", "-f", "html", "-"], input=record)
    for page in (run("check", "-f", "html", str(packed)).stdout, piped.stdout):
        assert '1 game failed' in page
        # The game read again is the game checked: its viewer ends on the illegal turn, named and placed,
        # and the source line is quoted with a caret under the fault.
        ((row, body),) = sections(page).items()
        assert "illegal: move 16 (Black) e2, turn 31: superko (repeats turn 29)" in body
        assert re.search(r'<pre class="source"[^>]*>[^<]*\n *\^</pre>', body)
        g = report_data(page)["games"][str(row)]
        assert g["fault"] is not None and "superko (repeats turn 29)" in g["faultText"]
    # Kept for the report only while the check ran: the next command reads its own input.
    again = runner.invoke(app, ["check", "-f", "jsonl", "-"], input=b'[Size "3"]\n\n1. c5 *\n')
    assert json.loads(again.stdout)["status"] == "unfinished"


def test_every_document_format_writes_its_report_to_a_file(tmp_path: Path, at_the_root: None) -> None:
    for name, fmt in FORMATS.items():
        if fmt.kind != "document" or fmt.binary:  # a binary table has tests of its own (test_verdict_table.py)
            continue
        target = tmp_path / f"report{fmt.extension}"
        result = run("check", "-f", name, "-o", str(target), "records/faults/illegal-superko.keil")
        assert result.exit_code == 1 and result.stdout.startswith("1 game: 1 illegal in "), name
        untimed = functools.partial(re.sub, r' time="[0-9.]+"', "")  # JUnit's times are the run's own
        written = untimed(target.read_text(encoding="utf-8"))
        assert written == untimed(run("check", "-f", name, "records/faults/illegal-superko.keil").stdout)
        assert [p.name for p in tmp_path.iterdir()] == [target.name], "no temporary file left beside it"
        target.unlink()


# --- in a browser ---------------------------------------------------------------


def test_every_failing_game_is_listed_with_its_board(faults_report: tuple[Path, list[dict[str, object]]]) -> None:
    path, verdicts = faults_report
    dom = dump_dom(path.as_uri())
    found = sections(dom)
    data = report_data(path.read_text(encoding="utf-8"))
    failing = [(row, v) for row, v in enumerate(verdicts, 1) if v["status"] in ("mismatch", "illegal", "error")]
    # The games that only warn pass without --strict: they get a viewer, not a fault.
    passing = [row for row, v in enumerate(verdicts, 1) if v["status"] == "ok"]
    assert failing and len(found) == len(failing) + len(passing)
    assert all('<figure class="fault">' not in found[row] for row in passing)
    for row, v in failing:
        body = found[row]
        assert str(v["file"]) in body and f"game {v['game']}" in body
        assert f" {v['status']}</span>" in body
        if v["rules"] is None:
            # Unreadable: no board, but the message and where.
            err = v["error"]
            assert isinstance(err, dict)
            assert f"{v['file']}:{err['line']}:{err['column']}</span> error: " in body
            continue
        # One viewer per failing game, drawn as it scrolls into view: its data ends at the fault.
        assert f'class="viewer" data-game="{row}"' in body, v["file"]
        g = data["games"][str(row)]
        loc = v["illegal"] if isinstance(v["illegal"], dict) else v["error"] if isinstance(v["error"], dict) else None
        if isinstance(loc, dict):
            assert f'{v["file"]}:{loc["line"]}:{loc["column"]}</span>' in body
            assert '<pre class="source"' in body
        illegal = v["illegal"]
        if isinstance(illegal, dict):
            on_board = illegal["reason"] != "off-board" and illegal["point"] not in ("pass", "button")
            assert (g.get("fault") is not None) == on_board, v["file"]
            named = wording.illegal_turn(illegal["turn"], illegal["point"], illegal["reason"], illegal.get("repeats_turn"))
            assert f"illegal: {named}" in body
            assert not on_board or named in g["faultText"]
        # The viewer opens at the last legal position (one step further where groups were removed by agreement).
        turns = v["turns"]
        assert isinstance(turns, int)
        assert len(g["turns"]) == turns + (1 if g.get("removal") else 0), v["file"]


def test_the_viewer_opens_at_the_turn_in_the_address(faults_report: tuple[Path, list[dict[str, object]]]) -> None:
    path, verdicts = faults_report
    file = "records/faults/illegal-superko.keil"
    row = next(i for i, v in enumerate(verdicts, 1) if v["file"] == file)
    for turn in (0, 5, 17):
        dom = dump_dom(f"{path.as_uri()}#game={row}&turn={turn}")
        layer = viewer_layer(dom, row)
        black, white = stones_at(file, turn)
        assert (count(layer, "stone black"), count(layer, "stone white")) == (black, white), turn
        assert re.search(rf'data-game="{row}"[^>]*data-turn="{turn}"', dom)
        status = "start: no turn yet" if turn == 0 else f"turn {turn} of 30: "
        assert status in dom


def test_arrow_keys_step_through_a_game(
    faults_report: tuple[Path, list[dict[str, object]]], tmp_path: Path
) -> None:
    path, verdicts = faults_report
    file = "records/faults/illegal-suicide.keil"
    row = next(i for i, v in enumerate(verdicts, 1) if v["file"] == file)
    keys = ["ArrowRight", "ArrowRight", "ArrowRight", "ArrowLeft"]
    press = "".join(f"document.dispatchEvent(new KeyboardEvent('keydown', {{key: '{k}'}}));" for k in keys)
    page = path.read_text(encoding="utf-8").replace("</body>", f"<script>{press}</script>\n</body>")
    driven = tmp_path / "driven.html"
    driven.write_text(page, encoding="utf-8")
    dom = dump_dom(f"{driven.as_uri()}#game={row}&turn=10")
    assert re.search(rf'data-game="{row}"[^>]*data-turn="12"', dom)
    layer = viewer_layer(dom, row)
    assert (count(layer, "stone black"), count(layer, "stone white")) == stones_at(file, 12)
    assert count(layer, "last") == 1
    # Home goes back to the empty board.
    home = path.read_text(encoding="utf-8").replace(
        "</body>", "<script>document.dispatchEvent(new KeyboardEvent('keydown', {key: 'Home'}));</script></body>"
    )
    driven.write_text(home, encoding="utf-8")
    dom = dump_dom(f"{driven.as_uri()}#game={row}&turn=10")
    layer = viewer_layer(dom, row)
    assert count(layer, "stone black") == count(layer, "stone white") == 0
    assert "start: no turn yet" in dom


def test_the_viewer_data_replays_every_game(tmp_path: Path, at_the_root: None) -> None:
    """Applying each turn's changes to the start gives the position the referee reached, turn by turn."""
    out = tmp_path / "games.html"
    run("check", "records/games", "records/faults/yugo", "--format", "html", "-o", str(out))
    page = out.read_text(encoding="utf-8")
    data = json.loads(re.search(r'<script type="application/json" id="keilref-data">(.*?)</script>', page, re.S)[1])
    verdicts = verdicts_of("records/games") + verdicts_of("records/faults/yugo")
    multi = [row for row, v in enumerate(verdicts, 1) if v["game"] != 1]
    assert multi and all(str(row) in data["games"] for row in multi)
    checked = 0
    for row, v in enumerate(verdicts, 1):
        g = data["games"].get(str(row))
        if g is None:
            continue
        record = read_source_records(str(v["file"]))[int(str(v["game"])) - 1]
        assert isinstance(record, Record)
        setup = read_setup(record)
        game = start_game(setup)  # the empty board, or the record's set-up position
        position = list(g["start"])
        for turn, (label, changes, *_) in enumerate(g["turns"], 1):  # glyphs and clocks after, when a turn has them
            for p, code in zip(changes[::2], changes[1::2]):
                position[p] = code
            if label == "groups removed by agreement":
                assert setup.removed is not None
                game.agree_removal(setup.removed)
            else:
                played = record.turns[turn - 1]
                game.play(played.move)
                assert label.startswith(wording.glyphed(played.text, played.glyphs) + " (")
            assert "".join(position) == html._position(game), (v["file"], v["game"], turn)
        checked += 1
    assert checked == len(data["games"]) >= 10


def read_source_records(file: str) -> list[Record | RecordError]:
    from keilref.records.sources import Source, read_source

    return list(read_source(Source(file)))


# --- variations, glyphs and clocks -------------------------------------------------


def report_data(page: str) -> dict[str, Any]:
    found = re.search(r'<script type="application/json" id="keilref-data">(.*?)</script>', page, re.S)
    assert found is not None
    data: dict[str, Any] = json.loads(found[1].replace("<\\/", "</"))
    return data


def test_every_line_of_an_annotated_game_replays_as_the_referee_plays_it(tmp_path: Path) -> None:
    """Each variation's changes, applied from its parent's position where it
    branches, give the position replay_node reaches, turn by turn."""
    path = write_annotated(tmp_path)
    result = run("check", "-f", "html", str(path))
    assert result.exit_code == 0
    data = report_data(result.stdout)
    g = data["games"]["1"]
    lines = g["lines"]
    assert [(l["at"], l["parent"], l["from"]) for l in lines] == [("9:1", 0, 1), ("9:38", 1, 2), ("10:56", 0, 3)]
    assert [l["up"] for l in lines] == ["back to the main line", "back to the variation at 9:1", "back to the main line"]
    # Each position with alternatives offers its own line's turn first, then the variations, as written.
    assert g["branches"] == {
        "0:1": [[0, "main line: 1... b2"], [1, "variation at 9:1: 1... d4?! $6"]],
        "1:2": [[1, "variation at 9:1: 2. b2"], [2, "variation at 9:38: 2. a1"]],
        "0:3": [[0, "main line: 2... button $1"], [3, "variation at 10:56: 2... c3"]],
    }
    # The variation at 10:56 cannot play its first turn: nothing to step, the point and the reason.
    assert lines[2]["turns"] == [] and lines[2]["faultText"] == "move 2 (White) c3, turn 4: occupied"
    root = parse_record(ANNOTATED).tree()
    frames: list[list[str]] = []
    """Each line's positions, from the start of the game."""
    for index, line in enumerate([g, *lines]):
        if index == 0:
            positions, node = [g["start"]], root.variations[0]
        else:
            positions, node = frames[line["parent"]][: line["from"] + 1], find_line(root, line["at"])
        position = list(positions[-1])
        for label, changes, *clock in line["turns"]:
            for p, code in zip(changes[::2], changes[1::2]):
                position[p] = code
            rep, bad = replay_node(node)
            assert bad is None and node.turn is not None
            assert "".join(position) == html._position(rep.game), (line.get("at", "main"), node.ply)
            mover = "Black" if node.ply % 2 else "White"
            assert label == f"{wording.glyphed(node.turn.text, node.turn.glyphs)} ({mover})"
            assert clock == ([] if node.turn.clock is None else [str(node.turn.clock)])
            positions.append("".join(position))
            node = node.variations[0] if node.variations else node
        frames.append(positions)
    assert [len(f) for f in frames] == [7, 5, 4, 4]


def test_the_page_explains_lines_and_clocks_only_when_a_game_has_them(tmp_path: Path, at_the_root: None) -> None:
    annotated = run("check", "-f", "html", str(write_annotated(tmp_path))).stdout
    plain = run("check", "-f", "html", "records/games/size5-keil-corner-ko.keil").stdout
    assert html._LINES_HELP in annotated and html._LINES_HELP not in plain
    assert report_data(annotated)["words"] == {
        "clocks": "clocks: Black {B}, White {W}",
        "noClock": "no clock yet",
    }
    # The plain game's words are its comments' alone.
    assert report_data(plain)["words"] == {"comment": "comment: {C}"}
    assert '<div class="lines">' not in plain and '<p class="viewer-clocks"' not in plain
    assert '<div class="lines">' in annotated and '<p class="viewer-clocks"' in annotated
    # Still nothing fetched from anywhere.
    assert not re.search(r"https?://|<link|<img|<iframe|\bsrc=", annotated.replace("http://www.w3.org/2000/svg", ""))
