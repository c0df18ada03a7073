"""The ``keilref`` command: a thin layer over the library.

Errors go to stderr as one line; results go to stdout. Exit codes are the
named constants below.
"""

from __future__ import annotations

import contextlib
import errno
import multiprocessing
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
import types
from typing import TYPE_CHECKING, Annotated, Any, NoReturn, Optional

import typer
from typer._click.exceptions import NoArgsIsHelpError, UsageError
from typer._click import Command, Context
from typer.core import TyperArgument, TyperGroup

from keilref import formatting, report
from keilref.check import (
    MAX_JOBS,
    STDIN,
    PathError,
    Source,
    bounded_jobs,
    check_sources,
    expand_paths,
    read_source,
)
from keilref.console import ChoiceError, Interrupts, ascii_fallback, choose, excerpt
from keilref.core import Color, format_number
from keilref.errors import ConfigError, RecordError
from keilref.record import Record
from keilref.rules import ButtonRule, all_rules, find_rules
from keilref.printer import LINE_FORMATS, VerdictPrinter, printed_checks
from keilref.verdict import Replay, Status, replay

if TYPE_CHECKING:
    from keilref.html import HtmlReport

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
        if not standalone_mode:
            return rv
        if rv == EXIT_BROKEN_PIPE:
            # Python would complain on exit about flushing the closed pipe.
            _silence_stdout()
        sys.exit(rv or 0)


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
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _print_version(value: bool) -> None:
    if value:
        from keilref import __version__
        from keilref.kernel import is_compiled

        typer.echo(f"keilref {__version__} (engine kernel: {'compiled' if is_compiled() else 'Python'})")
        raise typer.Exit(EXIT_OK)


@app.callback()
def _options(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_print_version, is_eager=True, help="Print the version and exit."),
    ] = False,
) -> None:
    """The referee for Keil: was every turn legal, and is the declared result right?"""

RulesOption = Annotated[
    Optional[str],
    typer.Option(
        "--rules",
        metavar="RULES",
        help=f"Replay under these rules, whatever the record says ({', '.join(r.name for r in all_rules())}).",
    ),
]
GameOption = Annotated[int, typer.Option("--game", min=1, metavar="N", help="Which game of the file (1-based).")]
UnicodeOption = Annotated[bool, typer.Option("--unicode", help="Draw ● ○ · instead of X O .")]
TurnOption = Annotated[
    Optional[int], typer.Option("--turn", min=0, metavar="N", help="Position after this turn (default: the end).")
]

CHECK_FORMATS = (*report.FORMATS, "html")
"""``check``'s formats: the streamed ones, and the HTML report written at the end."""

JobsOption = Annotated[
    Optional[int],
    typer.Option(
        "--jobs", "-j", min=1, max=MAX_JOBS, metavar="N", help="Processes to use (default, and at most: all cores)."
    ),
]


def _workers(jobs: int | None) -> int:
    """The processes to use; more than the cores is lowered, and said."""
    workers, note = bounded_jobs(jobs)
    if note is not None:
        typer.echo(f"keilref: {note}", err=True)
    return workers


def fail(message: str, code: int = EXIT_USAGE) -> NoReturn:
    typer.echo(f"keilref: {message}", err=True)
    raise typer.Exit(code)


def say_at(file: str, line: int, column: int, message: str) -> None:
    """``keilref: FILE:LINE:COLUMN: message`` on stderr, then the source line and a caret."""
    typer.echo(f"keilref: {file}:{line}:{column}: {message}", err=True)
    for text in excerpt(file, line, column):
        typer.echo(text, err=True)


def fail_at(file: str, line: int, column: int, message: str, code: int) -> NoReturn:
    say_at(file, line, column, message)
    raise typer.Exit(code)


def _check_rules(rules: str | None) -> str | None:
    """The rule set an option names, whatever its case; a usage error otherwise."""
    if rules is None:
        return None
    return _choose(rules, sorted(r.name for r in all_rules()), "--rules")


def _choose(value: str, choices: Sequence[str], option: str) -> str:
    try:
        return choose(value, choices, option)
    except ChoiceError as e:
        fail(str(e))


PathsArgument = Annotated[
    list[str],
    typer.Argument(metavar="PATH...", help="Files, directories (searched for *.keil), or - for stdin."),
]


@app.command()
def check(
    paths: Annotated[
        Optional[list[str]],
        typer.Argument(
            metavar="PATH...",
            help="Files, directories (searched for *.keil), or - for stdin (the default when it is not a terminal).",
            show_default=False,
        ),
    ] = None,
    format: Annotated[
        str, typer.Option("--format", "-f", metavar="FORMAT", help=f"{', '.join(CHECK_FORMATS)}.")
    ] = "text",
    strict: Annotated[
        bool, typer.Option("--strict", help="Count unfinished games and games with a warning as failures.")
    ] = False,
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="Print only the failing games and the summary (JUnit lists every game).")
    ] = False,
    rules: RulesOption = None,
    jobs: JobsOption = None,
    output: Annotated[
        Optional[Path],
        typer.Option("--output", "-o", metavar="FILE", help="With --format html: write the report to this file."),
    ] = None,
    scheduler: Annotated[
        Optional[str],
        typer.Option(
            "--scheduler", metavar="ADDRESS", help="Check on the running Dask cluster there (needs keilref[dask])."
        ),
    ] = None,
) -> None:
    """Check every game: one verdict per game; exit 1 if any failed."""
    format = _choose(format, CHECK_FORMATS, "--format")
    if output is not None and format != "html":
        fail("--output is for --format html; the other formats go to stdout")
    rules = _check_rules(rules)
    if not paths:
        if sys.stdin.isatty():
            fail("no PATH given: name files or directories, or pipe records to standard input")
        paths = [STDIN]
    missing: list[PathError] = []

    def report_missing(e: PathError) -> None:
        missing.append(e)
        typer.echo(f"keilref: {e}", err=True)

    sources = expand_paths(paths, compressed=True, on_error=report_missing)
    if not sources:
        raise typer.Exit(EXIT_USAGE)
    workers = _workers(jobs)
    cluster = _cluster(scheduler)
    page: HtmlReport | None = None
    if format == "html":
        from keilref.html import HtmlReport

        page = HtmlReport(rules=rules, strict=strict)
    # For a page the printer only counts (jsonl writes no summary of its own).
    printer = VerdictPrinter(
        lambda text: typer.echo(text, nl=False),
        "jsonl" if page else format,
        strict=strict,
        quiet=quiet,
        summary_path=os.environ.get("GITHUB_STEP_SUMMARY") or None,
        warn=lambda message: typer.echo(f"keilref: {message}", err=True),
    )
    interrupted = False
    try:
        # An HTML report to a file leaves the terminal free for a progress bar.
        with Interrupts() as interrupts, progress_bar(sources, streaming=not (page and output)) as advance:
            if cluster is None and page is None and format in LINE_FORMATS:
                # Each verdict printed in the worker that judged it (the same lines).
                for item in printed_checks(sources, format, strict=strict, rules=rules, jobs=workers, on_progress=advance):
                    with interrupts.atomic():
                        printer.add_printed(item)
            else:
                if cluster is None:
                    verdicts = check_sources(sources, rules=rules, jobs=workers, on_progress=advance)
                else:
                    verdicts = cluster.check_on_cluster(sources, str(scheduler), rules=rules, on_progress=advance)
                for v in verdicts:
                    with interrupts.atomic():  # a verdict is counted and printed together
                        if page is not None:
                            page.add(v)
                            printer.count(v)
                        else:
                            printer.add(v)
    except KeyboardInterrupt:
        interrupted = True
    except Exception as e:
        if cluster is None or not isinstance(e, cluster.ClusterError):
            raise
        fail(str(e))
    if page is not None and not interrupted:
        _write_page(page, output)
        raise typer.Exit(EXIT_USAGE if missing else EXIT_FAILED if printer.failed else EXIT_OK)
    summary = printer.close(interrupted=interrupted)
    if interrupted and format != "text":
        typer.echo(f"keilref: {summary}", err=True)
    if interrupted:
        raise typer.Exit(EXIT_INTERRUPTED)
    if missing:
        raise typer.Exit(EXIT_USAGE)
    raise typer.Exit(EXIT_FAILED if printer.failed else EXIT_OK)


def _write_page(page: HtmlReport, output: Path | None) -> None:
    """The HTML report to its file (replaced whole, never half written) or to stdout."""
    if output is None:
        page.write(sys.stdout)
        return
    try:
        page.write_file(output)
    except OSError as e:
        fail(f"{output}: cannot write: {e.strerror or e}")


def _cluster(scheduler: str | None) -> types.ModuleType | None:
    """``keilref.dask`` when a scheduler is given, or a one-line error if the extra is missing."""
    if scheduler is None:
        return None
    try:
        from keilref import dask as cluster
    except ImportError as e:
        missing = (e.name or "dask").partition(".")[0]
        fail(f"--scheduler needs Dask ({missing} is not installed): pip install 'keilref[dask]'")
    return cluster


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


def _load(file: str, game: int) -> Record:
    """The ``game``-th record of ``file``, or a one-line error and exit."""
    if Path(file).is_dir():
        fail(f"{file}: is a directory; give one record file")
    try:
        (source,) = expand_paths([file])
    except PathError as e:
        fail(str(e))
    count = 0
    for item in read_source(source):
        count += 1
        if count == game:
            if isinstance(item, RecordError):
                fail_at(file, item.line, item.column, f"game {game}: {item.message}", EXIT_FAILED)
            return item
    fail(f"{file}: there is no game {game} (the file holds {count})")


def _replay(file: str, record: Record, game: int, turn: int | None, rules: str | None) -> Replay:
    rules = _check_rules(rules)
    if turn is not None and turn > len(record.turns):
        fail(f"{file}: game {game} has {len(record.turns)} turns; there is no turn {turn}")
    try:
        rep = replay(record, rules=rules, stop=turn)
    except RecordError as e:
        fail_at(file, e.line, e.column, f"game {game}: {e.message}", EXIT_FAILED)
    if rep.illegal is not None:
        t = rep.illegal
        say_at(
            file,
            t.line,
            t.column,
            f"game {game}: {report.turn_name(t.turn, t.point)} is illegal ({t.reason}); showing the position before it",
        )
    return rep


def _position(file: str, game: int, turn: int | None, rules: str | None, *, header: bool = True) -> Replay:
    """Load, replay and print the header line: what show, score and legal share."""
    record = _load(file, game)
    rep = _replay(file, record, game, turn, rules)
    if header:
        typer.echo(_header(file, game, rep, record))
    return rep


PICTURE_FORMATS = ("text", "svg", "png")
PictureFormatOption = Annotated[
    str,
    typer.Option("--format", "-f", metavar="FORMAT", help="text, svg, or png (png needs: pip install 'keilref[png]')."),
]
OutputOption = Annotated[
    Optional[Path],
    typer.Option("--output", "-o", metavar="FILE", help="Write the picture to this file (default: stdout)."),
]


def _check_picture_format(format: str, output: Path | None) -> str:
    """The chosen picture format, checked against ``--output`` and the terminal."""
    format = _choose(format, PICTURE_FORMATS, "--format")
    if output is not None and format == "text":
        fail("--output is for --format svg or png; the text goes to stdout")
    if output is None and format == "png" and sys.stdout.isatty():
        fail("a PNG is not for the terminal: give -o FILE, or redirect the output")
    return format


def _picture(rep: Replay, format: str, output: Path | None, *, territory: bool, notes: Sequence[str] = ()) -> NoReturn:
    """Write the position as SVG or PNG, then exit as the text form would."""
    from keilref import svg

    text = svg.board(rep.game, territory=territory, illegal=rep.illegal, notes=notes)
    data = text.encode()
    if format == "png":
        try:
            data = svg.to_png(text)
        except svg.PngUnavailable as e:
            fail(str(e))
    if output is None:
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
    else:
        try:
            output.write_bytes(data)
        except OSError as e:
            fail(f"{output}: cannot write: {e.strerror or e}")
    _exit_for(rep)


def _header(file: str, game: int, rep: Replay, record: Record) -> str:
    s = rep.setup
    g = rep.game
    return (
        f"{file} game {game}: rules {s.rules}, size {s.size}, komi {format_number(s.komi)}, "
        f"after turn {g.turn} of {len(record.turns)}"
    )


def _color(c: Color | None) -> str:
    return "nobody" if c is None else c.name.capitalize()


@app.command()
def show(
    file: Annotated[str, typer.Argument(metavar="FILE", help="A record file.")],
    game: GameOption = 1,
    turn: TurnOption = None,
    unicode: UnicodeOption = False,
    territory: Annotated[bool, typer.Option("--territory", help="Mark owned empty points x / o.")] = False,
    rules: RulesOption = None,
    format: PictureFormatOption = "text",
    output: OutputOption = None,
) -> None:
    """Draw the position after a turn (by default, the end)."""
    format = _check_picture_format(format, output)
    rep = _position(file, game, turn, rules, header=format == "text")
    if format != "text":
        _picture(rep, format, output, territory=territory)
    g = rep.game
    typer.echo(g.diagram(unicode=unicode, territory=territory), nl=False)
    moves = g.moves
    if moves:
        mover = Color.BLACK if len(moves) % 2 == 1 else Color.WHITE
        typer.echo(f"last turn: {len(moves)} {moves[-1]} ({_color(mover)})")
    else:
        typer.echo("last turn: none")
    if g.captures:
        p = g.prisoners
        typer.echo(f"captured: by Black {p[Color.BLACK]}, by White {p[Color.WHITE]}")
    if g.rules.button is ButtonRule.ABSENT:
        pass  # the game has no button at all (Dehil)
    elif not g.button_in_play:
        typer.echo("button: not in play")
    else:
        typer.echo(f"button: {'taken by ' + _color(g.button_holder) if g.button_holder else 'not taken'}")
    if rep.ended:
        typer.echo("game over")
    elif g.is_over:
        typer.echo(f"play stopped at two passes; {_color(g.to_move)} may resume it")
    else:
        typer.echo(f"to move: {_color(g.to_move)}")
    _exit_for(rep)


def _exit_for(rep: Replay) -> NoReturn:
    """A faulty record is a failure even when its legal part could be shown."""
    raise typer.Exit(EXIT_FAILED if rep.illegal is not None else EXIT_OK)


@app.command()
def score(
    file: Annotated[str, typer.Argument(metavar="FILE", help="A record file.")],
    game: GameOption = 1,
    turn: TurnOption = None,
    unicode: UnicodeOption = False,
    rules: RulesOption = None,
    format: PictureFormatOption = "text",
    output: OutputOption = None,
) -> None:
    """Count the position after a turn (by default, the end): stones, territory, komi, button, result."""
    format = _check_picture_format(format, output)
    rep = _position(file, game, turn, rules, header=format == "text")
    if format != "text":
        counted = rep.game.score()
        what = "result" if rep.game.is_over else "count so far"
        notes = [f"Black {format_number(counted.black)}, White {format_number(counted.white)}: {what} {counted.result}"]
        _picture(rep, format, output, territory=True, notes=notes)
    g = rep.game
    typer.echo(g.diagram(unicode=unicode, territory=True), nl=False)
    if not g.is_over:
        typer.echo("the game has not ended: this counts the current position")
    counted = g.score()
    typer.echo(
        report.score_table(counted, half_point_in_play=g.button_in_play or counted.half_point is not None),
        nl=False,
    )
    for line in g.explain_score():
        typer.echo(line)
    _exit_for(rep)


@app.command()
def legal(
    file: Annotated[str, typer.Argument(metavar="FILE", help="A record file.")],
    game: GameOption = 1,
    turn: TurnOption = None,
    rules: RulesOption = None,
) -> None:
    """List the legal turns in the position after a turn (by default, the end)."""
    rep = _position(file, game, turn, rules)
    g = rep.game
    if rep.ended:
        typer.echo("the game is over: no turn is legal")
    else:
        typer.echo(f"{_color(g.to_move)} to move")
        typer.echo(report.legal_listing(g.legal_moves(), g.piece_prefixes), nl=False)
    _exit_for(rep)


@app.command()
def fmt(
    paths: PathsArgument,
    check: Annotated[bool, typer.Option("--check", help="Change nothing; exit 1 if a file would change.")] = False,
    diff: Annotated[
        bool, typer.Option("--diff", help="Change nothing; print a unified diff; exit 1 if a file would change.")
    ] = False,
    in_place: Annotated[bool, typer.Option("--in-place", "-i", help="Rewrite the files (atomically).")] = False,
    force: Annotated[
        bool,
        typer.Option(
            "--force",
            help="With --in-place: rewrite read-only or hard-linked files too, or ones whose owner or mode bits "
            "cannot be kept.",
        ),
    ] = False,
) -> None:
    """Rewrite records in the canonical layout (to stdout by default)."""
    if in_place and (check or diff):
        fail("--in-place excludes --check and --diff")
    if force and not in_place:
        fail("--force only applies to --in-place")
    if in_place and "-" in paths:
        fail("standard input cannot be rewritten in place (leave out --in-place to print)")
    try:
        sources = expand_paths(paths, matches=False)
    except PathError as e:
        fail(str(e))
    failed = False
    for source in sources:
        try:
            outcome = formatting.format_source(source, write=in_place, force=force)
        except formatting.FormatError as e:
            typer.echo(f"keilref: {e}", err=True)
            if e.line is not None and e.column is not None:
                for text in excerpt(source.name, e.line, e.column):
                    typer.echo(text, err=True)
            failed = True
            continue
        if diff:
            if outcome.changed:
                typer.echo(outcome.diff().encode("utf-8"), nl=False)  # bytes: CRLF lines stay CRLF
                failed = True
        elif check:
            if outcome.changed:
                typer.echo(f"would reformat {source.name}")
                failed = True
        elif in_place:
            for note in outcome.notes:
                typer.echo(f"keilref: note: {note}", err=True)
            if outcome.changed:
                typer.echo(f"reformatted {source.name}", err=True)
        else:
            typer.echo(outcome.data, nl=False)
    raise typer.Exit(EXIT_FAILED if failed else EXIT_OK)


@app.command()
def generate(
    games: Annotated[int, typer.Option("--games", "-n", min=1, metavar="N", help="How many games.")] = 10,
    seed: Annotated[int, typer.Option("--seed", metavar="N", help="Same seed, same games.")] = 0,
    size: Annotated[
        Optional[list[int]], typer.Option("--size", metavar="N", help="Board size; repeat to cycle.")
    ] = None,
    rules: Annotated[
        Optional[list[str]], typer.Option("--rules", metavar="RULES", help="Rule set; repeat to cycle.")
    ] = None,
    fill: Annotated[
        float,
        typer.Option("--fill", min=0.0, max=10.0, metavar="X", help="Turns before passing, per board point."),
    ] = 1.3,
) -> None:
    """Write seeded random legal games, ended by two passes, as records."""
    from keilref.generate import random_games, to_record
    from keilref.writer import write_record

    rule_names = tuple(_check_rules(name) or name for name in rules or ["keil"])
    sizes = tuple(size or [7])
    for name in rule_names:
        for s in sizes:
            try:
                find_rules(name).check_size(s)
            except ConfigError as e:
                fail(str(e))
    for i, g in enumerate(random_games(seed, games, rules=rule_names, sizes=sizes, fill=fill), 1):
        if i > 1:
            typer.echo()
        typer.echo(write_record(to_record(g, event=f"keilref generate --seed {seed}, game {i}")), nl=False)


@app.command()
def stats(
    paths: Annotated[list[str], typer.Argument(help="Files, directories (searched for *.keil), or - for stdin.")],
    format: Annotated[str, typer.Option("--format", "-f", help="text or json.")] = "text",
    plot: Annotated[
        Optional[Path], typer.Option("--plot", help="Also draw the win rates and lengths to this SVG file.")
    ] = None,
    rules: RulesOption = None,
    jobs: JobsOption = None,
) -> None:
    """Statistics of an archive: results by rules, size and komi; lengths; fair komi."""
    from keilref import stats_report
    from keilref.stats import archive_stats

    if format not in stats_report.STATS_FORMATS:
        fail(f"unknown format {format!r} (expected {', '.join(stats_report.STATS_FORMATS)})")
    _check_rules(rules)
    try:
        sources = expand_paths(paths)
    except PathError as e:
        fail(str(e))
    with progress_bar(sources, streaming=False) as advance:
        result = archive_stats(sources, rules=rules, jobs=_workers(jobs), on_progress=advance)
    if plot is not None:
        from keilref.plot import write_plot

        try:
            write_plot(result, plot)
        except OSError as e:
            fail(f"{plot}: cannot write the plot: {e.strerror or e}", EXIT_FAILED)
    typer.echo(stats_report.to_text(result) if format == "text" else stats_report.to_json(result), nl=False)


@app.command(name="filter")
def filter_games(
    paths: Annotated[list[str], typer.Argument(help="Files, directories (searched for *.keil), or - for stdin.")],
    status: Annotated[
        Optional[list[str]], typer.Option("--status", help="Only games with this status; repeat for any of several.")
    ] = None,
    rules: Annotated[
        Optional[list[str]], typer.Option("--rules", help="Only games under these rules; repeat for any of several.")
    ] = None,
    size: Annotated[
        Optional[list[int]], typer.Option("--size", min=1, help="Only games of this size; repeat for any of several.")
    ] = None,
    player: Annotated[
        Optional[list[str]],
        typer.Option("--player", help="Only games where Black or White contains NAME (any case); repeat for all."),
    ] = None,
    tag: Annotated[
        Optional[list[str]],
        typer.Option("--tag", help="Only games with this tag and exact value, as Name=value; repeat for all."),
    ] = None,
    min_turns: Annotated[
        int, typer.Option("--min-turns", min=0, help="Only games with at least this many turns replayed.")
    ] = 0,
    rule_sensitive: Annotated[
        bool, typer.Option("--rule-sensitive", help="Only games whose winner differs under the sibling rule set.")
    ] = False,
    duplicates: Annotated[
        bool, typer.Option("--duplicates", help="Only games with the rules, size and turns of an earlier one.")
    ] = False,
    unique: Annotated[
        bool, typer.Option("--unique", help="Leave out games with the rules, size and turns of an earlier one.")
    ] = False,
    output: Annotated[
        Optional[Path], typer.Option("--output", "-o", help="Write the games to this file, not stdout.")
    ] = None,
    jobs: JobsOption = None,
) -> None:
    """Write the matching games verbatim, comments and all; say where each duplicate first appeared."""
    from keilref.filter import Criteria, Repeats, run_filter

    if duplicates and unique:
        fail("--duplicates and --unique exclude each other")
    if paths.count("-") > 1:
        fail("standard input can be read only once")
    known_statuses = [s.value for s in Status]
    for s in status or []:
        if s not in known_statuses:
            fail(f"unknown status {s!r} (expected {', '.join(known_statuses)})")
    for r in rules or []:
        _check_rules(r)
    tags = []
    for t in tag or []:
        name, eq, value = t.partition("=")
        if not eq or not name:
            fail(f"--tag {t!r} is not Name=value")
        tags.append((name, value))
    try:
        sources = expand_paths(paths)
    except PathError as e:
        fail(str(e))
    criteria = Criteria(
        statuses=frozenset(status or ()),
        rules=frozenset(rules or ()),
        sizes=frozenset(size or ()),
        players=tuple(player or ()),
        tags=tuple(tags),
        min_turns=min_turns,
        rule_sensitive=rule_sensitive,
    )
    repeats = Repeats.DUPLICATES if duplicates else Repeats.UNIQUE if unique else Repeats.KEEP

    def note(text: str) -> None:
        typer.echo(f"keilref: {text}", err=True)

    try:
        out = open(output, "wb") if output is not None else contextlib.nullcontext(sys.stdout.buffer)
    except OSError as e:
        fail(f"{output}: cannot write: {e.strerror or e}")
    with out as stream:
        summary = run_filter(
            sources, criteria, repeats=repeats, jobs=_workers(jobs), out=stream, note=note
        )
        stream.flush()  # the games before the summary, on a terminal too
    for message in summary.unreadable:
        note(message)
    what = f"{summary.written} of {summary.games} games written"
    if repeats is not Repeats.KEEP:
        what += f"; {summary.duplicates} duplicate{'' if summary.duplicates == 1 else 's'}"
    note(what)
    raise typer.Exit(EXIT_FAILED if summary.unreadable else EXIT_OK)


@app.command(name="import")
def import_matches(
    paths: Annotated[
        list[str],
        typer.Argument(
            metavar="PATH...",
            help="Matches of the abstract_games server (*.match.json, *.replay.json, *.moves.json), "
            "directories searched for them, or - for stdin.",
        ),
    ],
    output: Annotated[
        str,
        typer.Option(
            "--output",
            "-o",
            metavar="DIR|FILE",
            help="One STEM.keil per match in this directory (one that exists, or a name ending in /), "
            "or all in this file.",
        ),
    ],
) -> None:
    """Import matches of the abstract_games server as .keil records, one game per match."""
    from keilref.importing import import_sources, write_imported

    if paths.count("-") > 1:
        fail("standard input can be read only once")
    try:
        sources = expand_paths(paths, suffix=".match.json", matches=True)
    except PathError as e:
        fail(str(e))
    summary = import_sources(sources)
    for file, fault in summary.errors:
        typer.echo(f"{file}:{fault.line}:{fault.column}: error: {fault.message}", err=True)
    if summary.imported:
        try:
            written = write_imported(summary.imported, output)
        except OSError as e:
            fail(f"{output}: cannot write: {e.strerror or e}", EXIT_FAILED)
        where = str(written[0]) if len(written) == 1 else f"{len(written)} files in {output}"
        n = len(summary.imported)
        typer.echo(f"keilref: {n} match{'' if n == 1 else 'es'} imported into {where}", err=True)
    else:
        typer.echo("keilref: no match imported", err=True)
    raise typer.Exit(EXIT_FAILED if summary.errors or not summary.imported else EXIT_OK)


EXPORT_FORMATS = ("abstract-games",)


@app.command()
def export(
    paths: PathsArgument,
    to: Annotated[str, typer.Option("--to", metavar="FORMAT", help="abstract-games: the server's stored move list.")],
    output: Annotated[
        Optional[str],
        typer.Option(
            "--output",
            "-o",
            metavar="DIR|FILE",
            help="One STEM.moves.json per game in this directory (one that exists, or a name ending in /), "
            "or the one game in this file "
            "(default: stdout, one JSON object per line).",
        ),
    ] = None,
) -> None:
    """Write Keil games in another program's format: the abstract_games server's move list."""
    import json

    from keilref.abstract_games import dump_moves
    from keilref.importing import export_sources, is_directory_target

    _choose(to, EXPORT_FORMATS, "--to")
    if paths.count("-") > 1:
        fail("standard input can be read only once")
    try:
        sources = expand_paths(paths, matches=True)
    except PathError as e:
        fail(str(e))
    done, failed = export_sources(sources, read_source)
    for file, game, message in failed:
        typer.echo(f"keilref: {file}: game {game}: cannot export: {message}", err=True)
    if output is None:
        for item in done:
            typer.echo(json.dumps(item.moves, ensure_ascii=False))
    elif is_directory_target(output):
        folder = Path(output)
        folder.mkdir(parents=True, exist_ok=True)
        counts: dict[str, int] = {}
        for item in done:
            counts[item.source] = counts.get(item.source, 0) + 1
        for item in done:
            stem = "stdin" if item.source == STDIN else Path(item.source).name.split(".")[0]
            name = stem if counts[item.source] == 1 else f"{stem}-{item.game}"
            (folder / f"{name}.moves.json").write_text(dump_moves(item.moves), encoding="utf-8")
    else:
        if len(done) != 1:
            fail(f"{output}: a move list holds one game, and there are {len(done)}: give a directory")
        Path(output).write_text(dump_moves(done[0].moves), encoding="utf-8")
    raise typer.Exit(EXIT_FAILED if failed else EXIT_OK)


@app.command(name="rules")
def list_rules() -> None:
    """List the rule sets the referee knows."""
    for r in all_rules():
        typer.echo(f"{r.name:<10} {r.title} (sizes {r.min_size}..{r.max_size}, default {r.default_size})")


def main() -> None:
    """Entry point for the console script and ``python -m keilref``."""
    ascii_fallback(sys.stdout, sys.stderr)
    try:
        app(prog_name="keilref")
    except KeyboardInterrupt:
        pass
    except SystemExit as e:
        if e.code != EXIT_INTERRUPTED:
            raise
    # Interrupted. Worker processes stopped mid-batch leave the pool's threads
    # unjoinable, and a normal exit would wait for them for ever; workers still
    # waiting for a batch would outlive this process and hold its output open.
    for child in multiprocessing.active_children():
        child.kill()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(EXIT_INTERRUPTED)


__all__ = ["EXIT_FAILED", "EXIT_OK", "EXIT_USAGE", "app", "main", "Path", "Source"]
