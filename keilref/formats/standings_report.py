"""Standings and crosstables as text and as JSON (``keilref stats --standings``).

Both end with the count of every game read (counted plus not counted), the
names that are likely one player's, and with ``--ratings`` the Elo ratings.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from keilref import wording
from keilref.escaping import json_text, one_line, shown_name
from keilref.referee.ratings import K, START, Rating, ratings
from keilref.referee.standings import (
    CROSSTABLE_MAX_PLAYERS,
    EventStandings,
    Game,
    Spelling,
    likely_same,
    standings_of,
)

__all__ = ["PLACES_SHOWN", "alike_lines", "to_json", "to_text"]

PLACES_SHOWN = 3
"""Places shown in text for each spelling of a likely-same name; JSON gives them all."""


def _number(x: Fraction) -> str:
    """``4``, ``2.5``, ``10.25``: exact, as short as it goes."""
    if x.denominator == 1:
        return str(x.numerator)
    return f"{float(x):g}"


def _cell(games: list[Game], player: str) -> str:
    if not games:
        return "."
    marks = []
    for g in games:
        got = g.points_of(player)
        marks.append(wording.TEXT_NOT_COUNTED_MARK if got is None else "½" if got == Fraction(1, 2) else _number(got))
    return " ".join(marks)


def _table(rows: list[list[str]], right: set[int]) -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    out = []
    for r in rows:
        cells = [c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths))]
        out.append("  ".join(cells).rstrip())
    return out


def _shown(text: str | None) -> str | None:
    return None if text is None else one_line(text)


def _event_text(e: EventStandings) -> list[str]:
    head = wording.standings_head(one_line(wording.event_name(e.event)), len(e.rows), e.counted, len(e.not_counted))
    lines = [head, ""]
    rows = [["#", "player", "points", "wins", "draws", "losses", "games", "SB"]]
    for r in e.rows:
        rows.append(
            [str(r.rank), one_line(r.player), _number(r.points), str(r.wins), str(r.draws), str(r.losses),
             str(r.games), _number(r.tiebreak)]
        )
    lines += _table(rows, {0, 2, 3, 4, 5, 6, 7})
    lines += ["", *_crosstable(e)]
    if e.not_counted:
        lines += ["", wording.NOT_COUNTED_HEADING]
        for g in e.not_counted:
            place = f"{shown_name(g.file)}:{g.line}:{g.column}"
            said = wording.not_counted_game(
                _shown(g.round), _shown(g.black), _shown(g.white), g.reason or g.status.value, place, g.game
            )
            lines.append(f"  {said}")
    return lines


def _crosstable(e: EventStandings) -> list[str]:
    if not e.crosstable_shown:
        return [wording.crosstable_left_out(len(e.rows), CROSSTABLE_MAX_PLAYERS)]
    cross = [["#", "player", *(str(i) for i in range(1, len(e.rows) + 1))]]
    for i, (player, cells) in enumerate(e.crosstable()):
        cross.append([str(i + 1), one_line(player), *("-" if j == i else _cell(c, player) for j, c in enumerate(cells))])
    return [wording.crosstable_caption(wording.TEXT_NOT_COUNTED_MARK), *_table(cross, {0})]


def alike_lines(groups: list[tuple[Spelling, ...]], *, plain: bool = False) -> list[str]:
    """One warning a group of names likely one player's, each spelling with where it is used.

    ``plain``: the names as written, for a format that escapes the whole line (HTML).
    """
    lines = []
    for group in groups:
        said = [
            (s.name if plain else one_line(s.name), [f"{shown_name(f)}:{n}" for f, n in s.places[:PLACES_SHOWN]],
             max(0, len(s.places) - PLACES_SHOWN))
            for s in group
        ]
        lines.append(wording.likely_same_player(said))
    return lines


def _ratings_text(rated: list[Rating], games: list[Game]) -> list[str]:
    lines = [wording.ratings_head(sum(1 for g in games if g.counted), START, K), ""]
    rows = [list(wording.RATINGS_COLUMNS)]
    for i, r in enumerate(rated, 1):
        rows.append([str(i), one_line(r.player), f"{r.rating:.0f}", str(r.games)])
    return lines + _table(rows, {0, 2, 3})


def to_text(games: list[Game], *, rate: bool = False) -> str:
    """Every event's standings, then the names likely one player's, the ratings, and the count of every game."""
    events = standings_of(games)
    counted = sum(1 for g in games if g.counted)
    tail = [wording.games_accounted(len(games), counted, len(games) - counted)]
    if not events:
        return wording.no_standings(len(games)) + "\n"
    parts = ["\n".join(_event_text(e)) for e in events]
    alike = alike_lines(likely_same(games))
    if alike:
        parts.append("\n".join(alike))
    if rate:
        parts.append("\n".join(_ratings_text(ratings(games), games)))
    parts.append("\n".join([*tail, wording.SB_NOTE]))
    return "\n\n".join(parts) + "\n"


def _json_game(g: Game) -> dict[str, Any]:
    return {
        "round": g.round,
        "black": g.black,
        "white": g.white,
        "counted": g.counted,
        "reason": g.reason,
        "black_points": None if g.black_points is None else float(g.black_points),
        "status": g.status.value,
        "file": g.file,
        "game": g.game,
        "line": g.line,
        "column": g.column,
    }


def _json_event(e: EventStandings) -> dict[str, Any]:
    return {
        "event": e.event,
        "standings": [
            {
                "rank": r.rank,
                "player": r.player,
                "points": float(r.points),
                "wins": r.wins,
                "draws": r.draws,
                "losses": r.losses,
                "games": r.games,
                "tiebreak": float(r.tiebreak),
            }
            for r in e.rows
        ],
        "games": [_json_game(g) for g in e.games],
    }


def to_json(games: list[Game], *, rate: bool = False) -> str:
    """``{"events": [{"event", "standings", "games"}], "games_read", "counted", "not_counted", "likely_same"}``.

    ``event`` is ``null`` for the games without an ``Event`` tag; with
    ``rate``, ``"ratings": {"system", "start", "k", "players": [{"player", "rating", "games"}]}``
    (``rating`` unrounded).
    """
    counted = sum(1 for g in games if g.counted)
    out: dict[str, Any] = {
        "events": [_json_event(e) for e in standings_of(games)],
        "games_read": len(games),
        "counted": counted,
        "not_counted": len(games) - counted,
        "likely_same": [
            [{"name": s.name, "places": [{"file": f, "line": n} for f, n in s.places]} for s in group]
            for group in likely_same(games)
        ],
    }
    if rate:
        out["ratings"] = {
            "system": "elo",
            "start": START,
            "k": K,
            "players": [{"player": r.player, "rating": r.rating, "games": r.games} for r in ratings(games)],
        }
    return json_text(out, indent=2) + "\n"
