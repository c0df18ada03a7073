"""The ``keilref`` application: its options, exit codes, and what every command shares.

Errors go to stderr as one line; results go to stdout. Exit codes are the
named constants below.
"""

from __future__ import annotations

import contextlib
import errno
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Annotated, Any, NoReturn, Optional

import typer
from typer._click.exceptions import NoArgsIsHelpError, UsageError
from typer._click import Command, Context
from typer.core import TyperArgument, TyperGroup

from keilref.referee.batches import MAX_JOBS, bounded_jobs
from keilref.records.sources import Source
from keilref.cli.terminal import ChoiceError, choose, excerpt, runner_safe_streams
from keilref.escaping import shown_name
from keilref.engine.rules import all_rules
from keilref.project import Found, Project, ProjectError, Projects, find_sources

if TYPE_CHECKING:
    pass

EXIT_OK = 0
"""No game failed."""
EXIT_FAILED = 1
"""A game failed (mismatch, illegal, error), or a file would be reformatted."""
EXIT_USAGE = 2
"""The command line was wrong: no such path, a bad option value."""

EXIT_INTERRUPTED = 130
"""Ctrl-C: the check stopped part way (128 + SIGINT, as the shell reports it)."""

EXIT_BROKEN_PIPE = 141
"""The reader went away (``keilref check ... | head``): the check did not finish,
so neither 0 nor 1 would be true; 128 + SIGPIPE, as the shell reports it."""


def _broken_pipe(e: BaseException | None) -> bool:
    return isinstance(e, OSError) and e.errno == errno.EPIPE


class _PlainArgument(TyperArgument):
    """An argument shown in help by its metavar alone (``PATH...``), not its Python type."""

    def display_type_rich(self, ctx: Context) -> str | None:
        return None

    def _usage_display_name(self) -> str:
        name = self.metavar or self.name or ""
        return name if self.required else f"[{name}]"


class _OneLineErrors(TyperGroup):
    """Usage errors as one line on stderr (``keilref: ...``), exit code 2."""

    def get_command(self, ctx: Context, cmd_name: str) -> Command | None:
        command = super().get_command(ctx, cmd_name)
        for param in command.params if command is not None else ():
            if type(param) is TyperArgument:
                param.__class__ = _PlainArgument
        return command

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        windows_expand_args: bool = True,
        **extra: Any,
    ) -> Any:
        # Every line printed, by any command or message, never one a CI runner would run.
        with runner_safe_streams():
            rv = self._main(args, prog_name, complete_var, windows_expand_args, **extra)
        if not standalone_mode:
            return rv
        if rv == EXIT_BROKEN_PIPE:
            # Python would complain on exit about flushing the closed pipe.
            _silence_stdout()
        sys.exit(rv or 0)

    def _main(
        self,
        args: Sequence[str] | None,
        prog_name: str | None,
        complete_var: str | None,
        windows_expand_args: bool,
        **extra: Any,
    ) -> Any:
        """The command's exit code, its usage errors and lost output said on one line."""
        try:
            rv = super().main(args, prog_name, complete_var, False, windows_expand_args, **extra)
        except SystemExit as e:
            if not _broken_pipe(e.__context__):
                raise
            rv = EXIT_BROKEN_PIPE
        except BrokenPipeError:
            rv = EXIT_BROKEN_PIPE
        except OSError as e:
            if e.errno not in _OUTPUT_ERRNOS:
                raise
            # The output cannot be written (a full disk): say so once, where it can still be read.
            _silence_stdout()
            typer.echo(f"keilref: cannot write the output: {e.strerror or e}", err=True)
            rv = EXIT_USAGE
        except NoArgsIsHelpError as e:
            e.show()
            rv = EXIT_USAGE
        except UsageError as e:
            where = f" (see '{e.ctx.command_path} --help')" if e.ctx is not None else ""
            typer.echo(f"keilref: {e.format_message()}{where}", err=True)
            rv = EXIT_USAGE
        return rv


_OUTPUT_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO})
"""Write errors that mean the output is lost, not that keilref is wrong."""


def _silence_stdout() -> None:
    """Send what stdout still buffers to /dev/null, so exiting does not fail on it again."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError):
        pass


app = typer.Typer(
    cls=_OneLineErrors,
    name="keilref",
    help="The referee for Keil: was every turn legal, and is the declared result right?",
    no_args_is_help=True,
    # Typer's --install-completion and --show-completion; `keilref completion
    # SHELL` prints the same script for a user to put where their shell reads it.
    add_completion=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _print_version(value: bool) -> None:
    if value:
        from keilref import __version__
        from keilref.referee.native import describe_build

        typer.echo(f"keilref {__version__} ({describe_build()})")
        raise typer.Exit(EXIT_OK)


@app.callback()
def _options(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_print_version, is_eager=True, help="Print the version and exit."),
    ] = False,
) -> None:
    """The referee for Keil: was every turn legal, and is the declared result right?"""

def completes(choices: Callable[[], Sequence[str]]) -> Callable[[str], list[str]]:
    """A shell completer offering each choice that begins with what is typed
    (ignoring case, as the choice itself is read); ``choices`` is called at
    completion time, so it reads the registry as it then stands."""

    def complete(incomplete: str) -> list[str]:
        return [c for c in choices() if c.casefold().startswith(incomplete.casefold())]

    return complete


def rule_names() -> list[str]:
    """Every rule set's name, as ``--rules`` takes it."""
    return [r.name for r in all_rules()]


complete_rules = completes(rule_names)

RulesOption = Annotated[
    Optional[str],
    typer.Option(
        "--rules",
        metavar="RULES",
        autocompletion=complete_rules,
        help="Replay under this rule set each game of its family, and each game without a known Rules tag; "
        "a game of another family keeps its own rules, with a warning "
        f"({', '.join(r.name for r in all_rules())}).",
    ),
]
GameOption = Annotated[int, typer.Option("--game", min=1, metavar="N", help="Which game of the file (1-based).")]
UnicodeOption = Annotated[bool, typer.Option("--unicode", help="Draw ● ○ · instead of X O .")]
TurnOption = Annotated[
    Optional[int], typer.Option("--turn", min=0, metavar="N", help="Position after this turn (default: the end).")
]

def _encoding_value(value: str | None) -> str | None:
    from keilref.records.sources import check_encoding

    if value is None:
        return None
    try:
        # UTF-8 by its name, not None: given on the command line, it overrides the project's encoding.
        return check_encoding(value) or "utf-8"
    except ValueError as e:
        raise typer.BadParameter(str(e)) from None


EncodingOption = Annotated[
    Optional[str],
    typer.Option(
        "--encoding",
        metavar="CODEC",
        callback=_encoding_value,
        help="Read records written in this encoding (cp1252, latin-1...) instead of UTF-8.",
    ),
]


ExcludeOption = Annotated[
    Optional[list[str]],
    typer.Option(
        "--exclude",
        metavar="GLOB",
        help="Leave out of directory searches what matches (a name, or a path below the directory); "
        "replaces the default, hidden files and directories (.*). Repeat for several.",
    ),
]
ExtendExcludeOption = Annotated[
    Optional[list[str]],
    typer.Option(
        "--extend-exclude", metavar="GLOB", help="Leave this out too, keeping the default. Repeat for several."
    ),
]


ForceExcludeOption = Annotated[
    bool,
    typer.Option(
        "--force-exclude",
        help="Leave out what the excludes match even among the files named on the command line "
        "(as pre-commit names them); without it, a file given by name is always read.",
    ),
]


StdinFilenameOption = Annotated[
    Optional[str],
    typer.Option(
        "--stdin-filename",
        metavar="PATH",
        help="The file standard input holds (an editor's buffer, a pre-commit stage): "
        "standard input is reported under its name and given its project settings.",
    ),
]


def stdin_named(paths: Sequence[str] | None, stdin_filename: str | None) -> None:
    """A usage error when ``--stdin-filename`` names standard input that is not read."""
    if stdin_filename is not None and paths and "-" not in paths:
        fail("--stdin-filename names standard input, which is read only when - is a PATH")
    if stdin_filename is not None and not stdin_filename.strip():
        fail("--stdin-filename needs a file's name")


def _jobs_value(value: int | None) -> int | None:
    # Click's own range check words it as "Input should be greater than or equal to 1".
    if value is not None and not 1 <= value <= MAX_JOBS:
        raise typer.BadParameter(f"{value} is not a number of processes: give 1 to {MAX_JOBS:,}")
    return value


JobsOption = Annotated[
    Optional[int],
    typer.Option(
        "--jobs",
        "-j",
        metavar="N",
        callback=_jobs_value,
        help=f"Processes to use, 1 to {MAX_JOBS:,} (default, and at most: all cores).",
    ),
]


def _workers(jobs: int | None) -> int:
    """The processes to use; more than the cores is lowered, and said."""
    workers, note = bounded_jobs(jobs)
    if note is not None:
        typer.echo(f"keilref: {note}", err=True)
    return workers


class Failed(typer.Exit):
    """The command could not do its work, and said why on stderr: it has no
    result, so an ``-o`` file is left as it was."""


def fail(message: str, code: int = EXIT_USAGE) -> NoReturn:
    typer.echo(f"keilref: {message}", err=True)
    raise Failed(code)


def load_project(path: str | None = None) -> Project:
    """The settings that govern ``path`` (the working directory's when none
    is given), or a one-line usage error and exit 2."""
    try:
        return Projects().in_folder() if path is None else Projects().of(path)
    except ProjectError as e:
        fail(str(e))


def load_sources(
    paths: Sequence[str], *, stdin_filename: str | None = None, **options: Any
) -> tuple[Project, Found]:
    """A run's own settings (:meth:`Projects.for_run`) and the records
    ``paths`` name, each under its own project's settings
    (:func:`~keilref.project.find_sources`, which takes ``options``); a
    settings file that cannot be used is a one-line usage error and exit 2."""
    projects = Projects()
    try:
        run = projects.for_run(paths, stdin_filename)
        return run, find_sources(paths, projects=projects, stdin_filename=stdin_filename, **options)
    except ProjectError as e:
        fail(str(e))


def say_note(message: str) -> None:
    """``keilref: note: message`` on stderr: something done that the user should know of."""
    typer.echo(f"keilref: note: {message}", err=True)


def say_at(file: str, line: int, column: int, message: str) -> None:
    """``keilref: FILE:LINE:COLUMN: message`` on stderr, then the source line and a caret."""
    typer.echo(f"keilref: {shown_name(file)}:{line}:{column}: {message}", err=True)
    for text in excerpt(file, line, column):
        typer.echo(text, err=True)


def fail_at(file: str, line: int, column: int, message: str, code: int) -> NoReturn:
    say_at(file, line, column, message)
    raise Failed(code)


def _check_rules(rules: str | None) -> str | None:
    """The rule set an option names, whatever its case; a usage error otherwise."""
    if rules is None:
        return None
    return _choose(rules, sorted(r.name for r in all_rules()), "--rules", near_miss=_mistyped)


def _mistyped(value: str, name: str) -> bool:
    """Whether ``value`` may be a mistyped rule set ``name``: at most one
    letter more or fewer. A rule set's name is a game's, and a name two
    letters shorter is another game: ``go`` is Go, not ``yugo``."""
    return abs(len(value) - len(name)) <= 1


def _choose(
    value: str, choices: Sequence[str], option: str, *, near_miss: Callable[[str, str], bool] | None = None
) -> str:
    try:
        return choose(value, choices, option, near_miss=near_miss)
    except ChoiceError as e:
        fail(str(e))


PathsArgument = Annotated[
    list[str],
    typer.Argument(metavar="PATH...", help="Files, directories (searched for *.keil), or - for stdin."),
]


@contextlib.contextmanager
def progress_bar(sources: list[Source], *, streaming: bool = True) -> Iterator[Callable[[int], None] | None]:
    """A progress bar on stderr, only when a person is watching a terminal.

    Not when the verdicts themselves go to that terminal (``streaming``):
    they show the progress already, and a bar would be drawn in between them.
    """
    if (
        not sys.stderr.isatty()
        or (streaming and sys.stdout.isatty())
        or os.environ.get("CI")
        or os.environ.get("TERM") == "dumb"
    ):
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TimeRemainingColumn

    sizes = [s.size() for s in sources]
    total = None if None in sizes else sum(s or 0 for s in sizes)
    columns = (TextColumn("checking"), BarColumn(), DownloadColumn(), TimeRemainingColumn())
    with Progress(*columns, console=Console(stderr=True), transient=True) as progress:
        task = progress.add_task("check", total=total)
        yield lambda n: progress.advance(task, n)
