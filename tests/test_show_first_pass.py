"""``show`` and the board pictures say who passed first in a Dehil game, as
they say who holds the button in a game that has one: the ``FirstPass`` of a
set-up position at turn 0, and at every later turn the player who passed
first, whether before the position or in the record."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from cli_support import run

import keilref
from keilref import wording
from keilref.formats import svg
from keilref.values import Color

_SVG = "{http://www.w3.org/2000/svg}"

# Black a1 c2, White c4 e4; White plays first. With FirstPass White the half
# point is White's and decides the game; with FirstPass Black it is Black's.
_DEHIL = """[Rules "dehil"]
[Size "3"]
[Komi "0"]
[Result "{result}"]
[Setup "B: a1 c2 W: c4 e4"]
[ToMove "White"]
{first_pass}
1... b2 2. c1 pass 3. pass {result}
"""

_DIAGRAM_END = "       a b c\n"


def _write(tmp_path: Path, first_pass: str | None, result: str) -> str:
    tag = "" if first_pass is None else f'[FirstPass "{first_pass}"]\n'
    path = tmp_path / "game.keil"
    path.write_text(_DEHIL.format(first_pass=tag, result=result), encoding="utf-8")
    return str(path)


def _after_board(out: str) -> list[str]:
    """``show``'s lines below the diagram."""
    return out.split(_DIAGRAM_END, 1)[1].splitlines()


def _caption(picture: str) -> list[str]:
    group = ET.fromstring(picture).find(f"{_SVG}g[@class='caption']")
    assert group is not None
    return [t.text or "" for t in group]


def test_the_wording_names_the_player_or_nobody() -> None:
    assert wording.first_pass_state(Color.WHITE) == "first pass: White"
    assert wording.first_pass_state(Color.BLACK) == "first pass: Black"
    assert wording.first_pass_state(None) == "first pass: nobody yet"


def test_show_at_turn_0_says_the_first_pass_the_position_gives(tmp_path: Path) -> None:
    result = run("show", _write(tmp_path, "White", "W+0.5"), "--turn", "0")
    assert result.exit_code == 0
    assert _after_board(result.stdout) == [
        "last turn: none, the setup position",
        "first pass: White",
        "to move: White",
    ]


def test_a_first_pass_before_the_position_stays_after_a_pass_in_the_record(tmp_path: Path) -> None:
    file = _write(tmp_path, "Black", "B+0.5")
    result = run("show", file, "--turn", "3")
    assert result.exit_code == 0
    # White passed at turn 3, but Black had passed first, before the position.
    assert _after_board(result.stdout) == ["last turn: 3 pass (White)", "first pass: Black", "to move: Black"]
    # And the half point it scores is Black's.
    assert run("check", file).stdout.splitlines()[0] == f"{file}:1:1: game 1: ok: computed B+0.5, declared B+0.5"


def test_without_first_pass_the_record_s_first_pass_is_named_once_played(tmp_path: Path) -> None:
    file = _write(tmp_path, None, "W+0.5")
    before = run("show", file, "--turn", "2")
    assert _after_board(before.stdout) == ["last turn: 2 c1 (Black)", "first pass: nobody yet", "to move: White"]
    after = run("show", file)
    assert after.exit_code == 0
    assert _after_board(after.stdout) == ["last turn: 4 pass (Black)", "first pass: White", "game over"]


def test_the_picture_s_caption_says_it_beside_the_last_turn(tmp_path: Path) -> None:
    file = _write(tmp_path, "White", "W+0.5")
    at_start = run("show", file, "--turn", "0", "--format", "svg")
    assert at_start.exit_code == 0
    assert _caption(at_start.stdout) == ["the setup position, no turn yet · first pass: White", "White to move"]
    at_end = run("show", _write(tmp_path, None, "W+0.5"), "--format", "svg")
    assert _caption(at_end.stdout) == ["last turn: 4 pass (Black) · first pass: White", "game over"]


def test_the_library_s_picture_of_a_dehil_position_says_it() -> None:
    game = keilref.Game.from_position("B: a1 c2 W: c4 e4", rules="dehil", size=3, to_move="White", first_pass="Black")
    assert svg.caption_lines(game) == ["the setup position, no turn yet · first pass: Black", "White to move"]


def test_games_of_other_rules_say_nothing_of_a_first_pass(tmp_path: Path) -> None:
    path = tmp_path / "keil.keil"
    path.write_text(
        '[Rules "keil"]\n[Size "3"]\n[Komi "0"]\n[Button "yes"]\n[Setup "B: a1 b1 W: c3"]\n'
        '[ToMove "White"]\n[Result "*"]\n\n1... b2 *\n',
        encoding="utf-8",
    )
    result = run("show", str(path), "--turn", "0")
    assert result.exit_code == 0
    assert _after_board(result.stdout) == [
        "last turn: none, the setup position",
        "captured: by Black 0, by White 0",
        "button: not taken",
        "to move: White",
    ]
    assert _caption(run("show", str(path), "--format", "svg").stdout)[0] == "last turn: 1 b2 (White) · button: not taken"
