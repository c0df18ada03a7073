"""Statistics of a whole archive: verdicts in, counts and estimates out.

Everything here is computed from the verdicts :mod:`keilref.referee.batches` already
produces, so ``stats`` checks an archive exactly as ``check`` does (same
worker processes, same streaming) and only tallies what comes back. A
verdict's score carries what a verdict's words do not: the margin at komi 0
(the score with the komi taken back out), the button holder (who got the
button's half point) and, with ``turns``, the game's length.

Memory does not grow with the archive: lengths and margins are kept as
histograms (how many games had each value), and a board of a given size has
few distinct lengths and margins.

The fair komi of a rule set and size is the komi at which Black and White
would win equally often. Every scored game's margin at komi 0 (``m``) is
exact, and under komi ``k`` Black wins exactly when ``m > k``; so the
balance point is the median of ``m``, and a distribution-free confidence
interval for it comes from the binomial order statistics. This assumes the
players would have played the same moves under another komi.
"""

from __future__ import annotations

import enum
import math
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from keilref.referee.batches import check_sources
from keilref.records.sources import Source
from keilref.values import Color, Result, ResultKind, Score
from keilref.errors import ConfigError
from keilref.engine.rules import find_rules
from keilref.referee.verdict import Status, Verdict

CONFIDENCE = 0.95
"""The level of every interval reported."""
Z95 = 1.959963984540054
"""The standard normal quantile for a two-sided 95% interval (Wilson's z)."""
FAIR_KOMI_MIN_GAMES = 10
"""Below this many scored games no fair komi is estimated. A 95% interval for
a median needs at least 6 games, and is then as wide as the data; 10 is the
fewest for which it can be narrower than the whole range."""


class Outcome(enum.Enum):
    """How a finished game came out."""

    BLACK = "black"
    """Black won."""
    WHITE = "white"
    """White won."""
    DRAW = "draw"
    """Equal scores."""


@dataclass(frozen=True)
class Proportion:
    """``count`` of ``total``, with its 95% Wilson score interval."""

    count: int
    total: int

    @property
    def rate(self) -> float | None:
        return self.count / self.total if self.total else None

    @property
    def interval(self) -> tuple[float, float] | None:
        """The Wilson score interval: right at 0 and at n, unlike the normal one."""
        if not self.total:
            return None
        n, p, z2 = self.total, self.count / self.total, Z95 * Z95
        centre = (p + z2 / (2 * n)) / (1 + z2 / n)
        half = Z95 / (1 + z2 / n) * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
        return max(0.0, centre - half), min(1.0, centre + half)

    def to_json(self) -> dict[str, Any]:
        iv = self.interval
        return {
            "count": self.count,
            "of": self.total,
            "rate": _round(self.rate),
            "low": None if iv is None else _round(iv[0]),
            "high": None if iv is None else _round(iv[1]),
        }


@dataclass(frozen=True)
class Quartiles:
    """The first quartile, median and third quartile of some values."""

    q1: float
    median: float
    q3: float


class Histogram:
    """How many times each value occurred: order statistics without the list.

    Quantiles are the "inclusive" ones (linear interpolation between order
    statistics, as ``statistics.quantiles(method="inclusive")``).
    """

    def __init__(self, counts: Counter[float] | None = None) -> None:
        self.counts: Counter[float] = Counter() if counts is None else counts

    def add(self, value: float) -> None:
        self.counts[value] += 1

    def update(self, other: Histogram) -> None:
        self.counts.update(other.counts)

    @property
    def n(self) -> int:
        return sum(self.counts.values())

    def order_statistic(self, k: int) -> float:
        """The ``k``-th smallest value, 1-based."""
        if not 1 <= k <= self.n:
            raise IndexError(k)
        seen = 0
        for value in sorted(self.counts):
            seen += self.counts[value]
            if seen >= k:
                return value
        raise AssertionError("unreachable")

    def quantile(self, p: float) -> float:
        n = self.n
        h = (n - 1) * p
        lo = math.floor(h)
        a = self.order_statistic(lo + 1)
        if h == lo:
            return a
        b = self.order_statistic(lo + 2)
        return a + (h - lo) * (b - a)

    def quartiles(self) -> Quartiles | None:
        if not self.n:
            return None
        return Quartiles(self.quantile(0.25), self.quantile(0.5), self.quantile(0.75))

    def rank_quartiles(self) -> Quartiles | None:
        """Quartiles that are values themselves: for each of 1/4, 1/2 and 3/4,
        the smallest value at or below which at least that share of the
        values lie (the inverted distribution function; Hyndman and Fan's
        type 1). A game's length is a whole number of turns, and so is each
        of these; an even count's median is the lower of the middle two."""
        n = self.n
        if not n:
            return None
        q1, median, q3 = (self.order_statistic(max(1, -(-n * k // 4))) for k in (1, 2, 3))
        return Quartiles(q1, median, q3)

    def above(self, x: float) -> int:
        return sum(c for v, c in self.counts.items() if v > x)

    def below(self, x: float) -> int:
        return sum(c for v, c in self.counts.items() if v < x)


def median_interval_ranks(n: int, confidence: float = CONFIDENCE) -> tuple[int, int] | None:
    """The ranks ``(k, n - k + 1)`` of the order statistics that bound a
    distribution-free confidence interval for the median of ``n`` values.

    ``k`` is the largest rank with ``2 * P(Bin(n, 1/2) <= k - 1) <= 1 -
    confidence``; ``None`` when there is none (``n < 6`` at 95%).
    """
    tail = (1 - confidence) / 2
    if n < 1:
        return None
    # Start far enough below n/2 that the mass skipped is below any float.
    start = max(0, math.floor(n / 2 - 8 * math.sqrt(n)))
    log_half_n = n * math.log(2)
    pmf = math.exp(math.lgamma(n + 1) - math.lgamma(start + 1) - math.lgamma(n - start + 1) - log_half_n)
    cumulative = 0.0
    i = start
    while True:
        cumulative += pmf
        if cumulative > tail:
            break
        pmf *= (n - i) / (i + 1)
        i += 1
    k = i  # P(B <= k - 1) <= tail < P(B <= k)
    if k < 1:
        return None
    return k, n - k + 1


@dataclass(frozen=True)
class KomiOutcome:
    """Who would win at one komi, from the margins at komi 0."""

    komi: float
    black: Proportion
    white: Proportion
    draws: Proportion


@dataclass(frozen=True)
class FairKomi:
    """The fair komi of one rule set and size."""

    rules: str
    size: int
    games: int
    """Scored games: those whose margin at komi 0 is known."""
    balance: float | None = None
    """The median margin at komi 0: Black and White win equally often here.
    ``None`` when there are too few games."""
    low: float | None = None
    high: float | None = None
    """The 95% distribution-free interval for ``balance``."""
    komis: tuple[KomiOutcome, ...] = ()
    """The komis the rule set allows nearest to ``balance`` (one if it is
    allowed itself, else the one on each side), and who would win there."""

    @property
    def too_few(self) -> bool:
        return self.balance is None

    def to_json(self) -> dict[str, Any]:
        return {
            "rules": self.rules,
            "size": self.size,
            "games": self.games,
            "too_few_games": self.too_few,
            "balance": self.balance,
            "low": self.low,
            "high": self.high,
            "komis": [
                {
                    "komi": k.komi,
                    "black": k.black.to_json(),
                    "white": k.white.to_json(),
                    "draws": k.draws.to_json(),
                }
                for k in self.komis
            ],
        }


@dataclass
class _Tally:
    """What is counted for one rule set, size and komi while verdicts stream by."""

    games: int = 0
    statuses: Counter[str] = field(default_factory=Counter)
    outcomes: Counter[Outcome] = field(default_factory=Counter)
    scored: int = 0
    margin_sum: float = 0.0
    lengths: Histogram = field(default_factory=Histogram)
    button_games: int = 0
    button_won: int = 0
    rule_sensitive: int = 0
    margins_at_zero: Histogram = field(default_factory=Histogram)
    from_position: int = 0


GroupKey = tuple[str | None, int | None, float | None]
"""Rule set, size and komi; all ``None`` for games whose settings could not be read."""


@dataclass(frozen=True)
class GroupStats:
    """The statistics of the games of one rule set, size and komi."""

    rules: str | None
    size: int | None
    komi: float | None
    games: int
    statuses: tuple[tuple[str, int], ...]
    """Every status that occurred, in the order of :class:`Status`."""
    finished: int
    """Games with a known outcome: scored, or an accepted resignation, time or forfeit."""
    black: Proportion
    white: Proportion
    draws: int
    scored: int
    """Games ended by two passes and counted."""
    mean_margin: float | None
    """Black's score minus White's, over the scored games, at the komi played."""
    length: Quartiles | None
    """Turns of the finished games from the empty board (a game from a
    position has turns before it that the record does not give)."""
    lengths: tuple[tuple[int, int], ...]
    """``(turns, games)`` for each length of the finished games from the empty board."""
    button_holder_won: Proportion
    """Of the finished games where someone took the button."""
    rule_sensitive: Proportion
    """Of the scored games."""
    from_position: int = 0
    """Games that start from a position (a ``Setup`` or another tag of version 3)."""

    def to_json(self) -> dict[str, Any]:
        return {
            "rules": self.rules,
            "size": self.size,
            "komi": self.komi,
            "games": self.games,
            "from_position": self.from_position,
            "statuses": dict(self.statuses),
            "finished": self.finished,
            "black_wins": self.black.to_json(),
            "white_wins": self.white.to_json(),
            "draws": self.draws,
            "scored": self.scored,
            "mean_margin": _round(self.mean_margin),
            "length": None
            if self.length is None
            else {"q1": self.length.q1, "median": self.length.median, "q3": self.length.q3},
            "button_holder_won": self.button_holder_won.to_json(),
            "rule_sensitive": self.rule_sensitive.to_json(),
        }


@dataclass(frozen=True)
class PlayerTime:
    """The time one colour used, over the games where it is known."""

    games: int
    median: float | None
    """Seconds; ``None`` without a game."""

    def to_json(self) -> dict[str, Any]:
        return {"games": self.games, "median_seconds": self.median}


@dataclass(frozen=True)
class ClockStats:
    """What the clocks of the games that have them say."""

    games: int
    """Games with a clock that reads on their main line."""
    on_time: Proportion
    """Of those, the games decided on time: a ``B+T`` or ``W+T`` the referee accepted."""
    black: PlayerTime
    """Time used, from the games whose ``TimeControl`` gives a base (see
    :func:`keilref.referee.clocks.time_used`)."""
    white: PlayerTime

    def to_json(self) -> dict[str, Any]:
        return {
            "games": self.games,
            "decided_on_time": self.on_time.to_json(),
            "time_used": {"black": self.black.to_json(), "white": self.white.to_json()},
        }


@dataclass(frozen=True)
class ArchiveStats:
    """The statistics of a whole archive."""

    games: int
    statuses: tuple[tuple[str, int], ...]
    groups: tuple[GroupStats, ...]
    """One per rule set, size and komi, sorted; games that could not be read last."""
    fair_komi: tuple[FairKomi, ...]
    """One per rule set and size that has a scored game."""
    clocks: ClockStats | None = None
    """``None`` when no game has clocks: an archive without them reads as before."""
    from_position: int = 0
    """Games that start from a position, of all the groups."""

    def to_json(self) -> dict[str, Any]:
        out = {
            "games": self.games,
            "from_position": self.from_position,
            "statuses": dict(self.statuses),
            "groups": [g.to_json() for g in self.groups],
            "fair_komi": [f.to_json() for f in self.fair_komi],
        }
        if self.clocks is not None:
            out["clocks"] = self.clocks.to_json()
        return out


def _round(x: float | None) -> float | None:
    """Six decimals: enough for any rate, and the same bytes on every platform."""
    return None if x is None else round(x, 6)


def outcome(v: Verdict) -> Outcome | None:
    """How the game came out, when that is known.

    A game ended by two passes came out as the referee counted it, whatever
    was declared; a resignation, loss on time or forfeit the referee accepted
    (status ``ok``) came out as declared. Anything else is not finished.
    """
    if v.computed is not None:
        text = v.computed
    elif v.status is Status.OK and v.declared is not None:
        text = v.declared
    else:
        return None
    result = Result.parse(text)
    if result.kind is ResultKind.DRAW:
        return Outcome.DRAW
    if result.kind is ResultKind.UNKNOWN or result.winner is None:
        return None
    return Outcome.BLACK if result.winner is Color.BLACK else Outcome.WHITE


def margin_at_komi_zero(score: Score) -> float:
    """Black's score minus White's, had there been no komi.

    Exact: the half point (the button's, or Dehil's first pass) stays in.
    """
    return score.black - (score.white - score.komi)


def button_holder(score: Score) -> Color | None:
    """Who took the button, as the count shows it (``None`` where there is none)."""
    return score.half_point if score.half_point_label == "button" else None


_WINNER = {Outcome.BLACK: Color.BLACK, Outcome.WHITE: Color.WHITE}


class StatsCollector:
    """Tallies verdicts one at a time; :meth:`result` gives the statistics."""

    def __init__(self) -> None:
        self._tallies: dict[GroupKey, _Tally] = {}
        self._clocked = 0
        self._on_time = 0
        self._used = {Color.BLACK: Histogram(), Color.WHITE: Histogram()}
        """Tenths of a second, as the clocks count."""

    def add(self, v: Verdict) -> None:
        if v.time_used is not None:
            self._add_clocks(v)
        key: GroupKey = (v.rules, v.size, v.komi)
        t = self._tallies.get(key)
        if t is None:
            t = self._tallies[key] = _Tally()
        t.games += 1
        t.statuses[v.status.value] += 1
        t.from_position += v.from_position
        how = outcome(v)
        if how is None:
            return
        t.outcomes[how] += 1
        if not v.from_position:
            # The turns before a position are not in its record: its length is not the game's.
            t.lengths.add(v.turns)
        score = v.score
        if score is not None:
            holder = button_holder(score)
            if holder is not None:
                t.button_games += 1
                t.button_won += _WINNER.get(how) is holder
        if v.computed is not None and score is not None:
            t.scored += 1
            t.margin_sum += score.black - score.white
            t.margins_at_zero.add(margin_at_komi_zero(score))
            t.rule_sensitive += v.rule_sensitive

    def _add_clocks(self, v: Verdict) -> None:
        used = v.time_used
        assert used is not None
        self._clocked += 1
        if v.status is Status.OK and v.declared is not None and Result.parse(v.declared).kind is ResultKind.TIME:
            self._on_time += 1
        for player, tenths in ((Color.BLACK, used.black), (Color.WHITE, used.white)):
            if tenths is not None:
                self._used[player].add(tenths)

    def _clock_stats(self) -> ClockStats | None:
        if not self._clocked:
            return None

        def player(histogram: Histogram) -> PlayerTime:
            n = histogram.n
            return PlayerTime(n, _round(histogram.quantile(0.5) / 10) if n else None)

        return ClockStats(
            self._clocked,
            Proportion(self._on_time, self._clocked),
            player(self._used[Color.BLACK]),
            player(self._used[Color.WHITE]),
        )

    def result(self) -> ArchiveStats:
        keys = sorted(self._tallies, key=_sort_key)
        groups = tuple(_group(k, self._tallies[k]) for k in keys)
        statuses: Counter[str] = Counter()
        for t in self._tallies.values():
            statuses.update(t.statuses)
        margins: dict[tuple[str, int], Histogram] = {}
        for (rules, size, _), t in sorted(self._tallies.items(), key=lambda kv: _sort_key(kv[0])):
            if rules is None or size is None or not t.scored:
                continue
            margins.setdefault((rules, size), Histogram()).update(t.margins_at_zero)
        fair = tuple(fair_komi(rules, size, h) for (rules, size), h in margins.items())
        return ArchiveStats(
            games=sum(t.games for t in self._tallies.values()),
            statuses=_ordered_statuses(statuses),
            groups=groups,
            fair_komi=fair,
            clocks=self._clock_stats(),
            from_position=sum(t.from_position for t in self._tallies.values()),
        )


def _sort_key(key: GroupKey) -> tuple[bool, str, int, float]:
    rules, size, komi = key
    return (rules is None, rules or "", size or 0, komi or 0.0)


def _ordered_statuses(counts: Counter[str]) -> tuple[tuple[str, int], ...]:
    return tuple((s.value, counts[s.value]) for s in Status if counts[s.value])


def _group(key: GroupKey, t: _Tally) -> GroupStats:
    finished = sum(t.outcomes.values())
    return GroupStats(
        rules=key[0],
        size=key[1],
        komi=key[2],
        games=t.games,
        statuses=_ordered_statuses(t.statuses),
        finished=finished,
        black=Proportion(t.outcomes[Outcome.BLACK], finished),
        white=Proportion(t.outcomes[Outcome.WHITE], finished),
        draws=t.outcomes[Outcome.DRAW],
        scored=t.scored,
        mean_margin=t.margin_sum / t.scored if t.scored else None,
        length=t.lengths.rank_quartiles(),
        lengths=tuple((int(v), c) for v, c in sorted(t.lengths.counts.items())),
        button_holder_won=Proportion(t.button_won, t.button_games),
        rule_sensitive=Proportion(t.rule_sensitive, t.scored),
        from_position=t.from_position,
    )


def komi_step(rules: str) -> float:
    """The spacing of the komis a rule set allows: 0.5 where half komi is allowed."""
    try:
        return 0.5 if find_rules(rules).half_komi else 1.0
    except ConfigError:
        return 1.0


def fair_komi(rules: str, size: int, margins: Histogram) -> FairKomi:
    """The fair komi from the margins at komi 0 of one rule set and size."""
    n = margins.n
    ranks = median_interval_ranks(n)
    if n < FAIR_KOMI_MIN_GAMES or ranks is None:
        return FairKomi(rules, size, n)
    balance = margins.quantile(0.5)
    step = komi_step(rules)
    below = math.floor(balance / step) * step
    above = math.ceil(balance / step) * step
    komis = tuple(
        KomiOutcome(
            float(k),
            Proportion(margins.above(k), n),
            Proportion(margins.below(k), n),
            Proportion(n - margins.above(k) - margins.below(k), n),
        )
        for k in sorted({below, above})
    )
    return FairKomi(
        rules,
        size,
        n,
        balance=balance,
        low=margins.order_statistic(ranks[0]),
        high=margins.order_statistic(ranks[1]),
        komis=komis,
    )


def collect(verdicts: Iterable[Verdict]) -> ArchiveStats:
    """The statistics of these verdicts."""
    collector = StatsCollector()
    for v in verdicts:
        collector.add(v)
    return collector.result()


def archive_stats(
    sources: Sequence[Source],
    *,
    rules: str | None = None,
    jobs: int = 1,
    on_progress: Callable[[int], None] | None = None,
) -> ArchiveStats:
    """Check every game of the sources (in parallel, streaming) and tally the verdicts."""
    return collect(check_sources(sources, rules=rules, jobs=jobs, on_progress=on_progress))
