"""``check --column``: records held in a column of a Parquet, Arrow IPC or JSON
Lines file, each row reported as FILE#row=N, errors placed within the row."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from keilref import wording
from keilref.cli import app
from keilref.records.sources import Source, read_source

from cli_support import ROOT

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
feather = pytest.importorskip("pyarrow.feather")

runner = CliRunner()
GAMES = sorted((ROOT / "records/games").glob("size4-*.keil"))
BAD = '[Event "x"]\n1. zz\n'


def _texts() -> list[str | None]:
    """Row 1 holds two games, row 2 one, row 3 a good game then a bad one, row 4 a null."""
    one, two, three = (g.read_text(encoding="utf-8") for g in GAMES[:3])
    return [one + "\n" + two, three, one + "\n" + BAD, None]


def _write(path: Path, texts: list[str | None], column: str = "record") -> Path:
    table = pa.table({"id": list(range(len(texts))), column: pa.array(texts, pa.string())})
    if path.suffix == ".parquet":
        pq.write_table(table, path, row_group_size=2)  # rows cross row groups
    elif path.suffix == ".arrow":
        feather.write_feather(table, path)
    else:
        path.write_text(
            "".join(json.dumps({"id": i, column: t}) + "\n" for i, t in enumerate(texts)), encoding="utf-8"
        )
    return path


def _verdicts(*args: str) -> tuple[int, list[dict[str, object]]]:
    result = runner.invoke(app, ["check", "--format", "jsonl", *args])
    return result.exit_code, [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]


@pytest.mark.parametrize("name", ["archive.parquet", "archive.arrow", "archive.jsonl"])
def test_each_row_is_a_file_of_its_own(tmp_path: Path, name: str) -> None:
    table = _write(tmp_path / name, _texts())
    code, verdicts = _verdicts("--column", "record", str(table))
    assert code == 1
    places = [(v["file"], v["game"], v["status"]) for v in verdicts]
    row = lambda n: wording.in_row(str(table), n)  # noqa: E731
    assert places == [
        (row(1), 1, "ok"), (row(1), 2, "ok"), (row(2), 1, "ok"),
        (row(3), 1, "ok"), (row(3), 2, "error"), (row(4), 1, "error"),
    ]
    first_lines = GAMES[0].read_text(encoding="utf-8").count("\n") + 1
    # The bad game's error is placed in its row's text: line 2 of the bad game, after the good one.
    assert verdicts[4]["error"] == {
        "message": "found 'zz'; expected a move after the move number", "line": first_lines + 2, "column": 4
    }
    assert verdicts[1]["line"] == first_lines + 1
    assert verdicts[5]["error"]["message"] == wording.column_not_text("record", "null")  # type: ignore[index]


def test_the_row_is_in_the_text_location(tmp_path: Path) -> None:
    table = _write(tmp_path / "archive.parquet", _texts())
    result = runner.invoke(app, ["check", "--column", "record", str(table)])
    assert f"{table}#row=3:" in result.stdout and "game 2: error: found 'zz'" in result.stdout


def test_verdicts_equal_those_of_the_records_as_files(tmp_path: Path) -> None:
    texts = [g.read_text(encoding="utf-8") for g in GAMES]
    table = _write(tmp_path / "archive.parquet", list(texts))
    _, from_table = _verdicts("--column", "record", str(table))
    _, from_files = _verdicts(*map(str, GAMES))
    assert len(from_table) == len(from_files) == len(GAMES)
    for row, (a, b) in enumerate(zip(from_table, from_files), 1):
        assert a.pop("file") == wording.in_row(str(table), row)
        b.pop("file")
        assert a == b


def test_jobs_two_equals_jobs_one(tmp_path: Path) -> None:
    # More rows than one batch holds, so that several batches go to the workers.
    texts = [GAMES[i % len(GAMES)].read_text(encoding="utf-8") for i in range(300)] + [BAD]
    table = _write(tmp_path / "many.parquet", list(texts))
    one = runner.invoke(app, ["check", "--jobs", "1", "--format", "jsonl", "--column", "record", str(table)])
    two = runner.invoke(app, ["check", "--jobs", "2", "--format", "jsonl", "--column", "record", str(table)])
    assert one.exit_code == two.exit_code == 1
    assert one.stdout == two.stdout
    assert len(one.stdout.splitlines()) == 301


def test_a_bad_file_is_located_and_the_others_checked(tmp_path: Path) -> None:
    good = _write(tmp_path / "good.jsonl", _texts()[:2])
    other = _write(tmp_path / "other.parquet", _texts()[:2], column="moves")
    numbers = tmp_path / "numbers.parquet"
    pq.write_table(pa.table({"record": [1, 2]}), numbers)
    corrupt = tmp_path / "corrupt.parquet"
    corrupt.write_bytes(b"PAR1 this is no parquet file")
    code, verdicts = _verdicts("--column", "record", str(other), str(numbers), str(corrupt), str(good))
    assert code == 1
    assert [(v["file"], v["status"]) for v in verdicts[:3]] == [
        (str(other), "error"), (str(numbers), "error"), (str(corrupt), "error")
    ]
    messages = [v["error"]["message"] for v in verdicts[:3]]  # type: ignore[index]
    assert messages[0] == "cannot read file: " + wording.column_missing("record", ["id", "moves"])
    assert messages[1] == "cannot read file: " + wording.column_not_text("record", "int64")
    assert messages[2].startswith("cannot read file: not a readable Parquet file (")
    assert [v["status"] for v in verdicts[3:]] == ["ok", "ok", "ok"]


def test_a_json_lines_row_that_is_not_an_object_is_that_rows_error(tmp_path: Path) -> None:
    path = tmp_path / "rows.jsonl"
    game = GAMES[0].read_text(encoding="utf-8")
    path.write_text(
        json.dumps({"record": game}) + "\n[1]\n{broken\n" + json.dumps({"record": 5}) + "\n", encoding="utf-8"
    )
    code, verdicts = _verdicts("--column", "record", str(path))
    assert code == 1
    assert [(v["file"], v["status"]) for v in verdicts] == [
        (f"{path}#row=1", "ok"), (f"{path}#row=2", "error"), (f"{path}#row=3", "error"), (f"{path}#row=4", "error")
    ]
    assert verdicts[3]["error"]["message"] == wording.column_not_text("record", "a number")  # type: ignore[index]


def test_records_given_with_column_are_not_json_lines(tmp_path: Path) -> None:
    code, verdicts = _verdicts("--column", "record", str(GAMES[0]))
    assert code == 1
    assert len(verdicts) == 1 and verdicts[0]["file"] == str(GAMES[0])
    assert verdicts[0]["error"]["message"].startswith("cannot read file: not a readable JSON Lines file (")  # type: ignore[index]


def test_compressed_json_lines_and_the_library_reader(tmp_path: Path) -> None:
    import gzip

    plain = _write(tmp_path / "rows.jsonl", _texts())
    packed = tmp_path / "rows.jsonl.gz"
    packed.write_bytes(gzip.compress(plain.read_bytes()))
    items = list(read_source(Source(str(packed), column="record")))
    assert [getattr(i, "filename", None) for i in items if not hasattr(i, "moves")] == [
        f"{packed}#row=3", f"{packed}#row=4"
    ]
    assert len(items) == 6


def test_a_dictionary_encoded_column_is_text(tmp_path: Path) -> None:
    texts = [g.read_text(encoding="utf-8") for g in GAMES[:2]] * 2
    path = tmp_path / "dictionary.arrow"
    feather.write_feather(pa.table({"record": pa.array(texts).dictionary_encode()}), path)
    code, verdicts = _verdicts("--column", "record", str(path))
    _, plain = _verdicts(*map(str, GAMES[:2]), *map(str, GAMES[:2]))
    assert code == 0
    assert [v["file"] for v in verdicts] == [wording.in_row(str(path), n) for n in range(1, 5)]
    assert [{**v, "file": None} for v in verdicts] == [{**v, "file": None} for v in plain]


def test_a_corrupt_arrow_file_is_located(tmp_path: Path) -> None:
    path = tmp_path / "corrupt.arrow"
    path.write_bytes(b"ARROW1\0\0 not really")
    code, verdicts = _verdicts("--column", "record", str(path), str(GAMES[0]))
    assert code == 1
    assert verdicts[0]["file"] == str(path)
    assert verdicts[0]["error"]["message"].startswith("cannot read file: not a readable Arrow IPC file (")  # type: ignore[index]
    assert verdicts[0]["error"]["line"] == 1  # type: ignore[index]


def test_the_html_report_shows_the_games_of_rows(tmp_path: Path) -> None:
    """The report reads each row again for its boards, as it reads a file again."""
    texts = [g.read_text(encoding="utf-8") for g in GAMES]
    table = _write(tmp_path / "archive.parquet", list(texts))
    from_table = runner.invoke(app, ["check", "--format", "html", "--column", "record", str(table)])
    from_files = runner.invoke(app, ["check", "--format", "html", *map(str, GAMES)])
    assert from_table.exit_code == from_files.exit_code
    assert from_files.stdout.count('"turns":') == len(GAMES)
    assert from_table.stdout.count('"turns":') == len(GAMES)
    assert str(table) + "#row=" + str(len(GAMES)) in from_table.stdout


def test_a_rows_name_is_made_and_read_back_in_one_place() -> None:
    assert wording.in_row("s3://b/archive.parquet", 12) == "s3://b/archive.parquet#row=12"
    assert wording.row_of("s3://b/archive.parquet#row=12") == ("s3://b/archive.parquet", 12)
    assert wording.row_of("a#row=1#row=3") == ("a#row=1", 3)
    for name in ("archive.parquet", "archive.parquet#row=", "archive.parquet#row=0", "#row=2", "x#row=1a"):
        assert wording.row_of(name) is None, name
