"""Which files keilref reads by name, and which are its own temporaries: one
decision for the command line and the library.

A regular file is read. A device or a socket never is: ``/dev/zero`` would
never end, ``/dev/tty`` would wait for a keyboard, and a socket cannot be
opened at all. A named pipe waits, when opened, for a writer that may never
come: the command line reads one named on it (``<(zcat archive.keil.gz)``,
where the shell is the writer), while the library refuses one given as a
path, and reads the stream its caller opened instead.
"""

from __future__ import annotations

import errno
import os
import stat
from typing import BinaryIO

__all__ = [
    "FMT_TEMP_SUFFIX",
    "OUTPUT_TEMP_PREFIX",
    "OUTPUT_TEMP_SUFFIX",
    "bad_name",
    "is_temporary",
    "open_regular",
    "refusal",
    "unreadable",
]

OUTPUT_TEMP_PREFIX = ".keilref-"
"""The start of the name a file keilref writes (``-o``, ``import``,
``export``) has beside its target until it is put in place: then a random
part, then :data:`OUTPUT_TEMP_SUFFIX`. Earlier versions ended it with the
target's suffix (``.keilref-XXXXXXXX.keil``); such a file left by a killed
run still starts with this, and is still skipped."""

OUTPUT_TEMP_SUFFIX = ".keilref.tmp"
"""The end of such a name: no suffix keilref reads, so no walk could take it
for a record or a match even if it looked."""

FMT_TEMP_SUFFIX = ".keilref-fmt.tmp"
"""The end of the name of ``fmt --in-place``'s temporary file (``.NAME.XXXXXXXX.keilref-fmt.tmp``)."""


def is_temporary(name: str) -> bool:
    """Whether a file or directory called ``name`` (no directory part) is one
    of keilref's temporaries, which no directory search reads: a killed run
    leaves its own behind, and its content is half a result (or a copy of
    standard input, in ``filter``'s)."""
    return name.startswith(OUTPUT_TEMP_PREFIX) or name.endswith((OUTPUT_TEMP_SUFFIX, FMT_TEMP_SUFFIX))


def refusal(mode: int, *, pipes: bool) -> str | None:
    """Why a file of ``mode`` (not a directory) is never read, or ``None`` when it is read.

    ``pipes`` says whether a named pipe is read (the command line) or not (the library).
    """
    if stat.S_ISREG(mode) or (pipes and stat.S_ISFIFO(mode)):
        return None
    if stat.S_ISFIFO(mode):
        return "a named pipe is not read by path (opening it waits for a writer): open it and pass the stream"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device is never read (it may never end)"
    if stat.S_ISSOCK(mode):
        return "a socket is never read"
    if stat.S_ISDIR(mode):
        return "a directory, not a record file"
    return "not a regular file"


def unreadable(path: str) -> str | None:
    """Why the library never reads ``path``, found without opening it, or ``None``.

    A path that cannot be looked at (missing, or not permitted) gives
    ``None``: opening it says why, in the operating system's words.
    """
    bad = bad_name(path)
    if bad is not None:
        return bad
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return None
    if stat.S_ISDIR(mode):
        return None  # opening says "Is a directory", as it always has
    return refusal(mode, pipes=False)


def open_regular(path: str) -> BinaryIO:
    """``path`` opened for reading bytes, if it is a regular file; ``OSError`` otherwise.

    Never blocks: the type of file is checked before opening it, and again
    on what was opened (it may have been replaced in between), which is
    opened without waiting for a writer.
    """
    reason = unreadable(path)
    if reason is not None:
        raise OSError(errno.EINVAL, reason, path)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(path, flags)
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), path)
        reason = refusal(mode, pipes=False)
        if reason is not None:
            raise OSError(errno.EINVAL, reason, path)
        # O_NONBLOCK means nothing for a regular file's reads: it may stay set.
        return open(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def bad_name(path: str) -> str | None:
    """Why ``path`` cannot name a file at all, or ``None``."""
    if "\x00" in path:
        return "a path cannot hold a NUL character"
    try:
        os.fsencode(path)
    except UnicodeEncodeError:
        return "the path cannot be encoded as a file name here"
    return None
