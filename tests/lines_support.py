"""An annotated game the tests of show's lines and of the HTML viewer share.

Size 3, so that a whole line fits in one look; every kind of annotation
version 2 of the record format has, each where a test can name it:

- the variation at 9:1 replaces turn 2 (``1... b2``) and runs to turn 4;
- the one at 9:38 is nested in it and replaces its turn 3 (``2. b2``);
- the one at 10:56 replaces turn 4 and is illegal at once (c3 is taken);
- glyphs on turns 1 (``c3!``) and 4 (``button $1``), and on the first turn
  of the variation at 9:1 (``d4?! $6``);
- clocks on most turns, White's first at turn 2 and Black's last at turn 5.
"""

from __future__ import annotations

from pathlib import Path

ANNOTATED = """\
[Event "Variations, glyphs and clocks"]
[Rules "keil"]
[Size "3"]
[Komi "0"]
[Button "yes"]
[TimeControl "60+1"]

1. c3! {[%clk 0:01:00]} 1... b2 {[%clk 0:00:59]}
(1... d4?! $6 {[%clk 0:00:58]} 2. b2 (2. a1 {[%clk 0:00:57]}) 2... c2)
2. d4 {[%clk 0:00:58]} 2... button $1 {[%clk 0:00:55]} (2... c3 {occupied}) 3. pass
{[%clk 0:00:50.5]} 3... pass B+0.5
"""

MAIN_TURNS = 6
VARIATION = "9:1"
NESTED = "9:38"
ILLEGAL = "10:56"


def write_annotated(folder: Path, name: str = "annotated.keil") -> Path:
    path = folder / name
    path.write_text(ANNOTATED, encoding="utf-8")
    return path
