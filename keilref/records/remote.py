"""Records where they are: a path may be an fsspec URL (``s3://``, ``gs://``,
``https://``, ``http://``, ``memory://``), read through the optional
``keilref[remote]`` extra.

A URL is read as a local path is: named by the user's words in every
verdict, decompressed by the end of its name with the same caps (see
:func:`spooled_copy`), and a prefix that names no object is searched for
records as a directory is. Whatever goes wrong in reaching an object (no
such object, a refused connection, a timeout) is an ``OSError`` in words,
which the readers make into a "cannot read file" verdict for that file
alone. Over HTTP(S), S3 and GCS every connection and read has
:data:`TIMEOUT_SECONDS` (gcsfs then tries five times more, over some half a
minute, before it gives up); other protocols keep their own library's timeouts.
"""

from __future__ import annotations

import importlib
import logging
import os
import re
import shutil
import tempfile
from typing import Any, BinaryIO, cast

from keilref import wording

__all__ = ["TIMEOUT_SECONDS", "find_objects", "is_url", "open_url", "spooled_copy"]

TIMEOUT_SECONDS = 30.0
"""The longest a connection, or one read on it, may take before the object is reported unreadable."""

_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]+://")
"""A scheme of two characters or more: ``C://`` is a Windows drive, not a URL."""

_SPOOL_IN_MEMORY = 16 << 20
"""Compressed bytes of a remote object kept in memory before its copy moves to disk."""


def is_url(name: str) -> bool:
    """Whether ``name`` is a URL (``scheme://...``) rather than a local path:
    one rule for every reader, the command line's and the library's."""
    return bool(_URL.match(name))


def _fsspec() -> Any:
    try:
        return importlib.import_module("fsspec")
    except ImportError:
        raise OSError(0, wording.REMOTE_NEEDS_EXTRA) from None


_QUIETED_LOGGERS = ("fsspec", "gcsfs", "s3fs")
"""Libraries that log a failure they give up on (or a read ahead they drop)
with its traceback; with no handler of the user's, logging's last resort
would print it on stderr, while keilref already reports that failure as the
file's verdict. A ``NullHandler`` silences only that last resort: records
still reach any handler the user set."""


def _quiet_libraries() -> None:
    for name in _QUIETED_LOGGERS:
        logger = logging.getLogger(name)
        if not any(isinstance(h, logging.NullHandler) for h in logger.handlers):
            logger.addHandler(logging.NullHandler())


def _options(protocol: str) -> dict[str, Any]:
    """Each protocol's own way of saying :data:`TIMEOUT_SECONDS`."""
    if protocol in ("http", "https", "gs", "gcs"):
        aiohttp = importlib.import_module("aiohttp")
        timeout = aiohttp.ClientTimeout(sock_connect=TIMEOUT_SECONDS, sock_read=TIMEOUT_SECONDS)
        # gcsfs talks to GCS through aiohttp too, each request with this timeout.
        return {"requests_timeout": timeout} if protocol in ("gs", "gcs") else {"client_kwargs": {"timeout": timeout}}
    if protocol in ("s3", "s3a"):
        return {"config_kwargs": {"connect_timeout": TIMEOUT_SECONDS, "read_timeout": TIMEOUT_SECONDS}}
    return {}  # the others: their own timeouts


def _filesystem(url: str) -> tuple[Any, str]:
    fsspec = _fsspec()
    _quiet_libraries()
    protocol = url.split("://", 1)[0].lower()
    try:
        fs, path = fsspec.core.url_to_fs(url, **_options(protocol))
    except ImportError as e:
        raise OSError(0, wording.remote_protocol_missing(protocol, str(e))) from None
    except Exception as e:  # noqa: BLE001
        # A file system that cannot be made (bad options, credentials it
        # insists on at once): that URL's fault, never a traceback.
        raise OSError(0, wording.remote_fault(e)) from None
    return fs, path


def _reached(e: BaseException) -> OSError:
    """What went wrong reaching an object, as an ``OSError`` in words."""
    if isinstance(e, FileNotFoundError):
        # fsspec's http file system says "not found" for any failure to
        # reach the server; its cause tells a refused connection from a 404.
        cause = e.__cause__
        if cause is None or getattr(cause, "status", None) in (404, 410) or isinstance(cause, FileNotFoundError):
            return OSError(0, wording.REMOTE_NO_OBJECT)
        return OSError(0, wording.remote_fault(cause))
    return OSError(0, wording.remote_fault(e))


class _Guarded:
    """An fsspec file whose every failure is an ``OSError`` in words (a
    dropped connection part way is a fault of that file, not a traceback)."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def read(self, size: int = -1) -> bytes:
        try:
            return cast(bytes, self._inner.read(size))
        except Exception as e:  # noqa: BLE001
            raise _reached(e) from None

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return bool(self._inner.seekable())

    def seek(self, offset: int, whence: int = 0) -> int:
        try:
            return int(self._inner.seek(offset, whence))
        except Exception as e:  # noqa: BLE001
            raise _reached(e) from None

    def tell(self) -> int:
        return int(self._inner.tell())

    @property
    def closed(self) -> bool:
        return bool(self._inner.closed)

    def close(self) -> None:
        try:
            self._inner.close()
        except Exception:  # noqa: BLE001, S110
            pass  # a read-only file has nothing left to lose

    def __enter__(self) -> _Guarded:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_url(url: str) -> BinaryIO:
    """The bytes of the object at ``url``, as stored (no decompression here).
    ``OSError`` in words when it cannot be reached or does not exist."""
    fs, path = _filesystem(url)
    try:
        inner = fs.open(path, "rb")
    except Exception as e:  # noqa: BLE001
        raise _reached(e) from None
    return cast(BinaryIO, _Guarded(inner))


def spooled_copy(url: str) -> str:
    """A local temporary copy of the (compressed) object at ``url``: its path.

    A compressed object is copied before it is decompressed so that it is
    measured against its cap, and refused whole when past it, exactly as a
    local file is; the copy holds compressed bytes only, and the caller
    removes it."""
    with open_url(url) as stream:
        handle = tempfile.NamedTemporaryFile(prefix=".keilref-remote-", suffix=".keilref.tmp", delete=False)
        try:
            with handle:
                shutil.copyfileobj(stream, handle, 1 << 20)
        except BaseException:
            os.unlink(handle.name)
            raise
    return handle.name


def find_objects(url: str, endings: tuple[str, ...]) -> list[str] | None:
    """The objects under the prefix ``url`` whose names end in one of
    ``endings``, sorted, as URLs; ``None`` when ``url`` names one object
    (or nothing reachable: reading it will say why). Each is named below
    ``url`` as written. Hidden names (a part
    starting with a dot) are left out, as a directory search leaves them."""
    if url.endswith(endings) or url.split("?", 1)[0].endswith(endings):
        return None
    fs, path = _filesystem(url)
    try:
        if not fs.isdir(path):
            return None
        found = fs.find(path)
    except Exception:  # noqa: BLE001
        return None
    urls = []
    for name in sorted(found):
        below = name[len(path.rstrip("/")) :].lstrip("/")
        if not name.endswith(endings) or any(part.startswith(".") for part in below.split("/")):
            continue
        # Named below the prefix as the user wrote it, as a directory's files are below its name.
        urls.append(f"{url.rstrip('/')}/{below}")
    return urls
