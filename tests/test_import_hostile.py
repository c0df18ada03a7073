"""Hostile matches of abstract_games: each costs its own file an ``error`` at
its place, never the run.

A name given twice in one object (the JSON reader would keep the last value
while places point into the first), a whole number longer than Python
converts, and a board side far past any rule set's (whose table of cells
once cost seconds and hundreds of megabytes before the size was refused).
"""

from __future__ import annotations

import gzip
import json
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import keilref
from cli_support import run
from keilref.records import abstract_games, sniffing
from keilref.records.abstract_games import read_match
from keilref.errors import RecordError
from keilref.referee.verdict import Status

PLAYERS = [{"type": "user", "user_id": 1, "name": "ana"}, {"type": "user", "user_id": 2, "name": "ben"}]
MOVES = ["komi=6", "white", "0,0", "1,-1", "-1,0", "2,-1", "0,1"]


def rows(moves: list[str]) -> list[dict[str, Any]]:
    return [{"ply": i, "seat": i if i < 2 else i % 2, "move": m} for i, m in enumerate(moves)]


def moves_json(*, size: Any = 4, moves: list[str] = MOVES, players: Any = PLAYERS) -> str:
    doc = {"game_uid": "keil", "options": {"size": size}, "players": players, "status": "active", "winner": None}
    return json.dumps({**doc, "moves": rows(moves)}, indent=1) + "\n"


def where(text: str, needle: str, nth: int = 0) -> tuple[int, int]:
    """Line and column of the ``nth`` occurrence of ``needle``."""
    at = -1
    for _ in range(nth + 1):
        at = text.index(needle, at + 1)
    return text.count("\n", 0, at) + 1, at - (text.rfind("\n", 0, at) + 1) + 1


GOOD = moves_json()
# Two "moves": an empty list first, then one with a wrong seat at ply 5.
_WRONG_SEAT = rows(MOVES)
_WRONG_SEAT[5]["seat"] = 0
DUPLICATE = GOOD.replace('"moves": [', '"moves": [],\n "moves": [', 1).replace(
    json.dumps(rows(MOVES), indent=1)[1:].replace("\n", "\n "), json.dumps(_WRONG_SEAT, indent=1)[1:].replace("\n", "\n ")
)
HUGE = GOOD.replace('"user_id": 1', '"user_id": ' + "7" * 4_301)
DUPLICATE_ERROR = "the name 'moves' is given twice in this object; expected each name once"
HUGE_ERROR = "a whole number of 4,301 digits; expected at most 4,300 (longer ones are not converted)"


def test_the_hostile_files_are_what_they_say() -> None:
    assert DUPLICATE.count('"moves"') == 2 and '"seat": 0,\n   "move": "2,-1"' in DUPLICATE
    assert json.loads(DUPLICATE)["moves"][5]["seat"] == 0  # the reader of the standard library keeps the last
    assert HUGE != GOOD


def _error(text: str) -> tuple[str, int, int]:
    with pytest.raises(RecordError) as caught:
        read_match(text.encode(), "m.moves.json")
    e = caught.value
    return e.message, e.line, e.column


def test_a_name_given_twice_is_an_error_at_the_second() -> None:
    assert _error(DUPLICATE) == (DUPLICATE_ERROR, *where(DUPLICATE, '"moves"', 1))


def test_a_name_given_twice_deep_in_a_move_is_an_error_at_the_second() -> None:
    text = GOOD.replace('"ply": 5,\n   "seat": 1,', '"ply": 5,\n   "seat": 1,\n   "seat": 0,')
    assert text != GOOD
    assert _error(text) == (
        "the name 'seat' is given twice in this object; expected each name once",
        *where(text, '"seat": 0,\n   "move": "2,-1"'),
    )


def test_a_name_given_twice_with_the_same_value_is_an_error_all_the_same() -> None:
    text = GOOD.replace('"status": "active",', '"status": "active",\n "status": "active",')
    assert _error(text) == (
        "the name 'status' is given twice in this object; expected each name once",
        *where(text, '"status"', 1),
    )


@pytest.mark.parametrize(
    ("field", "value"),
    [('"user_id": 1', "7" * 4_301), ('"user_id": 1', "-" + "7" * 4_301), ('"ply": 3', "3" + "0" * 5_000), ('"size": 4', "9" * 10_000)],
)
def test_a_whole_number_too_long_to_convert_is_an_error_at_it(field: str, value: str) -> None:
    text = GOOD.replace(field, field.split(":")[0] + ": " + value, 1)
    digits = len(value.lstrip("-"))
    assert _error(text) == (
        f"a whole number of {digits:,} digits; expected at most 4,300 (longer ones are not converted)",
        *where(text, value),
    )


def test_a_long_number_that_is_not_whole_is_read() -> None:
    text = GOOD.replace('"user_id": 1', '"user_id": 1.' + "5" * 5_000)
    assert read_match(text.encode()).record.tag_value("Black") == "ana"


# --------------------------------------------------------------------------
# One bad file never ends the run


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    made = {
        "a.moves.json": GOOD,
        "dup.moves.json": DUPLICATE,
        "huge.moves.json": HUGE,
        "b.keil": "[Black \"x\"]\n[White \"y\"]\n[Size \"4\"]\n[Komi \"6\"]\n[Result \"*\"]\n\n1. d4 *\n",
    }
    paths = {name: tmp_path / name for name in made}
    for name, text in made.items():
        paths[name].write_text(text, encoding="utf-8")
    # A compressed file's size is not known before reading it: the check then goes to worker processes.
    paths["c.keil.gz"] = tmp_path / "c.keil.gz"
    paths["c.keil.gz"].write_bytes(gzip.compress(made["b.keil"].encode()))
    return paths


def _expected_lines(files: dict[str, Path]) -> list[str]:
    dup_line, dup_column = where(DUPLICATE, '"moves"', 1)
    huge_line, huge_column = where(HUGE, "7777")
    return [
        f"{files['a.moves.json']}:1:1: game 1: unfinished: computed -, declared *; score so far W+5",
        f"{files['dup.moves.json']}:{dup_line}:{dup_column}: game 1: error: {DUPLICATE_ERROR}",
        f"{files['huge.moves.json']}:{huge_line}:{huge_column}: game 1: error: {HUGE_ERROR}",
        f"{files['b.keil']}:1:1: game 1: unfinished: computed -, declared *; score so far B+31",
        f"{files['c.keil.gz']}:1:1: game 1: unfinished: computed -, declared *; score so far B+31",
    ]


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_check_gives_every_other_file_its_verdict_and_the_summary(files: dict[str, Path], jobs: str) -> None:
    result = run("check", "--jobs", jobs, *map(str, files.values()))
    assert result.exit_code == 1
    lines = [line for line in result.stdout.splitlines() if ": warning: " not in line]
    assert lines[:-1] == _expected_lines(files)
    assert lines[-1].startswith("5 games: 3 unfinished, 2 error; ")


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_sarif_holds_each_files_error_at_its_place(files: dict[str, Path], jobs: str) -> None:
    result = run("check", "--jobs", jobs, "--format", "sarif", *map(str, files.values()))
    assert result.exit_code == 1
    (sarif_run,) = json.loads(result.stdout)["runs"]
    errors = {
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].rpartition("/")[2]: (
            r["message"]["text"],
            r["locations"][0]["physicalLocation"]["region"]["startLine"],
            r["locations"][0]["physicalLocation"]["region"]["startColumn"],
        )
        for r in sarif_run["results"]
        if r["ruleId"] == "error"
    }
    assert errors == {
        "dup.moves.json": (f"game 1: error: {DUPLICATE_ERROR}", *where(DUPLICATE, '"moves"', 1)),
        "huge.moves.json": (f"game 1: error: {HUGE_ERROR}", *where(HUGE, "7777")),
    }


def test_jsonl_gives_every_file_its_verdict(files: dict[str, Path]) -> None:
    result = run("check", "--jobs", "2", "--format", "jsonl", *map(str, files.values()))
    statuses = [(Path(row["file"]).name, row["status"]) for row in map(json.loads, result.stdout.splitlines()) if "file" in row]
    assert statuses == [
        ("a.moves.json", "unfinished"),
        ("dup.moves.json", "error"),
        ("huge.moves.json", "error"),
        ("b.keil", "unfinished"),
        ("c.keil.gz", "unfinished"),
    ]


def test_import_writes_the_others_and_names_each_bad_file(files: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "out.keil"
    result = run("import", str(files["dup.moves.json"]), str(files["a.moves.json"]), str(files["huge.moves.json"]), "-o", str(out))
    assert result.exit_code == 1
    dup_line, dup_column = where(DUPLICATE, '"moves"', 1)
    huge_line, huge_column = where(HUGE, "7777")
    assert f"{files['dup.moves.json']}:{dup_line}:{dup_column}: error: {DUPLICATE_ERROR}" in result.stderr
    assert f"{files['huge.moves.json']}:{huge_line}:{huge_column}: error: {HUGE_ERROR}" in result.stderr
    (record,) = keilref.read_games(out)
    assert (record.tag_value("Black"), len(record.turns)) == ("ana", 5)


def test_stats_show_and_filter_carry_on_past_a_bad_match(files: dict[str, Path]) -> None:
    paths = [str(files[n]) for n in ("dup.moves.json", "huge.moves.json", "a.moves.json")]
    stats = run("stats", *paths)
    assert stats.stdout.splitlines()[0] == "3 games: 1 unfinished, 2 error"
    show = run("show", str(files["dup.moves.json"]))
    assert show.exit_code != 0 and DUPLICATE_ERROR in show.output
    kept = run("filter", *paths)
    assert kept.stderr.splitlines() == [
        f"keilref: {files['dup.moves.json']}: the match cannot be read as a game: nothing to write",
        f"keilref: {files['huge.moves.json']}: the match cannot be read as a game: nothing to write",
        "keilref: 1 of 3 games written",
    ]
    (record,) = keilref.read_games(kept.stdout)
    assert (record.tag_value("Site"), record.tag_value("Black"), len(record.turns)) == ("abstract_games", "ana", 5)


def test_a_readers_fault_costs_its_own_file_only(files: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    real = sniffing.read_match

    def faulty(data: bytes, filename: str | None = None, **kw: Any) -> Any:
        if filename is not None and filename.endswith("a.moves.json"):
            raise RuntimeError("a bug")
        return real(data, filename, **kw)

    monkeypatch.setattr(sniffing, "read_match", faulty)
    result = run("check", str(files["a.moves.json"]), str(files["b.keil"]))
    lines = [line for line in result.stdout.splitlines() if ": warning: " not in line]
    assert lines[0] == f"{files['a.moves.json']}:1:1: game 1: error: internal error while reading this game: RuntimeError: a bug"
    assert lines[1] == f"{files['b.keil']}:1:1: game 1: unfinished: computed -, declared *; score so far B+31"
    assert lines[2].startswith("2 games: 1 unfinished, 1 error; ")


# --------------------------------------------------------------------------
# A board side no rule set allows is refused before any table is built

BIG = moves_json(size=999)
BIG_ERROR = "Size \"999\" is not allowed under rules 'keil': it must be 2..13"


def _quick(call: Callable[[], Any], budget: float = 1.0) -> Any:
    """``call``'s answer, having asserted it came well under a second (the
    table of a side-999 board took seconds and 400 MB)."""
    start = time.perf_counter()
    answer = call()
    took = time.perf_counter() - start
    assert took < budget, f"took {took:.2f} s"
    return answer


@pytest.fixture
def big(tmp_path: Path) -> Path:
    path = tmp_path / "big.moves.json"
    path.write_text(BIG, encoding="utf-8")
    small = tmp_path / "small.moves.json"
    small.write_text(GOOD, encoding="utf-8")
    for command in ("check", "show", "stats", "filter"):
        run(command, str(small))  # the commands' modules loaded before timing
    abstract_games._cell_points.cache_clear()
    return path


def _no_table_built() -> None:
    assert abstract_games._cell_points.cache_info().currsize == 0


def test_check_refuses_a_huge_side_in_json_quickly_at_the_size(big: Path) -> None:
    result = _quick(lambda: run("check", str(big)))
    line, column = where(BIG, "999")
    assert result.stdout.splitlines()[0] == f"{big}:{line}:{column}: game 1: error: {BIG_ERROR}"
    assert result.exit_code == 1
    _no_table_built()


def test_show_stats_filter_and_import_take_a_huge_side_quickly(big: Path, tmp_path: Path) -> None:
    line, column = where(BIG, "999")
    show = _quick(lambda: run("show", str(big)))
    assert f"{big}:{line}:{column}: game 1: {BIG_ERROR}" in show.output
    stats = _quick(lambda: run("stats", str(big)))
    assert stats.stdout.splitlines()[0] == "1 game: 1 error"
    _quick(lambda: run("filter", str(big)))
    out = tmp_path / "out.keil"
    _quick(lambda: run("import", str(big), "-o", str(out)))
    (v,) = _quick(lambda: keilref.check_file(out))
    assert v.status is Status.ERROR and v.error is not None and v.error.message == BIG_ERROR
    _no_table_built()


def test_the_library_refuses_a_huge_side_quickly(big: Path) -> None:
    line, column = where(BIG, "999")
    for call in (lambda: keilref.check_file(big), lambda: keilref.check_text(BIG), lambda: keilref.check_text(BIG.encode())):
        (v,) = _quick(call)
        assert v.status is Status.ERROR and v.error is not None
        assert (v.error.message, v.error.line, v.error.column) == (BIG_ERROR, line, column)
    record = _quick(lambda: keilref.read_game(big))
    assert record.tag_value("Size") == "999"
    with pytest.raises(keilref.TagError, match="is not allowed under rules 'keil'"):
        _quick(record.replay)
    with pytest.raises(keilref.ConfigError, match="size 999 is out of range"):
        _quick(lambda: keilref.Game(size=999))
    _no_table_built()


def test_reading_a_huge_side_holds_no_more_than_a_small_one() -> None:
    abstract_games._cell_points.cache_clear()
    tracemalloc.start()
    try:
        read_match(BIG.encode()).record.turns
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 2_000_000, peak
    _no_table_built()


@pytest.mark.parametrize("side", ["999", "1000000000", "-5"])
def test_a_huge_side_in_the_tags_is_refused_quickly(side: str) -> None:
    text = f'[Size "{side}"]\n[Result "*"]\n\n1. d4 *\n'
    (v,) = _quick(lambda: keilref.check_text(text))
    assert v.status is Status.ERROR and v.error is not None and (v.error.line, v.error.column) == (1, 1)


def test_generate_refuses_a_huge_side_quickly() -> None:
    result = _quick(lambda: run("generate", "--size", "999", "-n", "1"))
    assert result.exit_code == 2
    assert "size 999 is out of range for rules 'keil' (2..13)" in result.output
    assert result.stdout == ""


def test_the_language_server_refuses_a_huge_side_quickly(tmp_path: Path) -> None:
    pytest.importorskip("pygls")
    from pygls.workspace import TextDocument

    from keilref.lsp import KeilServer

    abstract_games._cell_points.cache_clear()
    from lsprotocol import types as lsp

    from lsp_support import initialize_in_process

    server = KeilServer()
    initialize_in_process(server, lsp.InitializeParams(capabilities=lsp.ClientCapabilities()))
    found = _quick(lambda: server.check(TextDocument((tmp_path / "big.moves.json").as_uri(), BIG)))
    diagnostics, games = found.diagnostics, found.games
    (d,) = diagnostics
    line, column = where(BIG, "999")
    assert (d.code, d.range.start.line + 1, d.range.start.character + 1, games) == ("error", line, column, 1)
    assert BIG_ERROR in d.message
    _no_table_built()
