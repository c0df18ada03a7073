"""The verdict table: ``check --format parquet`` and ``keilref.arrow``.

The table says what ``--format jsonl`` says, fact for fact, on the games
and the fault archive; DuckDB and Polars read it; ``check_batch`` checks
record text held in a column, one game or several a row.
"""

from __future__ import annotations

import functools
import json
import pickle
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

from cli_support import ROOT, run  # noqa: E402
from keilref.cli import EXIT_FAILED, EXIT_USAGE  # noqa: E402

ARCHIVES = ["records/games", "records/faults"]


def table_rows(path: Path) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = pq.read_table(path).to_pylist()
    return rows


def flattened(line: dict[str, Any]) -> dict[str, Any]:
    """A JSON line as the table holds it: written out here, not taken from keilref."""
    illegal = line["illegal"]
    return {
        "file": line["file"],
        "game": line["game"],
        "line": line["line"],
        "status": line["status"],
        "rules": line["rules"],
        "size": line["size"],
        "komi": line["komi"],
        "turns": line["turns"],
        "declared": line["declared"],
        "computed": line["computed"],
        "score": line["score"],
        "illegal": None if illegal is None else {"repeats_turn": None, **illegal},
        "error": line["error"],
        "mismatch": line["mismatch"],
        "warnings": line["warning_places"],
        "variation_illegal": [
            {
                "opened_line": f["opened_at"]["line"],
                "opened_column": f["opened_at"]["column"],
                "repeats_turn": None,
                **{k: v for k, v in f.items() if k != "opened_at"},
            }
            for f in line.get("variation_illegal", [])
        ],
        "rule_sensitive": line["rule_sensitive"],
        "event": line["event"],
        "black": line["black"],
        "white": line["white"],
    }


@pytest.fixture
def written(tmp_path: Path, at_the_root: None) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The JSON lines and the table's rows of one check of both archives."""
    target = tmp_path / "verdicts.parquet"
    table = run("check", "--format", "parquet", "-o", str(target), *ARCHIVES)
    lines = run("check", "--format", "jsonl", *ARCHIVES)
    assert table.exit_code == lines.exit_code == EXIT_FAILED
    # The file holds the table; the terminal still gets the summary.
    assert table.stdout.startswith(f"{len(lines.stdout.splitlines())} games: ")
    return [json.loads(line) for line in lines.stdout.splitlines()], table_rows(target)


def test_the_table_says_what_jsonl_says_fact_for_fact(written: tuple[list[dict[str, Any]], list[dict[str, Any]]]) -> None:
    lines, rows = written
    assert len(rows) == len(lines) > 60
    for line, row in zip(lines, rows):
        assert {k: row[k] for k in flattened(line)} == flattened(line), (line["file"], line["game"])
    # Every kind of fact is in the archives, so each column is exercised.
    statuses = Counter(row["status"] for row in rows)
    assert set(statuses) == {"ok", "illegal", "mismatch", "error", "unfinished"}
    assert any(row["illegal"] and row["illegal"]["repeats_turn"] for row in rows)
    assert any(row["variation_illegal"] for row in rows) and any(row["warnings"] for row in rows)
    assert any(row["mismatch"] for row in rows) and any(row["rule_sensitive"] for row in rows)


def test_fails_is_the_checks_own_decision(tmp_path: Path, at_the_root: None) -> None:
    lenient, strict = tmp_path / "lenient.parquet", tmp_path / "strict.parquet"
    run("check", "--format", "parquet", "-o", str(lenient), *ARCHIVES)
    run("check", "--format", "parquet", "--strict", "-o", str(strict), *ARCHIVES)
    failing = {(v["file"], v["game"]) for v in map(json.loads, run("check", "-f", "jsonl", "-q", *ARCHIVES).stdout.splitlines())}
    strictly = {
        (v["file"], v["game"])
        for v in map(json.loads, run("check", "-f", "jsonl", "-q", "--strict", *ARCHIVES).stdout.splitlines())
    }
    assert {(r["file"], r["game"]) for r in table_rows(lenient) if r["fails"]} == failing
    assert {(r["file"], r["game"]) for r in table_rows(strict) if r["fails"]} == strictly
    assert failing < strictly


def test_the_schema_is_fixed() -> None:
    from keilref.arrow import VERDICT_SCHEMA

    place = "line: int64, column: int64"
    illegal = f"turn: int64, point: string, reason: string, {place}, repeats_turn: int64"
    assert [f"{f.name}: {f.type}{'' if f.nullable else ' not null'}" for f in VERDICT_SCHEMA] == [
        "file: string not null",
        "game: int64 not null",
        "line: int64 not null",
        "status: string not null",
        "rules: string",
        "size: int64",
        "komi: double",
        "turns: int64 not null",
        "declared: string",
        "computed: string",
        "score: struct<black: double, white: double>",
        f"illegal: struct<{illegal}>",
        f"error: struct<message: string, {place}>",
        f"mismatch: struct<{place}, reason: string, message: string>",
        f"warnings: list<item: struct<message: string, {place}>> not null",
        f"variation_illegal: list<item: struct<opened_line: int64, opened_column: int64, {illegal}>> not null",
        "rule_sensitive: bool not null",
        "fails: bool not null",
        "event: string",
        "round: string",
        "date: string",
        "black: string",
        "white: string",
        "site: string",
        "game_id: string",
    ]
    assert VERDICT_SCHEMA.metadata == {b"keilref.table": b"verdicts", b"keilref.table.version": b"1"}


def test_the_tags_users_filter_on_are_columns(tmp_path: Path) -> None:
    record = tmp_path / "tagged.keil"
    record.write_text(
        '[Event "Winter Open"]\n[Site "Vigo"]\n[Date "2026.01.02"]\n[Round "3"]\n[Black "Ana"]\n[White "Ben"]\n'
        '[GameId "w-17"]\n[Rules "keil"]\n[Size "3"]\n[Komi "0"]\n[Button "yes"]\n\n1. c3 *\n'
        '\n[Site "Ourense"]\n[Rules "keil"]\n[Size "3"]\n[Komi "0"]\n[Button "yes"]\n\n1. c3 *\n',
        encoding="utf-8",
    )
    target = tmp_path / "t.parquet"
    assert run("check", "-f", "parquet", "-o", str(target), str(record)).exit_code == 0
    tags = ("event", "site", "date", "round", "black", "white", "game_id")
    assert [tuple(r[t] for t in tags) for r in table_rows(target)] == [
        ("Winter Open", "Vigo", "2026.01.02", "3", "Ana", "Ben", "w-17"),
        (None, "Ourense", None, None, None, None, None),
    ]


def test_duckdb_answers_the_questions_the_table_is_for(tmp_path: Path, at_the_root: None) -> None:
    duckdb = pytest.importorskip("duckdb")
    target = tmp_path / "verdicts.parquet"
    run("check", "--format", "parquet", "-o", str(target), *ARCHIVES)
    lines = [json.loads(line) for line in run("check", "-f", "jsonl", *ARCHIVES).stdout.splitlines()]
    # Superko refusals by board size.
    got = duckdb.sql(
        f"select size, count(*) from '{target}' where illegal.reason = 'superko' group by size order by size"
    ).fetchall()
    want = Counter(v["size"] for v in lines if v["illegal"] and v["illegal"]["reason"] == "superko")
    assert got == sorted(want.items()) and got
    # The players whose games fail most, as Black or White, in a round of a tournament.
    games = [("Ana", "Ben", "c3 c3"), ("Ana", "Cai", "c3"), ("Cai", "Ana", "c3 c3"), ("Ben", "Dan", "c3 a9"),
             ("Dan", "Cai", "c3")]
    round_ = tmp_path / "round.keil"
    round_.write_text("\n".join(f'[Black "{b}"]\n[White "{w}"]\n' + SMALL.replace("c3 c3", moves) for b, w, moves in games),
                      encoding="utf-8")
    run("check", "--format", "parquet", "-o", str(target), str(round_))
    lines = [json.loads(line) for line in run("check", "-f", "jsonl", str(round_)).stdout.splitlines()]
    got = duckdb.sql(
        f"""select player, count(*) as failed from (
              select black as player from '{target}' where fails and black is not null
              union all select white from '{target}' where fails and white is not null)
            group by player order by failed desc, player limit 10"""
    ).fetchall()
    failing = Counter(
        p for v in lines if v["status"] in ("illegal", "mismatch", "error") for p in (v["black"], v["white"]) if p
    )
    assert got == sorted(failing.items(), key=lambda kv: (-kv[1], kv[0]))[:10]
    assert got == [("Ana", 2), ("Ben", 2), ("Cai", 1), ("Dan", 1)]


def test_polars_reads_the_table(tmp_path: Path, at_the_root: None) -> None:
    pl = pytest.importorskip("polars")
    target = tmp_path / "verdicts.parquet"
    run("check", "--format", "parquet", "-o", str(target), *ARCHIVES)
    frame = pl.read_parquet(target)
    lines = [json.loads(line) for line in run("check", "-f", "jsonl", *ARCHIVES).stdout.splitlines()]
    assert frame.height == len(lines)
    counts = dict(frame.group_by("status").len().iter_rows())
    assert counts == Counter(v["status"] for v in lines)


def test_the_table_is_written_a_row_group_at_a_time(tmp_path: Path, at_the_root: None, monkeypatch: pytest.MonkeyPatch) -> None:
    import keilref.formats.parquet

    monkeypatch.setattr(keilref.formats.parquet, "ROW_GROUP", 10)
    target = tmp_path / "verdicts.parquet"
    run("check", "--format", "parquet", "-j", "1", "-o", str(target), "records/faults")
    data = pq.ParquetFile(target)
    games = data.metadata.num_rows
    assert data.metadata.num_row_groups == -(-games // 10) and games > 40
    assert [g for g in (data.metadata.row_group(i).num_rows for i in range(data.num_row_groups))][:-1] == [10] * (
        data.num_row_groups - 1
    )


def test_parquet_goes_to_a_file_only(at_the_root: None) -> None:
    result = run("check", "--format", "parquet", "records/games")
    assert result.exit_code == EXIT_USAGE
    assert "--format parquet writes a binary file: give it with -o FILE (such as -o verdicts.parquet)" in result.stderr
    assert result.stdout == ""


def test_without_pyarrow_the_extra_is_named(tmp_path: Path, at_the_root: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    target = tmp_path / "v.parquet"
    result = run("check", "--format", "parquet", "-o", str(target), "records/games")
    assert result.exit_code == EXIT_USAGE
    assert "pip install 'keilref[arrow]'" in result.stderr
    assert not target.exists() and list(tmp_path.iterdir()) == []


# --- check_batch ------------------------------------------------------------------

GAME = (ROOT / "records/faults/illegal-superko.keil").read_text(encoding="utf-8")
SMALL = '[Rules "keil"]\n[Size "3"]\n[Komi "0"]\n[Button "yes"]\n\n1. c3 c3 *\n'


def test_check_batch_checks_each_row_as_a_file_of_its_own() -> None:
    from keilref.arrow import VERDICT_SCHEMA, check_batch

    batch = pa.record_batch({"record": [GAME, None, SMALL + "\n" + SMALL, "[Rules"], "id": ["g", "n", "two", "bad"]})
    rows = check_batch(batch).to_pylist()
    assert check_batch(batch).schema == VERDICT_SCHEMA
    assert [(r["file"], r["game"], r["status"]) for r in rows] == [
        ("batch#row=1", 1, "illegal"),
        ("batch#row=2", 1, "error"),
        ("batch#row=3", 1, "illegal"),
        ("batch#row=3", 2, "illegal"),
        ("batch#row=4", 1, "error"),
    ]
    # Lines count within the row: the second game of row 3 starts on its line 8.
    assert [r["illegal"]["line"] for r in rows[2:4]] == [6, 13]
    assert rows[1]["error"]["message"] == "column 'record' holds null, not record text (strings, or bytes in UTF-8)"
    assert rows[4]["error"]["line"] == 1
    named = check_batch(batch, name_column="id", first_row=7).to_pylist()
    assert [r["file"] for r in named] == ["g", "n", "two", "two", "bad"]
    assert [r["file"] for r in check_batch(batch, file="part-3", first_row=101).to_pylist()][:2] == [
        "part-3#row=101",
        "part-3#row=102",
    ]


def test_check_batch_is_the_check_of_the_same_text(tmp_path: Path) -> None:
    from keilref.arrow import check_batch

    path = tmp_path / "game.keil"
    path.write_text(GAME, encoding="utf-8")
    row = check_batch(pa.table({"record": [GAME]}), file=str(tmp_path / "game.keil")).to_pylist()[0]
    line = json.loads(run("check", "-f", "jsonl", str(path)).stdout)
    assert {k: row[k] for k in flattened(line) if k != "file"} == {
        k: v for k, v in flattened(line).items() if k != "file"
    }


def test_check_batch_pickles_and_takes_rules_and_strict() -> None:
    from keilref.arrow import check_batch

    job = pickle.loads(pickle.dumps(functools.partial(check_batch, column="text", rules="keil-2019", strict=True)))
    rows = job(pa.table({"text": [SMALL.replace("c3 c3", "c3")]})).to_pylist()
    assert [(r["rules"], r["status"], r["fails"]) for r in rows] == [("keil-2019", "unfinished", True)]


def test_check_batch_refuses_a_column_that_is_not_text() -> None:
    from keilref.arrow import check_batch

    with pytest.raises(KeyError, match="no column 'record'"):
        check_batch(pa.table({"text": [SMALL]}))
    with pytest.raises(TypeError, match=r"holds int64, not record text \(strings, or bytes in UTF-8\)"):
        check_batch(pa.table({"record": [1]}))


def test_check_batch_gives_the_rows_check_column_gives(tmp_path: Path) -> None:
    """A table of records checked by the command (``--column``, then
    ``--format parquet``) and by ``check_batch`` on the same table: one table."""
    from keilref.arrow import check_batch

    source = tmp_path / "records.parquet"
    records = pa.table({"record": [GAME, SMALL + "\n" + SMALL, None, "[Rules"]})
    pq.write_table(records, source)
    target = tmp_path / "verdicts.parquet"
    result = run("check", "--column", "record", "-f", "parquet", "-o", str(target), str(source))
    assert result.exit_code == EXIT_FAILED
    by_command = pq.read_table(target)
    by_batch = check_batch(records, file=str(source))
    assert by_command.column("file").to_pylist()[:3] == [f"{source}#row=1", f"{source}#row=2", f"{source}#row=2"]
    assert by_command.to_pylist() == pa.Table.from_batches([by_batch]).to_pylist()
    null = by_command.to_pylist()[3]
    assert (null["file"], null["status"], null["error"]["line"]) == (f"{source}#row=3", "error", 1)
