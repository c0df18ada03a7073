"""Compressed record files: ``.keil.gz``, ``.keil.bz2``, ``.keil.xz``, ``.keil.zst``.

Archives are often kept compressed. A compressed file is opened as a stream
of its decompressed bytes, read a chunk at a time like any other file, so
memory stays flat and every position (line, column) is one of the
decompressed text. gzip, bzip2 and xz come with Python; zstandard is the
optional extra ``keilref[zstd]``.

Damaged or truncated compressed data surfaces as an :class:`OSError` with a
sentence saying what is wrong, which the readers already turn into a
"cannot read file" verdict for that file (after the games read before it).

A file may expand to at most :func:`expansion_cap` of its compressed size:
:data:`BOMB_RATIO` times it, and never less than :data:`MIN_CAP`. Real
archives of records compress 3 to 10 times; a file past the cap is a
compression bomb, whose text would cost minutes of work to scan. A regular
file is measured (decompressed and counted, not kept) before the first byte
of it is given, so that one over the cap is refused whole: an ``OSError``
on the first read, and no game of it is read. A named pipe cannot be read
twice: it is held to the cap as it streams, against the compressed bytes
read so far, and the games before the cap is hit are read.
"""

from __future__ import annotations

import bz2
import contextlib
import enum
import gzip
import importlib
import io
import lzma
import os
import stat
import zlib
from typing import Any, BinaryIO, cast

from keilref.records.limits import MAX_GAME_BYTES
from keilref.records.remote import is_url, open_url, spooled_copy

__all__ = [
    "BOMB_RATIO",
    "MIN_CAP",
    "RECORD_PATTERNS",
    "Compression",
    "compression_of",
    "expansion_cap",
    "open_record_file",
]


class Compression(enum.Enum):
    """How a record file is compressed, told by the end of its name."""

    GZIP = ".gz"
    """gzip (standard library)."""
    BZIP2 = ".bz2"
    """bzip2 (standard library)."""
    XZ = ".xz"
    """xz / LZMA (standard library)."""
    ZSTD = ".zst"
    """Zstandard (the optional ``zstandard`` package)."""

    @property
    def label(self) -> str:
        return {".gz": "gzip", ".bz2": "bzip2", ".xz": "xz", ".zst": "zstd"}[self.value]


RECORD_PATTERNS = ("*.keil",) + tuple(f"*.keil{c.value}" for c in Compression)
"""The names a directory is searched for."""

BOMB_RATIO = 1000
"""The most times its compressed size a file's text may be. Records compress
3 to 10 times, and gzip cannot pass about 1,032 times at all: only a bomb
(bzip2, xz or zstd of one byte repeated) comes near."""

MIN_CAP = MAX_GAME_BYTES
"""The cap of a small file: whatever its compressed size, a file may expand
to as much as one game may hold (10 MB), so that no game within the limits
is refused for compressing too well."""

_MEASURE_CHUNK = 1 << 20
"""Decompressed bytes asked for at a time while a file is measured."""


def expansion_cap(compressed: int) -> int:
    """The most decompressed bytes a file of ``compressed`` bytes may give."""
    return max(BOMB_RATIO * compressed, MIN_CAP)


def compression_of(name: str) -> Compression | None:
    """The compression a file name says, or ``None`` for a plain file."""
    for c in Compression:
        if name.endswith(c.value):
            return c
    return None


class _Counted:
    """A compressed file, counting the bytes the decoder has taken from it."""

    def __init__(self, path: str) -> None:
        self._raw = open(path, "rb")
        st = os.fstat(self._raw.fileno())
        self.regular = stat.S_ISREG(st.st_mode)
        self.size = st.st_size if self.regular else 0
        self.taken = 0

    @property
    def compressed(self) -> int:
        """The compressed size as far as it is known: a pipe's grows as it is read."""
        return max(self.size, self.taken)

    def read(self, size: int = -1) -> bytes:
        data = self._raw.read(size)
        self.taken += len(data)
        return data

    def seekable(self) -> bool:
        return self._raw.seekable()

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        return self._raw.seek(offset, whence)

    def tell(self) -> int:
        return self._raw.tell()

    def close(self) -> None:
        self._raw.close()


def _is_data_fault(e: BaseException) -> bool:
    """Does ``e`` say the compressed data is bad (rather than a real I/O error or a bug)?

    Each library has its own exceptions for bad data (``EOFError``,
    ``zlib.error``, ``lzma.LZMAError``, ``zstd.ZstdError``, an ``OSError``
    without an errno).
    """
    if isinstance(e, OSError):
        return e.errno is None
    if isinstance(e, (EOFError, zlib.error, lzma.LZMAError)):
        return True
    # zstandard.ZstdError, without importing it here
    return isinstance(e, Exception) and type(e).__module__.startswith("zstandard")


def _decoder(compression: Compression, source: _Counted) -> Any:
    if compression is Compression.GZIP:
        return gzip.GzipFile(fileobj=source, mode="rb")
    if compression is Compression.BZIP2:
        return bz2.BZ2File(source)
    if compression is Compression.XZ:
        return _XzReader(source)
    return _open_zstd(source)


class _Decompressing(io.RawIOBase):
    """A decompressed stream, held to its cap, whose decoding faults become ``OSError`` in words.

    A reader should only have to handle ``OSError``. No read returns more
    than was asked for, whatever the data expands to.
    """

    def __init__(self, path: str, compression: Compression, *, remove: bool = False) -> None:
        super().__init__()
        self._path = path
        self._remove = remove
        """Whether ``path`` is a copy of this stream's own, removed as it closes."""
        self._compression = compression
        self._source = _Counted(path)
        try:
            self._inner = _decoder(compression, self._source)
        except BaseException:
            self._source.close()
            raise
        self._given = 0
        self._measured = False

    def _fault(self, e: Exception) -> OSError:
        what = f"the {self._compression.label} data"
        if isinstance(e, EOFError):
            return OSError(f"{what} ends too soon: the file is truncated")
        detail = str(e) or type(e).__name__
        return OSError(f"{what} is damaged ({detail})")

    def _bomb(self, source: _Counted) -> OSError:
        so_far = "" if source.regular else " read so far"
        return OSError(
            f"the {self._compression.label} data expands past {expansion_cap(source.compressed):,} bytes, "
            f"the cap for its {source.compressed:,} compressed bytes{so_far} "
            f"({BOMB_RATIO:,} times as many, and at least {MIN_CAP:,}): a compression bomb?"
        )

    def _guarded(self, fn: Any, *args: Any) -> Any:
        try:
            return fn(*args)
        except Exception as e:
            if _is_data_fault(e):
                raise self._fault(e) from None
            raise

    def _measure(self) -> None:
        """Refuse a regular file over its cap before any of its text is read.

        Its text is decompressed once more, counted and dropped: cheap beside
        checking it (gzip and zstd decompress hundreds of MB a second, bzip2
        tens), and it keeps the contract that such a file is one error and
        nothing else. Damage found here is left for the reading to meet in
        place, after the games before it.
        """
        if not self._source.regular:
            return
        try:
            source = _Counted(self._path)
        except OSError:
            return  # the reading will say why
        inner: Any = None
        try:
            inner = _decoder(self._compression, source)
            cap = expansion_cap(source.size)
            total = 0
            while total <= cap:
                data = inner.read(_MEASURE_CHUNK)
                if not data:
                    return
                total += len(data)
        except Exception as e:
            if _is_data_fault(e) or isinstance(e, OSError):
                return
            raise
        finally:
            if inner is not None:
                inner.close()
            source.close()
        raise self._bomb(source)

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        if size < 0:
            return self.readall()  # in chunks, each held to the cap
        if not self._measured:
            self._measured = True
            self._measure()
        # read1: what one step of decoding gives. A full read() of a damaged
        # stream would lose the good text decoded before the damage.
        read = self._inner.read1 if hasattr(self._inner, "read1") else self._inner.read
        data = cast(bytes, self._guarded(read, size))
        self._given += len(data)
        if self._given > expansion_cap(self._source.compressed):
            # A pipe, or a file that grew since it was measured.
            raise self._bomb(self._source)
        return data

    def readinto(self, buffer: Any) -> int:
        data = self.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)

    def seekable(self) -> bool:
        return bool(self._inner.seekable())

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        return cast(int, self._guarded(self._inner.seek, offset, whence))

    def tell(self) -> int:
        return cast(int, self._inner.tell())

    def close(self) -> None:
        if not self.closed:
            try:
                self._inner.close()
            finally:
                self._source.close()
                if self._remove:
                    with contextlib.suppress(OSError):
                        os.unlink(self._path)
                super().close()


_XZ_INPUT = 1 << 16
"""Compressed bytes read from a ``.xz`` file at a time."""


class _XzReader:
    """Reads a ``.xz`` file stream after stream, as ``xz -d`` does.

    After a stream, and between two, may come stream padding: null bytes, a
    multiple of four of them (``xz --block-list``, tape archives and some
    archivers write it; ``xz -t`` accepts it). ``lzma.LZMAFile`` takes the
    padding for a stream begun and cut short, and calls a valid file
    truncated; here it is skipped, and padding of another length is damage.
    What follows a stream and is neither padding nor a stream is left unread,
    as ``lzma.LZMAFile`` leaves it.
    """

    def __init__(self, source: _Counted) -> None:
        self._source = source
        self._decoder = lzma.LZMADecompressor()
        self._pending = b""  # compressed bytes read but not yet given to a decoder
        self._fresh = False  # the decoder is a later stream's, given nothing yet
        self._padding = 0  # null bytes since the last stream ended
        self._done = False

    def read(self, size: int = -1) -> bytes:
        if size < 0:
            size = _XZ_INPUT
        while size and not self._done:
            if self._decoder.eof:
                self._next_stream()
                continue
            data = b""
            if self._decoder.needs_input:
                data, self._pending = self._pending or self._source.read(_XZ_INPUT), b""
                if not data:
                    raise EOFError("Compressed data ended before the end-of-stream marker was reached")
            fresh, self._fresh = self._fresh, False
            try:
                out: bytes = self._decoder.decompress(data, size)
            except lzma.LZMAError:
                if not fresh:
                    raise
                self._done = True  # not a stream: left unread, as lzma.LZMAFile leaves it
                return b""
            if out:
                return out
        return b""

    def _next_stream(self) -> None:
        """Past the stream that ended: its padding, then the next stream or the end."""
        self._pending = self._decoder.unused_data
        while True:
            if not self._pending:
                self._pending = self._source.read(_XZ_INPUT)
                if not self._pending:
                    self._padding_ends()
                    self._done = True
                    return
            rest = self._pending.lstrip(b"\0")
            self._padding += len(self._pending) - len(rest)
            self._pending = rest
            if rest:
                self._padding_ends()
                self._decoder = lzma.LZMADecompressor()
                self._fresh = True
                return

    def _padding_ends(self) -> None:
        if self._padding % 4:
            raise lzma.LZMAError(f"stream padding of {self._padding} null bytes, not a multiple of four")
        self._padding = 0

    def seekable(self) -> bool:
        return False

    def tell(self) -> int:
        raise OSError("an xz stream cannot tell its position")

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        raise OSError("an xz stream cannot seek")

    def close(self) -> None:
        self._done = True


_ZSTD_INPUT = 1 << 16
"""Compressed bytes read from a ``.zst`` file at a time."""

_ZSTD_MAGIC = 0xFD2FB528
_ZSTD_SKIPPABLE = 0x184D2A50  # the low four bits are free


class _ZstdFrames:
    """The compressed bytes of a ``.zst`` file, followed frame by frame as
    they pass to the decoder, to tell whether they end between two frames.

    Only the headers are read (RFC 8878: the frame header, then each block's
    three bytes giving its kind and size): decoding stays the decoder's.
    """

    def __init__(self, source: _Counted) -> None:
        self._source = source
        self._state = "magic"  # the header expected next: magic, descriptor, block, skippable; or lost
        self._want = 4  # its length
        self._head = bytearray()
        self._skip = 0  # bytes to pass before it
        self._checksum = False

    def read(self, size: int = -1) -> bytes:
        data = self._source.read(size)
        i, n = 0, len(data)
        while i < n and self._state != "lost":
            if self._skip:
                step = min(self._skip, n - i)
                self._skip -= step
                i += step
                continue
            step = min(self._want - len(self._head), n - i)
            self._head += data[i : i + step]
            i += step
            if len(self._head) == self._want:
                head = int.from_bytes(self._head, "little")
                self._head.clear()
                self._header(head)
        return data

    def _header(self, head: int) -> None:
        if self._state == "magic":
            if head == _ZSTD_MAGIC:
                self._state, self._want = "descriptor", 1
            elif head & ~0xF == _ZSTD_SKIPPABLE:
                self._state, self._want = "skippable", 4
            else:
                self._state = "lost"  # not a frame known here: the decoder judges it
        elif self._state == "descriptor":
            single_segment = head >> 5 & 1
            content_size = (single_segment, 2, 4, 8)[head >> 6]
            dictionary = (0, 1, 2, 4)[head & 3]
            self._skip = (1 - single_segment) + dictionary + content_size
            self._checksum = bool(head >> 2 & 1)
            self._state, self._want = "block", 3
        elif self._state == "block":
            last, kind, size = head & 1, head >> 1 & 3, head >> 3
            if kind == 3:
                self._state = "lost"  # reserved: the decoder refuses it
                return
            self._skip = 1 if kind == 1 else size  # an RLE block holds one byte
            if last:
                self._skip += 4 if self._checksum else 0
                self._state, self._want = "magic", 4
        else:  # skippable: its length, then that many bytes
            self._skip = head
            self._state, self._want = "magic", 4

    @property
    def cut(self) -> bool:
        """Did the bytes so far end inside a frame?"""
        return self._state not in ("magic", "lost") or self._skip > 0 or bool(self._head)


class _ZstdReader:
    """Reads a ``.zst`` file frame after frame, as ``zstd -d`` does.

    ``zstandard``'s stream reader returns at most what is asked of it, however
    far the data expands, but ends quietly at a frame cut short, so a
    truncated archive would pass for a shorter one; here the end of the file
    inside a frame is an ``EOFError``, like gzip's.
    """

    def __init__(self, source: _Counted, zstandard: Any) -> None:
        self._frames = _ZstdFrames(source)
        self._reader = zstandard.ZstdDecompressor().stream_reader(
            self._frames, read_size=_ZSTD_INPUT, read_across_frames=True, closefd=False
        )

    def read(self, size: int) -> bytes:
        data: bytes = self._reader.read(size)
        if not data and size != 0 and self._frames.cut:
            raise EOFError("a zstd frame is cut short")
        return data

    def seekable(self) -> bool:
        return False

    def tell(self) -> int:
        raise OSError("a zstd stream cannot tell its position")

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        raise OSError("a zstd stream cannot seek")

    def close(self) -> None:
        self._reader.close()


def _open_zstd(source: _Counted) -> _ZstdReader:
    # Imported by name so that a type check of a program using keilref does
    # not need the optional package installed.
    try:
        zstandard = importlib.import_module("zstandard")
    except ImportError:
        raise OSError(
            "reading .zst files needs the zstandard package: pip install 'keilref[zstd]'"
        ) from None
    return _ZstdReader(source, zstandard)


def open_record_file(path: str) -> BinaryIO:
    """Open a record file for reading its (decompressed) bytes.

    Nothing is read yet: a file that is not what its name says, or that
    expands past its cap, shows it on the first read, as an
    :class:`OSError` naming the fault.
    """
    compression = compression_of(path)
    if is_url(path):
        if compression is None:
            return open_url(path)
        # Copied first, compressed: measured against its cap as a local file is.
        copy = spooled_copy(path)
        try:
            return cast(BinaryIO, _Decompressing(copy, compression, remove=True))
        except BaseException:
            os.unlink(copy)
            raise
    if compression is None:
        return open(path, "rb")
    return cast(BinaryIO, _Decompressing(path, compression))
