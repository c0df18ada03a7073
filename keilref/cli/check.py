"""``keilref check``: every game's verdict, in the chosen format, then the summary."""

from __future__ import annotations

import os
import sys
import types
from collections.abc import Callable
from typing import Annotated, NoReturn, Optional, TextIO

import typer

from keilref.referee.batches import check_sources
from keilref.records.sources import STDIN, PathError, Source, forget_stdin, keep_stdin
from keilref.cli.terminal import Interrupts, workflow_commands
from keilref.formats import FORMATS, OutputFormat
from keilref.formats.output import VerdictPrinter, printed_checks
from keilref.escaping import shown_name

from keilref.project import Project, Sources
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
    JobsOption,
    RulesOption,
    StdinFilenameOption,
    _check_rules,
    _choose,
    _workers,
    fail,
    load_project,
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
        Optional[str], typer.Option("--format", "-f", metavar="FORMAT", help=f"{', '.join(FORMATS)} (default: text).")
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
    output: OutputFileOption = None,
    scheduler: Annotated[
        Optional[str],
        typer.Option(
            "--scheduler", metavar="ADDRESS", help="Check on the running Dask cluster there (needs keilref[dask])."
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
) -> None:
    """Check every game: one verdict per game; exit 1 if any failed."""
    project = load_project()
    # The command line first, then the project's settings, then keilref's defaults.
    format = _choose(format if format is not None else project.format or "text", tuple(FORMATS), "--format")
    strict = strict if strict is not None else bool(project.strict)
    jobs = jobs if jobs is not None else project.jobs
    chosen = FORMATS[format]
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

    found = project.sources_for(
        paths,
        encoding=encoding,
        exclude=exclude,
        extend_exclude=extend_exclude,
        stdin_filename=stdin_filename,
        rules=rules,
        compressed=True,
        on_error=report_missing,
        on_note=say_note,
    )
    screen = sys.stdout  # the terminal, while -o takes standard output
    with output_to(output, found.sources) as target:
        _check(
            found, missing, project, chosen, screen, target, rules=rules, strict=strict, quiet=quiet, jobs=jobs,
            scheduler=scheduler, show_settings=show_settings, exit_zero=exit_zero,
        )


def _check(
    found: Sources,
    missing: list[PathError],
    project: Project,
    chosen: OutputFormat,
    screen: TextIO,
    target: OutputFile | None,
    *,
    rules: str | None,
    strict: bool,
    quiet: bool,
    jobs: int | None,
    scheduler: str | None,
    show_settings: bool,
    exit_zero: bool,
) -> NoReturn:
    format = chosen.name
    sources = found.sources
    if show_settings:
        _print_settings(
            project, sources, rules=rules, strict=strict, format=format, jobs=jobs, encoding=found.encoding,
            exclude=found.exclude,
        )
        raise typer.Exit(EXIT_USAGE if missing else EXIT_OK)
    if not sources:
        raise Failed(EXIT_USAGE)  # each path's error is said
    if chosen.rereads and any(s.is_stdin for s in sources):
        keep_stdin()
    try:
        workers = _workers(jobs)
        cluster = _cluster(scheduler)
        # The annotations pass the guard that keeps every other line from starting with '::'.
        printed: Callable[[str], object] = (
            workflow_commands(screen) if chosen.runner_commands else (lambda text: typer.echo(text, nl=False))
        )
        printer = VerdictPrinter(
            printed if target is None else target.write,
            format,
            strict=strict,
            quiet=quiet,
            summary_path=os.environ.get("GITHUB_STEP_SUMMARY") or None,
            warn=lambda message: typer.echo(f"keilref: {message}", err=True),
            rules=rules,
            sources=sources,
        )
        interrupted = False
        try:
            # A report to a file leaves the terminal free for a progress bar.
            with Interrupts() as interrupts, progress_bar(sources, streaming=target is None) as advance:
                if cluster is None and chosen.kind == "line":
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
                            printer.add(v)
        except KeyboardInterrupt:
            interrupted = True
        except Exception as e:
            if cluster is None or not isinstance(e, cluster.ClusterError):
                raise
            fail(str(e))
        if interrupted and target is not None:
            # The file is left as it was rather than half a report: the summary says how far the check got.
            summary = printer.summary(interrupted=True)
        else:
            summary = printer.close(interrupted=interrupted)
        if interrupted and (format != "text" or target is not None):
            typer.echo(f"keilref: {summary}", err=True)
        elif not interrupted and target is not None:
            # The report went to a file: the terminal still says how the check went.
            typer.echo(summary, file=screen)
        elif not interrupted and format != "text" and sys.stderr.isatty():
            # Standard output holds the document, which the summary must not
            # break; a pipeline reading standard error gets nothing it did not ask for.
            typer.echo(f"keilref: {summary}", err=True)
        if interrupted:
            raise typer.Exit(EXIT_INTERRUPTED)
        if missing:
            raise typer.Exit(EXIT_USAGE)
        raise typer.Exit(EXIT_FAILED if printer.failed and not exit_zero else EXIT_OK)
    finally:
        forget_stdin()  # what keep_stdin kept, however the check ended


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


def _print_settings(project: Project, sources: list[Source], **effective: object) -> None:
    """``check --show-settings``: each setting's value and where it comes from, then each file's rules."""
    where = shown_name(str(project.path)) if project.path is not None else "none found (keilref defaults)"
    typer.echo(f"settings: {where}")
    for name, value in effective.items():
        if name == "rules":
            continue
        key = name.replace("_", "-")
        origin = "settings" if key in project.given else "command line or default"
        shown = list(value) if isinstance(value, tuple) else value
        typer.echo(f"{key} = {shown!r} ({origin})")
    for source in sources:
        if effective.get("rules") is not None:
            typer.echo(f"{shown_name(source.name)}: rules {effective['rules']} (--rules)")
            continue
        rules, why = project.rules_for(source.name)
        typer.echo(f"{shown_name(source.name)}: rules {rules or 'from each game'} ({why})")
