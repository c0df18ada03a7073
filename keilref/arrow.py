"""The verdict table: one row per game, the facts of its verdict as typed columns.

The table is made one way, whichever way it is asked for (``keilref check
--format parquet``, :func:`check_batch` in a data engine, Dask's
``check_dataframe``): each row is the game's JSON line
(:func:`keilref.formats.jsonl.json_data`, the facts the record format
documents) with its places flattened into structs, plus the tags users filter
on. So the table and ``--format jsonl`` cannot say different things.

:func:`check_batch` is the one function a data engine needs: it takes a
``pyarrow.RecordBatch`` whose column holds record text (one game or several
per row) and returns the verdict table's rows for it. It is a module-level,
pure function of its arguments, so it pickles (with :func:`functools.partial`
too) and runs where the engine sends it: Dask's ``map_partitions``, Ray
Data's ``map_batches``, Spark's ``mapInArrow``, DuckDB and Polars.

Needs the ``arrow`` extra (``pip install 'keilref[arrow]'``, pyarrow).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import pyarrow as pa

from keilref import wording
from keilref.errors import RecordError, wrong_type
from keilref.formats.jsonl import json_data
from keilref.records.columns import column_texts, not_text
from keilref.referee.batches import check_text
from keilref.referee.verdict import Verdict, error_verdict

__all__ = ["VERDICT_SCHEMA", "check_batch", "verdict_batch", "verdict_batches"]

_PLACE = [pa.field("line", pa.int64()), pa.field("column", pa.int64())]
_ILLEGAL = [
    pa.field("turn", pa.int64()),
    pa.field("point", pa.string()),
    pa.field("reason", pa.string()),
    *_PLACE,
    pa.field("repeats_turn", pa.int64()),
]

VERDICT_SCHEMA = pa.schema(
    [
        pa.field("file", pa.string(), nullable=False),
        pa.field("game", pa.int64(), nullable=False),
        pa.field("line", pa.int64(), nullable=False),
        pa.field("status", pa.string(), nullable=False),
        pa.field("rules", pa.string()),
        pa.field("size", pa.int64()),
        pa.field("komi", pa.float64()),
        pa.field("turns", pa.int64(), nullable=False),
        pa.field("declared", pa.string()),
        pa.field("computed", pa.string()),
        pa.field("score", pa.struct([pa.field("black", pa.float64()), pa.field("white", pa.float64())])),
        pa.field("illegal", pa.struct(_ILLEGAL)),
        pa.field("error", pa.struct([pa.field("message", pa.string()), *_PLACE])),
        pa.field(
            "mismatch",
            pa.struct([*_PLACE, pa.field("reason", pa.string()), pa.field("message", pa.string())]),
        ),
        pa.field("warnings", pa.list_(pa.struct([pa.field("message", pa.string()), *_PLACE])), nullable=False),
        pa.field(
            "variation_illegal",
            pa.list_(pa.struct([pa.field("opened_line", pa.int64()), pa.field("opened_column", pa.int64()), *_ILLEGAL])),
            nullable=False,
        ),
        pa.field("rule_sensitive", pa.bool_(), nullable=False),
        pa.field("fails", pa.bool_(), nullable=False),
        pa.field("event", pa.string()),
        pa.field("round", pa.string()),
        pa.field("date", pa.string()),
        pa.field("black", pa.string()),
        pa.field("white", pa.string()),
        pa.field("site", pa.string()),
        pa.field("game_id", pa.string()),
    ],
    metadata={"keilref.table": "verdicts", "keilref.table.version": "1"},
)
"""The verdict table's columns, documented in docs/verdict-table.md. A new
column is added at the end and the version raised; none is renamed."""


def _row(v: Verdict, strict: bool) -> dict[str, Any]:
    data = json_data(v)
    data["fails"] = v.fails(strict=strict)
    data["warnings"] = data.pop("warning_places")
    data["variation_illegal"] = [
        {"opened_line": f["opened_at"]["line"], "opened_column": f["opened_at"]["column"], **_no_opened(f)}
        for f in data.get("variation_illegal", ())
    ]
    data.update(round=v.round, date=v.date, site=v.site, game_id=v.game_id)
    return data


def _no_opened(fault: dict[str, Any]) -> dict[str, Any]:
    return {k: value for k, value in fault.items() if k != "opened_at"}


def verdict_batch(verdicts: Iterable[Verdict], *, strict: bool = False) -> pa.RecordBatch:
    """The verdict table's rows for ``verdicts``, in their order; ``fails``
    as strict as ``strict`` (``check --strict``)."""
    if isinstance(verdicts, (str, bytes)) or not isinstance(verdicts, Iterable):
        raise wrong_type("verdicts", verdicts, "an iterable of Verdict")
    rows = []
    for v in verdicts:
        if not isinstance(v, Verdict):
            raise wrong_type("each of verdicts", v, "a Verdict")
        rows.append(_row(v, strict))
    return pa.RecordBatch.from_pylist(rows, schema=VERDICT_SCHEMA)


def verdict_batches(verdicts: Iterable[Verdict], rows: int = 8192, *, strict: bool = False) -> Iterator[pa.RecordBatch]:
    """The verdict table for a stream of verdicts, ``rows`` games a batch:
    as much memory as one batch, however many games pass."""
    held: list[Verdict] = []
    for v in verdicts:
        held.append(v)
        if len(held) >= rows:
            yield verdict_batch(held, strict=strict)
            held = []
    if held:
        yield verdict_batch(held, strict=strict)


def _column(batch: pa.RecordBatch | pa.Table, name: object, what: str, *, text: bool = False) -> Any:
    if not isinstance(name, str):
        raise wrong_type(what, name, "a column's name (a str)")
    if name not in batch.schema.names:
        raise KeyError(wording.column_missing(name, list(batch.schema.names)))
    fault = not_text(name, batch.schema.field(name).type) if text else None
    if fault is not None:
        raise TypeError(fault)
    return batch.column(name)


def check_batch(
    batch: pa.RecordBatch | pa.Table,
    column: str = "record",
    *,
    rules: str | None = None,
    strict: bool = False,
    file: str = "batch",
    first_row: int = 1,
    name_column: str | None = None,
    row_column: str | None = None,
) -> pa.RecordBatch:
    """The verdict table's rows for every game in ``batch[column]``.

    Each row's text is checked as a file of its own (one game or several;
    lines and columns count within the row), exactly as ``keilref check``
    checks a file, under ``rules`` when given (``--rules``), ``fails`` as
    strict as ``strict`` (``--strict``). Its games are
    reported under ``name_column``'s value where one is given (a path or an
    identifier the data carries), else as ``file#row=N`` (as ``check --column``
    names a table's rows), the rows counted
    from ``first_row``, or numbered by ``row_column`` where given (a frame's
    index): then as ``NAME#row=N``, ``NAME`` the row's ``name_column`` value
    or ``file``. A null row is an error for that row, as the command
    says it. The column holds text as ``check --column`` decides it
    (:func:`keilref.records.columns.not_text`: strings or bytes, bytes read
    as a file's are). A column that is missing
    or does not hold text raises ``KeyError`` or ``TypeError``, as does an
    argument of the wrong type: the batch, not a game, is wrong; ``rules``
    that name no rule set raise :class:`~keilref.ConfigError`.
    """
    if not isinstance(batch, (pa.RecordBatch, pa.Table)):
        raise wrong_type("batch", batch, "a pyarrow RecordBatch or Table")
    if not isinstance(file, str):
        raise wrong_type("file", file, "a str")
    if not isinstance(first_row, int) or isinstance(first_row, bool):
        raise wrong_type("first_row", first_row, "an int")
    rows = batch_rows(batch, column, file=file, first_row=first_row, name_column=name_column, row_column=row_column)
    verdicts = [v for row in rows for v in row_verdicts(row, column, rules)]
    return verdict_batch(verdicts, strict=strict)


def batch_rows(
    batch: pa.RecordBatch | pa.Table,
    column: str,
    *,
    file: str,
    first_row: int,
    name_column: str | None,
    row_column: str | None,
) -> list[tuple[bytes | None, str]]:
    """Each row of ``batch`` as :func:`check_batch` checks it: its record
    text as a file's bytes (``None`` for a null) and the name its games go by."""
    texts = column_texts(_column(batch, column, "column", text=True))
    names = [None] * len(texts) if name_column is None else _column(batch, name_column, "name_column").to_pylist()
    numbers = (
        range(first_row, first_row + len(texts)) if row_column is None
        else _column(batch, row_column, "row_column").to_pylist()
    )
    rows: list[tuple[bytes | None, str]] = []
    for text, name, row in zip(texts, names, numbers):
        if name is not None and row_column is None:
            where = str(name)
        else:
            where = wording.in_row(file if name is None else str(name), row)
        rows.append((text, where))
    return rows


def row_verdicts(row: tuple[bytes | None, str], column: str, rules: str | None) -> list[Verdict]:
    """The verdicts of one row of :func:`batch_rows`, its ``column``'s text checked as a file."""
    text, where = row
    if text is None:
        # As check --column says of a null row: an error that stands for its games.
        missing = RecordError(wording.column_not_text(column, "null"), 1, 1, filename=where)
        return [error_verdict(missing, file=where, game=1)]
    return check_text(text, rules, filename=where)
