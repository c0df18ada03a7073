"""Standings and crosstables as text and as JSON (``keilref stats --standings``)."""

from __future__ import annotations

import json
from fractions import Fraction
from typing import Any

from keilref import wording
from keilref.escaping import one_line, shown_name
from keilref.referee.standings import EventStandings, Game

__all__ = ["to_json", "to_text"]


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


def _event_text(e: EventStandings) -> list[str]:
    counted = sum(1 for g in e.games if g.counted)
    left = len(e.games) - counted
    lines = [f"{one_line(e.event)}: {len(e.rows)} players, {counted} games counted, {left} not counted", ""]
    rows = [["#", "player", "points", "wins", "draws", "losses", "games", "SB"]]
    for r in e.rows:
        rows.append(
            [str(r.rank), one_line(r.player), _number(r.points), str(r.wins), str(r.draws), str(r.losses),
             str(r.games), _number(r.tiebreak)]
        )
    lines += _table(rows, {0, 2, 3, 4, 5, 6, 7})
    lines += ["", wording.crosstable_caption(wording.TEXT_NOT_COUNTED_MARK)]
    cross = [["#", "player", *(str(i) for i in range(1, len(e.rows) + 1))]]
    for i, (player, cells) in enumerate(e.crosstable()):
        cross.append([str(i + 1), one_line(player), *("-" if j == i else _cell(c, player) for j, c in enumerate(cells))])
    lines += _table(cross, {0})
    if left:
        lines += ["", "not counted:"]
        for g in e.not_counted:
            lines.append(
                f"  round {one_line(g.round)}, {one_line(g.black)} - {one_line(g.white)}: {g.status.value} "
                f"at {shown_name(g.file)}:{g.line}:{g.column} (game {g.game})"
            )
    return lines


def to_text(events: list[EventStandings]) -> str:
    if not events:
        return "no standings: no game has Event, Round, Black and White tags\n"
    parts = ["\n".join(_event_text(e)) for e in events]
    return "\n\n".join(parts) + "\n"


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
        "games": [
            {
                "round": g.round,
                "black": g.black,
                "white": g.white,
                "counted": g.counted,
                "black_points": None if g.black_points is None else float(g.black_points),
                "status": g.status.value,
                "file": g.file,
                "game": g.game,
                "line": g.line,
                "column": g.column,
            }
            for g in e.games
        ],
    }


def to_json(events: list[EventStandings]) -> str:
    """``{"events": [{"event", "standings": [{"player", "points", ...}], "games": [...]}]}``."""
    return json.dumps({"events": [_json_event(e) for e in events]}, indent=2, ensure_ascii=False) + "\n"
