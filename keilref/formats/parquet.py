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
from keilref.formats import Causes, CheckOptions, Judged, Summary, Writer
from keilref.referee.verdict import Verdict

ROW_GROUP = 16384
"""Games a row group: large enough for Parquet's column statistics to pay, small enough to hold."""


class ParquetWriter(Writer):
    """Each verdict a row of the verdict table, written a row group at a time.

    With ``--jobs`` (or ``--scheduler``) the worker that judged a batch makes
    its rows (:meth:`of_batch`), so only Arrow's columns cross to the main
    process, which writes them: turning verdicts into rows one process at a
    time cost as much as judging them."""

    spells = "listed"

    def __init__(self, write: Any, options: CheckOptions = CheckOptions()) -> None:
        super().__init__(write, options)
        self._file: Any = None
        self._parts: list[Any] = []
        """Rows made, in order, not yet written (Arrow record batches)."""
        self._rows = 0
        self._held: list[Verdict] = []
        """Verdicts judged here, after every part in :attr:`_parts`."""

    @classmethod
    def unavailable(cls) -> str | None:
        try:
            import pyarrow.parquet  # noqa: F401
        except ImportError:
            return wording.needs_extra("--format parquet", "arrow", "pyarrow")
        return None

    @classmethod
    def of_batch(cls, items: list[Judged], options: CheckOptions) -> list[Judged]:
        try:
            from keilref import arrow
        except ImportError:  # a cluster's worker without pyarrow: the verdicts go to the main process
            return items
        kept = [j.verdict for j in items if j.fails or not options.quiet]
        if not items or any(v is None for v in kept):
            return items
        rows = arrow.verdict_batch(kept, strict=options.strict)  # type: ignore[arg-type]
        handed = [j._replace(verdict=None) for j in items]
        handed[0] = handed[0]._replace(part=rows)
        return handed

    def _open(self) -> Any:
        """The Parquet file, opened on the first rows (the command checked it can be)."""
        if self._file is None:
            if self.options.binary_output is None:
                raise KeilrefError(wording.binary_needs_file("parquet"))
            import pyarrow.parquet as pq

            from keilref import arrow

            self._file = pq.ParquetWriter(self.options.binary_output, arrow.VERDICT_SCHEMA, compression="zstd")
        return self._file

    def add_part(self, part: object) -> None:
        self._keep_held()
        self._parts.append(part)
        self._rows += part.num_rows  # type: ignore[attr-defined]
        if self._rows >= ROW_GROUP:
            self._flush(whole_groups=True)

    def add(self, v: Verdict) -> None:
        self._held.append(v)
        if self._rows + len(self._held) >= ROW_GROUP:
            self._flush(whole_groups=True)

    def _keep_held(self) -> None:
        """The verdicts judged here made into rows, in their place before what comes next."""
        if self._held:
            from keilref import arrow

            self._parts.append(arrow.verdict_batch(self._held, strict=self.options.strict))
            self._rows += len(self._held)
            self._held = []

    def _flush(self, *, whole_groups: bool = False) -> None:
        """Write the rows made; with ``whole_groups``, only whole row groups, the rest kept for the next."""
        import pyarrow as pa

        from keilref import arrow

        file = self._open()
        self._keep_held()
        table = pa.Table.from_batches(self._parts, schema=arrow.VERDICT_SCHEMA)
        cut = table.num_rows - table.num_rows % ROW_GROUP if whole_groups else table.num_rows
        if cut:
            file.write_table(table.slice(0, cut), row_group_size=ROW_GROUP)
        rest = table.slice(cut)
        self._parts = rest.to_batches() if rest.num_rows else []
        self._rows = rest.num_rows

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
