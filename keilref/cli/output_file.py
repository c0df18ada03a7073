"""Every file keilref writes for the user: ``-o/--output-file``, the plot,
``import`` and ``export`` (``fmt --in-place`` rewrites a file through
:mod:`keilref.records.inplace`, whose metadata and sync rules this shares).

What the command would write to standard output goes to the file instead,
and the file appears whole when the command has done its work: it is written
beside the target under a temporary name (:data:`~keilref.files.OUTPUT_TEMP_PREFIX`,
a random part, :data:`~keilref.files.OUTPUT_TEMP_SUFFIX`: no suffix a directory
search reads), synced to disk and then put in its place. A run that fails
before it has a result (``keilref: ...`` on stderr), is interrupted, or
crashes leaves the file as it was; so does a full disk. Notes and errors,
and ``check``'s summary line, stay on the terminal. ``-o -`` is standard
output.

Before anything is written, the target is checked (:class:`Rules`):

- it is never one of the files the command reads, by identity (device and
  inode: under any spelling of its path, through a symbolic or a hard link),
  since the output would replace what it was made from. ``filter`` is the
  one command that may write over its input: it reads every game first;
- a file with other hard links is refused: a new file put in its place would
  leave the other names with the old text;
- the new file keeps the old one's owner, group and mode, or is refused;
- for ``import`` and ``export``, an existing file is refused unless
  ``--force``: keilref cannot tell a file it wrote from one a person wrote,
  so it takes every existing file for the user's. A file named inside a
  directory target is a name in that directory: a symbolic link there is
  not followed out of it (with ``--force`` the link itself is replaced).
  Several files are written all or none (:func:`write_files`).
"""

from __future__ import annotations

import atexit
import contextlib
import errno
import io
import os
import stat
import sys
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, BinaryIO, Optional

import typer

from keilref import wording
from keilref.escaping import shown_name
from keilref.files import OUTPUT_TEMP_PREFIX, OUTPUT_TEMP_SUFFIX
from keilref.records.inplace import copy_metadata, sync_directory
from keilref.records.sources import Source
from keilref.cli.app import EXIT_INTERRUPTED, Failed, fail

OutputFileOption = Annotated[
    Optional[Path],
    typer.Option(
        "--output-file",
        "-o",
        "--output",
        metavar="FILE",
        help="Write the output to FILE instead of standard output, replaced whole when the command is done "
        "(a run that fails or is interrupted leaves it as it was; never one of the files read).",
        show_default=False,
    ),
]

ForceOption = Annotated[
    bool,
    typer.Option(
        "--force",
        help="Replace files that exist already (without it, keilref replaces none: it cannot tell its own from yours).",
    ),
]

Identity = tuple[int, int]
"""A file's device and inode: the file itself, whatever name it is reached by."""


def output_path(path: Path | None) -> Path | None:
    """The file ``-o`` names; ``None`` for standard output (no option, or ``-``)."""
    if path is None or str(path) == "-":
        return None
    return path


def read_files(sources: Iterable[Source]) -> frozenset[Identity]:
    """The files that ``sources`` are read from, by identity; standard input's
    too when it is a file (``< in.keil``), and the file an editor's buffer is
    named after (``--stdin-filename``). Found inside a directory argument or
    named, they are the same files."""
    found: set[Identity] = set()
    for source in sources:
        names = {source.name}
        if source.is_stdin:
            names.discard("-")
            st = _stdin_stat()
            if st is not None and stat.S_ISREG(st.st_mode):
                found.add(_identity(st))
        else:
            names.add(source.where)
        for name in names:
            with contextlib.suppress(OSError, ValueError):
                found.add(_identity(os.stat(name)))
    return frozenset(found)


def _stdin_stat() -> os.stat_result | None:
    try:
        return os.fstat(sys.stdin.fileno())
    except (OSError, ValueError, AttributeError):
        return None  # no descriptor (a test's stream): nothing to compare


def _identity(st: os.stat_result) -> Identity:
    return st.st_dev, st.st_ino


@dataclass(frozen=True)
class Rules:
    """What a command may write over."""

    reads: frozenset[Identity] = frozenset()
    """The files the command reads (:func:`read_files`): never written over."""
    keep_existing: bool = False
    """Whether an existing file is the user's, refused unless :attr:`force`
    (``import``, ``export``); otherwise ``-o`` names the file to replace."""
    force: bool = False
    """``--force``: replace an existing file, and one with other hard links."""


class _Refused(Exception):
    """A target that is not written; the message says why, and names it."""


@dataclass(frozen=True)
class _Target:
    """A checked target: where the file goes, and what is there now."""

    name: str
    """As the user gave it, or as it was made from a directory and a stem."""
    path: str
    """Where it is put: the file a link names, or the name in a directory target."""
    before: os.stat_result | None
    """The regular file it replaces, if any."""
    direct: bool = False
    """Not a regular file (``/dev/null``, a named pipe): written, not replaced."""


def _check(name: str, rules: Rules, *, inside: bool) -> _Target:
    """The target ``name`` checked against ``rules``; :class:`_Refused` otherwise.

    ``inside``: ``name`` is an entry of a directory target, whose last part
    is not followed if it is a link.
    """
    shown = shown_name(name)
    try:
        if inside:
            path = os.path.join(os.path.realpath(os.path.dirname(name) or "."), os.path.basename(name))
            st = _stat(path, follow=False)
        else:
            path = os.path.realpath(name)
            st = _stat(path, follow=True)
    except OSError as e:
        raise _Refused(f"{shown}: cannot write: {e.strerror or e}") from None
    if st is None:
        return _Target(name, path, None)
    if stat.S_ISDIR(st.st_mode):
        raise _Refused(f"{shown}: cannot write: it is a directory")
    if _identity(st) in rules.reads:
        raise _Refused(wording.output_is_input(shown))
    if stat.S_ISLNK(st.st_mode):
        if not rules.force:
            raise _Refused(wording.output_is_link(shown))
        return _Target(name, path, None)  # the link is replaced; what it names is not touched
    if not stat.S_ISREG(st.st_mode):
        if inside:
            raise _Refused(f"{shown}: cannot write: not a regular file")
        return _Target(name, path, st, direct=True)
    if rules.keep_existing and not rules.force:
        raise _Refused(wording.output_exists(shown))
    if st.st_nlink > 1 and not rules.force:
        raise _Refused(wording.output_hard_links(shown, st.st_nlink, forceable=rules.keep_existing))
    return _Target(name, path, st)


def _stat(path: str, *, follow: bool) -> os.stat_result | None:
    try:
        return os.stat(path, follow_symlinks=follow)
    except FileNotFoundError:
        return None


class OutputFile:
    """The file being written: beside its target under a temporary name until
    :meth:`commit` puts it in place, so it is never half a result.

    A target that is not a regular file (``/dev/null``, a named pipe) is
    written directly: it cannot be replaced, and has no old text to keep. A
    symbolic link given as the target is followed: the file it names gets
    the result, and the link stays a link. A target refused by ``rules`` is
    a usage error, before anything is written.
    """

    def __init__(self, path: Path | str, rules: Rules = Rules()) -> None:
        try:
            target = _check(os.fspath(path), rules, inside=False)
        except _Refused as e:
            fail(str(e))
        self._start(target, rules)

    @classmethod
    def _checked(cls, target: _Target, rules: Rules) -> OutputFile:
        self = cls.__new__(cls)
        self._start(target, rules)
        return self

    def _start(self, target: _Target, rules: Rules) -> None:
        self._target = target
        self._rules = rules
        self._name = target.name
        self._tmp: str | None = None
        self._done = False
        try:
            if target.direct:
                self.binary: BinaryIO = open(target.path, "wb")  # noqa: SIM115 - closed by commit or discard
            else:
                fd, self._tmp = tempfile.mkstemp(
                    prefix=OUTPUT_TEMP_PREFIX, suffix=OUTPUT_TEMP_SUFFIX, dir=os.path.dirname(target.path) or "."
                )
                self.binary = os.fdopen(fd, "wb")
        except OSError as e:
            fail(f"{shown_name(self._name)}: cannot write: {e.strerror or e}")
        # Written through, so that text and bytes written to the binary stream
        # (a filtered game, verbatim) keep their order.
        self.text = io.TextIOWrapper(self.binary, encoding="utf-8", newline="\n", write_through=True)
        atexit.register(self.discard)

    def write(self, text: str) -> None:
        self.text.write(text)

    def commit(self) -> None:
        """Put the file in its place; a one-line error, the target as it was, otherwise."""
        try:
            self._ready()
            self._put()
        except _Refused as e:
            self.discard()
            fail(str(e))
        except OSError as e:
            self.discard()
            fail(f"{shown_name(self._name)}: cannot write: {e.strerror or e}")

    def _ready(self) -> None:
        """The text on disk, with the owner, group and mode it will have,
        before any name points at it."""
        self.text.flush()
        if self._tmp is None:
            self.text.close()
            return
        fd = self.binary.fileno()
        before = self._target.before
        if before is None:
            # mkstemp makes the file private; a new file is as readable as any the user writes.
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(self._tmp, 0o666 & ~umask)
        else:
            lost = copy_metadata(fd, self._tmp, before)
            if lost and not self._rules.force:
                raise _Refused(wording.output_loses(shown_name(self._name), lost, forceable=self._rules.keep_existing))
        os.fsync(fd)
        self.text.close()

    def _put(self) -> None:
        if self._tmp is None:
            self._done = True
            atexit.unregister(self.discard)
            return
        path = self._target.path
        if self._rules.keep_existing and self._target.before is None and not self._rules.force:
            self._put_new(path)
        else:
            os.replace(self._tmp, path)
        self._tmp = None
        self._done = True
        atexit.unregister(self.discard)
        sync_directory(os.path.dirname(path))

    def _put_new(self, path: str) -> None:
        """Put the file where nothing was, and fail if a file came there since
        it was checked: a link to a new name never replaces one."""
        assert self._tmp is not None
        try:
            os.link(self._tmp, path)
        except FileExistsError:
            raise _Refused(wording.output_exists(shown_name(self._name))) from None
        except OSError as e:
            if e.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EXDEV, errno.EMLINK):
                raise
            # A file system without hard links: checked once more, then renamed.
            if os.path.lexists(path):
                raise _Refused(wording.output_exists(shown_name(self._name))) from None
            os.replace(self._tmp, path)
            return
        os.unlink(self._tmp)

    def discard(self) -> None:
        """Leave the target as it was."""
        if self._done:
            return
        self._done = True
        atexit.unregister(self.discard)
        with contextlib.suppress(OSError, ValueError):
            self.text.close()
        if self._tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(self._tmp)


@dataclass(frozen=True)
class NewFile:
    """One file a command writes, and what it is made from (said when two would have one name)."""

    name: str
    """A path; in a directory target, a name in it."""
    data: bytes
    origin: str


def is_directory_target(output: str) -> bool:
    """Whether ``-o`` names a directory (one that exists, or a name ending in ``/``)."""
    return os.path.isdir(output) or output.endswith(("/", os.sep))


def write_files(files: Sequence[NewFile], rules: Rules, *, directory: str | None = None) -> list[str]:
    """Write every file, all or none, and return their paths.

    First two files with one name (each pair is said) write nothing; then
    every target is checked, and a refusal (each is said) writes nothing.
    Then ``directory`` is made if it is missing, each file is written under
    its temporary name, synced and closed, and only when all are are they
    put in their places. With ``directory``, each name is an entry of it (a link
    there is not followed). A failure is a one-line error and an exit,
    every target as it was.
    """
    paths = [f.name if directory is None else os.path.join(directory, f.name) for f in files]
    problems: list[str] = []
    first: dict[str, int] = {}
    for i, path in enumerate(paths):
        j = first.setdefault(os.path.normcase(os.path.abspath(path)), i)
        if j != i:
            problems.append(wording.output_collision(shown_name(path), shown_name(files[j].origin), shown_name(files[i].origin)))
    targets: list[_Target] = []
    if not problems:
        for path in paths:
            try:
                targets.append(_check(path, rules, inside=directory is not None))
            except _Refused as e:
                problems.append(str(e))
    if problems:
        for message in problems[:-1]:
            typer.echo(f"keilref: {message}", err=True)
        fail(problems[-1])
    if directory is not None:
        try:
            os.makedirs(directory, exist_ok=True)
        except OSError as e:
            fail(f"{shown_name(directory)}: cannot write: {e.strerror or e}")
    opened: list[OutputFile] = []
    current = paths[0] if paths else ""
    try:
        # One at a time, each closed before the next: an archive of many
        # matches holds one descriptor, not one per file.
        for target, file in zip(targets, files, strict=True):
            current = target.name
            out = OutputFile._checked(target, rules)
            opened.append(out)
            out.binary.write(file.data)
            out._ready()
        for out in opened:
            current = out._name
            out._put()
    except _Refused as e:
        _discard(opened)
        fail(str(e))
    except OSError as e:
        _discard(opened)
        fail(f"{shown_name(current)}: cannot write: {e.strerror or e}")
    except BaseException:
        _discard(opened)
        raise
    return paths


def _discard(opened: Sequence[OutputFile]) -> None:
    for out in opened:
        out.discard()


def _keeps(e: BaseException) -> bool:
    """Whether the command had a result when it ended with ``e``: an exit that
    is not a failure (``fail``) or an interruption, whatever its code
    (``check`` exits 1 for failing games and 2 for a missing path, with the
    others' report written)."""
    return isinstance(e, typer.Exit) and not isinstance(e, Failed) and e.exit_code != EXIT_INTERRUPTED


@contextlib.contextmanager
def output_to(path: Path | None, reads: Sequence[Source] = ()) -> Iterator[OutputFile | None]:
    """Standard output goes to ``path`` (when given) while the command runs;
    the file is committed or discarded as the command ends. ``reads``: the
    sources the command reads, none of which the file may be."""
    path = output_path(path)
    if path is None:
        yield None
        return
    target = OutputFile(path, Rules(reads=read_files(reads)))
    try:
        with contextlib.redirect_stdout(target.text):
            yield target
    except BaseException as e:
        if _keeps(e):
            target.commit()
        else:
            target.discard()
        raise
    target.commit()
