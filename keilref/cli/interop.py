"""``keilref import`` and ``keilref export``: games to and from other programs' formats."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from keilref.cli.app import EXIT_FAILED, EXIT_OK, PathsArgument, _choose, app, completes, fail
from keilref.cli.output_file import ForceOption, NewFile, Rules, is_directory_target, read_files, write_files
from keilref.escaping import json_text, shown_name
from keilref.records.sources import STDIN, PathError, expand_paths, read_source

if TYPE_CHECKING:
    from keilref.referee.importing import Exported, Imported


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
    force: ForceOption = False,
) -> None:
    """Import matches of the abstract_games server as .keil records, one game per match."""
    from keilref.referee.importing import import_sources

    if paths.count("-") > 1:
        fail("standard input can be read only once")
    try:
        sources = expand_paths(paths, suffix=".match.json", matches=True)
    except PathError as e:
        fail(str(e))
    summary = import_sources(sources)
    for file, fault in summary.errors:
        typer.echo(f"{shown_name(file)}:{fault.line}:{fault.column}: error: {fault.message}", err=True)
    if summary.imported:
        rules = Rules(reads=read_files(sources), keep_existing=True, force=force)
        written = _write_imported(summary.imported, output, rules)
        where = shown_name(written[0]) if len(written) == 1 else f"{len(written)} files in {shown_name(output)}"
        n = len(summary.imported)
        typer.echo(f"keilref: {n} match{'' if n == 1 else 'es'} imported into {where}", err=True)
    else:
        typer.echo("keilref: no match imported", err=True)
    raise typer.Exit(EXIT_FAILED if summary.errors or not summary.imported else EXIT_OK)


def _write_imported(imported: Sequence[Imported], output: str, rules: Rules) -> list[str]:
    """The records, all in one file, or one ``STEM.keil`` per match in a
    directory (two matches of one stem are an error, nothing written)."""
    from keilref.records.writer import write_records

    if not is_directory_target(output):
        data = write_records(i.record for i in imported).encode()
        return write_files([NewFile(output, data, "the archive")], rules)
    files = [NewFile(f"{i.stem}.keil", write_records([i.record]).encode(), i.source) for i in imported]
    return write_files(files, rules, directory=output)


EXPORT_FORMATS = ("abstract-games",)


@app.command()
def export(
    paths: PathsArgument,
    to: Annotated[str, typer.Option(
            "--to",
            metavar="FORMAT",
            autocompletion=completes(lambda: EXPORT_FORMATS),
            help="abstract-games: the server's stored move list.",
        ),],
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
    force: ForceOption = False,
) -> None:
    """Write Keil games in another program's format: the abstract_games server's move list."""

    from keilref.referee.importing import export_sources

    _choose(to, EXPORT_FORMATS, "--to")
    if paths.count("-") > 1:
        fail("standard input can be read only once")
    try:
        sources = expand_paths(paths, matches=True)
    except PathError as e:
        fail(str(e))
    done, failed = export_sources(sources, read_source)
    for refused in failed:
        at = "" if refused.line is None else f":{refused.line}:{refused.column}"
        typer.echo(
            f"keilref: {shown_name(refused.source)}{at}: game {refused.game}: cannot export: {refused.message}",
            err=True,
        )
    if output is None:
        for item in done:
            typer.echo(json_text(item.moves))
        where = "standard output"
    else:
        rules = Rules(reads=read_files(sources), keep_existing=True, force=force)
        written = _write_exported(done, output, rules)
        where = shown_name(written[0]) if len(written) == 1 else f"{len(written)} files in {shown_name(output)}"
    # On stderr, as import's summary: standard output may be the move lists themselves.
    n = len(done)
    if n:
        typer.echo(f"keilref: {n} game{'' if n == 1 else 's'} exported to {where}", err=True)
    else:
        typer.echo("keilref: no game exported", err=True)
    raise typer.Exit(EXIT_FAILED if failed else EXIT_OK)


def _write_exported(done: Sequence[Exported], output: str, rules: Rules) -> list[str]:
    """The one game in a file, or each as ``STEM.moves.json`` in a directory
    (``STEM-N`` for game N of a file of several); two games of one name are
    an error, nothing written. The names written, as given."""
    from keilref.records.abstract_games import dump_moves

    if not is_directory_target(output):
        if len(done) != 1:
            fail(f"{shown_name(output)}: a move list holds one game, and there are {len(done)}: give a directory")
        return write_files([NewFile(output, dump_moves(done[0].moves).encode(), done[0].source)], rules)
    counts: dict[str, int] = {}
    for item in done:
        counts[item.source] = counts.get(item.source, 0) + 1
    files = []
    for item in done:
        stem = "stdin" if item.source == STDIN else Path(item.source).name.split(".")[0]
        if counts[item.source] == 1:
            name, origin = stem, item.source
        else:
            name, origin = f"{stem}-{item.game}", f"{item.source} (game {item.game})"
        files.append(NewFile(f"{name}.moves.json", dump_moves(item.moves).encode(), origin))
    return write_files(files, rules, directory=output)
