"""``keilref filter``: the games that match, written verbatim."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from keilref.records.sources import PathError
from keilref.referee.verdict import Status

if TYPE_CHECKING:
    pass

from keilref.cli.output_file import OutputFileOption, output_to
from keilref.cli.app import (
    EXIT_FAILED,
    EXIT_OK,
    EncodingOption,
    ExcludeOption,
    ExtendExcludeOption,
    ForceExcludeOption,
    JobsOption,
    StdinFilenameOption,
    _choose,
    _check_rules,
    complete_rules,
    _workers,
    fail,
    load_sources,
    say_note,
    stdin_named,
    app,
)


@app.command(name="filter")
def filter_games(
    paths: Annotated[list[str], typer.Argument(help="Files, directories (searched for *.keil), or - for stdin.")],
    status: Annotated[
        Optional[list[str]], typer.Option("--status", metavar="STATUS", help="Only games with this status; repeat for any of several.")
    ] = None,
    rules: Annotated[
        Optional[list[str]], typer.Option("--rules", metavar="RULES", autocompletion=complete_rules, help="Only games under these rules; repeat for any of several.")
    ] = None,
    size: Annotated[
        Optional[list[int]], typer.Option("--size", min=1, metavar="N", help="Only games of this size; repeat for any of several.")
    ] = None,
    player: Annotated[
        Optional[list[str]],
        typer.Option("--player", metavar="NAME", help="Only games where Black or White contains NAME (any case); repeat for all."),
    ] = None,
    tag: Annotated[
        Optional[list[str]],
        typer.Option("--tag", metavar="NAME=VALUE", help="Only games with this tag and exact value, as Name=value; repeat for all."),
    ] = None,
    min_turns: Annotated[
        int, typer.Option("--min-turns", min=0, metavar="N", help="Only games with at least this many turns replayed.")
    ] = 0,
    rule_sensitive: Annotated[
        bool, typer.Option("--rule-sensitive", help="Only games whose winner differs under the sibling rule set.")
    ] = False,
    setup: Annotated[
        Optional[bool],
        typer.Option(
            "--setup/--no-setup",
            help="Only games that start from a position (a Setup, ToMove, ButtonTaken or FirstPass tag); "
            "--no-setup: only games from the empty board.",
        ),
    ] = None,
    duplicates: Annotated[
        bool,
        typer.Option("--duplicates", help="Only games with the rules, size, position and turns of an earlier one."),
    ] = False,
    unique: Annotated[
        bool,
        typer.Option("--unique", help="Leave out games with the rules, size, position and turns of an earlier one."),
    ] = False,
    output: OutputFileOption = None,
    jobs: JobsOption = None,
    encoding: EncodingOption = None,
    exclude: ExcludeOption = None,
    extend_exclude: ExtendExcludeOption = None,
    stdin_filename: StdinFilenameOption = None,
    force_exclude: ForceExcludeOption = False,
) -> None:
    """Write the matching games verbatim, comments and all; say where each duplicate first appeared."""
    from keilref.referee.filter import Criteria, Repeats, run_filter

    if duplicates and unique:
        fail("--duplicates and --unique exclude each other")
    if paths.count("-") > 1:
        fail("standard input can be read only once")
    stdin_named(paths, stdin_filename)
    known_statuses = [s.value for s in Status]
    status = [_choose(s, known_statuses, "--status") for s in status or []] or None
    for r in rules or []:
        _check_rules(r)
    tags = []
    for t in tag or []:
        name, eq, value = t.partition("=")
        if not eq or not name:
            fail(f"--tag {t!r} is not Name=value")
        tags.append((name, value))
    try:
        # --rules here chooses games, it replays nothing: the project's rules always apply.
        project, found = load_sources(
            paths,
            encoding=encoding,
            exclude=exclude,
            extend_exclude=extend_exclude,
            stdin_filename=stdin_filename,
            on_note=say_note,
            force_exclude=force_exclude,
        )
    except PathError as e:
        fail(str(e))
    sources = found.sources
    jobs = jobs if jobs is not None else project.jobs
    criteria = Criteria(
        statuses=frozenset(status or ()),
        rules=frozenset(rules or ()),
        sizes=frozenset(size or ()),
        players=tuple(player or ()),
        tags=tuple(tags),
        min_turns=min_turns,
        rule_sensitive=rule_sensitive,
        setup=setup,
    )
    repeats = Repeats.DUPLICATES if duplicates else Repeats.UNIQUE if unique else Repeats.KEEP

    def note(text: str) -> None:
        typer.echo(f"keilref: {text}", err=True)

    # Written to a file whole at the end, the games may come from that very file.
    with output_to(output) as target:
        stream = sys.stdout.buffer
        summary = run_filter(
            sources, criteria, repeats=repeats, jobs=_workers(jobs), out=stream, note=note, runner_safe=target is None
        )
        stream.flush()  # the games before the summary, on a terminal too
    for message in (*summary.unreadable, *summary.withheld):
        note(message)
    what = f"{summary.written} of {summary.games} games written"
    if repeats is not Repeats.KEEP:
        what += f"; {summary.duplicates} duplicate{'' if summary.duplicates == 1 else 's'}"
    if summary.withheld:
        what += f"; {len(summary.withheld)} held back"
    note(what)
    raise typer.Exit(EXIT_FAILED if summary.unreadable or summary.withheld else EXIT_OK)
