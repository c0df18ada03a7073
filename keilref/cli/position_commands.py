"""``keilref show``, ``score`` and ``legal``: one position of one game."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, NoReturn, Optional

import typer

from keilref import wording
from keilref.formats import position_text
from keilref.records.sources import NoSuchGame, PathError, Source, game_at_line, nth_game
from keilref.values import Color, format_number
from keilref.escaping import one_line, shown_name
from keilref.errors import RecordError
from keilref.engine.dehil import DehilGame
from keilref.engine.rules import ButtonRule
from keilref.records.record import Record, Turn
from keilref.referee.clocks import has_clocks, last_clocks
from keilref.referee.lines import Node, find_line, replay_node, tree, variation_places
from keilref.referee.replay import Replay, replay

from keilref.cli.output_file import OutputFileOption, output_path, output_to
from keilref.cli.app import (
    EncodingOption,
    EXIT_FAILED,
    EXIT_OK,
    RulesOption,
    TurnOption,
    UnicodeOption,
    _check_rules,
    _choose,
    completes,
    fail,
    fail_at,
    load_project,
    say_at,
    app,
)


# Not given is told from --game 1: a place of another game is then worth naming.
_GameOption = Annotated[
    Optional[int], typer.Option("--game", min=1, metavar="N", help="Which game of the file (1-based; default: the first).")
]


def _load(file: str, game: int, encoding: str | None = None) -> Record:
    """The ``game``-th record of ``file`` (read in ``encoding``, else the
    settings of its folder, else UTF-8), or a one-line error and exit."""
    try:
        item = nth_game(file, game, encoding=load_project(file).encoding_for(encoding))
    except (PathError, NoSuchGame) as e:
        fail(str(e))
    if isinstance(item, RecordError):
        fail_at(file, item.line, item.column, f"game {game}: {item.message}", EXIT_FAILED)
    return item


def _replay(file: str, record: Record, game: int, turn: int | None, rules: str | None) -> Replay:
    rules = _check_rules(rules)
    if turn is not None and turn > len(record.turns):
        fail(f"{shown_name(file)}: game {game} has {len(record.turns)} turns; there is no turn {turn}")
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
            wording.showing_before(game, wording.illegal_turn(t.turn, t.point, t.reason, t.repeats_turn, t.white_first)),
        )
    return rep


PICTURE_FORMATS = ("text", "svg", "png")
PictureFormatOption = Annotated[
    str,
    typer.Option(
        "--format", "-f", metavar="FORMAT", autocompletion=completes(lambda: PICTURE_FORMATS),
        help="text, svg, or png (png needs: pip install 'keilref[png]').",
    ),
]


def _check_picture_format(format: str, output: Path | None) -> str:
    """The chosen picture format, checked against the terminal it would be written to."""
    format = _choose(format, PICTURE_FORMATS, "--format")
    if output_path(output) is None and format == "png" and sys.stdout.isatty():
        fail("a PNG is not for the terminal: give -o FILE, or redirect the output")
    return format


def _picture(rep: Replay, format: str, *, territory: bool, notes: Sequence[str] = ()) -> NoReturn:
    """Write the position as SVG or PNG to standard output (or ``-o``'s file),
    then exit as the text form would."""
    from keilref.formats import svg

    text = svg.board(rep.game, territory=territory, illegal=rep.illegal, notes=notes)
    data = text.encode()
    if format == "png":
        try:
            data = svg.to_png(text)
        except svg.PngUnavailable as e:
            fail(str(e))
    sys.stdout.flush()
    sys.stdout.buffer.write(data)
    sys.stdout.buffer.flush()
    _exit_for(rep)


def _color(c: Color | None) -> str:
    return "nobody" if c is None else c.name.capitalize()


LineOption = Annotated[
    str,
    typer.Option(
        "--line",
        metavar="LINE",
        help="Which line: main, or the variation whose '(' stands at LINE:COLUMN of the file (8:25).",
    ),
]


def _line_place(value: str) -> wording.Place | None:
    """The place a ``--line`` names, ``None`` for the main line; a usage error otherwise."""
    if value == "main":
        return None
    line, sep, column = value.partition(":")
    if not (sep and line.isdecimal() and column.isdecimal() and line.isascii() and column.isascii()):
        fail(wording.bad_line_name(value))
    return int(line), int(column)


@dataclass(frozen=True)
class _Shown:
    """A position of one line of a game, replayed, and what show says of it."""

    rep: Replay
    turns: int
    """The line's last turn (the record's last, on the main line)."""
    path: tuple[Turn, ...]
    """The turns played to reach it, from the game's first."""
    place: wording.Place | None
    clocks: bool
    """Whether the game has clocks."""

    @property
    def shown(self) -> str | None:
        """The turn shown with its glyphs, when it has any."""
        if not self.path or not self.path[-1].glyphs:
            return None
        last = self.path[-1]
        return wording.glyphed(last.text, last.glyphs)

    def comment_line(self) -> str | None:
        """The annotator's comment on the turn shown, made one safe line; ``None`` without one."""
        if not self.path:
            return None
        remark = self.path[-1].remark
        return None if remark is None else wording.comment_line(one_line(remark))

    def clock_line(self) -> str | None:
        if not self.clocks:
            return None
        black, white = last_clocks(self.path, self.rep.game.white_first)
        return wording.clocks(None if black is None else str(black), None if white is None else str(white))

    def notes(self) -> list[str]:
        """What a picture adds under its caption: the line, the glyphs, the clocks."""
        out = []
        shown = self.shown
        if self.place is not None or shown is not None:
            out.append(wording.picture_note(self.place, self.rep.game.turn, shown))
        clocks = self.clock_line()
        if clocks is not None:
            out.append(clocks)
        return out


def _main_line(file: str, record: Record, game: int, turn: int | None, rules: str | None) -> _Shown:
    rep = _replay(file, record, game, turn, rules)
    played = rep.game.turn
    # A game read without its turns (no comment, variation or glyph) has nothing more to show.
    path = record.turns[:played] if record.annotated else ()
    return _Shown(rep, len(record.turns), path, None, has_clocks(record))


def _no_such_line(
    file: str, game: int, place: wording.Place, lines: list[wording.Place], encoding: str | None, given: bool
) -> NoReturn:
    """No variation opens at ``place``. A place copied from check's output often
    lies in another game: without ``--game``, say which, rather than list the
    first game's variations."""
    other = None if given else _game_holding(file, place[0], encoding)
    if other is not None and other != game:
        fail(f"{shown_name(file)}: {wording.line_in_another_game(place, other)}")
    fail(f"{shown_name(file)}: game {game}: {wording.no_such_line(place, lines)}")


def _variation(
    file: str,
    record: Record,
    game: int,
    place: wording.Place,
    turn: int | None,
    rules: str | None,
    encoding: str | None = None,
    given: bool = True,
) -> _Shown:
    """The position after ``turn`` of the variation opening at ``place``: from
    its branch point (the turn before its first) to its last turn."""
    rules = _check_rules(rules)
    try:
        root = tree(record, rules=rules)
    except RecordError as e:
        fail_at(file, e.line, e.column, f"game {game}: {e.message}", EXIT_FAILED)
    try:
        first = find_line(root, f"{place[0]}:{place[1]}")
    except KeyError:
        _no_such_line(file, game, place, variation_places(root), encoding, given)
    line = [first, *first.mainline()]
    branch, last = first.ply - 1, line[-1].ply
    if turn is None:
        turn = last
    if not branch <= turn <= last:
        fail(f"{shown_name(file)}: game {game}: {wording.line_has_no_turn(place, turn, branch, last)}")
    node = first.parent if turn == branch else line[turn - first.ply]
    assert node is not None
    try:
        rep, bad = replay_node(node)
    except RecordError as e:
        fail_at(file, e.line, e.column, f"game {game}: {e.message}", EXIT_FAILED)
    if rep.illegal is not None and bad is not None:
        _say_illegal(file, game, rep, bad)
    played = rep.game.turn
    path = tuple(n.turn for n in node.path()[:played] if n.turn is not None)
    return _Shown(rep, last, path, place, has_clocks(record))


def _say_illegal(file: str, game: int, rep: Replay, bad: Node) -> None:
    t = rep.illegal
    assert t is not None
    at = None if bad.variation is None else (bad.variation.line, bad.variation.column)
    what = wording.illegal_on_line(at, t.turn, t.point, t.reason, t.repeats_turn, t.white_first)
    say_at(file, t.line, t.column, wording.showing_before(game, what))


def _shown(
    file: str, picked: int | None, turn: int | None, line: str, rules: str | None, encoding: str | None
) -> _Shown:
    """The position ``--line`` and ``--turn`` name, replayed: what show, score and legal share."""
    place = _line_place(line)
    game = _game(picked)
    record = _load(file, game, encoding)
    if place is None:
        return _main_line(file, record, game, turn, rules)
    return _variation(file, record, game, place, turn, rules, encoding, picked is not None)


def _game_holding(file: str, line: int, encoding: str | None) -> int | None:
    """Which game of ``file`` holds ``line``; ``None`` where that cannot be said
    (standard input, already read, cannot be read again)."""
    if Source(file).is_stdin:
        return None
    try:
        return game_at_line(file, line, encoding=load_project(file).encoding_for(encoding))
    except PathError:
        return None


def _game(picked: int | None) -> int:
    """The game ``--game`` picks: the first where it is not given."""
    return 1 if picked is None else picked


def _header(file: str, game: int, seen: _Shown, *, glyphs: bool = False) -> None:
    rep = seen.rep
    typer.echo(
        position_text.position_header(
            file, game, rep.setup, rep.game.turn, seen.turns, line=seen.place, shown=seen.shown if glyphs else None
        )
    )


@app.command()
def show(
    file: Annotated[str, typer.Argument(metavar="FILE", help="A record file.")],
    game: _GameOption = None,
    turn: TurnOption = None,
    line: LineOption = "main",
    unicode: UnicodeOption = False,
    territory: Annotated[bool, typer.Option("--territory", help="Mark owned empty points x / o.")] = False,
    rules: RulesOption = None,
    format: PictureFormatOption = "text",
    output: OutputFileOption = None,
    encoding: EncodingOption = None,
) -> None:
    """Draw the position after a turn (by default, the end) of the game or of one of its variations.

    --turn 0 draws the board before the first turn: empty, or the position a
    Setup tag gives, with who is to move and who holds the button (under
    Dehil, who passed first).
    """
    with output_to(output, [Source(file)]):
        format = _check_picture_format(format, output)
        seen = _shown(file, game, turn, line, rules, encoding)
        rep = seen.rep
        if format != "text":
            _picture(rep, format, territory=territory, notes=seen.notes())
        _header(file, _game(game), seen, glyphs=True)
        g = rep.game
        typer.echo(g.diagram(unicode=unicode, territory=territory), nl=False)
        moves = g.moves
        if moves:
            typer.echo(wording.last_turn(len(moves), moves[-1], g.white_first))
        else:
            typer.echo(wording.last_turn_none(g.start_position is not None))
        comment = seen.comment_line()
        if comment is not None:
            typer.echo(comment)
        if g.captures:
            p = g.prisoners
            typer.echo(f"captured: by Black {p[Color.BLACK]}, by White {p[Color.WHITE]}")
        if isinstance(g, DehilGame):
            # Dehil has no button; who passed first is what its score hangs on instead.
            typer.echo(wording.first_pass_state(g.first_pass))
        elif g.rules.button is ButtonRule.ABSENT:
            pass  # rules with no button say nothing of one
        elif not g.button_in_play:
            typer.echo("button: not in play")
        else:
            typer.echo(f"button: {'taken by ' + _color(g.button_holder) if g.button_holder else 'not taken'}")
        if g.is_over:
            # Said as the board captions and the game's repr say it: over for good, or stopped.
            typer.echo(wording.play_state(g))
        else:
            typer.echo(f"to move: {_color(g.to_move)}")
        clocks = seen.clock_line()
        if clocks is not None:
            typer.echo(clocks)
        _exit_for(rep)


def _exit_for(rep: Replay) -> NoReturn:
    """A faulty record is a failure even when its legal part could be shown."""
    raise typer.Exit(EXIT_FAILED if rep.illegal is not None else EXIT_OK)


@app.command()
def score(
    file: Annotated[str, typer.Argument(metavar="FILE", help="A record file.")],
    game: _GameOption = None,
    turn: TurnOption = None,
    line: LineOption = "main",
    unicode: UnicodeOption = False,
    rules: RulesOption = None,
    format: PictureFormatOption = "text",
    output: OutputFileOption = None,
    encoding: EncodingOption = None,
) -> None:
    """Count the position after a turn (by default, the end): stones, territory, komi, button, result.

    For a game set up from a position (a Setup tag), --turn 0 counts the setup
    itself, as if the game ended there: a finished board, scored.
    """
    with output_to(output, [Source(file)]):
        format = _check_picture_format(format, output)
        seen = _shown(file, game, turn, line, rules, encoding)
        rep = seen.rep
        if format == "text":
            _header(file, _game(game), seen)
        if format != "text":
            counted = rep.game.score()
            what = "result" if rep.game.is_over or _setup_counted(rep) else "count so far"
            notes = [f"Black {format_number(counted.black)}, White {format_number(counted.white)}: {what} {counted.result}"]
            _picture(rep, format, territory=True, notes=notes)
        g = rep.game
        typer.echo(g.diagram(unicode=unicode, territory=True), nl=False)
        if _setup_counted(rep):
            typer.echo(wording.SETUP_COUNTED)
        elif not g.is_over:
            typer.echo("the game has not ended: this counts the current position")
        counted = g.score()
        typer.echo(
            position_text.score_table(counted, half_point_in_play=g.button_in_play or counted.half_point is not None),
            nl=False,
        )
        for said in g.explain_score():
            typer.echo(said)
        _exit_for(rep)


def _setup_counted(rep: Replay) -> bool:
    """Whether ``score`` counts a set-up position itself (``--turn 0``): as
    the format has it, as if the game ended there."""
    g = rep.game
    return rep.illegal is None and g.turn == 0 and g.start_position is not None and not g.is_over


@app.command()
def legal(
    file: Annotated[str, typer.Argument(metavar="FILE", help="A record file.")],
    game: _GameOption = None,
    turn: TurnOption = None,
    line: LineOption = "main",
    rules: RulesOption = None,
    output: OutputFileOption = None,
    encoding: EncodingOption = None,
) -> None:
    """List the legal turns in the position after a turn (by default, the end)."""
    with output_to(output, [Source(file)]):
        seen = _shown(file, game, turn, line, rules, encoding)
        _header(file, _game(game), seen)
        rep = seen.rep
        g = rep.game
        if rep.ended:
            typer.echo("the game is over: no turn is legal")
        else:
            typer.echo(f"{_color(g.to_move)} to move")
            typer.echo(position_text.legal_listing(g.legal_moves(), g.piece_prefixes), nl=False)
        _exit_for(rep)
