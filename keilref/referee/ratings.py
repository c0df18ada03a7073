"""Elo ratings from verified games, in date order.

Elo, not Glicko-2: it is what the live Keil server and most abstract-game
sites show, a director can check it by hand (one line of arithmetic a
game), and it needs no rating period, so the order of the games alone
decides it. Every player starts at :data:`START` (1500); after each game
both move by ``K × (score − expected)``, with :data:`K` = 32, where the
expected score of a player rated ``R`` against ``S`` is
``1 / (1 + 10 ** ((S − R) / 400))``. A win scores 1, a draw ½, a loss 0.

Only counted games are rated: ``ok``, both players named, not a bye, a
result that says who won (or a draw). The order is the ``Date`` tag's
(``2024-05-01``, also ``2024.05.01`` or ``2024/05/01``; a date that gives
only the year or the month, or has ``??`` for the rest, sorts at its start);
games of one date, and games without a readable date, keep the order they
were read in (files in the order given, games in file order); games without
a readable date come after the dated ones. Ratings are computed in floats
and shown rounded to whole numbers.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from keilref.referee.standings import Game

__all__ = ["K", "START", "Rating", "date_key", "ratings"]

START = 1500.0
K = 32.0

_DATE = re.compile(r"\s*(\d{4})(?:[-./](\d{1,2}|\?\?))?(?:[-./](\d{1,2}|\?\?))?")


@dataclass(frozen=True)
class Rating:
    player: str
    rating: float
    games: int
    """Games rated."""


def date_key(date: str | None) -> tuple[int, int, int] | None:
    """``(year, month, day)`` of a ``Date`` tag, unknown parts 0; ``None`` when it gives no year."""
    found = _DATE.match(date or "")
    if found is None:
        return None
    parts = [int(p) if p is not None and p.isdigit() else 0 for p in found.groups()]
    return parts[0], parts[1], parts[2]


def expected(rating: float, opponent: float) -> float:
    """The score a player rated ``rating`` is expected to make against ``opponent``."""
    return 1.0 / (1.0 + float(10.0 ** ((opponent - rating) / 400.0)))


def ratings(games: Iterable[Game]) -> list[Rating]:
    """Every player of a counted game, highest rating first (then by name)."""
    rated = [g for g in games if g.counted and g.black is not None and g.white is not None]
    dated = sorted(
        range(len(rated)),
        key=lambda i: (0, key, i) if (key := date_key(rated[i].date)) is not None else (1, (0, 0, 0), i),
    )
    rating: dict[str, float] = {}
    played: dict[str, int] = {}
    for i in dated:
        g = rated[i]
        assert g.black is not None and g.white is not None and g.black_points is not None
        black, white = rating.get(g.black, START), rating.get(g.white, START)
        score = float(g.black_points)
        change = K * (score - expected(black, white))
        rating[g.black] = black + change
        rating[g.white] = white - change
        for p in (g.black, g.white):
            played[p] = played.get(p, 0) + 1
    order = sorted(rating, key=lambda p: (-rating[p], p))
    return [Rating(p, rating[p], played[p]) for p in order]
