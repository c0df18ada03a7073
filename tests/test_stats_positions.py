"""``keilref stats`` counts the games that start from a position as such.

Each is counted with its group's games, results and statuses, and said
apart (``from a position: N``, ``"from_position"`` in the JSON); its turns
are left out of the lengths, since the turns before the position are not in
its record. An archive without one reads as it always did.
"""

from __future__ import annotations

import json
from pathlib import Path

from cli_support import run
from keilref.cli import EXIT_OK

FINISHED_POSITION = """[Event "Finished position"]
[Rules "keil"]
[Size "3"]
[Komi "0"]
[Button "yes"]
[Result "B+0.5"]
[Setup "B: a1 b1 c1 W: c3 d4 e5"]
[ToMove "White"]
[ButtonTaken "Black"]

1... pass 2. pass B+0.5
"""

WHOLE_GAME = """[Event "keilref generate --seed 1, game 1"]
[Rules "keil"]
[Size "3"]
[Komi "0"]
[Button "yes"]
[Result "B+7.5"]

1. e5 a3 2. c2 button 3. b1 d5 4. d4 d2 5. b4 a1 6. d3 c4 7. e4 b4 8. e3 c5
9. c1 c3 10. b3 c4 11. b4 d5 12. d2 a2 13. pass pass B+7.5
"""

HEADER = (
    "rules  size  komi  games  finished       Black wins [95%]   White wins [95%]  draws  mean B-W  "
    "turns q1 med q3   button holder won  rule-sensitive"
)

TEXT = f"""2 games: 2 ok
from a position: 1 game (counted in every column but the turns, since the turns before a position are not in its record)

{HEADER}
keil      3     0      2         2  2 100.0% [34.2-100.0]  0 0.0% [0.0-65.8]      0      +4.0         26 26 26  1 50.0% [9.5-90.5]          0 0.0%

statuses
rules  size  komi  ok
keil      3     0   2

fair komi (from the margins at komi 0: Black wins at komi k when the margin exceeds k)
rules  size  scored  fair komi  95% interval  at the nearest komis allowed
keil      3       2          -             -  too few games (fewer than 10 scored)
"""


def _archive(tmp_path: Path, *games: str) -> Path:
    path = tmp_path / "archive.keil"
    path.write_text("\n".join(games), encoding="utf-8")
    return path


def test_a_game_from_a_position_is_counted_as_such(tmp_path: Path) -> None:
    path = _archive(tmp_path, FINISHED_POSITION, WHOLE_GAME)
    text = run("stats", str(path))
    assert text.exit_code == EXIT_OK
    assert text.stdout == TEXT
    data = json.loads(run("stats", "--format", "json", str(path)).stdout)
    assert data["games"] == 2 and data["from_position"] == 1
    (group,) = data["groups"]
    assert (group["games"], group["from_position"], group["finished"], group["scored"]) == (2, 1, 2, 2)
    # The lengths are the whole game's alone: 26 turns, not the position's 2.
    assert group["length"] == {"q1": 26, "median": 26, "q3": 26}


def test_without_a_position_the_count_is_zero_and_the_text_says_nothing_of_it(tmp_path: Path) -> None:
    path = _archive(tmp_path, WHOLE_GAME)
    text = run("stats", str(path)).stdout
    assert text.startswith("1 game: 1 ok\n\nrules ")
    assert "position" not in text
    data = json.loads(run("stats", "--format", "json", str(path)).stdout)
    assert data["from_position"] == 0 and data["groups"][0]["from_position"] == 0


def test_a_position_that_does_not_read_is_still_a_game_from_a_position(tmp_path: Path) -> None:
    """The tags say where the game starts, whether or not their values read."""
    broken = FINISHED_POSITION.replace("B: a1 b1 c1 W:", "W: B: a1 b1 c1")
    data = json.loads(run("stats", "--format", "json", str(_archive(tmp_path, broken, WHOLE_GAME))).stdout)
    assert data["statuses"] == {"ok": 1, "error": 1}
    assert data["from_position"] == 1


def test_a_plot_of_positions_alone_says_it_has_no_lengths_to_draw(tmp_path: Path) -> None:
    """A rule set and size whose finished games all start from a position
    still get their win rates; the length panel says why it is empty."""
    plot = tmp_path / "plot.svg"
    result = run("stats", "--plot", str(plot), str(_archive(tmp_path, FINISHED_POSITION)))
    assert result.exit_code == EXIT_OK, result.output
    svg = plot.read_text(encoding="utf-8")
    assert "keil, size 3: game length (no finished game from an empty board)" in svg
    assert "games from a position are not counted" in svg
    assert "komi (finished games)" in svg
