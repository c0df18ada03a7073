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

import datetime
import html
import json
import re
import shlex
import sys
import tempfile
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import IO, Any, Protocol

from keilref import __version__, wording
from keilref.formats import svg
from keilref.records.sources import STDIN, Source, stdin_kept
from keilref.values import Color
from keilref.escaping import line_window, one_line, shown_name
from keilref.errors import IllegalMoveError, InvalidMoveError, KeilrefError, RecordError
from keilref.engine.game import Game, new_game
from keilref.records.inputs import read_piece, split_source
from keilref.records.record import Record, Turn, Variation
from keilref.engine.rules import ButtonRule, find_rules
from keilref.referee.settings import GameSetup, read_setup
from keilref.formats import WriterOptions
from keilref.referee.standings import standings
from keilref.referee.verdict import Fault, Status, Verdict

FAILING_DETAIL_CAP = 5_000
"""Failing games that get a viewer (drawn only when scrolled to, so the page
stays light); every failing game past it still gets its reason, place and
source line. A round of a real event has a few hundred faults at most; this
bounds the page's data for an archive that is mostly broken."""
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


TABLE_FIRST_PAGE = 100
"""Rows of the table written as HTML (what a reader without scripts sees); the script pages the rest."""
EAGER_VIEWERS = 12
"""Up to this many viewers are drawn at once; beyond, each is drawn as it scrolls into view."""

_COLUMNS = ("#", "file", "game", "event", "round", "players", "rules", "status", "computed", "declared")


def _source_lines(wanted: dict[str, set[int]]) -> dict[tuple[str, int], str]:
    """The lines asked for, read again as the check read them (decompressed, standard input kept)."""
    found: dict[tuple[str, int], str] = {}
    for file, numbers in wanted.items():
        if file == STDIN and not stdin_kept():
            continue
        last = max(numbers)
        try:
            stream = Source(file).open()
        except OSError:
            continue
        try:
            # Lines end at LF only, as the parser counts them.
            for number, raw in enumerate(stream, 1):
                if number in numbers:
                    found[(file, number)] = raw[:4000].decode("utf-8", errors="replace").removeprefix("\ufeff").rstrip("\r\n")
                if number >= last:
                    break
        except OSError:
            pass
        finally:
            if file != STDIN:
                stream.close()
    return found


def _excerpt(text: str, column: int, width: int = 100) -> tuple[str, int]:
    """The line cut around ``column`` to ``width`` characters, and the caret's offset in it."""
    text, at = line_window(text, column, width)
    return text, max(0, min(at, len(text)))


def _fraction(x: Fraction) -> str:
    if x.denominator == 1:
        return str(x.numerator)
    if x.denominator == 2:
        return f"{x.numerator // 2}½" if x.numerator > 1 else "½"
    return f"{float(x):g}"


class HtmlReport:
    """Collects verdicts as they come, then writes the page.

    ``add`` keeps a compact row per game (spooled as JSON lines), the
    verdicts of the failing games and of the games that take part in
    standings; ``write`` reads the games with viewers again.
    """

    def __init__(self, *, rules: str | None = None, strict: bool = False, command: str | None = None) -> None:
        self._rules = rules
        self._strict = strict
        self._command = command
        self._rows: IO[str] = tempfile.SpooledTemporaryFile(max_size=8 << 20, mode="w+", encoding="utf-8")
        self._counts: Counter[Status] = Counter()
        self._wanted: list[_Wanted] = []
        self._failing: list[_Wanted] = []
        self._ranked: list[Verdict] = []
        self._row_of: dict[tuple[str, int], int] = {}
        self._files: dict[str, int] = {}
        self._values: dict[str, dict[str, None]] = {"rules": {}, "event": {}, "round": {}}
        self._first_rows: list[str] = []
        self._failing_seen = 0
        self._other_seen = 0
        self._n = 0

    def add(self, v: Verdict) -> None:
        self._n += 1
        row = self._n
        self._counts[v.status] += 1
        faults = v.faults(strict=self._strict)
        failing = bool(faults)
        readable = not (v.file == STDIN and not stdin_kept())  # read as it came, it cannot be read again
        if failing:
            self._failing_seen += 1
            want = _Wanted(row, v, faults)
            self._failing.append(want)
            if readable and self._failing_seen <= FAILING_DETAIL_CAP:
                self._wanted.append(want)
        else:
            self._other_seen += 1
            if readable and self._other_seen <= OTHER_VIEWER_CAP:
                self._wanted.append(_Wanted(row, v, faults))
        if v.event is not None and v.round is not None and v.black is not None and v.white is not None:
            self._ranked.append(v)
            self._row_of[(v.file, v.game)] = row
        file = self._files.setdefault(v.file, len(self._files))
        for key, value in (("rules", v.rules), ("event", v.event), ("round", v.round)):
            if value is not None and value not in self._values[key]:
                self._values[key][value] = None
        line, column = v.location
        # Compact on purpose: 100,000 of them travel in the page for the script's table.
        self._rows.write(
            json.dumps(
                [row, file, v.game, v.event or "", v.round or "", v.black or "", v.white or "", v.rules or "",
                 v.status.value, v.computed or "", v.declared or "", line, column, 1 if failing else 0],
                ensure_ascii=False, separators=(",", ":"),
            )
            + "\n"
        )
        if row <= TABLE_FIRST_PAGE:
            self._first_rows.append(self._row_html(row, v, faults))

    def _row_html(self, row: int, v: Verdict, faults: tuple[Fault, ...]) -> str:
        failing = bool(faults)
        link = f'<a href="#game={row}">{row}</a>' if failing else str(row)
        return (
            f'<tr id="row-{row}" class="{"failing" if failing else "passing"}"{_rules_attr(faults)}><td>{link}</td>'
            f'<td class="file">{_esc(shown_name(v.file))}</td><td data-label="game">{v.game}</td>'
            f'<td data-label="event">{_esc(v.event or "")}</td><td data-label="round">{_esc(v.round or "")}</td>'
            f"<td>{_esc(_players(v))}</td><td data-label=\"rules\">{_esc(v.rules or '')}</td>"
            f"<td>{_status_cell(v.status)}</td>"
            f'<td data-label="computed">{_esc(v.computed or "–")}</td>'
            f'<td data-label="declared">{_esc(v.declared or "–")}</td></tr>\n'
        )

    def write(self, out: _Out) -> None:
        """The whole page: header and summary, every failing game, standings, the table, the other viewers."""
        details = self._details()
        layouts: dict[str, Any] = {}
        games: dict[str, Any] = {}
        viewers: dict[int, str] = {}
        other_html: list[str] = []
        for want in self._wanted:
            viewer = self._viewer(want, details.get(want.row), layouts, games)
            if want.failing:
                viewers[want.row] = viewer
            elif viewer:
                other_html.append(self._section(want, viewer, {}))
        out.write(_HEAD)
        out.write(self._header())
        if any("lines" in g or _has_clocks(g) for g in games.values()):
            out.write(_LINES_HELP)
        out.write(self._summary())
        out.write(f'<h2 id="failing">{wording.FAILING_HEADING}</h2>\n')
        if not self._failing_seen:
            out.write("<p>No game failed.</p>\n")
        wanted_lines: dict[str, set[int]] = {}
        for want in self._failing:
            wanted_lines.setdefault(want.verdict.file, set()).update(f.line for f in want.faults)
        lines = _source_lines(wanted_lines)
        for want in self._failing:
            out.write(self._section(want, viewers.get(want.row, ""), lines))
        if self._failing_seen > FAILING_DETAIL_CAP:
            out.write(f'<p class="note">{wording.viewers_stop(FAILING_DETAIL_CAP)}</p>\n')
        out.write(self._standings())
        out.write(self._table_html())
        if other_html:
            out.write('<h2 id="viewers">Games that did not fail</h2>\n')
            if self._other_seen > len(other_html):
                out.write(f'<p class="note">Viewers for the first {len(other_html)} of them.</p>\n')
            for section in other_html:
                out.write(section)
        page: dict[str, Any] = {"layouts": layouts, "games": games, "eager": len(games) <= EAGER_VIEWERS}
        words = _words(games)
        if words is not None:
            page["words"] = words
        data = json.dumps(page, separators=(",", ":"), sort_keys=True)
        # Inside <script>, only "</" could end the element early.
        safe = data.replace("</", "<\\/")
        out.write(f'<script type="application/json" id="keilref-data">{safe}</script>\n')
        out.write('<script type="application/json" id="keilref-rows">{"files":')
        out.write(json.dumps([shown_name(f) for f in self._files], ensure_ascii=False).replace("</", "<\\/"))
        out.write(',"rows":[')
        self._rows.seek(0)
        first = True
        for line in self._rows:
            out.write(("" if first else ",") + line.rstrip("\n").replace("</", "<\\/"))
            first = False
        self._rows.close()
        out.write("]}</script>\n")
        out.write(f"<script>{_SCRIPT}</script>\n</main>\n</body>\n</html>\n")

    def _header(self) -> str:
        command = self._command if self._command is not None else shlex.join(["keilref", *sys.argv[1:]])
        return (
            '<dl class="run"><dt>command</dt><dd><code>' + _esc(command) + "</code></dd>"
            f"<dt>keilref</dt><dd>{_esc(__version__)}</dd>"
            f"<dt>date</dt><dd>{datetime.date.today().isoformat()}</dd></dl>\n"
            '<nav class="toc" aria-label="sections"><a href="#summary">Summary</a> · '
            f'<a href="#failing">{wording.FAILING_HEADING}</a> · '
            + ('<a href="#standings">Standings</a> · ' if self._ranked else "")
            + '<a href="#games">Every game</a></nav>\n'
        )

    def _summary(self) -> str:
        total = sum(self._counts.values())
        cells = "".join(
            f"<tr><td>{_status_cell(s)}</td><td>{self._counts[s]}</td></tr>" for s in Status
        )
        failed = self._failing_seen
        verdict = "no game failed" if not failed else f"{failed} game{'s' if failed != 1 else ''} failed"
        jump = f' <a href="#failing">{wording.FAILING_HEADING}</a>' if failed else ""
        return (
            f'<h2 id="summary">Summary</h2>\n<p class="verdict">{total} game{"s" if total != 1 else ""}: '
            f"{verdict}.{jump}</p>\n<table class=\"counts\"><thead><tr><th>status</th><th>games</th></tr></thead>"
            f"<tbody>{cells}</tbody></table>\n"
        )

    def _section(self, want: _Wanted, viewer: str, lines: dict[tuple[str, int], str]) -> str:
        v = want.verdict
        row = want.row
        parts = [
            f'<section class="game{" failing" if want.failing else ""}" id="game-{row}" aria-labelledby="h-{row}">\n'
            f'<h3 id="h-{row}">{row}. {_esc(shown_name(v.file))} · game {v.game} {_status_cell(v.status)}</h3>\n'
        ]
        facts = []
        who = _players(v)
        if who:
            facts.append(f'<span class="players">{_esc(who)}</span>')
        if v.event is not None:
            facts.append(f'<span class="event">{_esc(v.event)}</span>')
        if v.round is not None:
            facts.append(f'<span class="round">round {_esc(v.round)}</span>')
        if facts:
            parts.append(f'<p class="facts">{" · ".join(facts)}</p>\n')
        for fault in want.faults:
            place = f"{shown_name(v.file)}:{fault.line}:{fault.column}"
            parts.append(
                f'<p class="message" data-rule="{_esc(fault.rule)}"><span class="place">{_esc(place)}</span> '
                f"{_esc(wording.fault_sentence(v, fault).removeprefix(f'game {v.game}: '))}</p>\n"
            )
            text = lines.get((v.file, fault.line))
            if text is not None:
                shown, at = _excerpt(text, fault.column)
                parts.append(
                    f'<pre class="source" aria-label="{_esc(wording.source_label(place))}">'
                    f"{html.escape(shown)}\n{' ' * at}^</pre>\n"
                )
        parts.append(viewer)
        parts.append("</section>\n")
        return "".join(parts)

    def _viewer(
        self, want: _Wanted, item: Record | RecordError | None, layouts: dict[str, Any], games: dict[str, Any]
    ) -> str:
        if not isinstance(item, Record):
            return ""
        try:
            viewer = _viewer_data(item, want.verdict, self._rules)
        except Exception:  # noqa: BLE001
            return ""  # a picture is never worth the report: the message and the place still say it
        if viewer is None:
            return ""
        key, lay, data = viewer
        layouts.setdefault(key, lay)
        games[str(want.row)] = data
        return _viewer_html(want.row, data, _aspect(lay["base"]))

    def _standings(self) -> str:
        events = standings(self._ranked)
        self._ranked = []
        if not events:
            return ""
        parts = [f'<h2 id="standings">Standings</h2>\n<p>{_esc(wording.STANDINGS_NOTE)}</p>\n']
        for n, e in enumerate(events, 1):
            counted = sum(1 for g in e.games if g.counted)
            parts.append(
                f'<section class="event" id="event-{n}"><h3>{_esc(e.event)}</h3>\n'
                f"<p>{len(e.rows)} players, {counted} games counted, {len(e.games) - counted} not counted.</p>\n"
                f'<div class="table-wrap"><table class="standings"><caption>standings of {_esc(e.event)}</caption>'
                '<thead><tr><th scope="col">rank</th><th scope="col">player</th><th scope="col">points</th>'
                '<th scope="col">wins</th><th scope="col">draws</th><th scope="col">losses</th>'
                '<th scope="col">games</th><th scope="col"><abbr title="Sonneborn-Berger">SB</abbr></th></tr></thead><tbody>'
            )
            for r in e.rows:
                parts.append(
                    f"<tr><td>{r.rank}</td><th scope=\"row\">{_esc(r.player)}</th><td>{_fraction(r.points)}</td>"
                    f"<td>{r.wins}</td><td>{r.draws}</td><td>{r.losses}</td><td>{r.games}</td>"
                    f"<td>{_fraction(r.tiebreak)}</td></tr>"
                )
            parts.append("</tbody></table></div>\n")
            heads = "".join(f'<th scope="col" title="{_esc(r.player)}">{i}</th>' for i, r in enumerate(e.rows, 1))
            parts.append(
                f'<div class="table-wrap"><table class="crosstable"><caption>{_esc(wording.CROSSTABLE_CAPTION)}</caption>'
                f'<thead><tr><th scope="col">#</th><th scope="col">player</th>{heads}</tr></thead><tbody>'
            )
            for i, (player, cells) in enumerate(e.crosstable()):
                tds = []
                for j, games in enumerate(cells):
                    if i == j:
                        tds.append('<td class="self">–</td>')
                        continue
                    marks = []
                    for g in games:
                        got = g.points_of(player)
                        if got is None:
                            row = self._row_of.get((g.file, g.game))
                            label = _esc(wording.not_counted(g.status.value, g.round))
                            marks.append(
                                f'<a class="not-counted" href="#game={row}" title="{label}" aria-label="{label}">'
                                f"✗ {g.status.value}</a>"
                            )
                        else:
                            marks.append(_fraction(got))
                    tds.append(f"<td>{' '.join(marks)}</td>")
                parts.append(f'<tr><td>{i + 1}</td><th scope="row">{_esc(player)}</th>{"".join(tds)}</tr>')
            parts.append("</tbody></table></div>\n</section>\n")
        return "".join(parts)

    def _table_html(self) -> str:
        options = "".join(f'<option value="{s.value}">{s.value}</option>' for s in Status)
        selects = []
        for key in ("rules", "event", "round"):
            values = self._values[key]
            if values:
                opts = "".join(f'<option value="{_esc(x)}">{_esc(x)}</option>' for x in list(values)[:2000])
                selects.append(
                    f'<label>{key} <select data-filter="{key}"><option value="">any</option>{opts}</select></label>'
                )
        heads = "".join(
            f'<th scope="col" data-col="{i}"><button type="button" data-sort="{i}">{name}</button></th>'
            for i, name in enumerate(_COLUMNS)
        )
        shown = min(self._n, TABLE_FIRST_PAGE)
        more = (
            f'<noscript><p class="note">The first {shown} of {self._n} games; the full table needs JavaScript.</p></noscript>\n'
            if self._n > shown else ""
        )
        return (
            '<h2 id="games">Every game</h2>\n'
            '<form class="filters" role="search" aria-label="filter the games" hidden>'
            f'<label>status <select data-filter="status"><option value="">any</option>'
            f'<option value="failing">failing</option>{options}</select></label>'
            f'{"".join(selects)}'
            '<label>player <input type="search" data-filter="player" autocomplete="off"></label>'
            '<label>search <input type="search" data-filter="text" autocomplete="off"></label>'
            "</form>\n"
            '<p class="table-count" aria-live="polite"></p>\n'
            f'{more}<div class="table-wrap"><table class="games"><caption class="sr-only">every game checked</caption>\n'
            f"<thead><tr>{heads}</tr></thead>\n<tbody>\n{''.join(self._first_rows)}</tbody></table></div>\n"
            '<nav class="pager" aria-label="pages of the table" hidden>'
            '<button type="button" data-page="first">first page</button>'
            '<button type="button" data-page="prev">previous page</button>'
            '<span class="page-of"></span>'
            '<button type="button" data-page="next">next page</button>'
            '<button type="button" data-page="last">last page</button></nav>\n'
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


def _aspect(svg_text: str) -> str:
    """The board's width / height, from its viewBox: the place kept for it before it is drawn."""
    found = re.search(r'viewBox="[-0-9.]+ [-0-9.]+ ([0-9.]+) ([0-9.]+)"', svg_text)
    return f"{found[1]} / {found[2]}" if found else "1 / 1"


def _viewer_html(row: int, data: dict[str, Any], aspect: str = "1 / 1") -> str:
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
        # Its place kept: boards drawn as they come into view must not push the page about.
        f'<div class="viewer-board" style="aspect-ratio: {aspect}"></div>\n'
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
main{max-width:75rem;margin:0 auto;padding:0.75rem}
h1{font-size:1.5rem;margin:0.5rem 0}
h2{font-size:1.25rem;margin:1.5rem 0 0.5rem;border-bottom:1px solid #ccc}
h3{font-size:1.05rem;margin:0 0 0.3rem;overflow-wrap:anywhere}
.status{font-weight:600;white-space:nowrap;padding:0 0.3em;border-radius:0.25em;border:1px solid currentColor}
.s-ok{color:#1d6b2a}.s-unfinished{color:#555}.s-mismatch{color:#8a4b00}.s-illegal{color:#b00020}.s-error{color:#7a0060}
.game{background:#fff;border:1px solid #ddd;border-radius:0.4rem;padding:0.75rem;margin:0.75rem 0}
.message{font-family:"DejaVu Sans Mono",Menlo,Consolas,monospace;font-size:0.9rem;overflow-wrap:anywhere;background:#f3f1ec;padding:0.3rem 0.5rem}
figure{margin:0}
.viewer-board{width:min(100%,26rem)}
.viewer-board svg{display:block;width:100%;height:auto}
.run{display:grid;grid-template-columns:max-content 1fr;gap:0.1rem 0.75rem;margin:0.5rem 0;font-size:0.9rem}
.run dt{font-weight:600}.run dd{margin:0;overflow-wrap:anywhere}
.facts{margin:0.2rem 0;color:#333}
.place{font-weight:600}
pre.source{font-family:"DejaVu Sans Mono",Menlo,Consolas,monospace;font-size:0.85rem;background:#f7f5f0;border-left:3px solid #b00020;padding:0.3rem 0.5rem;margin:0.3rem 0;overflow-x:auto;white-space:pre}
.game.failing{border-left:4px solid #b00020}
tr.failing{background:#fdecee}tr.failing td:first-child{border-left:4px solid #b00020}
.filters{display:flex;flex-wrap:wrap;gap:0.4rem 0.9rem;align-items:end;margin:0.5rem 0}
.filters label{display:flex;flex-direction:column;font-size:0.85rem}
.filters select,.filters input{font-size:1rem;min-height:2.2rem;max-width:14rem}
th button{white-space:nowrap;font:inherit;font-weight:600;background:none;border:0;padding:0.2rem 0;cursor:pointer;text-align:left;color:inherit}
th button::after{content:" ↕";color:#888}
th[aria-sort=ascending] button::after{content:" ▲";color:#1b1b1b}th[aria-sort=descending] button::after{content:" ▼";color:#1b1b1b}
.pager{display:flex;flex-wrap:wrap;gap:0.4rem;align-items:center;margin:0.5rem 0}
.pager button{min-height:2.4rem}
.sr-only{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
table.crosstable td,table.crosstable th{text-align:center}table.crosstable th[scope=row]{text-align:left}
td.self{background:#eee}table.standings th[scope=row],table.crosstable th[scope=row]{white-space:nowrap}a.not-counted{color:#b00020;font-weight:600;white-space:nowrap}
button:focus-visible,a:focus-visible,select:focus-visible,input:focus-visible{outline:2px solid #4a6fa5;outline-offset:2px}
.table-wrap{overflow-x:auto}
table{border-collapse:collapse;font-size:0.9rem}
th,td{border-bottom:1px solid #ddd;padding:0.25rem 0.5rem;text-align:left;vertical-align:top}
td.file{overflow-wrap:anywhere;min-width:8rem}
.controls{display:flex;gap:0.3rem;align-items:center;max-width:26rem}
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
table.games thead{display:block}table.games thead tr{display:flex;flex-wrap:wrap;gap:0 0.6rem}table.games th{border:0;padding:0}table.games tr{display:block;border-bottom:1px solid #ccc;padding:0.3rem 0}
table.games td{display:inline-block;border:0}table.games td.file{display:block;min-width:0}
table.games td[data-label]::before{content:attr(data-label) " ";color:#555}
table.games td[data-label]:empty{display:none}.filters select,.filters input{max-width:10rem}
table.games tr.failing td:first-child{border-left:0}table.games tr.failing{border-left:4px solid #b00020;padding-left:0.3rem}}
</style>
</head>
<body>
<main>
<h1>keilref check report</h1>
<p>Each game's status is one word: ok, unfinished, mismatch, illegal or error. A cross (✕) marks an illegal point;
a ring marks the last stone placed; faint dashed stones were captured by the last turn; a crown marks a king.
Step through a game with the buttons, the slider or the arrow keys (they step the viewer that has the focus, else the one most in view).</p>
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
  function build(root) {
    var id = root.getAttribute("data-game"), g = data.games[id];
    if (!g || views[id]) return views[id] || null;
    var holder = root.querySelector(".viewer-board");
    holder.innerHTML = data.layouts[g.layout].base;
    var svg = holder.querySelector("svg");
    svg.setAttribute("role", "img");
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
    if (v.choices) root.setAttribute("data-line", "main");
    draw(v, v.lines[0].frames.length - 1);
    return v;
  }
  var roots = document.querySelectorAll(".viewer");
  // A big report draws a board only as it comes into view, so the page opens at once.
  if (data.eager || !("IntersectionObserver" in window)) {
    Array.prototype.forEach.call(roots, build);
  } else {
    var seen = new IntersectionObserver(function (entries) {
      entries.forEach(function (e) {
        if (e.isIntersecting) { build(e.target); seen.unobserve(e.target); }
      });
    }, {rootMargin: "300px 0px"});
    Array.prototype.forEach.call(roots, function (r) { seen.observe(r); });
  }
  // The viewer with the focus, else the one most in view: arrow keys step what the reader looks at.
  function current() {
    var f = document.activeElement, holder = f && f.closest ? f.closest(".viewer") : null;
    if (holder) return build(holder);
    var best = null, most = 0, off = 0, h = window.innerHeight || document.documentElement.clientHeight;
    // Several may be wholly in view: then the one nearest the middle of the window.
    Array.prototype.forEach.call(roots, function (r) {
      var b = r.getBoundingClientRect(), shown = Math.min(b.bottom, h) - Math.max(b.top, 0);
      var away = Math.abs((b.top + b.bottom) / 2 - h / 2);
      if (shown > most + 1 || (shown > 0 && Math.abs(shown - most) <= 1 && away < off)) { most = shown; off = away; best = r; }
    });
    return best ? build(best) : null;
  }
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
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    var t = e.target;
    if (t && (t.type === "range" || /^(INPUT|SELECT|TEXTAREA)$/.test(t.tagName))) return;  // they take their own keys
    active = current();
    if (!active) return;
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
    var root = document.querySelector('.viewer[data-game="' + m[1] + '"]'), v = root ? build(root) : null, L = 0;
    if (!v) {
      var section = document.getElementById("game-" + m[1]) || document.getElementById("row-" + m[1]);
      if (section) section.scrollIntoView();
      return;
    }
    active = v;
    if (at) v.lines.forEach(function (l, i) { if (l.at === at[1]) L = i; });
    if (L !== v.line) go(v, L, 0);
    draw(v, t ? parseInt(t[1], 10) : v.lines[L].frames.length - 1);
    var where = document.getElementById("game-" + m[1]) || v.root;
    where.scrollIntoView();
    v.root.focus({preventScroll: true});
  }
  window.addEventListener("hashchange", fromHash);
  fromHash();
  // The table of every game, built from the rows in the page a page at a time: a browser
  // holds 100,000 rows of data easily, not 100,000 rows of DOM.
  (function () {
    var holder = document.getElementById("keilref-rows"), form = document.querySelector("form.filters");
    if (!holder || !form) return;
    var all = JSON.parse(holder.textContent), files = all.files, rows = all.rows;
    var body = document.querySelector("table.games tbody"), count = document.querySelector(".table-count");
    var pager = document.querySelector("nav.pager"), pageOf = pager.querySelector(".page-of");
    var SIGN = {ok: "\u2713", unfinished: "\u2026", mismatch: "\u2260", illegal: "\u2717", error: "!"};
    var PAGE = 100, page = 0, shown = rows, sortCol = 0, sortDir = 1;
    var collate = new Intl.Collator(undefined, {numeric: true, sensitivity: "base"}).compare;
    var KEY = [
      function (r) { return r[0]; }, function (r) { return files[r[1]]; }, function (r) { return r[2]; },
      function (r) { return r[3]; }, function (r) { return r[4]; }, function (r) { return r[5] + " " + r[6]; },
      function (r) { return r[7]; }, function (r) { return r[8]; }, function (r) { return r[9]; },
      function (r) { return r[10]; }];
    function players(r) { return r[5] || r[6] ? (r[5] || "?") + " \u2013 " + (r[6] || "?") : ""; }
    function td(tr, text, label, cls) {
      var c = document.createElement("td");
      c.textContent = text;
      if (label) c.setAttribute("data-label", label);
      if (cls) c.className = cls;
      tr.appendChild(c);
      return c;
    }
    function render() {
      var pages = Math.max(1, Math.ceil(shown.length / PAGE));
      page = Math.max(0, Math.min(page, pages - 1));
      var frag = document.createDocumentFragment(), from = page * PAGE, to = Math.min(shown.length, from + PAGE);
      for (var i = from; i < to; i++) {
        var r = shown[i], tr = document.createElement("tr");
        tr.id = "row-" + r[0];
        tr.className = r[13] ? "failing" : "passing";
        var first = td(tr, "");
        if (r[13]) {
          var a = document.createElement("a");
          a.href = "#game=" + r[0];
          a.textContent = String(r[0]);
          first.appendChild(a);
        } else first.textContent = String(r[0]);
        td(tr, files[r[1]], null, "file");
        td(tr, String(r[2]), "game");
        td(tr, r[3], "event");
        td(tr, r[4], "round");
        td(tr, players(r));
        td(tr, r[7], "rules");
        var st = td(tr, ""), span = document.createElement("span");
        span.className = "status s-" + r[8];
        span.textContent = SIGN[r[8]] + " " + r[8];
        st.appendChild(span);
        td(tr, r[9] || "\u2013", "computed");
        td(tr, r[10] || "\u2013", "declared");
        frag.appendChild(tr);
      }
      body.textContent = "";
      body.appendChild(frag);
      count.textContent = shown.length === rows.length ? rows.length + " games" :
        shown.length + " of " + rows.length + " games match";
      pageOf.textContent = shown.length ? "rows " + (from + 1) + "\u2013" + to + " of " + shown.length + " (page " + (page + 1) + " of " + pages + ")" : "no rows";
      pager.querySelector('[data-page="first"]').disabled = pager.querySelector('[data-page="prev"]').disabled = page === 0;
      pager.querySelector('[data-page="next"]').disabled = pager.querySelector('[data-page="last"]').disabled = page >= pages - 1;
    }
    function value(name) {
      var f = form.querySelector('[data-filter="' + name + '"]');
      return f ? f.value : "";
    }
    function apply() {
      var status = value("status"), rules = value("rules"), event = value("event"), round = value("round");
      var player = value("player").trim().toLowerCase(), text = value("text").trim().toLowerCase();
      shown = rows.filter(function (r) {
        if (status === "failing" ? !r[13] : status && r[8] !== status) return false;
        if (rules && r[7] !== rules) return false;
        if (event && r[3] !== event) return false;
        if (round && r[4] !== round) return false;
        if (player && r[5].toLowerCase().indexOf(player) < 0 && r[6].toLowerCase().indexOf(player) < 0) return false;
        if (text) {
          var hay = (files[r[1]] + " " + r.slice(2, 11).join(" ")).toLowerCase();
          if (hay.indexOf(text) < 0) return false;
        }
        return true;
      });
      sort();
    }
    function sort() {
      var key = KEY[sortCol];
      if (sortCol !== 0 || sortDir !== 1) {
        shown = shown.slice().sort(function (a, b) {
          var x = key(a), y = key(b);
          var c = typeof x === "number" ? x - y : collate(x, y);
          return c ? c * sortDir : a[0] - b[0];
        });
      }
      Array.prototype.forEach.call(document.querySelectorAll("table.games th[data-col]"), function (th) {
        var col = parseInt(th.getAttribute("data-col"), 10);
        if (col === sortCol) th.setAttribute("aria-sort", sortDir === 1 ? "ascending" : "descending");
        else th.removeAttribute("aria-sort");
      });
      page = 0;
      render();
    }
    form.hidden = false;
    pager.hidden = false;
    form.addEventListener("submit", function (e) { e.preventDefault(); });
    var timer = null;
    Array.prototype.forEach.call(form.querySelectorAll("[data-filter]"), function (f) {
      f.addEventListener(f.tagName === "SELECT" ? "change" : "input", function () {
        clearTimeout(timer);
        timer = setTimeout(apply, f.tagName === "SELECT" ? 0 : 150);
      });
    });
    Array.prototype.forEach.call(document.querySelectorAll("table.games th button[data-sort]"), function (b) {
      b.addEventListener("click", function () {
        var col = parseInt(b.getAttribute("data-sort"), 10);
        sortDir = col === sortCol ? -sortDir : 1;
        sortCol = col;
        sort();
      });
    });
    Array.prototype.forEach.call(pager.querySelectorAll("button[data-page]"), function (b) {
      b.addEventListener("click", function () {
        var how = b.getAttribute("data-page");
        page = how === "first" ? 0 : how === "last" ? 1e9 : how === "prev" ? page - 1 : page + 1;
        render();
      });
    });
    document.querySelector("table.games th[data-col='0']").setAttribute("aria-sort", "ascending");
    render();
  })();
})();
"""
