"""``keilref check``: every game's verdict, in the chosen format, then the summary."""

from __future__ import annotations

import os
import sys
from pathlib import Path
import types
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from keilref.referee.batches import check_sources
from keilref.records.sources import STDIN, PathError, expand_paths
from keilref.cli.terminal import Interrupts
from keilref.escaping import shown_name
from keilref.formats.output import LINE_FORMATS, VerdictPrinter, printed_checks

if TYPE_CHECKING:
    from keilref.formats.html import HtmlReport

from keilref.cli.app import (
    CHECK_FORMATS,
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_USAGE,
    JobsOption,
    RulesOption,
    _check_rules,
    _choose,
    _workers,
    fail,
    progress_bar,
    say_note,
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

    sources = expand_paths(paths, compressed=True, on_error=report_missing, on_note=say_note)
    if not sources:
        raise typer.Exit(EXIT_USAGE)
    workers = _workers(jobs)
    cluster = _cluster(scheduler)
    page: HtmlReport | None = None
    if format == "html":
        from keilref.formats.html import HtmlReport

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
        fail(f"{shown_name(str(output))}: cannot write: {e.strerror or e}")


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
