"""Records that start from a position (version 3 of the format), for the tests
of what draws and shows them: a White-to-move problem with its solution and a
refutation, and a finished board to score.

The problem, worked by hand under ``keil`` (size 3: a1's neighbours are b1,
a2 and b2; b1's are a1, c1, b2 and c2; c1's are b1, c2 and d2):

- ``1... b2`` removes a1. The only wing of a1-b1 is b2, now White's, so the
  two black stones are not linked; the only wing of a1-a2 is b2 as well, so
  the empty a2 is no liberty of a1. b1 lives: c1 is linked to it through
  the empty wing c2.
- ``2. c1`` extends; b1 and c1 share the one wing c2, empty, so they are
  still two groups.
- ``2... c2`` takes that wing: b1 is linked to no empty point (a1 through
  b2, c1 is Black's), nor c1 to d2 (their only wing is c2): both are
  removed, and White has taken all three stones.
- The refutation ``1... a2?`` lets Black link: ``2. b2`` is the wing of
  a1-b1, and the group a1 b1 b2 keeps the liberties c1 and c2.
"""

from __future__ import annotations

PROBLEM = """\
[Event "White to capture"]
[Rules "keil"]
[Size "3"]
[Komi "0"]
[Button "yes"]
[Result "*"]
[Setup "B: a1 b1 W: c3"]
[ToMove "White"]

1... b2 {captures a1} (1... a2? 2. b2 {Black links a1 and b1}) 2. c1 2... c2 *
"""
REFUTATION = "10:23"
"""Where the refutation's ``(`` stands."""

PROBLEM_START = {"a1": "b", "b1": "b", "c3": "w"}
PROBLEM_SOLUTION = [
    {"b1": "b", "b2": "w", "c3": "w"},
    {"b1": "b", "b2": "w", "c1": "b", "c3": "w"},
    {"b2": "w", "c2": "w", "c3": "w"},
]
"""The stones after each turn of the main line."""
PROBLEM_REFUTATION = [
    {"a1": "b", "a2": "w", "b1": "b", "c3": "w"},
    {"a1": "b", "a2": "w", "b1": "b", "b2": "b", "c3": "w"},
]
"""The stones after each turn of the refutation."""

FINISHED = """\
[Event "A finished board to score"]
[Rules "keil"]
[Size "3"]
[Komi "0"]
[Button "yes"]
[Result "B+0.5"]
[Setup "B: b1 b2 b3 b4 W: d2 d3 d4 d5"]
[ButtonTaken "Black"]

1. pass pass B+0.5
"""
"""A wall each on columns b and d. By hand: 4 stones each; a1, a2 and a3
touch Black's stones alone (each linked to them, its wings being Black's),
e3, e4 and e5 White's alone: 3 territory each; column c touches both
(neutral, 5 points). Black holds the button: 7.5 to 7, B+0.5."""

FINISHED_WHITE_FIRST = FINISHED.replace('[ButtonTaken "Black"]\n', '[ButtonTaken "Black"]\n[ToMove "White"]\n').replace(
    "1. pass pass", "1... pass pass"
)

TIMED = """\
[Rules "keil"]
[Size "3"]
[Komi "0"]
[Button "yes"]
[Result "*"]
[Setup "B: a1 b1 W: c3"]
[ToMove "White"]
[TimeControl "60"]

1... b2 {[%clk 0:00:59]} 2. c1 {[%clk 0:00:58]} 2... c2 {[%clk 0:01:05]} *
"""
"""The problem's solution with clocks: White's first, Black's, then White's
risen past its base (a warning)."""
