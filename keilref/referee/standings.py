"""Standings of an event, from verified results only.

A game counts when its verdict is ``ok``: its result is then the declared
one, or the one the referee computed for a game that ended with none
claimed. Any other game is listed as not counted, with its status and
where its fault is, so a director sees what keeps it out.

Points: 1 for a win, ½ for a draw, 0 for a loss. Ties are broken by the
Sonneborn-Berger score (the points of every opponent beaten, plus half
the points of every opponent drawn with), then by wins; players still
level share a rank. Only games with ``Event``, ``Round``, ``Black`` and
``White`` tags take part: standings need all four.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from fractions import Fraction

from keilref.referee.verdict import Status, Verdict
from keilref.values import Color, Result, ResultKind

__all__ = ["EventStandings", "Game", "Row", "standings"]


@dataclass(frozen=True)
class Game:
    """One game of an event, counted or not."""

    round: str
    black: str
    white: str
    black_points: Fraction | None
    """Black's points from it (1, ½ or 0); ``None`` when it is not counted."""
    status: Status
    file: str
    game: int
    line: int
    column: int
    """Where the game's fault is (its start for a counted game)."""

    @property
    def counted(self) -> bool:
        return self.black_points is not None

    def points_of(self, player: str) -> Fraction | None:
        if self.black_points is None:
            return None
        return self.black_points if player == self.black else 1 - self.black_points


@dataclass(frozen=True)
class Row:
    """A player's line of the standings."""

    rank: int
    player: str
    points: Fraction
    wins: int
    draws: int
    losses: int
    games: int
    """Games counted."""
    tiebreak: Fraction
    """Sonneborn-Berger: beaten opponents' points, plus half of drawn opponents'."""


@dataclass(frozen=True)
class EventStandings:
    """The standings and crosstable of one event."""

    event: str
    rows: tuple[Row, ...]
    games: tuple[Game, ...] = field(default=())
    """Every game of the event, in the order read."""

    @property
    def not_counted(self) -> tuple[Game, ...]:
        return tuple(g for g in self.games if not g.counted)

    def crosstable(self) -> list[tuple[str, list[list[Game]]]]:
        """Per player in standings order: the games against each player, in the same order."""
        order = [r.player for r in self.rows]
        cells: dict[str, dict[str, list[Game]]] = {p: {q: [] for q in order} for p in order}
        for g in self.games:
            cells[g.black][g.white].append(g)
            cells[g.white][g.black].append(g)
        return [(p, [cells[p][q] for q in order]) for p in order]


def black_points(v: Verdict) -> Fraction | None:
    """Black's points from a game whose verdict is ``ok``, else ``None``."""
    if v.status is not Status.OK:
        return None
    text = v.declared if v.declared not in (None, "*") else v.computed
    if text is None:
        return None
    result = Result.parse(text)
    if result.kind is ResultKind.DRAW:
        return Fraction(1, 2)
    if result.winner is None:
        return None
    return Fraction(1) if result.winner is Color.BLACK else Fraction(0)


def standings(verdicts: Iterable[Verdict]) -> list[EventStandings]:
    """The standings of every event among ``verdicts``, events in the order first seen."""
    events: dict[str, list[Game]] = {}
    for v in verdicts:
        if v.event is None or v.round is None or v.black is None or v.white is None:
            continue
        line, column = v.location if v.status is not Status.OK else (v.line, 1)
        game = Game(v.round, v.black, v.white, black_points(v), v.status, v.file, v.game, line, column)
        events.setdefault(v.event, []).append(game)
    return [_event(name, games) for name, games in events.items()]


def _event(name: str, games: list[Game]) -> EventStandings:
    players: dict[str, None] = {}
    for g in games:
        players.setdefault(g.black)
        players.setdefault(g.white)
    points = {p: Fraction(0) for p in players}
    tally = {p: [0, 0, 0] for p in players}  # wins, draws, losses
    for g in games:
        for player in (g.black, g.white):
            got = g.points_of(player)
            if got is None:
                continue
            points[player] += got
            tally[player][0 if got == 1 else 1 if got else 2] += 1
    tiebreak = {p: Fraction(0) for p in players}
    for g in games:
        for player, opponent in ((g.black, g.white), (g.white, g.black)):
            got = g.points_of(player)
            if got is not None:
                tiebreak[player] += got * points[opponent]
    order = sorted(players, key=lambda p: (-points[p], -tiebreak[p], -tally[p][0], p))
    rows: list[Row] = []
    for i, p in enumerate(order):
        w, d, lost = tally[p]
        key = (points[p], tiebreak[p], w)
        rank = rows[-1].rank if rows and (rows[-1].points, rows[-1].tiebreak, rows[-1].wins) == key else i + 1
        rows.append(Row(rank, p, points[p], w, d, lost, w + d + lost, tiebreak[p]))
    return EventStandings(name, tuple(rows), tuple(games))
