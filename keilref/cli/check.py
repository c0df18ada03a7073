"""``keilref check``: every game's verdict, in the chosen format, then the summary."""

from __future__ import annotations

import dataclasses
import os
import sys
import types
import dataclasses
from dataclasses import dataclass
from collections.abc import Callable
from typing import Annotated, NoReturn, Optional, TextIO

import typer

from keilref.referee.batches import judged_batches
from keilref.records.sources import STDIN, PathError, Source, forget_stdin, keep_stdin
from keilref.cli.terminal import Interrupts, workflow_commands
from keilref.formats import FORMATS, CheckOptions
from keilref.formats.tally import Tally
from keilref import wording
from keilref.escaping import shown_name

from keilref.project import Found, Project
from keilref.cli.output_file import OutputFile, OutputFileOption, output_to
from keilref.cli.app import (
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_USAGE,
    EncodingOption,
    ExcludeOption,
    Failed,
    ExtendExcludeOption,
    ForceExcludeOption,
    JobsOption,
    RulesOption,
    StdinFilenameOption,
    _check_rules,
    completes,
    _choose,
    _workers,
    fail,
    load_sources,
    progress_bar,
    say_note,
    stdin_named,
    app,
)


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
        Optional[str],
        typer.Option(
            "--format",
            "-f",
            metavar="FORMAT",
            autocompletion=completes(lambda: tuple(FORMATS)),
            help=f"{', '.join(FORMATS)} (default: text).",
        ),
    ] = None,
    strict: Annotated[
        Optional[bool],
        typer.Option(
            "--strict/--no-strict",
            help="Count unfinished games and games with a warning as failures (default: no, or the project's setting).",
            show_default=False,
        ),
    ] = None,
    quiet: Annotated[
        bool,
        typer.Option(
            "--quiet",
            "-q",
            help="Print only the failing games and the summary"
            f" ({', '.join(f.name for f in FORMATS.values() if f.lists_passing)} list every game).",
        ),
    ] = False,
    rules: RulesOption = None,
    jobs: JobsOption = None,
    encoding: EncodingOption = None,
    exclude: ExcludeOption = None,
    extend_exclude: ExtendExcludeOption = None,
    stdin_filename: StdinFilenameOption = None,
    force_exclude: ForceExcludeOption = False,
    output: OutputFileOption = None,
    scheduler: Annotated[
        Optional[str],
        typer.Option(
            "--scheduler", metavar="ADDRESS", help="Check on the running Dask cluster there (needs keilref[dask])."
        ),
    ] = None,
    column: Annotated[
        Optional[str],
        typer.Option(
            "--column",
            metavar="NAME",
            help="Read each file as a table (Parquet, Arrow IPC or JSON Lines) whose column NAME holds record text; "
            "each row is reported as FILE#row=N (Parquet and Arrow need keilref[arrow]).",
        ),
    ] = None,
    show_settings: Annotated[
        bool,
        typer.Option("--show-settings", help="Print the settings that apply to each file, and check nothing."),
    ] = False,
    exit_zero: Annotated[
        bool,
        typer.Option(
            "--exit-zero",
            help="Exit 0 even when games fail (the report still says so); a usage error still exits 2.",
        ),
    ] = False,
    fix: Annotated[
        bool,
        typer.Option(
            "--fix",
            help="First apply the fixes with one right answer (a misspelt tag name, the result the moves give) "
            "to the files, then check them.",
        ),
    ] = False,
    diff: Annotated[
        bool,
        typer.Option("--diff", help="With --fix: change nothing; print the fixes as a unified diff; exit 1 if any."),
    ] = False,
) -> None:
    """Check every game: one verdict per game; exit 1 if any failed."""
    given = _Given(format=format, strict=strict, jobs=jobs, encoding=encoding, exclude=exclude,
                   extend_exclude=extend_exclude)
    if format is not None:
        format = _choose(format, tuple(FORMATS), "--format")
    rules = _check_rules(rules)
    stdin_named(paths, stdin_filename)
    if not paths:
        if sys.stdin.isatty():
            fail("no PATH given: name files or directories, or pipe records to standard input")
        paths = [STDIN]
    missing: list[PathError] = []

    def report_missing(e: PathError) -> None:
        missing.append(e)
        typer.echo(f"keilref: {e}", err=True)

    project, found = load_sources(
        paths,
        encoding=encoding,
        exclude=exclude,
        extend_exclude=extend_exclude,
        stdin_filename=stdin_filename,
        rules=rules,
        compressed=True,
        force_exclude=force_exclude,
        on_error=report_missing,
        on_note=say_note,
    )
    if column is not None:
        if fix or diff:
            fail(wording.COLUMN_NOT_FIXED)
        found = dataclasses.replace(found, sources=[dataclasses.replace(s, column=column) for s in found.sources])
    # The command line first, then the run's settings, then keilref's defaults.
    format = _choose(format if format is not None else project.format or "text", tuple(FORMATS), "--format")
    strict = strict if strict is not None else bool(project.strict)
    jobs = jobs if jobs is not None else project.jobs
    if not show_settings and not found.sources and not missing and found.excluded:
        say_note(f"every path given is excluded by the settings (--force-exclude): {len(found.excluded)} left out")
        raise typer.Exit(EXIT_OK)
    if fix or diff:
        _fix(found.sources, rules=rules, diff=diff, fix=fix)
    screen = sys.stdout  # the terminal, while -o takes standard output
    with output_to(output, found.sources) as target:
        if show_settings:
            _print_settings(project, found, given, rules=rules, format=format, strict=strict, jobs=jobs)
            raise typer.Exit(EXIT_USAGE if missing else EXIT_OK)
        options = CheckOptions(
            format=format, strict=strict, quiet=quiet, rules=rules, jobs=jobs, encoding=encoding,
            exclude=tuple(exclude or ()), scheduler=scheduler, show_settings=show_settings, exit_zero=exit_zero,
            summary_path=os.environ.get("GITHUB_STEP_SUMMARY") or None, warn=_warn,
            sources={s.name: s for s in found.sources},
        )
        _check(found.sources, missing, options, screen, target)


def _warn(message: str) -> None:
    typer.echo(f"keilref: {message}", err=True)


def _check(
    sources: list[Source],
    missing: list[PathError],
    options: CheckOptions,
    screen: TextIO,
    target: OutputFile | None,
) -> NoReturn:
    chosen = FORMATS[options.format]
    if not sources:
        raise Failed(EXIT_USAGE)  # each path's error is said
    missing_extra = chosen.writer_class().unavailable()
    if missing_extra is not None:
        fail(missing_extra)
    if chosen.binary:
        if target is None:
            fail(wording.binary_needs_file(chosen.name))
        options = dataclasses.replace(options, binary_output=target.binary)
    if chosen.rereads and any(s.is_stdin for s in sources):
        keep_stdin()
    try:
        workers = _workers(options.jobs)
        cluster = _cluster(options.scheduler)
        # The annotations pass the guard that keeps every other line from starting with '::'.
        printed: Callable[[str], object] = (
            workflow_commands(screen) if chosen.runner_commands else (lambda text: typer.echo(text, nl=False))
        )
        tally = Tally(printed if target is None else target.write, options)
        interrupted = False
        try:
            # A report to a file leaves the terminal free for a progress bar.
            with Interrupts() as interrupts, progress_bar(sources, streaming=target is None) as advance:
                if cluster is None:
                    # Each verdict made ready for the writer in the worker that judged it.
                    judged = judged_batches(
                        sources, tally.in_worker(), rules=options.rules, jobs=workers, on_progress=advance,
                        on_crash=_warn,
                    )
                    for items in judged:
                        with interrupts.atomic():  # a batch's verdicts are counted and printed together
                            tally.take_all(items)
                else:
                    # The same, each verdict made ready for the writer on the cluster's worker.
                    judged = cluster.judged_on_cluster(
                        sources, str(options.scheduler), tally.in_worker(), rules=options.rules,
                        on_progress=advance, on_crash=_warn,
                    )
                    for items in judged:
                        with interrupts.atomic():
                            tally.take_all(items)
        except KeyboardInterrupt:
            interrupted = True
        except Exception as e:
            if cluster is None or not isinstance(e, cluster.ClusterError):
                raise
            fail(str(e))
        if interrupted and target is not None:
            # The file is left as it was rather than half a report: the summary says how far the check got.
            summary = tally.summary(interrupted=True).line
        else:
            summary = tally.close(interrupted=interrupted).line
        said = tally.writer.writes_summary
        if interrupted and (not said or target is not None):
            typer.echo(f"keilref: {summary}", err=True)
        elif not interrupted and target is not None:
            # The report went to a file: the terminal still says how the check went.
            typer.echo(summary, file=screen)
        elif not interrupted and not said and sys.stderr.isatty():
            # Standard output holds the document, which the summary must not
            # break; a pipeline reading standard error gets nothing it did not ask for.
            typer.echo(f"keilref: {summary}", err=True)
        if interrupted:
            raise typer.Exit(EXIT_INTERRUPTED)
        if missing:
            raise typer.Exit(EXIT_USAGE)
        raise typer.Exit(EXIT_FAILED if tally.failed and not options.exit_zero else EXIT_OK)
    finally:
        forget_stdin()  # what keep_stdin kept, however the check ended


def _fix(sources: list[Source], *, rules: str | None, diff: bool, fix: bool) -> None:
    """``--fix``: the files fixed before they are checked; with ``--diff``, the fixes shown and nothing else done."""
    from keilref.cli.fix import fix_sources

    if not fix:
        fail("--diff only applies to --fix")
    changed, failed = fix_sources(sources, rules=rules, diff=diff)
    if diff:
        raise typer.Exit(EXIT_FAILED if changed or failed else EXIT_OK)


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


@dataclass(frozen=True)
class _Given:
    """The settings the command line gave (``None``: not given)."""

    format: str | None
    strict: bool | None
    jobs: int | None
    encoding: str | None
    exclude: list[str] | None
    extend_exclude: list[str] | None


def _print_settings(run: Project, found: Found, given: _Given, *, rules: str | None, **effective: object) -> None:
    """``check --show-settings``: a block for each settings file that governs
    a path given, in the order of its first path: the file, each setting's
    value and where it comes from, then the rules of each of its records.
    The first block also holds the run's own settings (``format``,
    ``strict``, ``jobs``), which come from :meth:`~keilref.project.Projects.for_run`."""
    blocks = [(p, f.sources) for p, f in found.governed] or [(run, [])]
    for i, (project, sources) in enumerate(blocks):
        where = shown_name(str(project.path)) if project.path is not None else "none found (keilref defaults)"
        typer.echo(f"settings: {where}")
        if i == 0:
            for key, value in effective.items():
                typer.echo(f"{key} = {value!r} ({_origin(run, key, getattr(given, key) is not None)})")
        _print_search(project, given)
        for source in sources:
            if rules is not None:
                typer.echo(f"{shown_name(source.name)}: rules {rules} (--rules)")
                continue
            chosen, why = project.rules_for(source.name)
            typer.echo(f"{shown_name(source.name)}: rules {chosen or 'from each game'} ({why})")


def _print_search(project: Project, given: _Given) -> None:
    """How a project's records are read: encoding and excludes, each with its source."""
    encoding = given.encoding or project.encoding or "utf-8"
    typer.echo(f"encoding = {encoding!r} ({_origin(project, 'encoding', given.encoding is not None)})")
    exclude = project.base_exclude(given.exclude)
    typer.echo(f"exclude = {list(exclude)!r} ({_origin(project, 'exclude', given.exclude is not None)})")
    extend = [*project.extend_exclude, *(given.extend_exclude or ())]
    origins = [
        *([_origin(project, "extend-exclude", False)] if "extend-exclude" in project.given else []),
        *(["command line"] if given.extend_exclude else []),
    ]
    typer.echo(f"extend-exclude = {extend!r} ({', '.join(origins) or 'default'})")


def _origin(project: Project, key: str, on_command_line: bool) -> str:
    """Where a setting's value comes from, as ``--show-settings`` says it."""
    if on_command_line:
        return "command line"
    if key in project.given:
        return f"settings: {shown_name(str(project.path))}"
    return "default"
