"""The HTML report of a check: one self-contained file a tournament director opens.

It holds the summary (counts by status), a table of every game, and for each
failing game its board at the faulty turn with the fault marked and the
message. Games get a move-by-move viewer: its positions are a compact list
of changes per turn, drawn by a small inline script. Nothing is fetched: no
fonts, no scripts, no images from elsewhere.

Memory and size stay bounded on a big archive: the table rows are spooled
(in memory, then on disk), and boards and viewers are made for the first
:data:`FAILING_DETAIL_CAP` failing games and the first
:data:`OTHER_VIEWER_CAP` other games only; the page says when it left some
out. Those games are read a second time, after the check, through the
same sources (decompressed; standard input from the copy the check kept of
it), so the verdicts themselves come from the same code (and processes) as
every other format.
"""

from __future__ import annotations

import html
import json
import tempfile
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import IO, Any, Protocol

from keilref import wording
from keilref.formats import svg
from keilref.records.sources import STDIN, Source, stdin_kept
from keilref.values import Color, format_number
from keilref.escaping import one_line, shown_name
from keilref.errors import IllegalMoveError, InvalidMoveError, KeilrefError, RecordError
from keilref.engine.game import Game, new_game
from keilref.records.inputs import read_piece, split_source
from keilref.records.record import Record, Turn, Variation
from keilref.engine.rules import ButtonRule, find_rules
from keilref.referee.settings import GameSetup, read_setup
from keilref.referee.replay import replay
from keilref.formats import WriterOptions
from keilref.referee.verdict import Fault, Status, Verdict

FAILING_DETAIL_CAP = 200
"""Failing games that get a board and a viewer; the rest are in the table only."""
OTHER_VIEWER_CAP = 50
"""Games that did not fail and still get a viewer (the first ones of the check)."""

_STATUS_SIGN = {
    Status.OK: "✓",
    Status.UNFINISHED: "…",
    Status.MISMATCH: "≠",
    Status.ILLEGAL: "✗",
    Status.ERROR: "!",
}


@dataclass(frozen=True)
class _Wanted:
    """A game whose record the report reads again, and why."""

    row: int
    """Its number in the report (1-based, over all games)."""
    verdict: Verdict
    faults: tuple[Fault, ...]
    """Why it fails (see :meth:`Verdict.faults`); empty for a game that passes."""

    @property
    def failing(self) -> bool:
        return bool(self.faults)


def _esc(text: object) -> str:
    # One line of text each: a carriage return in a tag would start a line a CI log could run.
    return html.escape(one_line(str(text)), quote=True)


def _message(v: Verdict) -> str:
    """The fault in words, without the file and game (the heading says those)."""
    if v.error is not None:
        return f"{v.error.line}:{v.error.column}: {v.error.message}"
    if v.illegal is not None:
        t = v.illegal
        return f"{t.line}:{t.column}: {wording.illegal_turn(t.turn, t.point, t.reason, t.repeats_turn)}"
    return wording.verdict_message(v)


class _Writes:
    """A ``write`` callable as the file-like object :meth:`HtmlReport.write` writes to."""

    def __init__(self, write: Callable[[str], object]) -> None:
        self.write = write


class HtmlWriter:
    """The report as a document format like the others: the verdicts, then the page at the end."""

    def __init__(self, write: Callable[[str], object], options: WriterOptions = WriterOptions()) -> None:
        self._write = write
        self._page = HtmlReport(rules=options.rules, strict=options.strict)

    def add(self, v: Verdict) -> None:
        self._page.add(v)

    def close(self) -> None:
        self._page.write(_Writes(self._write))


def _fault_message(v: Verdict, fault: Fault) -> str:
    if fault.rule == "warning":
        return f"{fault.line}:{fault.column}: warning: {fault.message}"
    if fault.rule == "unfinished":
        return f"{fault.line}:{fault.column}: unfinished: {wording.unfinished_message(v)}"
    return _message(v)


def _rules_attr(faults: tuple[Fault, ...]) -> str:
    """The rules a failing row breaks, for scripts that read the page."""
    if not faults:
        return ""
    return f' data-rules="{_esc(" ".join(f.rule for f in faults))}"'


def _players(v: Verdict) -> str:
    black, white = v.players
    if black is None and white is None:
        return ""
    return f"{black or '?'} – {white or '?'}"


def _status_cell(status: Status) -> str:
    return f'<span class="status s-{status.value}">{_STATUS_SIGN[status]} {status.value}</span>'


class _Out(Protocol):
    def write(self, text: str, /) -> object: ...


class HtmlReport:
    """Collects verdicts as they come, then writes the page.

    ``add`` keeps only a row of text per game (spooled) and the verdicts of
    the games that get boards; ``write`` reads those games again.
    """

    def __init__(self, *, rules: str | None = None, strict: bool = False) -> None:
        self._rules = rules
        self._strict = strict
        self._rows: IO[str] = tempfile.SpooledTemporaryFile(max_size=8 << 20, mode="w+", encoding="utf-8")
        self._counts: Counter[Status] = Counter()
        self._wanted: list[_Wanted] = []
        self._failing_seen = 0
        self._other_seen = 0
        self._n = 0

    def add(self, v: Verdict) -> None:
        self._n += 1
        row = self._n
        self._counts[v.status] += 1
        faults = v.faults(strict=self._strict)
        failing = bool(faults)
        wanted = False
        if failing:
            self._failing_seen += 1
            wanted = self._failing_seen <= FAILING_DETAIL_CAP
        else:
            self._other_seen += 1
            wanted = self._other_seen <= OTHER_VIEWER_CAP
        if v.file == STDIN and not stdin_kept():
            wanted = False  # read as it came, it cannot be read again
        if wanted:
            self._wanted.append(_Wanted(row, v, faults))
        link = f'<a href="#game={row}">{row}</a>' if wanted else str(row)
        result_cells = (
            f'<td data-label="computed">{_esc(v.computed or "–")}</td>'
            f'<td data-label="declared">{_esc(v.declared or "–")}</td>'
        )
        self._rows.write(
            f'<tr id="row-{row}" class="{"failing" if failing else "passing"}"{_rules_attr(faults)}><td>{link}</td>'
            f'<td class="file">{_esc(shown_name(v.file))}</td><td data-label="game">{v.game}</td>'
            f"<td>{_esc(_players(v))}</td><td>{_status_cell(v.status)}</td>{result_cells}</tr>\n"
        )

    def write(self, out: _Out) -> None:
        """The whole page: summary, failing games, the table, then the viewers of the others."""
        details = self._details()
        layouts: dict[str, Any] = {}
        games: dict[str, Any] = {}
        failing_html: list[str] = []
        other_html: list[str] = []
        for want in self._wanted:
            d = details.get(want.row)
            section = self._section(want, d, layouts, games)
            (failing_html if want.failing else other_html).append(section)
        out.write(_HEAD)
        if any("lines" in g or _has_clocks(g) for g in games.values()):
            out.write(_LINES_HELP)
        out.write(self._summary())
        n_failing = sum(1 for w in self._wanted if w.failing)
        out.write('<h2 id="failing">Failing games</h2>\n')
        if not self._failing_seen:
            out.write("<p>No game failed.</p>\n")
        for section in failing_html:
            out.write(section)
        if self._failing_seen > n_failing:
            left = self._failing_seen - n_failing
            out.write(
                f'<p class="note">{left} more failing game{"s" if left != 1 else ""} '
                f"{'are' if left != 1 else 'is'} in the table below, without a board "
                f"(boards stop after {FAILING_DETAIL_CAP}).</p>\n"
            )
        out.write('<h2 id="games">Every game</h2>\n<div class="table-wrap"><table class="games">\n')
        out.write(
            "<thead><tr><th>#</th><th>file</th><th>game</th><th>players</th><th>status</th>"
            "<th>computed</th><th>declared</th></tr></thead>\n<tbody>\n"
        )
        self._rows.seek(0)
        for line in self._rows:
            out.write(line)
        self._rows.close()
        out.write("</tbody></table></div>\n")
        if other_html:
            out.write('<h2 id="viewers">Games that did not fail</h2>\n')
            if self._other_seen > len(other_html):
                out.write(f'<p class="note">Viewers for the first {len(other_html)} of them.</p>\n')
            for section in other_html:
                out.write(section)
        page: dict[str, Any] = {"layouts": layouts, "games": games}
        words = _words(games)
        if words is not None:
            page["words"] = words
        data = json.dumps(page, separators=(",", ":"), sort_keys=True)
        # Inside <script>, only "</" could end the element early.
        safe = data.replace("</", "<\\/")
        out.write(f'<script type="application/json" id="keilref-data">{safe}</script>\n')
        out.write(f"<script>{_SCRIPT}</script>\n</main>\n</body>\n</html>\n")

    def _summary(self) -> str:
        total = sum(self._counts.values())
        cells = "".join(
            f"<tr><td>{_status_cell(s)}</td><td>{self._counts[s]}</td></tr>" for s in Status
        )
        failed = self._failing_seen
        verdict = "no game failed" if not failed else f"{failed} game{'s' if failed != 1 else ''} failed"
        return (
            f'<h2 id="summary">Summary</h2>\n<p class="verdict">{total} game{"s" if total != 1 else ""}: '
            f"{verdict}.</p>\n<table class=\"counts\"><thead><tr><th>status</th><th>games</th></tr></thead>"
            f"<tbody>{cells}</tbody></table>\n"
        )

    def _details(self) -> dict[int, Record | RecordError]:
        """The records of the wanted games, read again file by file."""
        by_file: dict[str, dict[int, int]] = {}
        for w in self._wanted:
            by_file.setdefault(w.verdict.file, {})[w.verdict.game] = w.row
        found: dict[int, Record | RecordError] = {}
        for file, rows in by_file.items():
            last = max(rows)
            # Cut the file as the check did, and parse only the games wanted: cutting is cheap.
            # Read as the check read it: decompressed, and standard input from the copy kept of it.
            source = Source(file)
            try:
                stream = source.open()
            except OSError:
                continue  # changed or gone since the check: those games go without boards
            try:
                index = 0
                for piece in split_source(stream, file):
                    if not piece.counts:
                        continue
                    index += 1
                    if index in rows:
                        item = read_piece(piece, file)
                        if item is not None:
                            found[rows[index]] = item
                    if index >= last:
                        break
            except OSError:
                continue
            finally:
                if file != STDIN:
                    stream.close()
        return found

    def _section(
        self,
        want: _Wanted,
        item: Record | RecordError | None,
        layouts: dict[str, Any],
        games: dict[str, Any],
    ) -> str:
        v = want.verdict
        row = want.row
        parts = [
            f'<section class="game" id="game-{row}">\n<h3>{row}. {_esc(shown_name(v.file))} · game {v.game} '
            f"{_status_cell(v.status)}</h3>\n"
        ]
        who = _players(v)
        if who:
            parts.append(f'<p class="players">{_esc(who)}</p>\n')
        for fault in want.faults:
            parts.append(f'<p class="message" data-rule="{_esc(fault.rule)}">{_esc(_fault_message(v, fault))}</p>\n')
        if isinstance(item, Record):
            parts.append('<div class="boards">\n')
            board = None
            try:
                board = _fault_board(item, v, self._rules) if want.failing else None
            except Exception:  # noqa: BLE001
                pass  # a picture is never worth the report: the table and the message still say it
            if board is not None:
                parts.append(f'<figure class="fault">{board}</figure>\n')
            try:
                viewer = _viewer_data(item, v, self._rules)
            except Exception:  # noqa: BLE001
                viewer = None
            if viewer is not None:
                key, lay, data = viewer
                layouts.setdefault(key, lay)
                games[str(row)] = data
                parts.append(_viewer_html(row, data))
            parts.append("</div>\n")
        parts.append("</section>\n")
        return "".join(parts)


def _fault_board(record: Record, v: Verdict, rules: str | None) -> str | None:
    """The board where the game goes wrong, the fault marked, or ``None`` where there is none."""
    if v.status is Status.ILLEGAL:
        rep = replay(record, rules=rules)
        return svg.board(rep.game, illegal=rep.illegal, size=480)
    if v.status is Status.MISMATCH or v.status is Status.UNFINISHED:
        rep = replay(record, rules=rules)
        counted = rep.game.score()
        note = wording.results(v)
        return svg.board(
            rep.game,
            territory=True,
            size=480,
            notes=[f"Black {format_number(counted.black)}, White {format_number(counted.white)}: {note}"],
        )
    if v.status is Status.ERROR and v.rules is not None and v.error is not None:
        # The tags were read and the replay stopped at a token it could not play: show where.
        # Played by hand, not by replay(): a bad Removed tag must not stop the picture.
        setup = read_setup(record, rules=rules)
        game = _new_game(setup)
        game.play_all(t.move for t in record.turns[: v.turns])
        if v.turns >= len(record.turns):
            return svg.board(game, size=480)
        token = record.turns[v.turns].text
        return svg.board(game, size=480, notes=[f"{wording.turn_name(v.turns + 1, token)}: not a turn here"])
    return None


def _new_game(setup: GameSetup) -> Game:
    button = None if find_rules(setup.rules).button is ButtonRule.ABSENT else setup.button
    return new_game(setup.rules, setup.size, setup.komi, button)


_CODES = {None: ".", Color.BLACK: "b", Color.WHITE: "w"}


def _position(game: Game) -> str:
    """One character per point: ``.`` empty, ``b``/``w`` a stone, ``B``/``W`` a king."""
    is_king = getattr(game, "is_king", None)
    out = []
    for p in game.points():
        c = _CODES[game.stone_at(p)]
        if c != "." and callable(is_king) and is_king(p):
            c = c.upper()
        out.append(c)
    return "".join(out)


def _mover(turn: int) -> str:
    return "Black" if turn % 2 == 1 else "White"


def _viewer_data(record: Record, v: Verdict, rules: str | None) -> tuple[str, dict[str, Any], dict[str, Any]] | None:
    """The game as its start position and, per turn, the points it changed;
    its variations (if any) likewise, each from the position it branches at."""
    if v.rules is None:
        return None
    setup = read_setup(record, rules=rules)
    game = _new_game(setup)
    lay = svg.layout_for(game)
    key = f"{game.rules.family}-{game.size}"
    start = _position(game)
    lines = _Lines(game.points())
    turns, before, failure = lines.walk(game, start, record.turns, 1, 0, 0)
    removal = False
    if failure is None and setup.removed is not None:
        try:
            game.agree_removal(setup.removed)
        except KeilrefError:
            pass
        else:
            now = _position(game)
            changes = [x for p, (a, b) in enumerate(zip(before, now)) if a != b for x in (p, b)]
            turns.append(["groups removed by agreement", changes])
            removal = True
    # Shared by every game on the same board: the empty board, and where its points are.
    layout = {
        "xy": [[round(x, 2), round(y, 2)] for x, y in lay.xy],
        "r": round(svg.STONE * svg.UNIT, 2),
        "base": svg.board(_new_game(setup), caption=False),
    }
    data: dict[str, Any] = {"layout": key, "start": start, "turns": turns}
    if removal:
        # The last step is not a turn: the agreement the Removed tag records.
        data["removal"] = True
    fault = None if failure is None else _index(lines.names, failure[0].move)
    if fault is not None:
        data["fault"] = fault
        data["faultText"] = _message(v)
    if lines.lines:
        data["lines"] = lines.lines
        data["branches"] = lines.branches
    return key, layout, data


_Failure = tuple[Turn, int, KeilrefError]
"""The first turn of a line that cannot be played, its number, and why."""


class _Lines:
    """The variations of one game as the viewer steps through them.

    Line 0 is the main line; each variation gets the next number as it is
    met, so a line's parent always comes before it. A line's ``parent`` is
    the line that holds the position it branches at (for a variation
    replacing the first turn of another, that one's parent), and ``from``
    is that position's turn: its frames up to there are its parent's.
    ``branches`` maps each position with alternatives (``"line:turn"``) to
    its choices, the line continuing there first.
    """

    def __init__(self, names: Sequence[str]) -> None:
        self.names = names
        self.lines: list[dict[str, Any]] = []
        self.branches: dict[str, list[list[Any]]] = {}
        self._places: list[wording.Place | None] = [None]

    def walk(
        self, game: Game, before: str, turns: Iterable[Turn], first: int, line: int, first_owner: int
    ) -> tuple[list[list[Any]], str, _Failure | None]:
        """Play ``turns`` (numbered from ``first``) on ``game``, in place: each
        turn's label and changes, the last position, and the turn that stopped
        the line. ``first_owner`` holds the position before the first turn."""
        entries: list[list[Any]] = []
        for number, turn in enumerate(turns, first):
            owner = line if number > first else first_owner
            if turn.variations:
                here = f"{owner}:{number - 1}"
                if here not in self.branches:
                    self.branches[here] = [[line, self._choice(line, number, turn)]]
                for variation in turn.variations:
                    self._branch(game.copy(), before, variation, number, owner, self.branches[here])
            try:
                game.play(turn.move)
            except (IllegalMoveError, InvalidMoveError) as e:
                return entries, before, (turn, number, e)
            now = _position(game)
            changes: list[Any] = []
            for p, (a, b) in enumerate(zip(before, now)):
                if a != b:
                    changes += [p, b]
            entry = [f"{wording.glyphed(turn.text, turn.glyphs)} ({_mover(number)})", changes]
            clock = turn.clock
            if clock is not None:
                entry.append(str(clock))
            entries.append(entry)
            before = now
        return entries, before, None

    def _choice(self, line: int, number: int, turn: Turn) -> str:
        return wording.line_choice(self._places[line], number, wording.glyphed(turn.text, turn.glyphs))

    def _branch(
        self, game: Game, before: str, variation: Variation, number: int, parent: int, choices: list[list[Any]]
    ) -> None:
        if not variation.turns:
            return
        place = (variation.line, variation.column)
        line = len(self._places)
        self._places.append(place)
        data: dict[str, Any] = {
            "at": f"{place[0]}:{place[1]}",
            "name": wording.line_title(place),
            "up": wording.back_to(self._places[parent]),
            "parent": parent,
            "from": number - 1,
        }
        self.lines.append(data)
        choices.append([line, self._choice(line, number, variation.turns[0])])
        turns, _, failure = self.walk(game, before, variation.turns, number, line, parent)
        data["turns"] = turns
        if failure is not None:
            turn, at, e = failure
            fault = _index(self.names, turn.move)
            if fault is not None:
                data["fault"] = fault
            if isinstance(e, IllegalMoveError):
                data["faultText"] = wording.illegal_turn(at, turn.text, e.reason.value, e.repeats_turn)
            else:
                data["faultText"] = wording.illegal_turn(at, turn.text, str(e))


def _index(names: Iterable[str], move: str) -> int | None:
    point = move.rpartition("@")[2]
    for i, name in enumerate(names):
        if name == point:
            return i
    return None


def _viewer_html(row: int, data: dict[str, Any]) -> str:
    n = len(data["turns"])
    extra = ""
    if "lines" in data:
        # Filled by the script: the alternatives to the turn shown, and the way back up.
        extra += (
            '<div class="lines">'
            '<div class="choices" role="group" aria-label="alternatives to the turn shown" hidden></div>'
            '<button type="button" class="up" hidden></button>'
            "</div>\n"
        )
    if _has_clocks(data):
        extra += '<p class="viewer-clocks" aria-live="polite"></p>\n'
    return (
        f'<div class="viewer" data-game="{row}" tabindex="0" aria-label="move-by-move viewer of game {row}">\n'
        f'<div class="viewer-board"></div>\n'
        f'<div class="controls">'
        f'<button type="button" data-step="first" aria-label="first position">|◀</button>'
        f'<button type="button" data-step="prev" aria-label="previous turn">◀</button>'
        f'<input type="range" min="0" max="{n}" value="{n}" aria-label="turn">'
        f'<button type="button" data-step="next" aria-label="next turn">▶</button>'
        f'<button type="button" data-step="last" aria-label="last position">▶|</button>'
        f"</div>\n"
        f'<p class="viewer-status" aria-live="polite"></p>\n'
        f"{extra}"
        f"</div>\n"
    )


def _has_clocks(data: dict[str, Any]) -> bool:
    """Whether a turn of any line of the game carries a clock."""
    lines = [data, *data.get("lines", ())]
    return any(len(turn) > 2 for line in lines for turn in line["turns"])


def _words(games: dict[str, Any]) -> dict[str, str] | None:
    """What the script says of clocks, worded here rather than in the script;
    ``None`` when no game has any."""
    if not any(_has_clocks(g) for g in games.values()):
        return None
    return {"clocks": wording.clocks("{B}", "{W}"), "noClock": wording.NO_CLOCK}


_LINES_HELP = """<p>A turn that has alternatives lists them under its viewer, each a button that switches the viewer
to that line (the turn shown is marked as pressed); “back to …” returns to the position where the line
branched. With the viewer focused, ↓ takes the next alternative to the turn shown and ↑ goes back.
Glyphs (<code>!</code>, <code>?!</code>, <code>$14</code>) follow the turn they annotate, and a timed game shows
each player's last known clock.</p>
"""


_HEAD = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>keilref check report</title>
<style>
body{margin:0;font:16px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;color:#1b1b1b;background:#fbfaf7}
main{max-width:60rem;margin:0 auto;padding:0.75rem}
h1{font-size:1.5rem;margin:0.5rem 0}
h2{font-size:1.25rem;margin:1.5rem 0 0.5rem;border-bottom:1px solid #ccc}
h3{font-size:1.05rem;margin:0 0 0.3rem;overflow-wrap:anywhere}
.status{font-weight:600;white-space:nowrap;padding:0 0.3em;border-radius:0.25em;border:1px solid currentColor}
.s-ok{color:#1d6b2a}.s-unfinished{color:#555}.s-mismatch{color:#8a4b00}.s-illegal{color:#b00020}.s-error{color:#7a0060}
.game{background:#fff;border:1px solid #ddd;border-radius:0.4rem;padding:0.75rem;margin:0.75rem 0}
.message{font-family:"DejaVu Sans Mono",Menlo,Consolas,monospace;font-size:0.9rem;overflow-wrap:anywhere;background:#f3f1ec;padding:0.3rem 0.5rem}
figure{margin:0}
.boards{display:flex;flex-wrap:wrap;gap:0.75rem;align-items:flex-start}
.boards>*{flex:1 1 18rem;max-width:30rem;min-width:0}
.game svg{display:block;width:100%;max-width:30rem;height:auto}
.table-wrap{overflow-x:auto}
table{border-collapse:collapse;font-size:0.9rem}
th,td{border-bottom:1px solid #ddd;padding:0.25rem 0.5rem;text-align:left;vertical-align:top}
td.file{overflow-wrap:anywhere;min-width:8rem}
.controls{display:flex;gap:0.3rem;align-items:center;max-width:30rem}
.controls input{flex:1;min-width:4rem}
.controls button{font-size:1.1rem;min-width:2.6rem;min-height:2.4rem}
.viewer:focus{outline:2px solid #4a6fa5;outline-offset:2px}
.lines{display:flex;flex-wrap:wrap;gap:0.3rem;max-width:30rem;margin-top:0.3rem}
.choices{display:flex;flex-wrap:wrap;gap:0.3rem}
.lines button{font-size:0.95rem;min-height:2.4rem}
.choices button[aria-pressed="true"]{font-weight:600;outline:2px solid #4a6fa5}
.viewer-clocks{margin:0.2rem 0;font-variant-numeric:tabular-nums}
.note{font-style:italic}
@media (max-width:40rem){main{padding:0.4rem}table{font-size:0.85rem}th,td{padding:0.2rem 0.3rem}
table.games thead{display:none}table.games tr{display:block;border-bottom:1px solid #ccc;padding:0.3rem 0}
table.games td{display:inline-block;border:0}table.games td.file{display:block;min-width:0}
table.games td[data-label]::before{content:attr(data-label) " ";color:#555}}
</style>
</head>
<body>
<main>
<h1>keilref check report</h1>
<p>Each game's status is one word: ok, unfinished, mismatch, illegal or error. A cross (✕) marks an illegal point;
a ring marks the last stone placed; faint dashed stones were captured by the last turn; a crown marks a king.
Step through a game with the buttons, the slider or the arrow keys.</p>
"""

_SCRIPT = r"""
(function () {
  "use strict";
  var NS = "http://www.w3.org/2000/svg";
  var data = JSON.parse(document.getElementById("keilref-data").textContent);
  var words = data.words || {};
  var views = {};
  var active = null;
  var CROWN = [[-0.55, 0.32], [-0.62, -0.38], [-0.3, -0.02], [0, -0.5], [0.3, -0.02], [0.62, -0.38], [0.55, 0.32]];
  function el(name, attrs, parent) {
    var e = document.createElementNS(NS, name);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    parent.appendChild(e);
    return e;
  }
  // The frames after `prefix`, one per turn; turn numbers go on from `ply`.
  function extend(prefix, turns, ply) {
    var out = prefix.slice(), f = prefix[prefix.length - 1], pos = f.pos.slice(), clk = f.clk.slice();
    turns.forEach(function (t) {
      var ch = t[1], last = -1, caps = [];
      for (var j = 0; j < ch.length; j += 2) {
        var p = ch[j], c = ch[j + 1];
        if (c === ".") caps.push([p, pos[p]]); else if (pos[p] === ".") last = p;
        pos[p] = c;
      }
      ply += 1;
      if (t.length > 2) clk[ply % 2 === 1 ? 0 : 1] = t[2];
      out.push({pos: pos.slice(), last: last, caps: caps, clk: clk.slice()});
    });
    return out;
  }
  // Line 0 is the main line; a variation's frames up to its branch are its parent's.
  function lines(g) {
    var start = {pos: g.start.split(""), last: -1, caps: [], clk: [null, null]};
    var all = [{turns: g.turns, parent: -1, from: 0, at: "main", fault: g.fault, faultText: g.faultText,
      played: g.turns.length - (g.removal ? 1 : 0), frames: extend([start], g.turns, 0)}];
    (g.lines || []).forEach(function (l) {
      all.push({turns: l.turns, parent: l.parent, from: l.from, at: l.at, name: l.name, up: l.up,
        fault: l.fault, faultText: l.faultText, played: l.from + l.turns.length,
        frames: extend(all[l.parent].frames.slice(0, l.from + 1), l.turns, l.from)});
    });
    return all;
  }
  // The line that holds the position after turn t of line L.
  function owner(v, L, t) {
    while (L > 0 && t <= v.lines[L].from) L = v.lines[L].parent;
    return L;
  }
  function entry(v, L, t) {
    var l = v.lines[owner(v, L, t)];
    return l.turns[t - l.from - 1];
  }
  // The turns that may stand where turn t of the line shown stands: [line, label] each.
  function choices(v, t) {
    if (t < 1 || !v.g.branches) return null;
    return v.g.branches[owner(v, v.line, t - 1) + ":" + (t - 1)] || null;
  }
  function stone(layer, x, y, r, c) {
    var black = c.toLowerCase() === "b", king = c === "B" || c === "W";
    el("circle", {"class": "stone " + (black ? "black" : "white") + (king ? " king" : ""), cx: x, cy: y, r: r,
      fill: black ? "#1b1b1b" : "#fafafa", stroke: "#000", "stroke-width": "1.5"}, layer);
    if (king) {
      el("polygon", {"class": "crown", points: CROWN.map(function (d) { return (x + d[0] * r) + "," + (y + d[1] * r); }).join(" "),
        fill: "#e0a800", stroke: black ? "#fafafa" : "#1b1b1b", "stroke-width": "1.5", "stroke-linejoin": "round"}, layer);
    }
  }
  function drawLines(v, t) {
    var cs = choices(v, t), here = owner(v, v.line, t), had = v.choices.contains(document.activeElement), keep = null;
    while (v.choices.firstChild) v.choices.removeChild(v.choices.firstChild);
    v.choices.hidden = !cs;
    (cs || []).forEach(function (c) {
      var b = document.createElement("button");
      b.type = "button";
      b.textContent = c[1];
      b.setAttribute("aria-pressed", c[0] === here ? "true" : "false");
      b.setAttribute("data-line", v.lines[c[0]].at);
      b.addEventListener("click", function () { active = v; go(v, c[0], t); });
      v.choices.appendChild(b);
      if (c[0] === here) keep = b;
    });
    // Rebuilt buttons would drop the keyboard's place: keep it on the line now shown, or in the viewer.
    if (had) (keep || v.root).focus();
    if (v.line === 0) {
      if (document.activeElement === v.up) v.root.focus();
      v.up.hidden = true;
    } else {
      v.up.hidden = false;
      v.up.textContent = v.lines[v.line].up;
    }
  }
  function draw(v, t) {
    var l = v.lines[v.line], frames = l.frames;
    t = Math.max(0, Math.min(frames.length - 1, t));
    v.turn = t;
    var f = frames[t], lay = data.layouts[v.g.layout], r = lay.r, layer = v.layer;
    while (layer.firstChild) layer.removeChild(layer.firstChild);
    f.caps.forEach(function (cp) {
      var xy = lay.xy[cp[0]], black = cp[1].toLowerCase() === "b";
      el("circle", {"class": "captured " + (black ? "black" : "white"), cx: xy[0], cy: xy[1], r: r,
        fill: black ? "#1b1b1b" : "#fafafa", "fill-opacity": "0.3", stroke: "#000", "stroke-width": "1.5", "stroke-dasharray": "4 3"}, layer);
    });
    f.pos.forEach(function (c, p) { if (c !== ".") stone(layer, lay.xy[p][0], lay.xy[p][1], r, c); });
    if (f.last >= 0 && f.pos[f.last] !== ".") {
      var xy = lay.xy[f.last];
      el("circle", {"class": "last", cx: xy[0], cy: xy[1], r: r * 0.48, fill: "none",
        stroke: f.pos[f.last].toLowerCase() === "b" ? "#fafafa" : "#1b1b1b", "stroke-width": "3"}, layer);
    }
    var end = t === frames.length - 1, text;
    if (end && l.fault !== undefined && l.fault !== null) {
      var q = lay.xy[l.fault], a = r * 0.86, g = el("g", {"class": "illegal", "stroke-linecap": "round"}, layer);
      [["#fff", 9], ["#c00000", 5]].forEach(function (s) {
        [a, -a].forEach(function (dx) {
          el("line", {x1: q[0] - dx, y1: q[1] - a, x2: q[0] + dx, y2: q[1] + a, stroke: s[0], "stroke-width": s[1]}, g);
        });
      });
    }
    var played = l.played;
    if (t === 0) text = "start: no turn yet";
    else if (t > played) text = "after turn " + played + " of " + played + ": " + entry(v, v.line, t)[0];
    else text = "turn " + t + " of " + played + ": " + entry(v, v.line, t)[0];
    if (end && l.faultText) text += " — next, illegal: " + l.faultText;
    if (v.line > 0) text = l.name + ", " + text;
    v.status.textContent = text;
    if (v.clocks) {
      v.clocks.textContent = words.clocks.replace("{B}", f.clk[0] || words.noClock).replace("{W}", f.clk[1] || words.noClock);
    }
    v.range.value = String(t);
    v.buttons.first.disabled = v.buttons.prev.disabled = t === 0;
    v.buttons.next.disabled = v.buttons.last.disabled = end;
    v.root.setAttribute("data-turn", String(t));
    if (v.choices) drawLines(v, t);
  }
  // Show line L of the game at turn t.
  function go(v, L, t) {
    v.line = L;
    v.range.max = String(v.lines[L].frames.length - 1);
    v.root.setAttribute("data-line", v.lines[L].at);
    draw(v, t);
  }
  function up(v) {
    var l = v.lines[v.line];
    if (v.line > 0) go(v, l.parent, l.from);
  }
  function step(v, how) {
    var n = v.lines[v.line].frames.length - 1;
    draw(v, how === "first" ? 0 : how === "last" ? n : how === "prev" ? v.turn - 1 : v.turn + 1);
  }
  Array.prototype.forEach.call(document.querySelectorAll(".viewer"), function (root) {
    var id = root.getAttribute("data-game"), g = data.games[id];
    if (!g) return;
    var holder = root.querySelector(".viewer-board");
    holder.innerHTML = data.layouts[g.layout].base;
    var svg = holder.querySelector("svg");
    var layer = el("g", {"class": "viewer-layer"}, svg);
    var v = {id: id, g: g, root: root, layer: layer, lines: lines(g), line: 0, turn: 0,
      status: root.querySelector(".viewer-status"), range: root.querySelector("input[type=range]"), buttons: {},
      clocks: root.querySelector(".viewer-clocks"), choices: root.querySelector(".choices"), up: root.querySelector("button.up")};
    Array.prototype.forEach.call(root.querySelectorAll("button[data-step]"), function (b) {
      v.buttons[b.getAttribute("data-step")] = b;
      b.addEventListener("click", function () { active = v; step(v, b.getAttribute("data-step")); });
    });
    v.range.addEventListener("input", function () { active = v; draw(v, parseInt(v.range.value, 10)); });
    if (v.up) v.up.addEventListener("click", function () { active = v; up(v); });
    root.addEventListener("focusin", function () { active = v; });
    root.addEventListener("pointerdown", function () { active = v; });
    views[id] = v;
    if (!active) active = v;
    if (v.choices) root.setAttribute("data-line", "main");
    draw(v, v.lines[0].frames.length - 1);
  });
  // Up and down switch lines only while the viewer has the focus: elsewhere they scroll the page.
  function switchLine(v, key, target) {
    if (!v.choices || !v.root.contains(target)) return false;
    if (key === "ArrowUp") {
      if (v.line === 0) return false;
      up(v);
      return true;
    }
    var cs = choices(v, v.turn);
    if (!cs) return false;
    var here = owner(v, v.line, v.turn), i = 0;
    while (i < cs.length && cs[i][0] !== here) i += 1;
    go(v, cs[(i + 1) % cs.length][0], v.turn);
    return true;
  }
  document.addEventListener("keydown", function (e) {
    if (!active || e.altKey || e.ctrlKey || e.metaKey) return;
    if (e.target && e.target.type === "range") return;  // the slider steps by itself
    var how = {ArrowLeft: "prev", ArrowRight: "next", Home: "first", End: "last"}[e.key];
    if (how) {
      e.preventDefault();
      step(active, how);
    } else if ((e.key === "ArrowUp" || e.key === "ArrowDown") && switchLine(active, e.key, e.target)) {
      e.preventDefault();
    }
  });
  function fromHash() {
    var m = /game=(\d+)/.exec(location.hash), t = /turn=(\d+)/.exec(location.hash), at = /line=(\d+:\d+)/.exec(location.hash);
    if (!m) return;
    if (!views[m[1]]) {
      var section = document.getElementById("game-" + m[1]) || document.getElementById("row-" + m[1]);
      if (section) section.scrollIntoView();
      return;
    }
    var v = views[m[1]], L = 0;
    active = v;
    if (at) v.lines.forEach(function (l, i) { if (l.at === at[1]) L = i; });
    if (L !== v.line) go(v, L, 0);
    draw(v, t ? parseInt(t[1], 10) : v.lines[L].frames.length - 1);
    v.root.scrollIntoView();
  }
  window.addEventListener("hashchange", fromHash);
  fromHash();
})();
"""
