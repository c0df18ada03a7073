"""The ``keilref`` command: a thin layer over the library.

Errors go to stderr as one line; results go to stdout. Exit codes are the
named constants below.
"""

from __future__ import annotations

import contextlib
import errno
import os
import sys
import time
import types
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Annotated, Any, NoReturn, Optional, Protocol

import typer
from typer._click.exceptions import NoArgsIsHelpError, UsageError
from typer.core import TyperGroup

from keilref import formatting, gitlab, github, report, sarif
from keilref.check import PathError, Source, check_sources, default_jobs, expand_paths, read_source
from keilref.core import Color, format_number
from keilref.errors import ConfigError, RecordError
from keilref.record import Record
from keilref.rules import ButtonRule, all_rules, find_rules
from keilref.verdict import Replay, Status, Verdict, replay

EXIT_OK = 0
"""No game failed."""
EXIT_FAILED = 1
"""A game failed (mismatch, illegal, error), or a file would be reformatted."""
EXIT_USAGE = 2
"""The command line was wrong: no such path, a bad option value."""

EXIT_BROKEN_PIPE = 141
"""The reader went away (``keilref check ... | head``): the check did not finish,
so neither 0 nor 1 would be true; 128 + SIGPIPE, as the shell reports it."""


def _broken_pipe(e: BaseException | None) -> bool:
    return isinstance(e, OSError) and e.errno == errno.EPIPE


class _OneLineErrors(TyperGroup):
    """Usage errors as one line on stderr (``keilref: ...``), exit code 2."""

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
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(rv or 0)


app = typer.Typer(
    cls=_OneLineErrors,
    name="keilref",
    help="The referee for Keil: was every turn legal, and is the declared result right?",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)

RulesOption = Annotated[
    Optional[str],
    typer.Option(
        "--rules",
        help=f"Replay under these rules, whatever the record says ({', '.join(r.name for r in all_rules())}).",
    ),
]
GameOption = Annotated[int, typer.Option("--game", min=1, help="Which game of the file (1-based).")]
UnicodeOption = Annotated[bool, typer.Option("--unicode", help="Draw ● ○ · instead of X O .")]
TurnOption = Annotated[
    Optional[int], typer.Option("--turn", min=0, help="Position after this turn (default: the end).")
]


def fail(message: str, code: int = EXIT_USAGE) -> NoReturn:
    typer.echo(f"keilref: {message}", err=True)
    raise typer.Exit(code)


def _check_rules(rules: str | None) -> None:
    if rules is not None:
        try:
            find_rules(rules)
        except ConfigError as e:
            fail(str(e))


@app.command()
def check(
    paths: Annotated[list[str], typer.Argument(help="Files, directories (searched for *.keil), or - for stdin.")],
    format: Annotated[
        str, typer.Option("--format", "-f", help="text, jsonl, junit, github, sarif or gitlab.")
    ] = "text",
    strict: Annotated[bool, typer.Option("--strict", help="Count unfinished games as failures.")] = False,
    rules: RulesOption = None,
    jobs: Annotated[
        Optional[int], typer.Option("--jobs", "-j", min=1, help="Processes to use (default: all cores).")
    ] = None,
    scheduler: Annotated[
        Optional[str],
        typer.Option(
            "--scheduler", metavar="ADDRESS", help="Check on the running Dask cluster there (needs keilref[dask])."
        ),
    ] = None,
) -> None:
    """Check every game: one verdict per game; exit 1 if any failed."""
    if format not in report.FORMATS:
        fail(f"unknown format {format!r} (expected {', '.join(report.FORMATS)})")
    _check_rules(rules)
    try:
        sources = expand_paths(paths)
    except PathError as e:
        fail(str(e))
    cluster = _cluster(scheduler)
    started = time.perf_counter()
    counts: Counter[str] = Counter()
    failed = False
    writer = _writer(format, strict)
    with progress_bar(sources) as advance:
        if cluster is None:
            verdicts = check_sources(sources, rules=rules, jobs=jobs or default_jobs(), on_progress=advance)
        else:
            verdicts = cluster.check_on_cluster(sources, str(scheduler), rules=rules, on_progress=advance)
        try:
            for v in verdicts:
                counts[v.status.value] += 1
                failed |= v.status.failed or (strict and v.status is Status.UNFINISHED)
                if format == "text":
                    typer.echo(report.text_line(v))
                elif format == "jsonl":
                    typer.echo(report.json_line(v))
                elif writer is not None:
                    writer.add(v)
        except Exception as e:
            if cluster is None or not isinstance(e, cluster.ClusterError):
                raise
            fail(str(e))
    if writer is not None:
        writer.close()
    elif format == "text":
        typer.echo(report.summary_line(counts, time.perf_counter() - started))
    raise typer.Exit(EXIT_FAILED if failed else EXIT_OK)


class _Writer(Protocol):
    def add(self, v: Verdict) -> None: ...
    def close(self) -> None: ...


def _writer(format: str, strict: bool) -> _Writer | None:
    """The writer of a whole-document or buffered format; ``None`` for text and jsonl."""
    def out(text: str) -> None:
        typer.echo(text, nl=False)

    if format == "junit":
        return report.JUnitWriter(out, strict=strict)
    if format == "sarif":
        return sarif.SarifWriter(out, strict=strict)
    if format == "gitlab":
        return gitlab.GitLabWriter(out, strict=strict)
    if format == "github":
        return github.GitHubWriter(
            out,
            strict=strict,
            summary_path=os.environ.get("GITHUB_STEP_SUMMARY") or None,
            warn=lambda message: typer.echo(f"keilref: {message}", err=True),
        )
    return None


def _cluster(scheduler: str | None) -> types.ModuleType | None:
    """``keilref.dask`` when a scheduler is given, or a one-line error if the extra is missing."""
    if scheduler is None:
        return None
    try:
        from keilref import dask as cluster
    except ImportError as e:
        fail(f"--scheduler needs Dask ({e.name or 'dask'} is not installed): pip install 'keilref[dask]'")
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
                fail(f"{file}:{item.line}:{item.column}: game {game}: {item.message}", EXIT_FAILED)
            return item
    fail(f"{file}: there is no game {game} (the file holds {count})")


def _replay(file: str, record: Record, game: int, turn: int | None, rules: str | None) -> Replay:
    _check_rules(rules)
    if turn is not None and turn > len(record.turns):
        fail(f"{file}: game {game} has {len(record.turns)} turns; there is no turn {turn}")
    try:
        rep = replay(record, rules=rules, stop=turn)
    except RecordError as e:
        fail(f"{file}:{e.line}:{e.column}: game {game}: {e.message}", EXIT_FAILED)
    if rep.illegal is not None:
        t = rep.illegal
        typer.echo(
            f"keilref: {file}:{t.line}:{t.column}: game {game}: turn {t.turn} {t.point} is illegal "
            f"({t.reason}); showing the position before it",
            err=True,
        )
    return rep


def _position(file: str, game: int, turn: int | None, rules: str | None) -> Replay:
    """Load, replay and print the header line: what show, score and legal share."""
    record = _load(file, game)
    rep = _replay(file, record, game, turn, rules)
    typer.echo(_header(file, game, rep, record))
    return rep


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
    file: Annotated[str, typer.Argument(help="A record file.")],
    game: GameOption = 1,
    turn: TurnOption = None,
    unicode: UnicodeOption = False,
    territory: Annotated[bool, typer.Option("--territory", help="Mark owned empty points x / o.")] = False,
    rules: RulesOption = None,
) -> None:
    """Draw the position after a turn (by default, the end)."""
    rep = _position(file, game, turn, rules)
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
    file: Annotated[str, typer.Argument(help="A record file.")],
    game: GameOption = 1,
    unicode: UnicodeOption = False,
    rules: RulesOption = None,
) -> None:
    """Count the final position: stones, territory, komi, button, result."""
    rep = _position(file, game, None, rules)
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
    file: Annotated[str, typer.Argument(help="A record file.")],
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
    paths: Annotated[list[str], typer.Argument(help="Files, directories (searched for *.keil), or - for stdin.")],
    check: Annotated[bool, typer.Option("--check", help="Change nothing; exit 1 if a file would change.")] = False,
    in_place: Annotated[bool, typer.Option("--in-place", "-i", help="Rewrite the files (atomically).")] = False,
) -> None:
    """Rewrite records in the canonical layout (to stdout by default)."""
    if check and in_place:
        fail("--check and --in-place exclude each other")
    if in_place and "-" in paths:
        fail("standard input cannot be rewritten in place (leave out --in-place to print)")
    try:
        sources = expand_paths(paths)
    except PathError as e:
        fail(str(e))
    failed = False
    for source in sources:
        try:
            outcome = formatting.format_source(source, write=in_place)
        except formatting.FormatError as e:
            typer.echo(f"keilref: {e}", err=True)
            failed = True
            continue
        if check:
            if outcome.changed:
                typer.echo(f"would reformat {source.name}")
                failed = True
        elif in_place:
            if outcome.changed:
                typer.echo(f"reformatted {source.name}", err=True)
        else:
            typer.echo(outcome.text, nl=False)
    raise typer.Exit(EXIT_FAILED if failed else EXIT_OK)


@app.command()
def generate(
    games: Annotated[int, typer.Option("--games", "-n", min=1, help="How many games.")] = 10,
    seed: Annotated[int, typer.Option("--seed", help="Same seed, same games.")] = 0,
    size: Annotated[Optional[list[int]], typer.Option("--size", help="Board size; repeat to cycle.")] = None,
    rules: Annotated[Optional[list[str]], typer.Option("--rules", help="Rule set; repeat to cycle.")] = None,
    fill: Annotated[float, typer.Option("--fill", min=0.0, max=10.0, help="Turns before passing, per board point.")] = 1.3,
) -> None:
    """Write seeded random legal games, ended by two passes, as records."""
    from keilref.generate import random_games, to_record
    from keilref.writer import write_record

    rule_names = tuple(rules or ["keil"])
    for name in rule_names:
        _check_rules(name)
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
    jobs: Annotated[
        Optional[int], typer.Option("--jobs", "-j", min=1, help="Processes to use (default: all cores).")
    ] = None,
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
        result = archive_stats(sources, rules=rules, jobs=jobs or default_jobs(), on_progress=advance)
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
    jobs: Annotated[
        Optional[int], typer.Option("--jobs", "-j", min=1, help="Processes to use (default: all cores).")
    ] = None,
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
            sources, criteria, repeats=repeats, jobs=jobs or default_jobs(), out=stream, note=note
        )
        stream.flush()  # the games before the summary, on a terminal too
    for message in summary.unreadable:
        note(message)
    what = f"{summary.written} of {summary.games} games written"
    if repeats is not Repeats.KEEP:
        what += f"; {summary.duplicates} duplicate{'' if summary.duplicates == 1 else 's'}"
    note(what)
    raise typer.Exit(EXIT_FAILED if summary.unreadable else EXIT_OK)


@app.command(name="rules")
def list_rules() -> None:
    """List the rule sets the referee knows."""
    for r in all_rules():
        typer.echo(f"{r.name:<10} {r.title} (sizes {r.min_size}..{r.max_size}, default {r.default_size})")


def main() -> None:
    """Entry point for the console script and ``python -m keilref``."""
    try:
        app()
    except KeyboardInterrupt:
        sys.exit(130)


__all__ = ["EXIT_FAILED", "EXIT_OK", "EXIT_USAGE", "app", "main", "Path", "Source"]
