"""``--format parquet``: the verdict table (:mod:`keilref.arrow`) as a Parquet file.

The rows are written a row group at a time as the games are judged, so the
memory held is one row group's, however large the archive. The file is the
``-o`` file the atomic writer holds (:attr:`~keilref.formats.CheckOptions.binary_output`):
a check that is interrupted or fails to write leaves the target as it was.
"""

from __future__ import annotations

import io
from typing import Any

from keilref import wording
from keilref.errors import KeilrefError
from keilref.formats import Causes, CheckOptions, Summary, Writer
from keilref.referee.verdict import Verdict

ROW_GROUP = 16384
"""Games a row group: large enough for Parquet's column statistics to pay, small enough to hold."""


class ParquetWriter(Writer):
    """Each verdict a row of the verdict table, written a row group at a time."""

    spells = "listed"

    def __init__(self, write: Any, options: CheckOptions = CheckOptions()) -> None:
        super().__init__(write, options)
        self._file: Any = None
        self._held: list[Verdict] = []

    @classmethod
    def unavailable(cls) -> str | None:
        try:
            import pyarrow.parquet  # noqa: F401
        except ImportError:
            return wording.needs_extra("--format parquet", "arrow", "pyarrow")
        return None

    def _open(self) -> Any:
        """The Parquet file, opened on the first rows (the command checked it can be)."""
        if self._file is None:
            if self.options.binary_output is None:
                raise KeilrefError(wording.binary_needs_file("parquet"))
            import pyarrow.parquet as pq

            from keilref import arrow

            self._file = pq.ParquetWriter(self.options.binary_output, arrow.VERDICT_SCHEMA, compression="zstd")
        return self._file

    def add(self, v: Verdict) -> None:
        self._held.append(v)
        if len(self._held) >= ROW_GROUP:
            self._flush()

    def _flush(self) -> None:
        from keilref import arrow

        file = self._open()
        if self._held:
            batch = arrow.verdict_batch(self._held, strict=self.options.strict)
            file.write_batch(batch, row_group_size=ROW_GROUP)
            self._held = []

    def close(self, summary: Summary | None = None) -> None:
        self._flush()  # an archive of no game is still a table, of no row
        self._file.close()

    @classmethod
    def read_bytes(cls, data: bytes) -> Causes:
        """The games the table says fail (its ``fails`` column)."""
        import pyarrow.parquet as pq

        table = pq.read_table(io.BytesIO(data), columns=["file", "game", "fails"])
        rows = zip(*(table.column(n).to_pylist() for n in ("file", "game", "fails")))
        return {(file, game): [] for file, game, fails in rows if fails}
