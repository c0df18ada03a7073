"""``keilref stats``: what an archive says as a whole."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from keilref.records.sources import PathError, Source

if TYPE_CHECKING:
    pass

from keilref.cli.output_file import NewFile, OutputFileOption, Rules, output_to, read_files, write_files
from keilref.cli.app import (
    EncodingOption,
    ExcludeOption,
    ExtendExcludeOption,
    ForceExcludeOption,
    JobsOption,
    RulesOption,
    StdinFilenameOption,
    _check_rules,
    completes,
    _workers,
    fail,
    load_sources,
    progress_bar,
    say_note,
    stdin_named,
    app,
)


def _stats_formats() -> tuple[str, ...]:
    from keilref.formats import stats_report

    return tuple(stats_report.STATS_FORMATS)


@app.command()
def stats(
    paths: Annotated[list[str], typer.Argument(help="Files, directories (searched for *.keil), or - for stdin.")],
    format: Annotated[
        str,
        typer.Option(
            "--format", "-f", metavar="FORMAT", autocompletion=completes(_stats_formats), help="text or json."
        ),
    ] = "text",
    plot: Annotated[
        Optional[Path], typer.Option("--plot", metavar="FILE", help="Also draw the win rates and lengths to this SVG file.")
    ] = None,
    rules: RulesOption = None,
    jobs: JobsOption = None,
    encoding: EncodingOption = None,
    exclude: ExcludeOption = None,
    extend_exclude: ExtendExcludeOption = None,
    stdin_filename: StdinFilenameOption = None,
    force_exclude: ForceExcludeOption = False,
    output: OutputFileOption = None,
    standings: Annotated[
        bool,
        typer.Option(
            "--standings",
            help="Print each event's standings and crosstable instead, from the games whose verdict is ok; "
            "every other game is listed as not counted, with its reason.",
        ),
    ] = False,
    ratings: Annotated[
        bool,
        typer.Option(
            "--ratings",
            help="Standings, and each player's Elo rating (start 1500, K 32) from the counted games, "
            "in date order.",
        ),
    ] = False,
) -> None:
    """Statistics of an archive: results by rules, size and komi; lengths; fair komi."""
    from keilref.formats import stats_report

    if format not in stats_report.STATS_FORMATS:
        fail(f"unknown format {format!r} (expected {', '.join(stats_report.STATS_FORMATS)})")
    _check_rules(rules)
    stdin_named(paths, stdin_filename)
    try:
        project, found = load_sources(
            paths,
            encoding=encoding,
            exclude=exclude,
            extend_exclude=extend_exclude,
            stdin_filename=stdin_filename,
            rules=rules,
            on_note=say_note,
            force_exclude=force_exclude,
        )
    except PathError as e:
        fail(str(e))
    sources = found.sources
    jobs = jobs if jobs is not None else project.jobs
    with output_to(output, sources):
        _stats(sources, rules=rules, jobs=jobs, format=format, plot=plot, standings=standings or ratings, rate=ratings)


def _stats(
    sources: list[Source],
    *,
    rules: str | None,
    jobs: int | None,
    format: str,
    plot: Path | None,
    standings: bool,
    rate: bool = False,
) -> None:
    from keilref.formats import stats_report
    from keilref.referee.stats import archive_stats

    if standings:
        from keilref.formats import standings_report
        from keilref.referee.batches import check_sources
        from keilref.referee.standings import game_of

        with progress_bar(sources, streaming=False) as advance:
            games = [game_of(v) for v in check_sources(sources, rules=rules, jobs=_workers(jobs), on_progress=advance)]
        writer = standings_report.to_text if format == "text" else standings_report.to_json
        typer.echo(writer(games, rate=rate), nl=False)
        return
    with progress_bar(sources, streaming=False) as advance:
        result = archive_stats(sources, rules=rules, jobs=_workers(jobs), on_progress=advance)
    if plot is not None:
        from keilref.formats.plot import render

        write_files([NewFile(os.fspath(plot), render(result), "the plot")], Rules(reads=read_files(sources)))
    typer.echo(stats_report.to_text(result) if format == "text" else stats_report.to_json(result), nl=False)
