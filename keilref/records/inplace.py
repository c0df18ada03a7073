"""Replacing a file's content in place, without ever damaging it.

The new text is written to a temporary file beside the target, which is then
renamed over it: a reader, or a crash, sees the old file or the new one,
never half of one. Around that rename the rules are:

- the file must not have changed since it was read (device, inode, size,
  modification and change time, in nanoseconds); if it did, it is left as it
  is, since writing would throw away someone else's edit. This is checked
  last right before the rename, on the descriptor the old text was read from
  (still open, so its inode cannot be reused) and on the path, which must
  still name that same file;
- a read-only file is refused, as are hard-linked files (a rename gives this
  name a new file, and the other names would keep the old text) and files
  whose owner, group or mode bits (setuid, setgid, sticky included) the new
  file cannot be given; ``force`` overrides these three refusals;
- a symbolic link is refused unless ``follow_symlinks`` is given: then the
  file it names is the one replaced, and the link stays a link;
- each run writes a temporary file of its own, created exclusively under a
  name no other run can pick (``.NAME.XXXXXXXX.keilref-fmt.tmp``), and
  removes no file but that one: two runs on one file never write into, or
  rename, each other's half-written text. A run that is killed leaves that
  file behind; no later run removes it, since nothing tells a dead run's
  file from a live one's. It does not end in ``.keil``, so no directory walk
  takes it for a record.
"""

from __future__ import annotations

import os
import stat
import tempfile
from dataclasses import dataclass

from keilref import wording
from keilref.records.remote import is_url
from keilref.escaping import shown_name
from keilref.files import FMT_TEMP_SUFFIX

__all__ = ["TEMP_SUFFIX", "FileState", "ReplaceError", "Replaced", "replace_file", "symlink_refused", "temp_prefix"]

TEMP_SUFFIX = FMT_TEMP_SUFFIX
"""The end of a temporary file's name; :func:`temp_prefix` gives its start."""


class ReplaceError(Exception):
    """The file was not replaced; the message says why, and names the file."""


@dataclass(frozen=True)
class FileState:
    """What a file looked like when it was read; compared again just before replacing it."""

    device: int
    inode: int
    size: int
    mtime_ns: int
    ctime_ns: int
    """A write that keeps the size and the modification time still changes this."""

    @classmethod
    def of(cls, st: os.stat_result) -> FileState:
        return cls(st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


@dataclass(frozen=True)
class Replaced:
    """A file that was replaced, and what the user should know about it."""

    notes: tuple[str, ...] = ()
    """Things done besides the rewrite (a refusal overridden)."""


def temp_prefix(path: str) -> str:
    """Where the new content of ``path`` is written before the rename: a file
    whose name starts with this, then a random part, then :data:`TEMP_SUFFIX`."""
    directory, name = os.path.split(os.path.realpath(path))
    return os.path.join(directory, f".{name}.")


def replace_file(
    path: str,
    data: bytes,
    read: FileState,
    *,
    force: bool = False,
    follow_symlinks: bool = False,
    original: int | None = None,
) -> Replaced:
    """Replace the content of ``path`` with ``data``, atomically.

    ``read`` is the state of the file when its old content was read, and
    ``original`` the descriptor it was read from, when it is still open.
    Raises :class:`ReplaceError`, with the file untouched, when any rule of
    the module's docstring forbids the rewrite or the writing fails.
    """
    if is_url(path):
        raise ReplaceError(f"{shown_name(path)}: {wording.URL_NOT_REWRITTEN}")
    if os.path.islink(path) and not follow_symlinks:
        raise ReplaceError(symlink_refused(path))
    target = os.path.realpath(path)
    notes: list[str] = []
    try:
        before = os.stat(target)
    except OSError as e:
        raise ReplaceError(f"{shown_name(path)}: cannot write: {e.strerror or e}") from None
    if not stat.S_ISREG(before.st_mode):
        raise ReplaceError(f"{shown_name(path)}: not a regular file; left as it is")
    if FileState.of(before) != read:
        raise ReplaceError(_changed(path))
    if _read_only(before):
        if not force:
            raise ReplaceError(f"{shown_name(path)}: read-only; left as it is (--force rewrites it, keeping it read-only)")
        notes.append(f"{shown_name(path)}: read-only, rewritten because of --force")
    if before.st_nlink > 1:
        if not force:
            raise ReplaceError(
                f"{shown_name(path)}: has {before.st_nlink} hard links, which a rewrite would separate "
                "(the other names would keep the old text); left as it is (--force rewrites this name)"
            )
        notes.append(f"{shown_name(path)}: rewritten because of --force; its {before.st_nlink - 1} other hard link(s) keep the old text")
    directory, prefix = os.path.split(temp_prefix(path))
    try:
        # O_EXCL under a random name: this file is this run's alone, and the
        # only one it ever removes.
        fd, tmp = tempfile.mkstemp(suffix=TEMP_SUFFIX, prefix=prefix, dir=directory)
    except OSError as e:
        raise ReplaceError(f"{shown_name(path)}: cannot write: {e.strerror or e}") from None
    created = True
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            lost = copy_metadata(fd, tmp, before)
            # The text and the mode on disk before any name points at them.
            os.fsync(fd)
        finally:
            os.close(fd)
        if lost:
            if not force:
                raise ReplaceError(
                    f"{shown_name(path)}: the rewritten file cannot keep its {lost}; left as it is (--force rewrites it without)"
                )
            notes.append(f"{shown_name(path)}: rewritten because of --force, without its {lost}")
        # The last moment before the rename: the file must still be the one that was read.
        if not _unchanged(target, read, original):
            raise ReplaceError(_changed(path))
        os.replace(tmp, target)
        created = False
        sync_directory(directory)
    except OSError as e:
        raise ReplaceError(f"{shown_name(path)}: cannot write: {e.strerror or e}") from None
    finally:
        if created:
            try:
                os.unlink(tmp)
            except OSError:
                pass
    return Replaced(tuple(notes))


def symlink_refused(path: str, *, directory: bool = False) -> str:
    """Why a symbolic link given by name is not followed, and how to ask for it."""
    what = "the files in the directory it points to" if directory else "the file it points to"
    return f"{shown_name(path)}: a symbolic link; nothing rewritten (--follow-symlinks rewrites {what}, keeping the link)"


def _unchanged(target: str, read: FileState, original: int | None) -> bool:
    """Whether ``target`` still names the file that was read, as it was read.

    The open descriptor pins the inode: while it is open, no other file can
    be given its number, so a path with the same device and inode is that
    very file.
    """
    if original is not None and FileState.of(os.fstat(original)) != read:
        return False
    return FileState.of(os.stat(target)) == read


def _changed(path: str) -> str:
    return f"{shown_name(path)}: changed while it was being formatted; left as it is (run fmt again)"


def _read_only(st: os.stat_result) -> bool:
    """Whether the file's mode denies its writer: the owner's bit for the owner
    and for root (who could write anyway, but a read-only mode is a request),
    else the group's or the others'."""
    geteuid = getattr(os, "geteuid", None)
    if geteuid is None:  # Windows: only the read-only attribute, shown as the owner's bit
        return not st.st_mode & stat.S_IWUSR
    uid = geteuid()
    if uid in (0, st.st_uid):
        bit = stat.S_IWUSR
    elif st.st_gid == os.getegid() or st.st_gid in os.getgroups():
        bit = stat.S_IWGRP
    else:
        bit = stat.S_IWOTH
    return not st.st_mode & bit


def copy_metadata(fd: int, tmp: str, want: os.stat_result) -> str:
    """Give the new file the old one's owner, group and mode; say what could not be kept.

    The owner goes first: changing it clears the setuid and setgid bits,
    which the mode then sets again.
    """
    if hasattr(os, "fchown"):
        try:
            os.fchown(fd, want.st_uid, want.st_gid)
        except OSError:
            try:  # a member of the file's group may still keep the group
                os.fchown(fd, -1, want.st_gid)
            except OSError:
                pass
    mode = stat.S_IMODE(want.st_mode)
    try:
        if hasattr(os, "fchmod"):
            os.fchmod(fd, mode)
        else:
            os.chmod(tmp, mode)
    except OSError:
        pass
    got = os.fstat(fd)
    lost = []
    if hasattr(os, "fchown"):
        if got.st_uid != want.st_uid:
            lost.append("owner")
        if got.st_gid != want.st_gid:
            lost.append("group")
    special = stat.S_ISUID | stat.S_ISGID | stat.S_ISVTX
    if stat.S_IMODE(got.st_mode) & special != mode & special:
        lost.append("setuid/setgid/sticky bits")
    elif stat.S_IMODE(got.st_mode) != mode:
        lost.append("mode")
    return ", ".join(lost)


def sync_directory(directory: str) -> None:
    """Make the rename itself durable, where the system allows it."""
    try:
        fd = os.open(directory or ".", os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
