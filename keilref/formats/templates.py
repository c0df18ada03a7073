"""A line format's text for a natively judged game, from a template its writer wrote.

The native path (:mod:`keilref.referee.native`) returns a certified game's
facts. Making each its :class:`~keilref.referee.verdict.Verdict` and handing
that to :meth:`Writer.lines` would cost more than judging the game did, so
for each kind of game (its status, which tags it has, whether it is
rule-sensitive) in each file, the writer itself writes the first game of
that kind twice more, with odd values in the fields that vary from game to
game; where those values land is the template. A template is used only
once it has written a third verdict exactly as the writer does, and the
first game itself; otherwise that kind of game goes through its verdict.
So no wording lives here: a writer's every word comes from the writer.
"""

from __future__ import annotations

import dataclasses
import operator
import pickle
from collections.abc import Callable
from typing import Any

from keilref.formats import CheckOptions, Judged, Writer, judge
from keilref.records.parser import GameBytes
from keilref.referee.native import STATUS_WORDS, Facts, verdict_of
from keilref.referee.verdict import Verdict
from keilref.values import Score, ScoreRow

_FIELDS = ("game", "line", "turns", "komi", "result", "black_score", "white_score", "event", "black", "white")
"""The fields that vary from game to game, in the order :func:`_values` gives them."""

_PROBES = (
    # game, line, turns, komi, margin, black's and white's stones, event, black, white
    (91919, 81818, 71717, 4321.0, "395678.5", 700001, 300002, "Zq1vQ", "Zq2vQ", "Zq3vQ"),
    (62626, 53535, 44144, -7654.5, "283746", 600003, 200004, "Xk4wJ", "Xk5wJ", "Xk6wJ"),
)
"""Values no real game has, each written differently from every other."""

_Made = tuple[str, Callable[[tuple[str, ...]], tuple[str, ...]], bool] | None
"""A ``%`` format, what picks its fields from :func:`_values`, and whether the game fails; ``None``: no template."""

_CACHE: dict[tuple[bytes, str, tuple[Any, ...]], _Made] = {}
_CACHE_LIMIT = 4096


def _shape(facts: Facts) -> tuple[Any, ...]:
    """What decides a game's template: its status, rules and size, which of
    its fields are there, and whether it is rule-sensitive."""
    status, rules, size, komi2, _, declared, computed, counts, siblings = facts[:9]
    sensitive = computed is not None and bool(siblings) and _sensitive(computed, counts, komi2, siblings)
    return (status, rules, size, declared is None, declared == "*", facts[11] is None, facts[12] is None, facts[13] is None, sensitive)


def _totals(counts: tuple[int, ...], komi2: int, area_b: int, area_w: int) -> tuple[int, int]:
    """Twice each player's total, as :class:`~keilref.values.Score` adds it up,
    from the native counts with the territory ``area_b`` and ``area_w``."""
    stones_b, stones_w, _, _, _, holder = counts
    return 2 * (stones_b + area_b) + (holder == 1), 2 * (stones_w + area_w) + komi2 + (holder == 2)


def _sensitive(computed: str, counts: tuple[int, ...], komi2: int, siblings: tuple[Any, ...]) -> bool:
    mine = computed[0]
    for _, area_b, area_w, _ in siblings:
        black2, white2 = _totals(counts, komi2, area_b, area_w)
        if ("B" if black2 > white2 else "W" if white2 > black2 else "D") != mine:
            return True
    return False


_HALVES: dict[int, str] = {}
"""``repr(x / 2)`` by ``x``: scores and komi repeat from game to game."""


def _half(twice: int) -> str:
    text = _HALVES.get(twice)
    if text is None:
        if len(_HALVES) > 100_000:
            _HALVES.clear()
        text = _HALVES[twice] = repr(twice / 2)
    return text


def _values(facts: Facts, game: int, line: int) -> tuple[str, ...]:
    """Each field of :data:`_FIELDS` as the writers write it (the template is proven on them)."""
    _, _, _, komi2, turns, _, computed, counts, _, _, _, event, black, white = facts[:14]
    black2, white2 = _totals(counts, komi2, counts[2], counts[3])
    return (
        str(game), str(line), str(turns), _half(komi2), computed or "", _half(black2), _half(white2),
        event or "", black or "", white or "",
    )


def _probe_values(v: Verdict) -> tuple[str, ...]:
    assert v.score is not None
    return (
        str(v.game), str(v.line), str(v.turns), repr(v.komi), v.computed or "",
        repr(float(v.score.black)), repr(float(v.score.white)), v.event or "", v.black or "", v.white or "",
    )


def _probe(v: Verdict, values: tuple[Any, ...], other: bool) -> Verdict:
    """``v`` with ``values`` in the fields that vary; ``other``: every field
    the template takes as it is changed too, so that a writer that reads
    one is caught."""
    game, line, turns, komi, margin, black, white, event, black_name, white_name = values
    computed = None if v.computed is None else v.computed[:2] + margin
    rows = (ScoreRow("stones", black, white),) if not other else (ScoreRow("stones", black - 5, white), ScoreRow("territory", 5, 0))
    score = Score(rows=rows, komi=komi, half_point=None, neutral=7 if other else 0)
    probe = dataclasses.replace(
        v,
        game=game, line=line, turns=turns, komi=komi, score=score, computed=computed,
        declared=None if v.declared is None else "*" if v.declared == "*" else computed,
        event=None if v.event is None else event,
        black=None if v.black is None else black_name,
        white=None if v.white is None else white_name,
    )
    if not other:
        return probe
    return dataclasses.replace(
        probe,
        round="Zr8vQ", date="Zd9vQ", result_at=(54321, 9),
        other_results=tuple((name, result[:2] + "13579.5") for name, result in v.other_results),
    )


def _template(writer: type[Writer], options: CheckOptions, first: Verdict, facts: Facts) -> _Made:
    """The template of ``first``'s kind of game, proven, or ``None``."""
    text = writer.lines(first, options)
    if text is None or (first.computed is not None and first.computed[0] not in "BW"):
        return None  # a document format, or a draw (which no probe can stand for)
    if any(result[0] not in "BW" for _, result in first.other_results):
        return None
    probes = [_probe(first, values, other) for values, other in zip(_PROBES, (False, True))]
    written = [writer.lines(p, options) for p in probes]
    if any(w is None for w in written):
        return None
    values = _probe_values(probes[0])
    found: list[tuple[int, int, int]] = []  # start, end, field
    for field, value in enumerate(values):
        if not value:
            continue
        at = written[0].find(value)  # type: ignore[union-attr]
        while at >= 0:
            found.append((at, at + len(value), field))
            at = written[0].find(value, at + len(value))  # type: ignore[union-attr]
    found.sort()
    pieces: list[str] = []
    order: list[int] = []
    end = 0
    for start, stop, field in found:
        if start < end:
            return None  # two values overlap: no template
        pieces.append(written[0][end:start].replace("%", "%%"))  # type: ignore[index]
        pieces.append("%s")
        order.append(field)
        end = stop
    pieces.append(written[0][end:].replace("%", "%%"))  # type: ignore[index]
    form = "".join(pieces)
    pick = _picker(tuple(order))

    def fill(values: tuple[str, ...]) -> str:
        return form % pick(values)

    if fill(_probe_values(probes[1])) != written[1]:
        return None
    if fill(_values(facts, first.game, first.line)) != text:
        return None
    return form, pick, first.fails(strict=options.strict)


def _picker(order: tuple[int, ...]) -> Callable[[tuple[str, ...]], tuple[str, ...]]:
    """What takes a template's fields, in its order, from :func:`_values`."""
    if not order:
        return lambda values: ()
    get = operator.itemgetter(*order)
    if len(order) == 1:
        return lambda values: (get(values),)
    return get


class LineRendering:
    """What a worker makes of each verdict for a line format: the writer's
    :func:`~keilref.formats.judge` of a verdict, and of a natively judged
    game's facts the same text through a proven template (picklable)."""

    def __init__(self, writer: type[Writer], options: CheckOptions) -> None:
        self.writer = writer
        self.options = options
        self.key = pickle.dumps((writer.__module__, writer.__qualname__, options))
        self._known: dict[tuple[str, tuple[Any, ...]], _Made] = {}
        """This object's templates, by file and kind of game (the process's are in :data:`_CACHE`)."""

    def __call__(self, verdict: Verdict) -> Judged:
        return judge(verdict, self.writer, self.options)

    def of_batch(self, items: list[Judged]) -> list[Judged]:
        """A batch's items as the writer hands them on (:meth:`Writer.of_batch`)."""
        return self.writer.of_batch(items, self.options)

    def of_facts(self, facts: Facts, piece: GameBytes, file: str, game: int) -> Judged:
        shape = _shape(facts)
        try:
            template = self._known[(file, shape)]
        except KeyError:
            template = self._template(facts, piece, file, game, shape)
        if template is None:
            return judge(verdict_of(facts, piece, file=file, game=game), self.writer, self.options)
        form, pick, fails = template
        text = form % pick(_values(facts, game, piece.piece.line + facts[9]))
        return Judged(STATUS_WORDS[facts[0]], False, fails, text, None)

    def _template(self, facts: Facts, piece: GameBytes, file: str, game: int, shape: tuple[Any, ...]) -> _Made:
        """The template of a kind of game, made and proven once per process."""
        key = (self.key, file, shape)
        if key not in _CACHE:
            if len(_CACHE) >= _CACHE_LIMIT:
                _CACHE.clear()
            _CACHE[key] = _template(self.writer, self.options, verdict_of(facts, piece, file=file, game=game), facts)
        made = _CACHE[key]
        if len(self._known) >= _CACHE_LIMIT:
            self._known.clear()
        self._known[(file, shape)] = made
        return made

    def __getstate__(self) -> dict[str, Any]:
        return {"writer": self.writer, "options": self.options, "key": self.key}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._known = {}
