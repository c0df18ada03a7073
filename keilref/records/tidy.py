"""``keilref fmt``: the canonical writer applied to whole files, safely.

A file keeps its line endings (LF, or CRLF when its first line ends in CRLF)
and a byte order mark at its start, so a checkout on Windows is as canonical
as one elsewhere. A file with any game that does not parse, or that the
writer could not write back as itself, is never touched: formatting keeps
only what it understood, and a half-understood file would lose text.

A file read in another encoding (``Source.encoding``: cp1252, latin-1,
UTF-16...) is written back in that encoding, with its byte order mark and
in its byte order, its diff too: an archive kept in
Windows-1252 stays so, and a project's ``encoding`` setting stays true of
its files. Changing a file's encoding is a converter's job, not a formatter's.
"""

from __future__ import annotations

import codecs
import difflib
import io
import os
import sys
import dataclasses
import functools
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import BinaryIO

from keilref.records.sources import Source, decoding_fault
from keilref.records.compression import compression_of
from keilref.records.remote import is_url
from keilref.escaping import shown_name
from keilref.errors import RecordError
from keilref.records.inplace import FileState, ReplaceError, replace_file
from keilref import wording
from keilref.records.sniffing import foreign_encoding, is_match
from keilref.records.parser import iter_games
from keilref.records.positions import split_lines
from keilref.records.record import Record
from keilref.records.writer import write_record, write_records

__all__ = ["FormatError", "Formatted", "format_source"]

BOM = b"\xef\xbb\xbf"


class FormatError(Exception):
    """A file that cannot be formatted (it does not parse, or cannot be written)."""

    def __init__(self, message: str, line: int | None = None, column: int | None = None) -> None:
        super().__init__(message)
        self.line = line
        """Where in the file the fault is, when it is in the text."""
        self.column = column


@dataclass(frozen=True)
class Formatted:
    """One file, as it was read and in the canonical layout."""

    name: str
    original: bytes
    data: bytes
    """The canonical text, with the file's own line endings."""
    notes: tuple[str, ...] = ()
    """What an in-place rewrite did besides rewriting (see :mod:`keilref.records.inplace`)."""
    encoding: str = field(default="utf-8", kw_only=True)
    """The file's encoding, which ``original`` and ``data`` are both in."""

    @property
    def changed(self) -> bool:
        return self.original != self.data

    @property
    def text(self) -> str:
        return self.data.decode(self.encoding)

    def diff(self) -> str:
        """A unified diff from the file to its canonical layout ("" if unchanged).

        Lines keep their endings, so a CRLF file gives a CRLF diff that
        ``patch`` applies as it is.
        """
        return "".join(self._diff_lines())

    def diff_data(self) -> bytes:
        """:meth:`diff` as ``patch`` wants it: the file's lines in the file's
        encoding, as they are on disk, so that the hunks match them; the two
        file names in UTF-8, as the file system spells them, so that ``patch``
        finds the file."""
        lines = self._diff_lines()
        return "".join(lines[:2]).encode("utf-8", "surrogateescape") + "".join(lines[2:]).encode(self.encoding)

    def _diff_lines(self) -> list[str]:
        """The lines of :meth:`diff`: the two file names first, then the hunks."""
        if not self.changed:
            return []
        old = split_lines(self.original.decode(self.encoding))
        new = split_lines(self.text)
        out = []
        labels = (f"{shown_name(self.name)}\t(original)", f"{shown_name(self.name)}\t(formatted)")
        for line in difflib.unified_diff(old, new, *labels, lineterm="\n"):
            out.append(line)
            if not line.endswith("\n"):
                out.append("\n\\ No newline at end of file\n")
        return out


def format_source(
    source: Source,
    *,
    write: bool = False,
    force: bool = False,
    follow_symlinks: bool = False,
    fix: Callable[[bytes], bytes] | None = None,
) -> Formatted:
    """Format every game of ``source``; with ``write``, replace the file atomically.

    ``fix``, given the file's text in UTF-8, gives it back fixed before it is
    formatted (``fmt --fix``: the fixes are the referee's, which this layer
    does not know).

    ``force`` lets an in-place rewrite go ahead on a read-only or
    hard-linked file, or one whose owner or mode bits cannot be kept;
    ``follow_symlinks`` lets it rewrite the file a symbolic link names.
    """
    if write and compression_of(source.name) is not None:
        # Writing the plain text back under a compressed name would ruin the file.
        raise FormatError(f"{shown_name(source.name)}: a compressed file is not rewritten in place (decompress it first)")
    if write and source.is_stdin:
        raise FormatError("standard input cannot be rewritten in place")
    if write and is_url(source.where):
        raise FormatError(f"{shown_name(source.name)}: {wording.URL_NOT_REWRITTEN}")
    original, state, kept = _read(source, keep_open=write)
    try:
        return _format(
            source, original, state, kept, write=write, force=force, follow_symlinks=follow_symlinks, fix=fix
        )
    finally:
        if kept is not None:
            kept.close()


def _format(
    source: Source,
    original: bytes,
    state: FileState | None,
    kept: BinaryIO | None,
    *,
    write: bool,
    force: bool,
    follow_symlinks: bool,
    fix: Callable[[bytes], bytes] | None = None,
) -> Formatted:
    # Named as the codecs name it, so that "UTF8" is UTF-8, with its byte order mark and the parser's hint.
    encoding = _in_order(original, codecs.lookup(source.encoding).name if source.encoding is not None else "utf-8")
    foreign = foreign_encoding(original) if encoding == "utf-8" else None
    if foreign is not None:
        # Not placed for an excerpt: the first line, read as UTF-8, is not text.
        raise FormatError(f"{shown_name(source.name)}:1:1: {wording.foreign_byte_order_mark(foreign)} (file left as it is)")
    utf8 = _as_utf8(original, encoding, source.name)
    if is_match(utf8, source.name):
        raise FormatError(
            f"{shown_name(source.name)}: a match of abstract_games (JSON), not records: "
            "matches are checked as they are, not formatted (file left as it is)"
        )
    if fix is not None:
        utf8 = fix(utf8)
    text = _write(functools.partial(_records, utf8, source.name), source.name)
    first = utf8.find(b"\n")
    if first > 0 and utf8[first - 1] == ord("\r"):  # the first line says which ending the file uses
        text = text.replace("\n", "\r\n")
    # A byte order mark at the start is kept, in the file's encoding: UTF-8's,
    # or UTF-16's or UTF-32's, read as a character by _in_order's codec. (In
    # cp1252 the bytes of UTF-8's are text, "ï»¿", which the parser refused.)
    mark = "\ufeff" if utf8.startswith(BOM) else ""
    data = _encoded(mark + text, encoding, source.name)
    formatted = Formatted(source.name, original, data, encoding=encoding)
    if write and formatted.changed:
        assert state is not None
        try:
            replaced = replace_file(
                source.name,
                data,
                state,
                force=force,
                follow_symlinks=follow_symlinks,
                original=None if kept is None else kept.fileno(),
            )
        except ReplaceError as e:
            raise FormatError(str(e)) from None
        return Formatted(source.name, original, data, replaced.notes, encoding=encoding)
    return formatted


_ORDERS = {
    "utf-16": ((codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be")),
    "utf-32": ((codecs.BOM_UTF32_LE, "utf-32-le"), (codecs.BOM_UTF32_BE, "utf-32-be")),
}
"""The codecs that read a byte order mark to choose the byte order, and drop it."""


def _in_order(original: bytes, encoding: str) -> str:
    """The codec that reads the file's bytes as they stand, its byte order
    mark as a character: for ``utf-16`` and ``utf-32``, the byte order the
    file's mark gives (else the machine's, as those codecs assume), so that
    the file is written back in its own order with its own mark; UTF-8 for
    ``utf-8-sig``, which would add a mark to a file without one."""
    if encoding == "utf-8-sig":
        return "utf-8"
    orders = _ORDERS.get(encoding)
    if orders is None:
        return encoding
    for mark, ordered in orders:
        if original.startswith(mark):
            return ordered
    return f"{encoding}-{'le' if sys.byteorder == 'little' else 'be'}"


def _as_utf8(original: bytes, encoding: str, name: str) -> bytes:
    """The file's text as UTF-8, which the parser reads: the bytes
    themselves for a UTF-8 file, whose faults the parser words and places
    (with the hint to pass ``--encoding``); else decoded from the file's
    encoding, where a byte that is not text in it stops the file."""
    if encoding == "utf-8":
        return original
    try:
        return original.decode(encoding).encode("utf-8")
    except UnicodeError as e:
        fault = decoding_fault(encoding, e, original)
        raise FormatError(f"{shown_name(name)}: {fault} (file left as it is)") from None


def _encoded(text: str, encoding: str, name: str) -> bytes:
    """The canonical text in the file's encoding. All of it came from the
    file, so every character should have its bytes there; should the writer
    ever add one that has none, the file is left alone rather than written
    in an encoding its project does not expect."""
    try:
        return text.encode(encoding)
    except UnicodeEncodeError as e:
        char = text[e.start]
        raise FormatError(
            f"{shown_name(name)}: the canonical text holds {char!r} (U+{ord(char):04X}), which {encoding} "
            "cannot write (file left as it is)"
        ) from None


def _read(source: Source, *, keep_open: bool = False) -> tuple[bytes, FileState | None, BinaryIO | None]:
    """The bytes of the source, the state of the file they were read from,
    and, with ``keep_open``, the file still open.

    A file kept open cannot be swapped for another under the same inode
    number, which the last check before a rename relies on. Windows does not
    rename over a file that is open, so there the file is closed at once.
    """
    ours = not source.is_stdin  # standard input is not ours to close
    keep_open = keep_open and ours and os.name != "nt"
    try:
        # The file's own bytes, decompressed but not decoded: they are what
        # "changed" compares and what the rewrite's safety checks stand on.
        # (A source in UTF-8 already gives them, and may be a kind of Source
        # that cannot be copied with another encoding.)
        raw = source if source.encoding is None else dataclasses.replace(source, encoding=None)
        stream = raw.open()
        try:
            # Taken before reading: a write during the read shows as a change.
            # A compressed file is never rewritten (format_source refuses it), and
            # a decompressing stream has no descriptor: its state is not needed.
            plain = compression_of(source.where) is None and not is_url(source.where)
            state = FileState.of(os.fstat(stream.fileno())) if ours and plain else None
            data = stream.read()
        except BaseException:
            if ours:
                stream.close()
            raise
        if ours and not keep_open:
            stream.close()
        return data, state, stream if keep_open else None
    except OSError as e:
        raise FormatError(f"{shown_name(source.name)}: cannot read: {e.strerror or e}") from None


def _records(utf8: bytes, name: str) -> Iterator[Record]:
    """The file's records, read one at a time (a ``FormatError`` at the first that cannot be read)."""
    for item in iter_games(io.BytesIO(utf8), name):
        if isinstance(item, RecordError):
            raise FormatError(
                f"{shown_name(name)}:{item.line}:{item.column}: {item.message} (file left as it is)", item.line, item.column
            )
        yield item


def _write(records: Callable[[], Iterator[Record]], name: str) -> str:
    """The canonical text, or a one-line error naming the game the writer refused.

    The records are read as they are written, not all held at once: a large
    archive costs its text, not its parse trees (read again to find a game refused)."""
    try:
        return write_records(records())
    except ValueError as e:
        for _ in records():
            pass  # a game that cannot be read is said first, wherever it stands, as when all were read first
        line = _refused_at(records())
        raise FormatError(
            f"{shown_name(name)}:{line}:1: cannot be written in the canonical layout: {e} (file left as it is)"
        ) from None


def _refused_at(records: Iterator[Record]) -> int:
    """The line of the game the writer refuses: one it cannot write, or one
    with neither turns nor a result that another game follows."""
    previous: Record | None = None
    for record in records:
        if previous is not None and not previous.turns and previous.result is None:
            return previous.line or 1
        try:
            write_record(record)
        except ValueError:
            return record.line or 1
        previous = record
    return 1
