"""A syrupy extension for plain-text snapshots: one ``.txt`` file per snapshot.

The files in ``tests/__snapshots__/<test module>/`` are exactly what the
command printed (after the test's own normalisation), so a reviewer reads
them as they would read a terminal, and a diff of a change is a diff of the
output.
"""

from __future__ import annotations

from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode


class TextSnapshotExtension(SingleFileSnapshotExtension):
    """Single-file snapshots stored as UTF-8 text with a ``.txt`` suffix."""

    _write_mode = WriteMode.TEXT
    file_extension = "txt"


class SvgSnapshotExtension(SingleFileSnapshotExtension):
    """Single-file SVG snapshots, named ``.svg`` so a reviewer opens them in a browser."""

    _write_mode = WriteMode.TEXT
    file_extension = "svg"
