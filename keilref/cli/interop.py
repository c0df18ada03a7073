"""``keilref import`` and ``keilref export``: games to and from other programs' formats."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from keilref.cli.app import EXIT_FAILED, EXIT_OK, PathsArgument, _choose, app, fail
from keilref.escaping import shown_name
from keilref.records.sources import STDIN, PathError, expand_paths, read_source


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
    from keilref.referee.importing import import_sources, write_imported

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

    from keilref.records.abstract_games import dump_moves
    from keilref.referee.importing import export_sources, is_directory_target

    _choose(to, EXPORT_FORMATS, "--to")
    if paths.count("-") > 1:
        fail("standard input can be read only once")
    try:
        sources = expand_paths(paths, matches=True)
    except PathError as e:
        fail(str(e))
    done, failed = export_sources(sources, read_source)
    for file, game, message in failed:
        typer.echo(f"keilref: {shown_name(file)}: game {game}: cannot export: {message}", err=True)
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
