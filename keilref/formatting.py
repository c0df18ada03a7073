"""``keilref fmt``: the canonical writer applied to whole files, safely."""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass

from keilref.check import STDIN, Source, read_source
from keilref.errors import RecordError
from keilref.record import Record
from keilref.writer import write_records


class FormatError(Exception):
    """A file that cannot be formatted (it does not parse, or cannot be written)."""


@dataclass(frozen=True)
class Formatted:
    text: str
    changed: bool


def format_source(source: Source, *, write: bool = False) -> Formatted:
    """Format every game of ``source``; with ``write``, replace the file atomically.

    A file with any game that does not parse is never touched: formatting
    keeps only what it understood, and a half-understood file would lose text.
    """
    records: list[Record] = []
    for item in read_source(source):
        if isinstance(item, RecordError):
            raise FormatError(f"{source.name}:{item.line}:{item.column}: {item.message} (file left as it is)")
        records.append(item)
    text = write_records(records)
    if source.name == STDIN:
        return Formatted(text, True)
    try:
        with open(source.name, "rb") as f:
            original = f.read()
    except OSError as e:
        raise FormatError(f"{source.name}: cannot read: {e.strerror}") from None
    changed = original != text.encode("utf-8")
    if write and changed:
        _replace_atomically(source.name, text)
    return Formatted(text, changed)


def _replace_atomically(path: str, text: str) -> None:
    """Write beside the file, then rename over it: a reader sees old or new, never half."""
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".keilref-", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        try:
            os.chmod(tmp, os.stat(path).st_mode & 0o7777)
        except OSError:
            pass
        os.replace(tmp, path)
    except OSError as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise FormatError(f"{path}: cannot write: {e.strerror}") from None
