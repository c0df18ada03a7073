"""Standings of an event, from verified results only; every game read accounted for.

A game counts when its verdict is ``ok``: its result is then the declared
one, or the one the referee computed for a game that ended with none
claimed. Any other game is listed as not counted, with its reason and
where its fault is, so a director sees what keeps it out.

Every game read is placed, none dropped. A game's ``Event`` tag names its
event; the games without one (a server match has none) make one group of
their own, the no-event group, shown last and never mixed into a named
event. One group rather than one per file: a folder of server exports has a
file per match, and a table per match would rank nobody. A game without a
``Round`` still counts in its event (its round shows as ``-``). A game that
does not name both players (``Black`` and ``White``), or that names a bye,
cannot take a place in a table: it is listed as not counted, with that
reason.

Points: 1 for a win, ½ for a draw, 0 for a loss. Ties are broken by the
Sonneborn-Berger score (the points of every opponent beaten, plus half
the points of every opponent drawn with), then by wins; players still
level share a rank.

Players are told apart by their names exactly as written. Names that
differ only in case, white space or accents (``gloria paz``, ``Gloria
Paz``) stay two players, and :func:`likely_same` names them, with where
each spelling is used, for a director to correct the records.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from fractions import Fraction

from keilref.referee.verdict import Status, Verdict
from keilref.values import Color, Result, ResultKind

__all__ = [
    "BYE",
    "CROSSTABLE_MAX_PLAYERS",
    "NO_PLAYERS",
    "NO_RESULT",
    "EventStandings",
    "Game",
    "Row",
    "Spelling",
    "game_of",
    "likely_same",
    "player_key",
    "standings",
    "standings_of",
]

NO_PLAYERS = "no players"
"""The reason a game that does not name both players is not counted."""
BYE = "bye"
"""The reason a game that names a bye as a player is not counted: no game was played."""
CROSSTABLE_MAX_PLAYERS = 64
"""Past this many players an event's crosstable is left out: its N × N cells (the no-event
group of a large archive may hold thousands of players) would be unreadable and huge."""
NO_RESULT = "no result"
"""The reason an ``ok`` game that gives no winner (a game ended without a result) is not counted."""


@dataclass(frozen=True)
class Game:
    """One game read, counted or not: all that standings and ratings keep of it."""

    event: str | None
    """``None``: the game has no ``Event`` tag (the no-event group)."""
    round: str | None
    black: str | None
    white: str | None
    black_points: Fraction | None
    """Black's points from it (1, ½ or 0); ``None`` when it is not counted."""
    status: Status
    file: str
    game: int
    line: int
    column: int
    """Where the game's fault is (its start for a counted game)."""
    start: int = 0
    """The line the game starts on."""
    date: str | None = None
    reason: str | None = None
    """Why it is not counted: its status's value, or :data:`NO_PLAYERS`,
    :data:`BYE`, :data:`NO_RESULT`; ``None`` for a counted game."""

    @property
    def counted(self) -> bool:
        return self.black_points is not None

    @property
    def placed(self) -> bool:
        """Both players named, neither a bye: the game has a cell in the crosstable."""
        return self.reason not in (NO_PLAYERS, BYE)

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
    """The standings and crosstable of one event (``event`` ``None``: the games without one)."""

    event: str | None
    rows: tuple[Row, ...]
    games: tuple[Game, ...] = field(default=())
    """Every game of the event, in the order read."""

    @property
    def counted(self) -> int:
        return sum(1 for g in self.games if g.counted)

    @property
    def not_counted(self) -> tuple[Game, ...]:
        return tuple(g for g in self.games if not g.counted)

    @property
    def crosstable_shown(self) -> bool:
        return len(self.rows) <= CROSSTABLE_MAX_PLAYERS

    def crosstable(self) -> list[tuple[str, list[list[Game]]]]:
        """Per player in standings order: the games against each player, in the same order."""
        order = [r.player for r in self.rows]
        cells: dict[str, dict[str, list[Game]]] = {p: {q: [] for q in order} for p in order}
        for g in self.games:
            if g.black is None or g.white is None or not g.placed:
                continue
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


def player_key(name: str) -> str:
    """What two spellings of one player share: no accents, no case, single spaces.

    ``José  Paz`` and ``jose paz`` have one key. Compatibility forms are
    unfolded first (NFKD), so a full-width or ligature letter meets its plain one.
    """
    decomposed = unicodedata.normalize("NFKD", name)
    bare = "".join(c for c in decomposed if not unicodedata.combining(c))
    return " ".join(bare.casefold().split())


def _is_bye(name: str) -> bool:
    return player_key(name) == BYE


def _reason(v: Verdict, points: Fraction | None) -> str | None:
    if v.black is None or v.white is None or not player_key(v.black) or not player_key(v.white):
        return NO_PLAYERS
    if _is_bye(v.black) or _is_bye(v.white):
        return BYE
    if v.status is not Status.OK:
        return str(v.status.value)
    return NO_RESULT if points is None else None


def game_of(v: Verdict) -> Game:
    """What standings and ratings keep of a verdict: small, so a report may keep every game's."""
    line, column = v.location if v.status is not Status.OK else (v.line, 1)
    points = black_points(v)
    reason = _reason(v, points)
    return Game(
        v.event, v.round, v.black, v.white, points if reason is None else None, v.status, v.file, v.game,
        line, column, start=v.line, date=v.date, reason=reason,
    )


def standings(verdicts: Iterable[Verdict]) -> list[EventStandings]:
    """The standings of every event among ``verdicts``; see :func:`standings_of`."""
    return standings_of(game_of(v) for v in verdicts)


def standings_of(games: Iterable[Game]) -> list[EventStandings]:
    """Every game in one event's standings: events in the order first seen, the no-event group last.

    Empty when no game names both its players: no table would have a row.
    """
    events: dict[str | None, list[Game]] = {}
    for g in games:
        events.setdefault(g.event, []).append(g)
    if not any(g.placed for group in events.values() for g in group):
        return []
    named = [_event(name, group) for name, group in events.items() if name is not None]
    return named + ([_event(None, events[None])] if None in events else [])


def _event(name: str | None, games: list[Game]) -> EventStandings:
    players: dict[str, None] = {}
    for g in games:
        if g.black is not None and g.white is not None and g.placed:
            players.setdefault(g.black)
            players.setdefault(g.white)
    points = {p: Fraction(0) for p in players}
    tally = {p: [0, 0, 0] for p in players}  # wins, draws, losses
    for g in games:
        for player in (g.black, g.white):
            got = None if player is None else g.points_of(player)
            if player is None or got is None:
                continue
            points[player] += got
            tally[player][0 if got == 1 else 1 if got else 2] += 1
    tiebreak = {p: Fraction(0) for p in players}
    for g in games:
        if g.black is None or g.white is None:
            continue
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


@dataclass(frozen=True)
class Spelling:
    """One way a player's name is written, and the games (file, start line) that write it so."""

    name: str
    places: tuple[tuple[str, int], ...]


def likely_same(games: Iterable[Game]) -> list[tuple[Spelling, ...]]:
    """Names that differ only in case, white space or accents, each group in the order first seen.

    They are not merged: a director may have two players of one name, and
    only a director knows. Every game read takes part, counted or not, since
    a misspelling is as likely in a game that failed.
    """
    seen: dict[str, dict[str, list[tuple[str, int]]]] = {}
    for g in games:
        for name in (g.black, g.white):
            if name is None:
                continue
            places = seen.setdefault(player_key(name), {}).setdefault(name, [])
            place = (g.file, g.start)
            if not places or places[-1] != place:
                places.append(place)
    return [
        tuple(Spelling(name, tuple(places)) for name, places in spellings.items())
        for spellings in seen.values()
        if len(spellings) > 1
    ]
