"""``keilref fmt``: the canonical writer applied to whole files, safely."""

from __future__ import annotations

import io
import os
import tempfile
from dataclasses import dataclass

from keilref.check import STDIN, Source
from keilref.compression import compression_of
from keilref.errors import RecordError
from keilref.parser import iter_games
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
    if write and compression_of(source.name) is not None:
        # Writing the plain text back under a compressed name would ruin the file.
        raise FormatError(f"{source.name}: a compressed file is not rewritten in place (decompress it first)")
    try:
        stream = source.open()
        try:
            original = stream.read()
        finally:
            if source.name != STDIN:  # standard input is not ours to close
                stream.close()
    except OSError as e:
        raise FormatError(f"{source.name}: cannot read: {e.strerror or e}") from None
    records: list[Record] = []
    for item in iter_games(io.BytesIO(original), source.name):
        if isinstance(item, RecordError):
            raise FormatError(f"{source.name}:{item.line}:{item.column}: {item.message} (file left as it is)")
        records.append(item)
    text = write_records(records)
    changed = original != text.encode("utf-8")
    if write and changed:
        if source.name == STDIN:
            raise FormatError("standard input cannot be rewritten in place")
        _replace_atomically(source.name, text)
    return Formatted(text, changed)


def _replace_atomically(path: str, text: str) -> None:
    """Write beside the file, then rename over it: a reader sees old or new, never half.

    A symbolic link is followed, so the file it names is the one rewritten
    and the link stays a link.
    """
    target = os.path.realpath(path)
    directory = os.path.dirname(target)
    tmp: str | None = None
    try:
        info = os.stat(target)
        fd, tmp = tempfile.mkstemp(prefix=".keilref-", suffix=".tmp", dir=directory)
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, info.st_mode & 0o7777)
        try:
            os.chown(tmp, info.st_uid, info.st_gid)
        except OSError:
            pass  # only the owner's group may be kept, or nothing: the text is what matters
        os.replace(tmp, target)
    except OSError as e:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass
        raise FormatError(f"{path}: cannot write: {e.strerror or e}") from None
