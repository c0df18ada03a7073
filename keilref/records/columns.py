"""Records held in a table's column: Parquet, Arrow IPC (Feather) or JSON Lines.

Datasets of games are often tables, the record text in one column beside
typed columns of their own. ``keilref check --column record archive.parquet``
reads each row's text as the text of a file of its own, named
:func:`keilref.wording.in_row` (``archive.parquet#row=12``): its games, lines
and columns count within that row, whatever output format reports them.

A table is read a record batch (Parquet: a row group's slice) at a time, and
only the column asked for, so memory holds one batch, not the table. A file
that is not the table its name says, a missing column and a column that is
not text (:func:`not_text`, which :func:`keilref.arrow.check_batch` follows
too) are faults of that file (an ``OSError`` in words, which the readers
make into its one "cannot read file" verdict); one row whose value is not
text (a null, or in JSON Lines a number or a line that is no JSON object) is
a fault of that row alone.

Parquet and Arrow need pyarrow (the optional ``keilref[arrow]`` extra);
JSON Lines needs nothing, and is decompressed by its name as records are.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable, Iterator
from typing import Any, BinaryIO

from keilref import wording
from keilref.records.compression import Compression
from keilref.records.remote import is_url, open_url

__all__ = ["TABLE_ENDINGS", "column_texts", "not_text", "table_kind", "table_rows"]

_KINDS = {
    ".parquet": "Parquet",
    ".pq": "Parquet",
    ".arrow": "Arrow IPC",
    ".feather": "Arrow IPC",
    ".ipc": "Arrow IPC",
    ".jsonl": "JSON Lines",
    ".ndjson": "JSON Lines",
}

TABLE_ENDINGS: tuple[str, ...] = tuple(_KINDS) + tuple(
    f"{ending}{c.value}" for ending, kind in _KINDS.items() if kind == "JSON Lines" for c in Compression
)
"""The names a table of records goes by (JSON Lines may be compressed)."""

_BATCH_ROWS = 1024
"""Rows taken from a table at a time: few enough that a batch of long records stays small."""

_CHUNK = 1 << 20
"""Bytes of a JSON Lines file read at a time."""

Row = tuple[int, "bytes | str"]
"""A row's 1-based number, and its record text as bytes, or why it has none (words)."""


def table_kind(name: str) -> str:
    """``Parquet``, ``Arrow IPC`` or ``JSON Lines``, told by the end of the name
    (after a compression suffix); JSON Lines for any other name."""
    for c in Compression:
        if name.endswith(c.value):
            name = name[: -len(c.value)]
            break
    for ending, kind in _KINDS.items():
        if name.lower().endswith(ending):
            return kind
    return "JSON Lines"


def table_rows(where: str, column: str, open_text: Callable[[], BinaryIO]) -> Iterator[Row]:
    """Each row of the table at ``where`` (a path or URL): its number and the
    record text in ``column``. ``open_text`` opens the file's (decompressed)
    bytes, for JSON Lines. Raises ``OSError`` in words for a fault of the
    whole file, when it is met (the rows before it are given)."""
    kind = table_kind(where)
    if kind == "JSON Lines":
        return _json_lines(column, open_text)
    return _arrow_rows(where, column, kind)


def _json_lines(column: str, open_text: Callable[[], BinaryIO]) -> Iterator[Row]:
    stream = open_text()
    first = True
    try:
        for number, line in enumerate(_lines(stream), 1):
            if not line.strip():
                continue
            try:
                value = json.loads(line)
            except ValueError as e:
                if first:
                    # Not one row gone wrong: not JSON Lines at all (records, a CSV).
                    raise OSError(0, wording.table_unreadable("JSON Lines", str(e))) from None
                yield number, wording.row_not_json(str(e))
                continue
            first = False
            if not isinstance(value, dict):
                yield number, wording.row_not_json(f"found {_json_kind(value)}")
                continue
            if column not in value:
                yield number, wording.column_missing(column, [str(k) for k in value])
                continue
            text = value[column]
            if not isinstance(text, str):
                yield number, wording.column_not_text(column, _json_kind(text))
                continue
            yield number, text.encode("utf-8", "surrogatepass")
    finally:
        stream.close()


def _lines(stream: BinaryIO) -> Iterator[bytes]:
    """The lines of a stream that may offer nothing but ``read`` (a remote object's)."""
    rest = b""
    while chunk := stream.read(_CHUNK):
        lines = (rest + chunk).split(b"\n")
        rest = lines.pop()
        yield from lines
    if rest:
        yield rest


def _json_kind(value: object) -> str:
    if value is None:
        return "null"
    return {bool: "a boolean", int: "a number", float: "a number", list: "an array", dict: "an object"}.get(
        type(value), type(value).__name__
    )


def _pyarrow() -> tuple[Any, Any, Any]:
    try:
        return (
            importlib.import_module("pyarrow"),
            importlib.import_module("pyarrow.parquet"),
            importlib.import_module("pyarrow.ipc"),
        )
    except ImportError:
        raise OSError(0, wording.TABLE_NEEDS_ARROW) from None


def _arrow_rows(where: str, column: str, kind: str) -> Iterator[Row]:
    pa, pq, ipc = _pyarrow()
    handle: Any = open_url(where) if is_url(where) else where
    try:
        try:
            batches, schema = _opened(pa, pq, ipc, handle, kind, column)
        except OSError:
            raise
        except Exception as e:  # noqa: BLE001
            # pyarrow's ArrowInvalid and friends: not the table its name says.
            raise OSError(0, wording.table_unreadable(kind, str(e))) from None
        names = list(schema.names)
        if column not in names:
            raise OSError(0, wording.column_missing(column, names))
        fault = not_text(column, schema.field(column).type)
        if fault is not None:
            raise OSError(0, fault)
        number = 0
        while True:
            try:
                batch = next(batches, None)
            except OSError:
                raise
            except Exception as e:  # noqa: BLE001
                raise OSError(0, wording.table_unreadable(kind, str(e))) from None
            if batch is None:
                return
            for text in column_texts(batch.column(batch.schema.get_field_index(column))):
                number += 1
                yield number, wording.column_not_text(column, "null") if text is None else text
    finally:
        if not isinstance(handle, str):
            handle.close()


def not_text(column: str, kind: Any) -> str | None:
    """Why ``column``, of Arrow type ``kind``, cannot hold record text (words),
    or ``None`` where it can: strings, or bytes (binary), of any width or
    layout, plain or dictionary-encoded. The one rule for every reader of
    Arrow data, ``check --column`` and :func:`keilref.arrow.check_batch`."""
    types = importlib.import_module("pyarrow").types
    held = kind.value_type if types.is_dictionary(kind) else kind
    # An older pyarrow (the extra allows 14) has no view types, and no test for them.
    if any(test(held) for test in (getattr(types, name, None) for name in _TEXT_TYPES) if test is not None):
        return None
    return wording.column_not_text(column, str(kind))


_TEXT_TYPES = ("is_string", "is_large_string", "is_string_view", "is_binary", "is_large_binary", "is_binary_view")
"""The tests of ``pyarrow.types`` for the types :func:`not_text` accepts."""


def column_texts(values: Any) -> list[bytes | None]:
    """Each value of an Arrow column :func:`not_text` accepts (an array or a
    chunked one), as the bytes of a file: a string in UTF-8, and bytes as they
    are, so the reader decodes them as it decodes a file's, and words a byte
    that is not UTF-8 at its line and column within the row. ``None`` for a null."""
    return [
        None if value is None else value if isinstance(value, bytes) else value.encode("utf-8", "surrogatepass")
        for value in values.to_pylist()
    ]


def _opened(pa: Any, pq: Any, ipc: Any, handle: Any, kind: str, column: str) -> tuple[Iterator[Any], Any]:
    """The record batches of the table (``column`` alone where the format can
    leave the others unread), and its schema."""
    if kind == "Parquet":
        parquet = pq.ParquetFile(handle)
        schema = parquet.schema_arrow
        wanted = [column] if column in schema.names else None
        return iter(parquet.iter_batches(batch_size=_BATCH_ROWS, columns=wanted)), schema
    source = pa.memory_map(handle) if isinstance(handle, str) else handle
    try:
        reader = ipc.open_file(source)
        return (reader.get_batch(i) for i in range(reader.num_record_batches)), reader.schema
    except pa.ArrowInvalid:
        # Not the random-access file format: the streaming one (.arrows), from the start again.
        source.seek(0)
        stream = ipc.open_stream(source)
        return iter(stream), stream.schema
