"""One match, one game: the shapes of one match of abstract_games (its match
page, replay, stored rows, and the record an import wrote) are judged once by
every command, and shapes that disagree are an error at the disagreeing file."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest

from cli_support import ROOT, run
from keilref.referee.batches import check_sources
from keilref.records.sources import Source

SHARED = Path(os.environ.get("KEILREF_SHARED") or ROOT.parent / "shared")
SAMPLES = SHARED / "interop-samples"
pytestmark = pytest.mark.skipif(
    not SAMPLES.is_dir(), reason=f"the server's samples are not at {SAMPLES} (a checkout has shared/ beside it)"
)

MATCHES = 6
"""The samples' README lists six matches, each in three shapes and once in sample-records.keil."""

SUMMARY = re.compile(r"^(\d+) games?: ", re.MULTILINE)


def _copy(tmp_path: Path) -> Path:
    folder = tmp_path / "samples"
    shutil.copytree(SAMPLES / "abstract_games", folder)
    for path in folder.iterdir():
        path.chmod(0o644)
    return folder


def _verdict_lines(output: str) -> list[str]:
    return [line for line in output.splitlines() if ": game " in line]


def test_check_counts_each_match_once_and_judges_its_match_page() -> None:
    result = run("check", str(SAMPLES))
    assert result.exit_code == 0
    assert SUMMARY.findall(result.output) == [str(MATCHES)]
    lines = _verdict_lines(result.output)
    assert len(lines) == MATCHES
    assert all(".match.json:1:1: game 1: " in line for line in lines)


def test_the_judged_files_verdicts_are_those_it_gets_alone() -> None:
    together = _verdict_lines(run("check", str(SAMPLES)).output)
    alone = [
        _verdict_lines(run("check", str(path)).output)[0]
        for path in sorted((SAMPLES / "abstract_games").glob("*.match.json"))
    ]
    assert together == alone


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_jsonl_counts_each_match_once_with_workers(jobs: str) -> None:
    result = run("check", "--format", "jsonl", "--jobs", jobs, str(SAMPLES))
    verdicts = [json.loads(line) for line in result.output.splitlines() if line.startswith("{")]
    assert len(verdicts) == MATCHES
    assert sorted(v["file"].rsplit("/", 1)[1] for v in verdicts) == [
        f"sample{n}-keil{4 + (n + 1) % 2}.match.json" for n in range(1, 7)
    ]


def test_the_library_counts_each_match_once_across_processes() -> None:
    sources = [Source(str(p)) for p in sorted((SAMPLES / "abstract_games").iterdir()) if p.suffix != ".md"]
    serial = list(check_sources(sources, jobs=1))
    parallel = list(check_sources(sources, jobs=2, parallel_threshold=0))
    assert len(serial) == MATCHES
    assert parallel == serial


def test_stats_counts_each_match_once() -> None:
    result = run("stats", str(SAMPLES))
    assert result.output.splitlines()[0] == f"{MATCHES} games: 5 ok, 1 unfinished"


def test_filter_writes_each_match_once() -> None:
    result = run("filter", str(SAMPLES))
    assert result.output.count('[Site "abstract_games"]') == MATCHES


def test_the_report_counts_each_match_once(tmp_path: Path) -> None:
    out = tmp_path / "report.html"
    result = run("check", "--format", "html", "-o", str(out), str(SAMPLES))
    assert result.exit_code == 0
    html = out.read_text(encoding="utf-8")
    assert html.count("sample1-keil4.") == html.count("sample1-keil4.match.json")
    assert "sample1-keil4.replay.json" not in html and "sample-records.keil" not in html


def test_a_shape_with_another_result_is_an_error_naming_both(tmp_path: Path) -> None:
    folder = _copy(tmp_path)
    moves = folder / "sample1-keil4.moves.json"
    data = json.loads(moves.read_text(encoding="utf-8"))
    data["winner"] = 1 - data["winner"]
    moves.write_text(json.dumps(data), encoding="utf-8")
    result = run("check", str(folder))
    assert result.exit_code == 1
    errors = [line for line in result.output.splitlines() if ": error: " in line]
    assert errors == [
        f"{moves}:1:1: game 1: error: this shape of the match disagrees with "
        f"{folder / 'sample1-keil4.match.json'} (the moves, result, players or settings differ)"
    ]
    assert SUMMARY.findall(result.output) == [str(MATCHES + 1)]
    # The judged shape keeps the verdict it gets alone.
    judged = _verdict_lines(run("check", str(folder / "sample1-keil4.match.json")).output)[0]
    assert judged in result.output.splitlines()


def test_a_record_with_another_player_is_an_error_at_that_game(tmp_path: Path) -> None:
    folder = _copy(tmp_path)
    records = folder / "sample-records.keil"
    text = records.read_text(encoding="utf-8")
    doctored = text.replace('[Black "dana"]', '[Black "Dana"]', 1)
    assert doctored != text
    records.write_text(doctored, encoding="utf-8")
    result = run("check", str(folder))
    errors = [line for line in result.output.splitlines() if ": error: " in line]
    assert len(errors) == 1
    assert errors[0].startswith(f"{records}:1:1: game 1: error: this shape of the match disagrees with ")
    assert "sample1-keil4.match.json" in errors[0]


def test_import_shares_the_decision(tmp_path: Path) -> None:
    folder = _copy(tmp_path)
    (folder / "sample-records.keil").unlink()
    moves = folder / "sample2-keil5.moves.json"
    data = json.loads(moves.read_text(encoding="utf-8"))
    data["players"][0]["name"] = "someone else"
    moves.write_text(json.dumps(data), encoding="utf-8")
    result = run("import", str(folder), "-o", str(tmp_path / "out.keil"))
    assert result.exit_code == 1
    assert f"{moves}:1:1: error: this shape of the match disagrees with {folder / 'sample2-keil5.match.json'}" in result.output
    assert (tmp_path / "out.keil").read_text(encoding="utf-8").count("[Site") == MATCHES


def test_one_stem_in_two_folders_is_two_games_without_a_shared_id(tmp_path: Path) -> None:
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        shutil.copy(SAMPLES / "abstract_games" / "sample1-keil4.moves.json", tmp_path / name / "m.moves.json")
    result = run("check", str(tmp_path))
    assert SUMMARY.findall(result.output) == ["2"]


def test_one_id_in_two_folders_is_one_game(tmp_path: Path) -> None:
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        shutil.copy(SAMPLES / "abstract_games" / "sample1-keil4.match.json", tmp_path / name / f"{name}.match.json")
    result = run("check", str(tmp_path))
    assert SUMMARY.findall(result.output) == ["1"]
    assert str(tmp_path / "a" / "a.match.json") in result.output


def test_a_stem_whose_shapes_carry_two_ids_merges_nothing(tmp_path: Path) -> None:
    source = SAMPLES / "abstract_games"
    shutil.copy(source / "sample1-keil4.match.json", tmp_path / "m.match.json")
    replay = json.loads((source / "sample1-keil4.replay.json").read_text(encoding="utf-8"))
    replay["id"] = "0" * 32
    (tmp_path / "m.replay.json").write_text(json.dumps(replay), encoding="utf-8")
    shutil.copy(source / "sample1-keil4.moves.json", tmp_path / "m.moves.json")
    result = run("check", str(tmp_path))
    assert SUMMARY.findall(result.output) == ["3"]
    assert ": error: " not in result.output


RECORD = """[Site "{site}"]
[GameId "{game_id}"]
[Black "a"]
[White "b"]
[Size "2"]

1. a1 pass 2. pass {result}
"""


def _archive(tmp_path: Path, *games: tuple[str, str, str]) -> Path:
    path = tmp_path / "archive.keil"
    text = "\n".join(RECORD.format(site=s, game_id=g, result=r) for s, g, r in games)
    path.write_text(text, encoding="utf-8")
    return path


def test_records_of_one_server_id_are_one_game(tmp_path: Path) -> None:
    server = "abstract_games"
    path = _archive(tmp_path, (server, "7", "*"), (server, "7", "*"), (server, "8", "*"), ("club", "7", "*"), ("club", "7", "*"))
    result = run("check", "--format", "jsonl", str(path))
    # A club's ids may repeat (each event's games from 1): only the server's name one match each.
    assert [json.loads(line)["game"] for line in result.output.splitlines()] == [1, 3, 4, 5]


def test_an_escaped_id_is_read_before_it_is_compared(tmp_path: Path) -> None:
    path = _archive(tmp_path, ("abstract_games", "7\\\\", "*"), ("abstract_games", "7\\\\", "W+R"))
    result = run("check", str(path))
    assert result.exit_code == 1
    assert f"{path}:9:1: game 2: error: this shape of the match disagrees with {path} game 1 (" in result.output


def test_a_file_given_twice_is_its_match_once() -> None:
    page = str(SAMPLES / "abstract_games" / "sample1-keil4.match.json")
    alone = run("check", page).output.splitlines()[0]
    twice = run("check", page, page)
    assert twice.output.splitlines()[0] == alone
    assert SUMMARY.findall(twice.output) == ["1"]
