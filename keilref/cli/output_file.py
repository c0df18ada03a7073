"""``-o/--output-file``: one meaning in every command that writes a result.

What the command would write to standard output goes to the file instead,
and the file appears whole when the command has done its work: it is written
beside the target under a temporary name and then put in its place. A run
that fails before it has a result (``keilref: ...`` on stderr), is
interrupted, or crashes leaves the file as it was. Notes and errors, and
``check``'s summary line, stay on the terminal. ``-o -`` is standard output.
"""

from __future__ import annotations

import atexit
import contextlib
import io
import os
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Optional

import typer

from keilref.escaping import shown_name
from keilref.cli.app import EXIT_INTERRUPTED, Failed, fail

OutputFileOption = Annotated[
    Optional[Path],
    typer.Option(
        "--output-file",
        "-o",
        "--output",
        metavar="FILE",
        help="Write the output to FILE instead of standard output, replaced whole when the command is done "
        "(a run that fails or is interrupted leaves it as it was).",
        show_default=False,
    ),
]


def output_path(path: Path | None) -> Path | None:
    """The file ``-o`` names; ``None`` for standard output (no option, or ``-``)."""
    if path is None or str(path) == "-":
        return None
    return path


class OutputFile:
    """The file being written: beside its target under a temporary name until
    :meth:`commit` puts it in place, so it is never half a result.

    A target that is not a regular file (``/dev/null``, a named pipe) is
    written directly: it cannot be replaced, and has no old text to keep. A
    symbolic link is followed: the file it names gets the result, and the
    link stays a link.
    """

    def __init__(self, path: Path) -> None:
        self._name = os.fspath(path)
        self._path = os.path.realpath(self._name)
        self._tmp: str | None = None
        self._mode: int | None = None
        try:
            st = os.stat(self._path)
        except FileNotFoundError:
            st = None
        except OSError as e:
            fail(f"{shown_name(self._name)}: cannot write: {e.strerror or e}")
        if st is not None and stat.S_ISDIR(st.st_mode):
            fail(f"{shown_name(self._name)}: cannot write: it is a directory")
        try:
            if st is not None and not stat.S_ISREG(st.st_mode):
                self.binary = open(self._path, "wb")  # noqa: SIM115 - closed by commit or discard
            else:
                fd, self._tmp = tempfile.mkstemp(
                    prefix=".keilref-", suffix=Path(self._path).suffix, dir=os.path.dirname(self._path) or "."
                )
                self.binary = os.fdopen(fd, "wb")
                if st is not None:
                    self._mode = stat.S_IMODE(st.st_mode)
        except OSError as e:
            fail(f"{shown_name(self._name)}: cannot write: {e.strerror or e}")
        # Written through, so that text and bytes written to the binary stream
        # (a filtered game, verbatim) keep their order.
        self.text = io.TextIOWrapper(self.binary, encoding="utf-8", newline="\n", write_through=True)
        self._done = False
        atexit.register(self.discard)

    def write(self, text: str) -> None:
        self.text.write(text)

    def commit(self) -> None:
        """Put the file in its place."""
        try:
            self.text.close()
            if self._tmp is not None:
                mode = self._mode
                if mode is None:
                    # mkstemp makes the file private; a new file is as readable as any the user writes.
                    umask = os.umask(0)
                    os.umask(umask)
                    mode = 0o666 & ~umask
                os.chmod(self._tmp, mode)
                os.replace(self._tmp, self._path)
            self._done = True
        except OSError as e:
            self.discard()
            fail(f"{shown_name(self._name)}: cannot write: {e.strerror or e}")

    def discard(self) -> None:
        """Leave the target as it was."""
        if self._done:
            return
        self._done = True
        with contextlib.suppress(OSError, ValueError):
            self.text.close()
        if self._tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(self._tmp)


def _keeps(e: BaseException) -> bool:
    """Whether the command had a result when it ended with ``e``: an exit that
    is not a failure (``fail``) or an interruption, whatever its code
    (``check`` exits 1 for failing games and 2 for a missing path, with the
    others' report written)."""
    return isinstance(e, typer.Exit) and not isinstance(e, Failed) and e.exit_code != EXIT_INTERRUPTED


@contextlib.contextmanager
def output_to(path: Path | None) -> Iterator[OutputFile | None]:
    """Standard output goes to ``path`` (when given) while the command runs;
    the file is committed or discarded as the command ends."""
    path = output_path(path)
    if path is None:
        yield None
        return
    target = OutputFile(path)
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

