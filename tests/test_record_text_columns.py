"""Which Arrow columns hold record text, decided once for ``check --column``
and :func:`keilref.arrow.check_batch`: strings and bytes of every width and
layout, plain or dictionary-encoded, each row checked as a file of those
bytes would be (a byte that is not UTF-8 an error at its line and column);
any other column refused by both in the same words."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_support import ROOT, run

from keilref import wording
from keilref.records.columns import not_text

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

GOOD = (ROOT / "records/games/size4-keil-no-result-claimed.keil").read_bytes()
ILLEGAL = (ROOT / "records/faults/illegal-game-over.keil").read_bytes()
NOT_UTF8 = (ROOT / "records/faults/error-invalid-utf8.keil").read_bytes()

ROWS: list[bytes | None] = [GOOD, ILLEGAL + b"\n" + GOOD, None]
"""A game, two games in one row (the first illegal), and a null."""

_STRINGS = {
    "string": pa.string(),
    "large_string": pa.large_string(),
    "string_view": pa.string_view(),
    "dictionary<string>": pa.dictionary(pa.int32(), pa.string()),
    "dictionary<large_string>": pa.dictionary(pa.int8(), pa.large_string()),
}
_BYTES = {
    "binary": pa.binary(),
    "large_binary": pa.large_binary(),
    "binary_view": pa.binary_view(),
    "dictionary<binary>": pa.dictionary(pa.int32(), pa.binary()),
}
TEXT_TYPES = {**_STRINGS, **_BYTES}

_NOT_TEXT = "not record text (strings, or bytes in UTF-8)"

REFUSED = {
    "int64": (pa.int64(), [1, 2]),
    "bool": (pa.bool_(), [True, False]),
    "list<string>": (pa.list_(pa.string()), [["a"], ["b"]]),
    "dictionary<int64>": (pa.dictionary(pa.int32(), pa.int64()), [1, 2]),
}
BATCH_MESSAGES = {
    "int64": f"column 'record' holds int64, {_NOT_TEXT}",
    "bool": f"column 'record' holds bool, {_NOT_TEXT}",
    "list<string>": f"column 'record' holds list<item: string>, {_NOT_TEXT}",
    "dictionary<int64>": f"column 'record' holds dictionary<values=int64, indices=int32, ordered=0>, {_NOT_TEXT}",
}
PARQUET_MESSAGES = {
    **BATCH_MESSAGES,
    # Parquet names a list's values "element", and keeps no dictionary of numbers.
    "list<string>": f"column 'record' holds list<element: string>, {_NOT_TEXT}",
    "dictionary<int64>": f"column 'record' holds int64, {_NOT_TEXT}",
}


def _column(kind: Any, rows: list[bytes | None]) -> Any:
    """``rows`` as an Arrow column of type ``kind``: strings decoded, bytes as they are."""
    value_type = kind.value_type if pa.types.is_dictionary(kind) else kind
    if value_type in _STRINGS.values():
        values: list[Any] = [None if r is None else r.decode("utf-8") for r in rows]
    else:
        values = list(rows)
    plain = pa.array(values, type=value_type)
    return plain.dictionary_encode().cast(kind) if pa.types.is_dictionary(kind) else plain


def _parquet(tmp_path: Path, column: Any) -> Path:
    path = tmp_path / "records.parquet"
    pq.write_table(pa.table({"record": column}), path)
    return path


def _check_jsonl(*args: str) -> tuple[int, list[dict[str, Any]]]:
    result = run("check", "--format", "jsonl", *args)
    return result.exit_code, [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]


def _unnamed(verdicts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in verdict.items() if k != "file"} for verdict in verdicts]


def _as_files(tmp_path: Path, rows: list[bytes | None]) -> list[dict[str, Any]]:
    """The verdicts of each row's bytes written as a file of its own."""
    out: list[dict[str, Any]] = []
    for n, row in enumerate(rows, 1):
        assert row is not None
        path = tmp_path / f"row{n}.keil"
        path.write_bytes(row)
        out += _check_jsonl(str(path))[1]
    return out


def _batch_rows(column: Any, **options: Any) -> list[dict[str, Any]]:
    from keilref.arrow import check_batch

    rows: list[dict[str, Any]] = check_batch(pa.table({"record": column}), **options).to_pylist()
    return rows


def _facts(verdict: dict[str, Any]) -> tuple[Any, ...]:
    """What a verdict says of its game, as the verdict table and the JSON line both hold it."""
    illegal = verdict["illegal"] or {}
    return (
        verdict["game"], verdict["line"], verdict["status"], verdict["turns"], verdict["declared"], verdict["computed"],
        illegal.get("reason"), illegal.get("line"), illegal.get("column"),
    )


def _null_row(file: str) -> dict[str, Any]:
    """What a null row's one verdict says, as both ways word it."""
    return {"file": file, "status": "error", "message": wording.column_not_text("record", "null")}


@pytest.mark.parametrize("name", sorted(TEXT_TYPES))
def test_check_column_reads_every_text_type_as_the_files_it_holds(tmp_path: Path, name: str) -> None:
    table = _parquet(tmp_path, _column(TEXT_TYPES[name], ROWS))
    code, verdicts = _check_jsonl("--column", "record", str(table))
    assert code == 1
    assert [(v["file"], v["game"], v["status"]) for v in verdicts] == [
        (f"{table}#row=1", 1, "ok"),
        (f"{table}#row=2", 1, "illegal"),
        (f"{table}#row=2", 2, "ok"),
        (f"{table}#row=3", 1, "error"),
    ]
    assert _unnamed(verdicts[:3]) == _unnamed(_as_files(tmp_path, ROWS[:2]))
    last = verdicts[3]
    assert {"file": last["file"], "status": last["status"], "message": last["error"]["message"]} == _null_row(
        f"{table}#row=3"
    )


@pytest.mark.parametrize("name", sorted(TEXT_TYPES))
def test_check_batch_reads_every_text_type_as_the_files_it_holds(tmp_path: Path, name: str) -> None:
    rows = _batch_rows(_column(TEXT_TYPES[name], ROWS), file="t")
    assert [(r["file"], r["game"], r["status"]) for r in rows] == [
        ("t#row=1", 1, "ok"),
        ("t#row=2", 1, "illegal"),
        ("t#row=2", 2, "ok"),
        ("t#row=3", 1, "error"),
    ]
    assert [_facts(r) for r in rows[:3]] == [_facts(f) for f in _as_files(tmp_path, ROWS[:2])]
    last = rows[3]
    assert {"file": last["file"], "status": last["status"], "message": last["error"]["message"]} == _null_row("t#row=3")


@pytest.mark.parametrize("name", sorted(_BYTES))
def test_bytes_that_are_not_utf8_are_an_error_where_a_file_s_would_be(tmp_path: Path, name: str) -> None:
    on_disk = tmp_path / "not-utf8.keil"
    on_disk.write_bytes(NOT_UTF8)
    [as_file] = _check_jsonl(str(on_disk))[1]
    expected = as_file["error"]
    assert expected["message"].startswith("the text is not valid UTF-8 here (byte 0x")
    column = _column(TEXT_TYPES[name], [GOOD, NOT_UTF8])

    table = _parquet(tmp_path, column)
    code, verdicts = _check_jsonl("--column", "record", str(table))
    assert code == 1
    assert [(v["file"], v["status"]) for v in verdicts] == [(f"{table}#row=1", "ok"), (f"{table}#row=2", "error")]
    assert verdicts[1]["error"] == expected

    rows = _batch_rows(column)
    assert [(r["file"], r["status"]) for r in rows] == [("batch#row=1", "ok"), ("batch#row=2", "error")]
    error = rows[1]["error"]
    assert (error["message"], error["line"], error["column"]) == (
        expected["message"], expected["line"], expected["column"]
    )


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_check_column_refuses_any_other_column_in_words(tmp_path: Path, name: str) -> None:
    kind, values = REFUSED[name]
    table = _parquet(tmp_path, pa.array(values, type=kind))
    code, verdicts = _check_jsonl("--column", "record", str(table))
    assert code == 1
    assert [(v["file"], v["status"]) for v in verdicts] == [(str(table), "error")]
    assert verdicts[0]["error"]["message"] == "cannot read file: " + PARQUET_MESSAGES[name]


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_check_batch_refuses_any_other_column_in_the_same_words(name: str) -> None:
    from keilref.arrow import check_batch

    kind, values = REFUSED[name]
    with pytest.raises(TypeError) as refused:
        check_batch(pa.table({"record": pa.array(values, type=kind)}))
    assert str(refused.value) == BATCH_MESSAGES[name]


def test_the_one_rule_accepts_the_text_types_and_names_the_others() -> None:
    assert [name for name, kind in TEXT_TYPES.items() if not_text("record", kind) is not None] == []
    assert {name: not_text("record", kind) for name, (kind, _) in REFUSED.items()} == BATCH_MESSAGES
