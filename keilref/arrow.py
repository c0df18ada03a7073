"""Verdicts as data: the verdict table, a fixed Arrow schema, and one batch
function that every engine can call.

:data:`VERDICT_SCHEMA` is the table: one row per game, the facts of
``keilref check --format jsonl`` (read from the same place,
:func:`~keilref.formats.jsonl.verdict_json`) laid out as typed columns, with
the row a game came from and the tags users filter on. ``--format parquet``
writes it, and :func:`check_batch` returns it, whichever engine calls it:
Dask DataFrame's ``map_partitions``, Ray Data's ``map_batches``, Spark's
``mapInArrow``, DuckDB and Polars through Arrow.

Needs the ``arrow`` extra (``pip install 'keilref[arrow]'``): pyarrow is
imported here and nowhere else.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import pyarrow as pa

from keilref.errors import wrong_type
from keilref.engine.rules import find_rules
from keilref.formats.jsonl import verdict_json
from keilref.records.sources import STDIN
from keilref.referee.batches import check_text
from keilref.referee.verdict import Verdict

_INT = pa.int64()
_TEXT = pa.string()


def _place(*first: pa.Field) -> list[pa.Field]:
    return [*first, pa.field("line", _INT), pa.field("column", _INT)]


_ILLEGAL = [
    pa.field("turn", _INT),
    pa.field("point", _TEXT),
    pa.field("reason", _TEXT),
    pa.field("line", _INT),
    pa.field("column", _INT),
    pa.field("repeats_turn", _INT),
]

VERDICT_SCHEMA = pa.schema(
    [
        pa.field("file", _TEXT, nullable=False),
        pa.field("row", _INT),
        pa.field("game", _INT, nullable=False),
        pa.field("line", _INT, nullable=False),
        pa.field("status", _TEXT, nullable=False),
        pa.field("rules", _TEXT),
        pa.field("size", _INT),
        pa.field("komi", pa.float64()),
        pa.field("turns", _INT, nullable=False),
        pa.field("declared", _TEXT),
        pa.field("computed", _TEXT),
        pa.field("score", pa.struct([pa.field("black", pa.float64()), pa.field("white", pa.float64())])),
        pa.field("illegal", pa.struct(_ILLEGAL)),
        pa.field("error", pa.struct(_place(pa.field("message", _TEXT)))),
        pa.field("mismatch", pa.struct(_place(pa.field("reason", _TEXT), pa.field("message", _TEXT)))),
        pa.field("warnings", pa.list_(pa.struct(_place(pa.field("message", _TEXT)))), nullable=False),
        pa.field(
            "variation_illegal",
            pa.list_(pa.struct([pa.field("opened_at", pa.struct(_place())), *_ILLEGAL])),
            nullable=False,
        ),
        pa.field("rule_sensitive", pa.bool_(), nullable=False),
        pa.field("event", _TEXT),
        pa.field("round", _TEXT),
        pa.field("date", _TEXT),
        pa.field("black", _TEXT),
        pa.field("white", _TEXT),
        pa.field("site", _TEXT),
        pa.field("game_id", _TEXT),
    ],
    metadata={"keilref.verdict_table": "1"},
)
"""The verdict table: one row per game. Every column, its type and meaning is
documented in ``docs/verdict-table.md``; the names and types never change
within a version of the table (the schema's ``keilref.verdict_table``
metadata), columns are only ever added at the end."""

BATCH_ROWS = 65536
"""Games per record batch (and per Parquet row group) that :func:`verdict_batches` makes."""


def verdict_row(v: Verdict, row: int | None = None) -> dict[str, Any]:
    """One verdict as a row of :data:`VERDICT_SCHEMA`: the JSON line's facts,
    its ``warning_places`` as ``warnings``, the row it came from, and the tags."""
    data = verdict_json(v)
    illegal = data["illegal"]
    if illegal is not None:
        illegal.setdefault("repeats_turn", None)
    variations = data.get("variation_illegal", [])
    for f in variations:
        f.setdefault("repeats_turn", None)
    return {
        "file": data["file"],
        "row": row,
        "game": data["game"],
        "line": data["line"],
        "status": data["status"],
        "rules": data["rules"],
        "size": data["size"],
        "komi": data["komi"],
        "turns": data["turns"],
        "declared": data["declared"],
        "computed": data["computed"],
        "score": data["score"],
        "illegal": illegal,
        "error": data["error"],
        "mismatch": data["mismatch"],
        "warnings": data["warning_places"],
        "variation_illegal": variations,
        "rule_sensitive": data["rule_sensitive"],
        "event": data["event"],
        "round": v.round,
        "date": v.date,
        "black": data["black"],
        "white": data["white"],
        "site": v.site,
        "game_id": v.game_id,
    }


def verdict_batch(verdicts: Iterable[Verdict], rows: Sequence[int | None] | None = None) -> pa.RecordBatch:
    """The verdicts as one record batch of :data:`VERDICT_SCHEMA`, in order;
    ``rows``: the row each came from (``row`` is null without it)."""
    listed = list(verdicts)
    if rows is not None and len(rows) != len(listed):
        raise ValueError(f"{len(rows)} rows given for {len(listed)} verdicts")
    at = rows if rows is not None else [None] * len(listed)
    return pa.RecordBatch.from_pylist([verdict_row(v, r) for v, r in zip(listed, at)], schema=VERDICT_SCHEMA)


def verdict_batches(verdicts: Iterable[Verdict], *, batch_rows: int = BATCH_ROWS) -> Iterator[pa.RecordBatch]:
    """The verdicts as record batches of :data:`VERDICT_SCHEMA`, ``batch_rows``
    games each (the last one fewer), made as the verdicts come: only one
    batch's verdicts are held at a time."""
    if isinstance(batch_rows, bool) or not isinstance(batch_rows, int):
        raise wrong_type("batch_rows", batch_rows, "an int")
    if batch_rows < 1:
        raise ValueError(f"batch_rows must be at least 1, not {batch_rows}")
    held: list[Verdict] = []
    for v in verdicts:
        held.append(v)
        if len(held) == batch_rows:
            yield verdict_batch(held)
            held = []
    if held:
        yield verdict_batch(held)


_TEXT_TYPES = (pa.types.is_string, pa.types.is_large_string, pa.types.is_binary, pa.types.is_large_binary)


def check_batch(
    batch: pa.RecordBatch | pa.Table,
    column: str = "record",
    *,
    file: str = STDIN,
    file_column: str | None = None,
    row_column: str | None = None,
    first_row: int = 0,
    rules: str | None = None,
) -> pa.RecordBatch:
    """Every game's verdict in the record text of ``batch[column]``, as a
    record batch of :data:`VERDICT_SCHEMA`.

    Each row's text is a record file's contents (one game or several):
    its games are checked exactly as ``keilref check`` checks a file, and
    each verdict's ``game``, lines and columns count within that row's text.
    A text column's value is read as text, a binary column's as a file's
    bytes (so bytes that are not UTF-8 get a file's error); a null or empty
    row is a file with no game: one ``error`` verdict. Rows come out in
    order, each row's games in order.

    The verdicts name their file ``file`` (standard input's ``-`` by
    default), or the value of ``file_column`` in each row where it is not
    null; their ``row`` is the value of ``row_column`` in each row, or the
    row's position in ``batch`` plus ``first_row`` (0-based, as Arrow,
    pandas and Polars count). ``rules`` replays every game under that rule
    set, as ``--rules`` does.

    Pure and picklable (a module-level function: ``functools.partial`` of it
    pickles too), for any engine that hands Arrow batches to a function. A
    bad game never raises: it gets its verdict. Raises ``TypeError`` for an
    argument of the wrong type or a column that holds neither text nor bytes,
    ``ValueError`` for a column that is not in ``batch``, and
    :class:`~keilref.errors.ConfigError` for an unknown ``rules``.
    """
    if not isinstance(batch, (pa.RecordBatch, pa.Table)):
        raise wrong_type("check_batch's batch", batch, "a pyarrow.RecordBatch or pyarrow.Table")
    for what, given in (("column", column), ("file", file)):
        if not isinstance(given, str):
            raise wrong_type(f"check_batch's {what}", given, "a str")
    for what, optional in (("file_column", file_column), ("row_column", row_column), ("rules", rules)):
        if optional is not None and not isinstance(optional, str):
            raise wrong_type(f"check_batch's {what}", optional, "a str or None")
    if isinstance(first_row, bool) or not isinstance(first_row, int):
        raise wrong_type("check_batch's first_row", first_row, "an int")
    if rules is not None:
        find_rules(rules)
    texts = _column(batch, column)
    if not any(test(texts.type) for test in _TEXT_TYPES):
        raise wrong_type(f"column {column!r}", texts.type, "a string or binary column of record text")
    files = _column(batch, file_column).to_pylist() if file_column is not None else None
    given_rows = _column(batch, row_column).to_pylist() if row_column is not None else None
    verdicts: list[Verdict] = []
    rows: list[int | None] = []
    for i, text in enumerate(texts.to_pylist()):
        name: object = files[i] if files is not None and files[i] is not None else file
        if not isinstance(name, str):
            raise wrong_type(f"column {file_column!r}", name, "a str")
        row = given_rows[i] if given_rows is not None else first_row + i
        if row is not None and (isinstance(row, bool) or not isinstance(row, int)):
            raise wrong_type(f"column {row_column!r}", row, "an int")
        found = check_text("" if text is None else text, rules, filename=name)
        verdicts += found
        rows += [row] * len(found)
    return verdict_batch(verdicts, rows)


def _column(batch: pa.RecordBatch | pa.Table, name: str) -> pa.Array:
    if name not in batch.schema.names:
        raise ValueError(f"no column {name!r} in the batch (its columns: {', '.join(batch.schema.names) or 'none'})")
    values = batch.column(name)
    if isinstance(values, pa.ChunkedArray):
        return values.combine_chunks()
    return values
