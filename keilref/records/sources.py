"""Finding record files: paths, directories and standard input in, sources out.

A directory is searched for record files (plain and compressed), without
following symbolic links, so that no command leaves the tree it was given;
a path that names nothing to read is a :class:`PathError` the command line
words. Every command, and the library's ``check_file``, reads through here.
"""

from __future__ import annotations

import codecs
import contextlib
import dataclasses
import fnmatch
import io
import os
import shutil
import stat
import sys
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, cast

from keilref import wording
from keilref.errors import RecordError
from keilref.escaping import one_line, shown_name
from keilref.files import is_temporary, refusal
from keilref.records.columns import table_rows
from keilref.records.compression import RECORD_PATTERNS, compression_of, open_record_file
from keilref.records.remote import find_objects, is_url
from keilref.records.abstract_games import MATCH_SUFFIXES
from keilref.records.sniffing import iter_source
from keilref.records.record import Record

__all__ = [
    "STDIN",
    "NoSuchGame",
    "PathError",
    "Source",
    "expand_paths",
    "forget_stdin",
    "keep_stdin",
    "not_text",
    "nth_game",
    "read_source",
    "stdin_kept",
    "unreadable_error",
]

STDIN = "-"
"""The name standard input goes by, on the command line and in verdicts."""


_kept_stdin: BinaryIO | None = None


def keep_stdin() -> None:
    """Read standard input to its end now and keep it (in memory, then on disk
    when large), so that it can be read more than once: for an output that
    reads games again after the check (the HTML report's boards)."""
    global _kept_stdin
    if _kept_stdin is not None:
        return
    kept = tempfile.SpooledTemporaryFile(max_size=16 << 20)
    shutil.copyfileobj(sys.stdin.buffer, kept)
    _kept_stdin = cast(BinaryIO, kept)


def stdin_kept() -> bool:
    """Whether standard input was kept (:func:`keep_stdin`), so that it can be read again."""
    return _kept_stdin is not None


def forget_stdin() -> None:
    """Let go of what :func:`keep_stdin` kept: the next read of standard input reads it."""
    global _kept_stdin
    if _kept_stdin is not None:
        _kept_stdin.close()
    _kept_stdin = None


class PathError(Exception):
    """A path on the command line that names nothing to check."""


@dataclass(frozen=True)
class Source:
    """One file to read: ``name`` is how it is shown, as the user gave it."""

    name: str
    unreadable: str | None = field(default=None, kw_only=True)
    """Why this path cannot be read, when that is known before opening it."""
    encoding: str | None = field(default=None, kw_only=True)
    """The text's encoding when it is not UTF-8 (``cp1252``): read as UTF-8 after decoding it."""
    rules: str | None = field(default=None, kw_only=True)
    """The rule set its games are replayed under when no ``--rules`` is given
    (a project's per-path setting); ``None``: each game's own ``Rules`` tag."""
    read_from: str | None = field(default=None, kw_only=True)
    """Where its bytes are when not at ``name``: :data:`STDIN` for standard
    input named by ``--stdin-filename`` (an editor's buffer), so that it is
    reported, and its settings chosen, under the file's name; or a copy."""
    column: str | None = field(default=None, kw_only=True)
    """The column of a table (Parquet, Arrow IPC, JSON Lines) whose rows hold
    the record text, each row read as a file of its own (see
    :mod:`keilref.records.columns`); ``None``: the file is records."""
    row: int | None = field(default=None, kw_only=True)
    """With :attr:`column`: this source is that one row of the table (read
    again for an output that shows games, such as the HTML report's boards)."""

    @property
    def where(self) -> str:
        """The path its bytes are read from (:data:`STDIN` for standard input)."""
        return self.read_from if self.read_from is not None else self.name

    @property
    def is_stdin(self) -> bool:
        """Whether it is read from standard input, whatever it is called."""
        return self.where == STDIN

    def open(self) -> BinaryIO:
        """The bytes of the records: decompressed for a compressed file; standard
        input as it comes, or from the start again once :func:`keep_stdin` kept it.
        The caller closes it, unless it is standard input."""
        if self.unreadable is not None:
            raise OSError(0, self.unreadable, self.name)
        if self.row is not None:
            return cast(BinaryIO, io.BytesIO(_row_text(self)))
        if self.is_stdin:
            if _kept_stdin is not None:
                _kept_stdin.seek(0)
                stream = _kept_stdin
            else:
                stream = sys.stdin.buffer
        else:
            stream = open_record_file(self.where)
        if self.encoding is None:
            return stream
        return cast(BinaryIO, Transcoded(stream, self.encoding, close=not self.is_stdin))

    @contextlib.contextmanager
    def reading(self) -> Iterator[BinaryIO]:
        """:meth:`open` for a ``with`` block, which closes the stream after
        it, unless it is standard input's (not this source's to close). An
        ``OSError`` from opening is raised as the block is entered."""
        stream = self.open()
        try:
            yield stream
        finally:
            if not self.is_stdin:
                stream.close()

    def rows(self) -> Iterator[tuple[str, bytes | RecordError]]:
        """Each row of a table source (:attr:`column`): the name it goes by
        (:func:`keilref.wording.in_row`) and its record text, or the error
        that stands for its games. ``OSError`` for a fault of the whole file."""
        assert self.column is not None
        if self.unreadable is not None:
            raise OSError(0, self.unreadable, self.name)
        for number, text in table_rows(self.where, self.column, self.open):
            name = wording.in_row(self.name, number)
            yield name, (text if isinstance(text, bytes) else RecordError(text, 1, 1, filename=name))

    def size(self) -> int | None:
        if (
            self.unreadable is not None
            or self.is_stdin
            or self.column is not None
            or is_url(self.where)
            or compression_of(self.where) is not None
        ):
            return None  # the size of the text is not known before reading it
        try:
            return os.path.getsize(self.where)
        except OSError:
            return None


DEFAULT_EXCLUDE: tuple[str, ...] = (".*",)
"""What a directory search leaves out unless told otherwise: hidden
directories and files (``.git``, ``.venv``...), as ruff and git leave them."""


def expand_paths(
    paths: Sequence[str],
    *,
    suffix: str = ".keil",
    compressed: bool = False,
    matches: bool = True,
    on_error: Callable[[PathError], None] | None = None,
    on_note: Callable[[str], None] | None = None,
    encoding: str | None = None,
    exclude: Sequence[str] = DEFAULT_EXCLUDE,
    stdin_filename: str | None = None,
) -> list[Source]:
    """Files as given, directories searched recursively for ``*.keil``, ``-`` for stdin.

    Raises :class:`PathError` for a path that does not exist, a directory
    holding no records, or a device (``/dev/zero`` would never end): a typo
    must not pass as "nothing failed". With ``on_error``, such a path is
    handed to it instead and the others are kept. A named pipe given by name
    is read like standard input (``<(zcat archive.keil.gz)``); a directory
    search takes regular files only, follows no symbolic link (to a file or
    a directory), and a subdirectory it cannot read becomes a source that
    reads as one error, so that it is reported, not skipped. With
    ``compressed``, directories are searched for compressed records too
    (``*.keil.gz``, ``.bz2``, ``.xz``, ``.zst``). ``on_note`` is told, once
    per directory, of the links its search skipped. ``encoding`` (from
    :func:`check_encoding`) reads every source as text in that encoding.
    ``exclude`` holds glob patterns a search leaves out: a directory or file
    whose name, or whose path below the directory given, matches one
    (:data:`DEFAULT_EXCLUDE`: hidden directories). A path given by name is
    read whatever the patterns say, as ruff reads it. ``stdin_filename``
    is the name standard input is shown under (:attr:`Source.read_from`).
    """
    sources: list[Source] = []
    for given in paths:
        try:
            if given == STDIN and stdin_filename is not None:
                sources.append(Source(stdin_filename, read_from=STDIN))
                continue
            sources.extend(_expand_path(given, suffix, compressed, matches, on_note, tuple(exclude)))
        except PathError as e:
            if on_error is None:
                raise
            on_error(e)
    if encoding is not None:
        sources = [dataclasses.replace(s, encoding=encoding) for s in sources]
    return sources


def check_encoding(name: str) -> str | None:
    """The codec ``name`` stands for, or ``None`` for UTF-8 itself. ``ValueError``
    for an unknown one, or one that is not a text encoding (``hex``, ``rot13``,
    ``zlib``: bytes to bytes or text to text). Any text encoding reads, UTF-16
    and UTF-32 included: a source in one is decoded (:class:`Transcoded`)
    before it is cut into games, so the cut sees UTF-8 whatever the file's bytes.
    The command line's ``--encoding`` and the project's ``encoding`` both ask here."""
    try:
        info = codecs.lookup(name)
    except (LookupError, ValueError):
        # ValueError: a name no codec could have (a NUL, a lone surrogate).
        raise ValueError(f"unknown encoding {name!r} (such as cp1252, latin-1 or utf-8)") from None
    if not info._is_text_encoding:
        raise ValueError(f"{name!r} is not a text encoding (such as cp1252, latin-1 or utf-8)")
    if info.name == "utf-8":
        return None
    return info.name


def not_text(encoding: str, at: int, byte: int) -> str:
    """How a byte that is not text in ``encoding`` is named: one wording for
    every command that reads, or rewrites, a file in another encoding."""
    return f"not {encoding} text at byte {at:,} (0x{byte:02x})"


def decoding_fault(encoding: str, e: UnicodeError, data: bytes, at: int = 0) -> str:
    """:func:`not_text` for a decoder's fault, ``data`` read from byte ``at``
    of the file. Most codecs name the byte (a ``UnicodeDecodeError``); a few
    (``utf-16`` without its mark, ``punycode``) raise a bare ``UnicodeError``
    that names none, which is then placed at the start of ``data``."""
    if isinstance(e, UnicodeDecodeError):
        return not_text(encoding, at + e.start, e.object[e.start])
    return f"not {encoding} text from byte {at:,} on ({one_line(str(e))})"


class Transcoded(io.RawIOBase):
    """A stream of text in another encoding, read as UTF-8."""

    def __init__(self, raw: BinaryIO, encoding: str, *, close: bool = True) -> None:
        super().__init__()
        self._raw = raw
        self._encoding = encoding
        self._decoder = codecs.getincrementaldecoder(encoding)("strict")
        self._out = b""
        self._read = 0
        self._close = close

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        while not self._out:
            chunk = self._raw.read(1 << 16 if size < 0 else max(size, 1 << 12))
            try:
                text = self._decoder.decode(chunk, final=not chunk)
            except UnicodeDecodeError as e:
                # The decoder may hold bytes of an earlier chunk (a UTF-16
                # file cut short by one byte fails on the last, empty read):
                # e.object is those bytes, then this chunk.
                at = self._read + len(chunk) - len(e.object) + e.start
                raise OSError(0, not_text(self._encoding, at, e.object[e.start])) from None
            except UnicodeError as e:
                raise OSError(0, decoding_fault(self._encoding, e, chunk, self._read)) from None
            self._read += len(chunk)
            self._out = text.encode("utf-8")
            if not chunk:
                break
        if size < 0 or size >= len(self._out):
            out, self._out = self._out, b""
        else:
            out, self._out = self._out[:size], self._out[size:]
        return out

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        data = self.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)

    def close(self) -> None:
        if self._close and not self.closed:
            self._raw.close()
        super().close()


def _expand_path(
    given: str,
    suffix: str,
    compressed: bool,
    matches: bool,
    on_note: Callable[[str], None] | None,
    exclude: tuple[str, ...] = (),
) -> list[Source]:
    if given == STDIN:
        return [Source(STDIN)]
    if is_url(given):
        return _expand_url(given, suffix, compressed)
    p = Path(given)
    try:
        is_dir, exists = p.is_dir(), p.exists()
    except OSError:
        # Not even looked into (permissions): reading it will say why.
        return [Source(given)]
    if is_dir:
        endings = tuple(p.lstrip("*") for p in RECORD_PATTERNS) if compressed and suffix == ".keil" else (suffix,)
        if matches and (suffix == ".keil" or suffix in MATCH_SUFFIXES):
            endings = tuple(dict.fromkeys(endings + MATCH_SUFFIXES))
        found, links = _walk(given, endings, exclude)
        if links and on_note is not None:
            # Said, not silent: a record behind a link would otherwise drop out of a check unnoticed.
            first = f", the first {links[0]}" if len(links) > 1 else f": {links[0]}"
            on_note(
                f"{shown_name(given)}: {len(links)} symbolic link(s) not followed{first} "
                "(a directory search stays inside the directory; give a link by name to read it)"
            )
        if not found:
            what = "abstract_games matches" if suffix in MATCH_SUFFIXES else f"{suffix} records"
            raise PathError(f"{shown_name(given)}: directory holds no {what}")
        return found
    if exists:
        if refusal(os.stat(given).st_mode, pipes=True) is not None:
            raise PathError(f"{shown_name(given)}: not a regular file (a device or socket is never read)")
        return [Source(given)]
    raise PathError(f"{shown_name(given)}: no such file or directory")


def _expand_url(given: str, suffix: str, compressed: bool) -> list[Source]:
    """A URL as a path: one object as it is named (reading it says whether it
    is there), or a prefix searched for records as a directory is."""
    endings = tuple(p.lstrip("*") for p in RECORD_PATTERNS) if compressed and suffix == ".keil" else (suffix,)
    try:
        found = find_objects(given, endings)
    except OSError as e:
        raise PathError(f"{shown_name(given)}: {e.strerror or e}") from None
    if found is None:
        return [Source(given)]
    if not found:
        raise PathError(f"{shown_name(given)}: holds no {suffix} records")
    return [Source(url) for url in found]


def _excluded(name: str, relative: str, patterns: tuple[str, ...]) -> bool:
    return any(fnmatch.fnmatchcase(name, p) or fnmatch.fnmatchcase(relative, p) for p in patterns)


def _walk(top: str, endings: tuple[str, ...], exclude: tuple[str, ...] = DEFAULT_EXCLUDE) -> tuple[list[Source], list[str]]:
    """The regular files under ``top`` whose names end in one of ``endings``, sorted, and each
    subdirectory that cannot be read, in its place in the order; then the
    symbolic links skipped, sorted.

    Symbolic links, to files (with one of ``endings``) or to directories,
    are skipped: a walk stays inside the tree it was given (a link out of it
    would have ``fmt --in-place`` rewrite a file elsewhere). So are
    directories whose names start with a dot, and keilref's own temporary
    files and directories (:func:`keilref.files.is_temporary`), whatever
    ``exclude`` says.
    """
    found: list[Source] = []
    links: list[str] = []

    def unreadable(e: OSError) -> None:
        name = e.filename if isinstance(e.filename, str) else top
        found.append(Source(name, unreadable=e.strerror or str(e)))

    for root, dirs, files in _tree(top, unreadable):
        # By default hidden directories (.git, .venv, .cache...) are left out:
        # they hold no archive a user meant to check, as ruff and git assume.
        below = os.path.relpath(root, top).replace(os.sep, "/")
        below = "" if below == "." else below + "/"
        dirs[:] = sorted(name for name in dirs if not is_temporary(name) and not _excluded(name, below + name, exclude))
        # keilref's own temporaries are half a result, whatever the patterns say.
        files = [name for name in files if not is_temporary(name) and not _excluded(name, below + name, exclude)]
        links.extend(path for path in (os.path.join(root, name) for name in dirs) if os.path.islink(path))
        for name in files:
            if name.endswith(endings):
                path = os.path.join(root, name)
                try:
                    mode = os.lstat(path).st_mode
                except OSError as e:
                    found.append(Source(path, unreadable=e.strerror or str(e)))
                    continue
                if stat.S_ISREG(mode):
                    found.append(Source(path))
                elif stat.S_ISLNK(mode):
                    links.append(path)
    return sorted(found, key=lambda s: s.name), sorted(links)


def _tree(top: str, onerror: Callable[[OSError], None]) -> Iterator[tuple[str, list[str], list[str]]]:
    """``os.walk(top, onerror=onerror, followlinks=False)``, top-down, in its
    order, with a stack instead of recursion: Python 3.11's ``os.walk``
    recurses once a level, and a tree about a thousand levels deep would end
    the run. The caller may prune ``dirs`` in place, as with ``os.walk``."""
    stack = [(top, False)]
    while stack:
        folder, below = stack.pop()
        if below and os.path.islink(folder):
            continue  # listed among the directories, never entered; asked as late as os.walk asks
        dirs: list[str] = []
        nondirs: list[str] = []
        try:
            entries = os.scandir(folder)
        except OSError as e:
            onerror(e)
            continue
        with entries:
            try:
                for entry in entries:
                    try:
                        is_dir = entry.is_dir()
                    except OSError:
                        is_dir = False
                    (dirs if is_dir else nondirs).append(entry.name)
            except OSError as e:
                onerror(e)  # as os.walk: a folder that fails while being listed yields nothing
                continue
        yield folder, dirs, nondirs
        stack.extend((os.path.join(folder, name), True) for name in reversed(dirs))


def unreadable_error(source: Source, e: OSError) -> RecordError:
    what = "directory" if source.unreadable is not None and not is_url(source.name) and os.path.isdir(source.name) else "file"
    return RecordError(f"cannot read {what}: {e.strerror or e}", 1, 1, filename=source.name)


def read_source(source: Source) -> Iterator[Record | RecordError]:
    """The games of one source; an unreadable file gives one error."""
    if source.column is not None and source.row is None:
        yield from _read_rows(source)
        return
    try:
        with source.reading() as stream:
            yield from iter_source(stream, source.name)
    except OSError as e:
        yield unreadable_error(source, e)


def row_source(sources: Mapping[str, Source], name: str) -> Source | None:
    """The source of one row of a table among ``sources``, by the name its
    verdicts give it (:func:`keilref.wording.in_row`); ``None`` for any other name."""
    parts = wording.row_of(name)
    table = None if parts is None else sources.get(parts[0])
    if parts is None or table is None or table.column is None:
        return None
    return dataclasses.replace(table, name=name, row=parts[1], read_from=table.where)


_cursor: list[object] = []
"""The table last read row by row: its key, its rows iterator and the last row taken,
so that rows read again in order (as a report reads them) cost one pass over the table."""


def _row_text(source: Source) -> bytes:
    assert source.column is not None and source.row is not None
    table = dataclasses.replace(source, name=source.where, read_from=None, row=None)
    key = (table.where, table.column, table.encoding)
    if not _cursor or _cursor[0] != key or cast(int, _cursor[2]) >= source.row:
        _cursor[:] = [key, table_rows(table.where, source.column, table.open), 0]
    rows = cast(Iterator[tuple[int, "bytes | str"]], _cursor[1])
    for number, text in rows:
        _cursor[2] = number
        if number == source.row:
            return text if isinstance(text, bytes) else b""
    _cursor.clear()
    raise OSError(0, wording.no_such_row(source.row), source.name)


def _read_rows(source: Source) -> Iterator[Record | RecordError]:
    """The games of a table source, row by row, each row named as its own file."""
    try:
        for name, text in source.rows():
            if isinstance(text, RecordError):
                yield text
            else:
                yield from iter_source(io.BytesIO(text), name)
    except OSError as e:
        yield unreadable_error(source, e)


class NoSuchGame(LookupError):
    """The file holds fewer games than the one asked for."""

    def __init__(self, file: str, game: int, count: int) -> None:
        super().__init__(f"{shown_name(file)}: there is no game {game} (the file holds {count})")
        self.count = count


def nth_game(path: str, game: int, *, encoding: str | None = None) -> Record | RecordError:
    """The ``game``-th game (1-based) of one record file: its record, or the
    error that stops it from being read (located in that file).

    Raises :class:`PathError` for a path that names no record file (a
    directory among them: one file is wanted) and :class:`NoSuchGame` when
    the file holds fewer games. The games before it are cut and read, never
    judged.
    """
    if os.path.isdir(path):
        raise PathError(f"{shown_name(path)}: is a directory; give one record file")
    (source,) = expand_paths([path], encoding=encoding)
    count = 0
    for item in read_source(source):
        count += 1
        if count == game:
            return item
    raise NoSuchGame(path, game, count)


def game_at_line(path: str, line: int, *, encoding: str | None = None) -> int | None:
    """Which game (1-based) of one record file holds ``line``: the last one
    starting at or before it; ``None`` before the first. A game that cannot be
    read is placed by its fault, the only place it has."""
    (source,) = expand_paths([path], encoding=encoding)
    found = None
    for count, item in enumerate(read_source(source), 1):
        if item.line > line:
            break
        found = count
    return found
