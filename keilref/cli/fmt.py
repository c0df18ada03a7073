"""``keilref fmt``: records in the canonical layout, checked, shown as a diff, or rewritten."""

from __future__ import annotations

import functools
import os
import sys
from typing import TYPE_CHECKING, Annotated

import typer

from keilref.records import tidy
from keilref.records.sources import PathError
from keilref.cli.terminal import excerpt
from keilref.escaping import runner_command_line, shown_name
from keilref.records.inplace import symlink_refused

if TYPE_CHECKING:
    pass

from keilref.cli.app import (
    EncodingOption,
    ExcludeOption,
    ExtendExcludeOption,
    ForceExcludeOption,
    StdinFilenameOption,

    EXIT_FAILED,
    EXIT_OK,
    PathsArgument,
    fail,
    load_sources,
    say_note,
    stdin_named,
    app,
)


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
    follow_symlinks: Annotated[
        bool,
        typer.Option(
            "--follow-symlinks",
            help="With --in-place: rewrite the file a symbolic link given by name points to (the link stays a link).",
        ),
    ] = False,
    fix: Annotated[
        bool,
        typer.Option(
            "--fix",
            help="Apply the fixes with one right answer first, as check --fix does (with --diff: show them too).",
        ),
    ] = False,
    exclude: ExcludeOption = None,
    extend_exclude: ExtendExcludeOption = None,
    encoding: EncodingOption = None,
    stdin_filename: StdinFilenameOption = None,
    force_exclude: ForceExcludeOption = False,
) -> None:
    """Rewrite records in the canonical layout (to stdout by default).

    A file read with --encoding is written back in that encoding.
    """
    if in_place and (check or diff):
        fail("--in-place excludes --check and --diff")
    if force and not in_place:
        fail("--force only applies to --in-place")
    if follow_symlinks and not in_place:
        fail("--follow-symlinks only applies to --in-place")
    if in_place and "-" in paths:
        fail("standard input cannot be rewritten in place (leave out --in-place to print)")
    stdin_named(paths, stdin_filename)
    from keilref.referee.fixes import fix_utf8  # the referee, only when asked for

    failed = False
    if in_place and not follow_symlinks:
        # Like a file's, a directory's link given by name is followed only on
        # request: the files in it lie outside the path as written.
        linked = [p for p in paths if os.path.isdir(p) and os.path.islink(p.rstrip("/" + os.sep) or p)]
        for path in linked:
            typer.echo(f"keilref: {symlink_refused(path, directory=True)}", err=True)
        paths = [p for p in paths if p not in linked]
        failed = bool(linked)
    try:
        _, found = load_sources(
            paths,
            encoding=encoding,
            exclude=exclude,
            extend_exclude=extend_exclude,
            stdin_filename=stdin_filename,
            matches=False,
            on_note=say_note,
            force_exclude=force_exclude,
        )
    except PathError as e:
        fail(str(e))
    sources = found.sources
    if "-" in paths and not any(s.is_stdin for s in sources) and not (check or diff):
        # Standard input under an excluded name is an editor's buffer: handed back as it came, as ruff does.
        typer.echo(sys.stdin.buffer.read(), nl=False)
    for source in sources:
        try:
            outcome = tidy.format_source(
                source,
                write=in_place,
                force=force,
                follow_symlinks=follow_symlinks,
                fix=functools.partial(fix_utf8, name=source.name, rules=source.rules) if fix else None,
            )
        except tidy.FormatError as e:
            typer.echo(f"keilref: {e}", err=True)
            # Standard input cannot be read again for the line (the file of its name may say something else).
            if e.line is not None and e.column is not None and not source.is_stdin:
                for text in excerpt(source.name, e.line, e.column):
                    typer.echo(text, err=True)
            failed = True
            continue
        if diff:
            if outcome.changed:
                failed = True
                text = outcome.diff()
                if _held_back(outcome, text, "its diff", "see it with --check, or rewrite it with --in-place"):
                    continue
                # Bytes in the file's encoding, CRLF lines kept: what patch applies to the file as it is.
                typer.echo(outcome.diff_data(), nl=False)
        elif check:
            if outcome.changed:
                typer.echo(f"would reformat {shown_name(source.name)}")
                failed = True
        elif in_place:
            for message in outcome.notes:
                say_note(message)
            if outcome.changed:
                typer.echo(f"reformatted {shown_name(source.name)}", err=True)
        elif _held_back(outcome, outcome.text, "its canonical text", "rewrite it with --in-place"):
            failed = True
        else:
            typer.echo(outcome.data, nl=False)
    raise typer.Exit(EXIT_FAILED if failed else EXIT_OK)


def _held_back(outcome: tidy.Formatted, text: str, what: str, instead: str) -> bool:
    """Whether ``text``, made from a record, is kept from standard output (and
    said why): a CI runner would run a line of it as a workflow command.

    Record text is printed exactly or not at all: changing it could change its verdict.
    """
    if runner_command_line(text) is None:
        return False
    # The record's own line, which the user can find; the canonical text's when only it has one.
    line = runner_command_line(outcome.original.decode(outcome.encoding, "surrogateescape"))
    if line is None:
        line = runner_command_line(outcome.text) or 1
    typer.echo(
        f"keilref: {shown_name(outcome.name)}:{line}: {what} is not printed: a CI runner would run this line "
        f"as a workflow command ('::' at its start); {instead}",
        err=True,
    )
    return True
