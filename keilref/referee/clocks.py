"""The clocks of a timed game: the ``TimeControl`` tag and each turn's ``[%clk]``.

The record format's clock checks are warnings, each located at the clock
(or at the tag): they never change a status, and ``--strict`` fails them.
Every turn counts for the increment: placements, passes and the button.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from keilref import wording
from keilref.records.record import Clock, Record, Turn, find_clock
from keilref.records.setup import white_first
from keilref.records.tags import TIME_CONTROL_TAG
from keilref.values import Color, turn_player

__all__ = [
    "NO_CONTROL",
    "TimeControl",
    "TimeUsed",
    "clock_warnings",
    "has_clocks",
    "last_clocks",
    "line_clocks",
    "time_control",
    "time_used",
]

_CONTROL = re.compile(r"([0-9]{1,7})(?:\+([0-9]{1,7}))?\Z")


@dataclass(frozen=True)
class TimeControl:
    """``600+5``: base and increment, in tenths of a second."""

    base: int
    increment: int

    def __str__(self) -> str:
        return f"{self.base // 10}+{self.increment // 10}" if self.increment else f"{self.base // 10}"


NO_CONTROL = "-"
"""``TimeControl "-"``: a game without a time control."""

ClockWarning = tuple[str, tuple[int, int]]
"""A warning's message and where it points (line, column)."""


def time_control(record: Record) -> tuple[TimeControl | str | None, list[ClockWarning]]:
    """The game's time control: a :class:`TimeControl`, :data:`NO_CONTROL`, or
    ``None`` when unknown (no tag, ``"?"``, or a value that does not read,
    which is a warning at the tag)."""
    tag = record.tag(TIME_CONTROL_TAG)
    if tag is None or tag.value == "?":
        return None, []
    if tag.value == NO_CONTROL:
        return NO_CONTROL, []
    m = _CONTROL.match(tag.value)
    if m is None:
        return None, [(wording.time_control_unreadable(tag.value), (tag.line, tag.column))]
    return TimeControl(int(m.group(1)) * 10, int(m.group(2) or 0) * 10), []


def line_clocks(turns: Iterable[Turn]) -> list[tuple[int, Turn, Clock | None, str]]:
    """The clocks of a line: (turn number, turn, clock or ``None`` if it does
    not read, its text), for each turn with a ``[%clk]``."""
    out = []
    for number, turn in enumerate(turns, 1):
        if not turn.comments:
            continue
        found = find_clock(turn.comments)
        if found is not None:
            out.append((number, turn, found[1], found[0]))
    return out


def has_clocks(record: Record) -> bool:
    """Whether any turn of the record, in any line, has a ``[%clk]``."""
    return record.annotated and _any_clock(record.turns)


def last_clocks(turns: Iterable[Turn], white_first: bool = False) -> tuple[Clock | None, Clock | None]:
    """Black's and White's last readable clock along a line's turns (from
    the game's first turn on, White's in a game set up with White to move),
    ``None`` for a player without one yet."""
    last: dict[Color, Clock] = {}
    for number, _, clock, _ in line_clocks(turns):
        if clock is not None:
            last[turn_player(number, white_first)] = clock
    return last.get(Color.BLACK), last.get(Color.WHITE)


@dataclass(frozen=True)
class TimeUsed:
    """What the clocks of a game's main line say of the time each player used.

    A game has one when a clock on its main line reads; the times are known
    only under a ``TimeControl`` that gives a base.
    """

    black: int | None
    """Tenths of a second Black used, up to Black's last clock; ``None``
    without a time control that gives a base, or without a clock of Black's."""
    white: int | None


def time_used(record: Record) -> TimeUsed | None:
    """The time each player used, from the main line's clocks (``None`` for a
    game without a clock that reads there).

    A player used base + increment × their turns − their last clock, counting
    their turns up to that clock: every turn, as for the increment.
    """
    if not record.annotated:
        return None  # a reader defers the turns only of games without clocks
    last: dict[Color, tuple[int, Clock]] = {}
    first = white_first(record)
    for number, _, clock, _ in line_clocks(record.turns):
        if clock is not None:
            last[turn_player(number, first)] = (number, clock)
    if not last:
        return None
    control, _ = time_control(record)
    if not isinstance(control, TimeControl):
        return TimeUsed(None, None)

    def used(player: Color) -> int | None:
        if player not in last:
            return None
        number, clock = last[player]
        turns = (number + 1) // 2
        return control.base + control.increment * turns - clock.tenths

    return TimeUsed(used(Color.BLACK), used(Color.WHITE))


def clock_warnings(record: Record) -> list[ClockWarning]:
    """Every clock check of the record's main line and its variations.

    Each check is reported on its own, so one clock may get several
    warnings (negative, and risen past the increments). A time result needs
    no clock to show the fall: the flag falls on the clock that runs, after
    the loser's last recorded clock, so the last clocks are not judged
    against the result.
    """
    if not record.annotated:
        return []  # a reader defers the turns only of games without clocks
    main = list(record.turns)
    if not _any_clock(main):
        # A free-text TimeControl ("30 min") was free text in version 1 and
        # matters only to clocks: without any, it is left as it is.
        return []
    control, warnings = time_control(record)
    first = white_first(record)
    if control == NO_CONTROL:
        warnings.extend(_first_clock_without_control(main, first))
    _check_line(main, 0, control, {}, warnings, first)
    for index, turn in enumerate(main):
        _variations(turn, main[:index], control, warnings, first)
    return warnings


def _any_clock(turns: Iterable[Turn]) -> bool:
    for turn in turns:
        if any("[%clk" in c.text for c in turn.comments):
            return True
        if any(_any_clock(v.turns) for v in turn.variations):
            return True
    return False


def _variations(
    turn: Turn, before: list[Turn], control: TimeControl | str | None, out: list[ClockWarning], first: bool
) -> None:
    for variation in turn.variations:
        line = [*before, *variation.turns]
        # The line's own clocks are checked from the clocks of the main line before it.
        last: dict[int, tuple[int, Clock]] = {}
        _check_line(before, 0, control, last, None, first)
        _check_line(line[len(before) :], len(before), control, last, out, first)
        for i, inner in enumerate(variation.turns):
            _variations(inner, line[: len(before) + i], control, out, first)


def _check_line(
    turns: Sequence[Turn],
    start: int,
    control: TimeControl | str | None,
    last: dict[int, tuple[int, Clock]],
    out: list[ClockWarning] | None,
    first: bool = False,
) -> None:
    """Check the clocks of ``turns`` (the line's turns from index ``start``),
    given each player's last clock before them in ``last`` (updated);
    ``first`` is whether White plays the game's first turn."""
    for number, turn, clock, text in line_clocks(turns):
        number += start
        player = number % 2  # one player plays the odd turns, the other the even
        at = turn.clock_at or (turn.line, turn.column)
        if clock is None:
            if out is not None:
                out.append((wording.clock_unreadable(wording.turn_name(number, turn.text, first), text), at))
            continue
        if out is not None:
            name = wording.turn_name(number, turn.text, first)
            out.extend((message, at) for message in _clock_faults(name, number, clock, control, last.get(player)))
        last[player] = (number, clock)


def _clock_faults(
    name: str, number: int, clock: Clock, control: TimeControl | str | None, before: tuple[int, Clock] | None
) -> list[str]:
    """What is wrong with one readable clock, each fault on its own: turn
    ``number``'s clock, given the same player's previous clock in its line."""
    faults = []
    if clock.tenths < 0:
        faults.append(wording.clock_negative(name, str(clock)))
    if isinstance(control, TimeControl):
        if before is not None:
            before_number, previous = before
            # The increments of the player's turns since the previous clock.
            gained = control.increment * ((number - before_number) // 2)
            if clock.tenths > previous.tenths + gained:
                faults.append(wording.clock_rises(name, str(previous), str(clock), str(Clock(gained))))
        else:
            limit = control.base + control.increment * ((number + 1) // 2)
            if clock.tenths > limit:
                faults.append(wording.clock_starts_high(name, str(clock), str(Clock(limit))))
    return faults


def _first_clock_without_control(main: Sequence[Turn], first: bool) -> list[ClockWarning]:
    """Under ``TimeControl "-"``: one warning, at the game's first clock in
    the file, whichever line it is on."""
    clocks = [(turn.clock_at or (turn.line, turn.column), number, turn) for number, turn in _every_clock(main, 0)]
    if not clocks:
        return []
    at, number, turn = min(clocks, key=lambda found: found[0])
    return [(wording.clock_without_control(wording.turn_name(number, turn.text, first)), at)]


def _every_clock(turns: Sequence[Turn], start: int) -> Iterator[tuple[int, Turn]]:
    """Each turn with a ``[%clk`` in ``turns`` (numbered from ``start`` + 1)
    and in the variations that replace them, with its number in its line."""
    for index, turn in enumerate(turns):
        number = start + index + 1
        if find_clock(turn.comments) is not None:
            yield number, turn
        for variation in turn.variations:
            yield from _every_clock(variation.turns, number - 1)
