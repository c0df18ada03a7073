"""The fast build's native path: plain Keil games judged in C, the rest here.

The fast build (``KEILREF_COMPILE=1``) carries :mod:`keilref._native`, which
reads, replays and scores a plain game of Keil (either wording) in one call.
It declines every game it cannot certify as ``ok`` or ``unfinished`` with no
warning; :func:`~keilref.referee.verdict.adjudicate` judges those, as it
judges every game in the pure build. What the native path returns is a
game's facts, never text: :func:`verdict_of` makes them the very
:class:`~keilref.referee.verdict.Verdict` the Python referee would, and the
writers make text of that (a line format through a template the writer
itself wrote, see :mod:`keilref.formats.templates`).

``KEILREF_NATIVE=0`` in the environment turns the native path off in a
fast build, so that both paths can be compared in one installation.
"""

from __future__ import annotations

import functools
from typing import Any

from keilref.engine.geometry import hex_geometry
from keilref.engine.keil import KeilRules
from keilref.engine.rules import ButtonRule, all_rules
from keilref.records.parser import GameBytes
from keilref.referee.verdict import Status, Verdict
from keilref.values import Color, Score, ScoreRow

from keilref.records import limits
from keilref.records.native_cut import is_built, native_module

Facts = tuple[Any, ...]
"""What :meth:`keilref._native.Judge.judge` returns for a game it certifies."""

_STATUSES = (Status.OK, Status.UNFINISHED)
"""By the native path's status code."""

STATUS_WORDS = tuple(status.value for status in _STATUSES)


def native_path() -> str | None:
    """What runs the plain games: ``"native"`` when the native path is built
    and on, else ``None`` (every game goes through the Python referee)."""
    return None if native_module() is None else "native"


def describe_build() -> str:
    """What this keilref runs, as ``keilref --version`` says it: the kernel and the native path."""
    from keilref.engine.kernel import is_compiled

    kernel = "compiled" if is_compiled() else "Python"
    native = "on" if native_path() else "off (KEILREF_NATIVE=0)" if is_built() else "not built"
    return f"engine kernel: {kernel}; native path: {native}"


__all__ = [
    "describe_build","Facts", "STATUS_WORDS", "facts_of", "is_built", "native_judge", "native_path", "verdict_of"]


def _keil_rules() -> list[KeilRules]:
    return [r for r in all_rules() if isinstance(r, KeilRules)]


_BUTTONS = {ButtonRule.ABSENT: 0, ButtonRule.OPTIONAL: 1, ButtonRule.REQUIRED: 2}


def _geometry(size: int) -> Any:
    """The native path's copy of a board size's geometry, made when a game of that size first comes."""
    native = native_module()
    assert native is not None
    geo = hex_geometry(size)
    return native.Geometry(size, geo.n_points, geo.adjacency, geo.names)


def native_judge(rules: str | None) -> Any | None:
    """The native judge for a check under ``rules`` (``--rules``, or ``None``),
    or ``None`` where the native path is off or cannot judge under them."""
    return None if native_module() is None else _judge_for(rules)


@functools.lru_cache(maxsize=16)
def _judge_for(rules: str | None) -> Any | None:
    native = native_module()
    assert native is not None
    keil = _keil_rules()
    if rules is not None and rules not in {r.name for r in keil}:
        return None
    table = [(r.name, r.loose_links, r.min_size, r.max_size, r.half_komi, _BUTTONS[r.button]) for r in keil]
    return native.Judge(_geometry, table, rules)


def facts_of(judge: Any, piece: GameBytes) -> Facts | None:
    """The native judge's facts of one cut game, or ``None`` when the Python referee must judge it."""
    if type(piece) is not GameBytes or piece.piece.too_large or piece.piece.empty:
        return None
    facts: Facts | None = judge.judge(piece.data, limits.MAX_TURNS)
    return facts


def verdict_of(facts: Facts, piece: GameBytes, *, file: str, game: int) -> Verdict:
    """The verdict :func:`~keilref.referee.verdict.adjudicate` gives the game
    whose facts the native judge returned (a test holds the two equal)."""
    (
        status, rules, size, komi2, turns, declared, computed, counts, siblings,
        line_offset, result_offset, event, black, white, round_, date, site,
    ) = facts
    stones_b, stones_w, area_b, area_w, neutral, holder = counts
    komi = komi2 / 2
    half = None if holder == 0 else Color(holder)
    stones = ScoreRow("stones", stones_b, stones_w)

    def score(black: int, white: int, neither: int) -> Score:
        return Score(rows=(stones, ScoreRow("territory", black, white)), komi=komi, half_point=half, neutral=neither)

    first_line = piece.piece.line + line_offset
    return Verdict(
        file=file,
        game=game,
        line=first_line,
        status=_STATUSES[status],
        rules=rules,
        size=size,
        komi=komi,
        turns=turns,
        declared=declared,
        computed=computed,
        score=score(area_b, area_w, neutral),
        other_results=tuple((name, str(score(b, w, n).result)) for name, b, w, n in siblings),
        event=event,
        black=black,
        white=white,
        round=round_,
        date=date,
        site=site,
        result_at=None if result_offset < 0 else _place(piece, result_offset),
    )


def _place(piece: GameBytes, offset: int) -> tuple[int, int]:
    """Line and column of a byte of a plain game (ASCII: a byte is a character)."""
    data = piece.data
    newline = data.rfind(b"\n", 0, offset)
    line = piece.piece.line + data.count(b"\n", 0, offset)
    column = offset - newline if newline >= 0 else offset + 1 + piece.column_offset
    return line, column
