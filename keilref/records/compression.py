"""Compressed record files: ``.keil.gz``, ``.keil.bz2``, ``.keil.xz``, ``.keil.zst``.

Archives are often kept compressed. A compressed file is opened as a stream
of its decompressed bytes, read a chunk at a time like any other file, so
memory stays flat and every position (line, column) is one of the
decompressed text. gzip, bzip2 and xz come with Python; zstandard is the
optional extra ``keilref[zstd]``.

Damaged or truncated compressed data surfaces as an :class:`OSError` with a
sentence saying what is wrong, which the readers already turn into a
"cannot read file" verdict for that file (after the games read before it).
"""

from __future__ import annotations

import bz2
import enum
import gzip
import importlib
import io
import lzma
import zlib
from typing import Any, BinaryIO, cast

__all__ = [
    "RECORD_PATTERNS",
    "Compression",
    "compression_of",
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


def compression_of(name: str) -> Compression | None:
    """The compression a file name says, or ``None`` for a plain file."""
    for c in Compression:
        if name.endswith(c.value):
            return c
    return None


class _Decompressing(io.RawIOBase):
    """A decompressed stream whose decoding faults become ``OSError`` in words.

    Each library has its own exceptions for bad data (``EOFError``,
    ``zlib.error``, ``lzma.LZMAError``, ``zstd.ZstdError``, an ``OSError``
    without an errno); a reader should only have to handle ``OSError``.
    """

    def __init__(self, inner: Any, compression: Compression) -> None:
        super().__init__()
        self._inner = inner
        self._compression = compression

    def _fault(self, e: Exception) -> OSError:
        what = f"the {self._compression.label} data"
        if isinstance(e, EOFError):
            return OSError(f"{what} ends too soon: the file is truncated")
        detail = str(e) or type(e).__name__
        return OSError(f"{what} is damaged ({detail})")

    def _guarded(self, fn: Any, *args: Any) -> Any:
        try:
            return fn(*args)
        except OSError as e:
            if e.errno is not None:  # a real I/O error, not bad data
                raise
            raise self._fault(e) from None
        except (EOFError, zlib.error, lzma.LZMAError) as e:
            raise self._fault(e) from None
        except Exception as e:  # zstandard.ZstdError, without importing it here
            if type(e).__module__.startswith("zstandard"):
                raise self._fault(e) from None
            raise

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        # read1: what one step of decoding gives. A full read() of a damaged
        # stream would lose the good text decoded before the damage.
        read = self._inner.read1 if size > 0 and hasattr(self._inner, "read1") else self._inner.read
        return cast(bytes, self._guarded(read, size))

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
                super().close()


_ZSTD_INPUT = 1 << 16
"""Compressed bytes fed to zstd at a time: bounds what one read returns."""


class _ZstdReader:
    """Reads a ``.zst`` file frame after frame, as ``zstd -d`` does.

    ``zstandard``'s own stream reader ends quietly at a frame cut short, so a
    truncated archive would pass for a shorter one; here the end of the file
    inside a frame is an ``EOFError``, like gzip's.
    """

    def __init__(self, path: str, zstandard: Any) -> None:
        self._raw = open(path, "rb")
        self._dctx = zstandard.ZstdDecompressor()
        self._frame: Any = None  # the frame being decoded
        self._input = b""

    def read(self, size: int = -1) -> bytes:
        while True:
            data = self._input or self._raw.read(_ZSTD_INPUT)
            self._input = b""
            if not data:
                if self._frame is not None:
                    raise EOFError("a zstd frame is cut short")
                return b""
            if self._frame is None:
                self._frame = self._dctx.decompressobj()
            out: bytes = self._frame.decompress(data)
            if self._frame.eof:
                self._input, self._frame = self._frame.unused_data, None
            if out:
                return out

    def seekable(self) -> bool:
        return False

    def tell(self) -> int:
        raise OSError("a zstd stream cannot tell its position")

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        raise OSError("a zstd stream cannot seek")

    def close(self) -> None:
        self._raw.close()


def _open_zstd(path: str) -> _ZstdReader:
    # Imported by name so that a type check of a program using keilref does
    # not need the optional package installed.
    try:
        zstandard = importlib.import_module("zstandard")
    except ImportError:
        raise OSError(
            "reading .zst files needs the zstandard package: pip install 'keilref[zstd]'"
        ) from None
    return _ZstdReader(path, zstandard)


def open_record_file(path: str) -> BinaryIO:
    """Open a record file for reading its (decompressed) bytes.

    Nothing is read yet: a file that is not what its name says shows it on
    the first read, as an :class:`OSError` naming the fault.
    """
    compression = compression_of(path)
    if compression is None:
        return open(path, "rb")
    inner: Any
    if compression is Compression.GZIP:
        inner = gzip.open(path, "rb")
    elif compression is Compression.BZIP2:
        inner = bz2.open(path, "rb")
    elif compression is Compression.XZ:
        inner = lzma.open(path, "rb")
    else:
        inner = _open_zstd(path)
    return cast(BinaryIO, _Decompressing(inner, compression))
