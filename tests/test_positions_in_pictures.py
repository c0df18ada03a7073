"""Every picture of a game set up from a position shows that position, and
names the players of a White-first record rightly: ``show`` and ``score``
(text, SVG and PNG), the HTML report's viewer data, the notebook views, the
clocks, and the numbering the labels share."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from cli_support import run
from position_records_support import (
    FINISHED,
    FINISHED_WHITE_FIRST,
    PROBLEM,
    PROBLEM_REFUTATION,
    PROBLEM_SOLUTION,
    PROBLEM_START,
    REFUTATION,
    TIMED,
)

import keilref
from keilref import wording
from keilref.formats import svg
from keilref.formats.notebook import record_html
from keilref.values import Color, move_number, turn_player

_SVG = "{http://www.w3.org/2000/svg}"
_SIZE3 = keilref.Game(size=3)
_AT = {(svg._num(x), svg._num(y)): name for (x, y), name in zip(svg.layout_for(_SIZE3).xy, _SIZE3.points())}


def _write(tmp_path: Path, text: str, name: str = "game.keil") -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def _stones(picture: str) -> dict[str, str]:
    """The stones a size-3 board's SVG draws: point -> ``b`` or ``w``."""
    root = ET.fromstring(picture)
    group = root.find(f"{_SVG}g[@class='stones']")
    assert group is not None
    out = {}
    for circle in group:
        colour = circle.get("class", "").split()[1]
        out[_AT[(circle.get("cx"), circle.get("cy"))]] = colour[0]
    return out


def _captured(picture: str) -> dict[str, str]:
    root = ET.fromstring(picture)
    group = root.find(f"{_SVG}g[@class='captures']")
    if group is None:
        return {}
    return {_AT[(c.get("cx"), c.get("cy"))]: c.get("class", "").split()[1][0] for c in group}


def _caption(picture: str) -> list[str]:
    root = ET.fromstring(picture)
    group = root.find(f"{_SVG}g[@class='caption']")
    assert group is not None
    return [t.text or "" for t in group]


# --- the numbering every label uses ------------------------------------------------


def test_who_plays_a_turn_and_how_a_record_numbers_it() -> None:
    black_first = [(turn_player(t), move_number(t)) for t in range(1, 6)]
    assert black_first == [
        (Color.BLACK, "1."), (Color.WHITE, "1..."), (Color.BLACK, "2."), (Color.WHITE, "2..."), (Color.BLACK, "3."),
    ]
    white_first = [(turn_player(t, True), move_number(t, True)) for t in range(1, 6)]
    assert white_first == [
        (Color.WHITE, "1..."), (Color.BLACK, "2."), (Color.WHITE, "2..."), (Color.BLACK, "3."), (Color.WHITE, "3..."),
    ]


def test_the_labels_name_the_player_of_a_white_first_turn() -> None:
    assert wording.last_turn(1, "b2", True) == "last turn: 1 b2 (White)"
    assert wording.last_turn(1, "b2") == "last turn: 1 b2 (Black)"
    assert wording.played(2, "c1", True) == "c1 (Black)"
    assert wording.line_choice(None, 1, "b2", True) == "main line: 1... b2"
    assert wording.line_choice((10, 23), 2, "b2", True) == "variation at 10:23: 2. b2"
    assert wording.line_choice(None, 1, "b2") == "main line: 1. b2"
    assert wording.turn_name(3, "c2", True) == "move 2 (White) c2, turn 3"


def test_a_node_of_a_white_first_record_names_its_player() -> None:
    record = keilref.read_game(PROBLEM)
    assert [repr(n) for n in record.tree().variations] == [
        "<Node move 1 (White) b2, turn 1 (main line)>",
        f"<Node move 1 (White) a2, turn 1 ({REFUTATION} line)>",
    ]


# --- show ------------------------------------------------------------------------


def test_show_turn_0_draws_the_setup(tmp_path: Path) -> None:
    game = _write(tmp_path, PROBLEM)
    result = run("show", "--turn", "0", game)
    assert result.exit_code == 0
    assert result.stdout == (
        f"{game} game 1: rules keil, size 3, komi 0, after turn 0 of 3\n"
        " 5    . . .\n"
        " 4   . . . .\n"
        " 3  . . O . .\n"
        " 2   . . . .  e\n"
        " 1    X X .  d\n"
        "       a b c\n"
        "last turn: none, the setup position\n"
        "captured: by Black 0, by White 0\n"
        "button: not taken\n"
        "to move: White\n"
    )


def test_show_turn_0_says_who_holds_the_button_and_who_moves(tmp_path: Path) -> None:
    game = _write(tmp_path, FINISHED_WHITE_FIRST)
    result = run("show", "--turn", "0", game)
    assert result.exit_code == 0
    assert result.stdout.splitlines()[1:] == [
        " 5    . O .",
        " 4   X . O .",
        " 3  . X . O .",
        " 2   . X . O  e",
        " 1    . X .  d",
        "       a b c",
        "last turn: none, the setup position",
        "captured: by Black 0, by White 0",
        "button: taken by Black",
        "to move: White",
    ]
    (line,) = [ln for ln in run("legal", "--turn", "0", game).stdout.splitlines() if ln.endswith("to move")]
    assert line == "White to move"


def test_show_on_the_empty_board_says_no_more_than_before(tmp_path: Path) -> None:
    game = _write(tmp_path, '[Rules "keil"]\n[Size "3"]\n[Komi "0"]\n[Button "yes"]\n\n1. b2 *\n')
    result = run("show", "--turn", "0", game)
    assert result.exit_code == 0
    assert "last turn: none\n" in result.stdout
    assert "setup" not in result.stdout
    assert "last turn: 1 b2 (Black)\n" in run("show", game).stdout


@pytest.mark.parametrize(
    ("turn", "last", "to_move"),
    [("1", "last turn: 1 b2 (White)", "Black"), ("2", "last turn: 2 c1 (Black)", "White"),
     ("3", "last turn: 3 c2 (White)", "Black")],
)
def test_show_names_the_player_of_each_turn_of_a_white_first_record(
    tmp_path: Path, turn: str, last: str, to_move: str
) -> None:
    game = _write(tmp_path, PROBLEM)
    lines = run("show", "--turn", turn, game).stdout.splitlines()
    assert lines[7] == last
    assert lines[-1] == f"to move: {to_move}"


def test_show_a_refutation_of_a_white_first_record(tmp_path: Path) -> None:
    game = _write(tmp_path, PROBLEM)
    result = run("show", "--line", REFUTATION, "--turn", "1", game)
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0] == f"{game} game 1, variation at {REFUTATION}: rules keil, size 3, komi 0, after turn 1 of 2, a2?"
    assert lines[5] == " 1    X X .  d"
    assert lines[4] == " 2  (O). . .  e"
    assert lines[7] == "last turn: 1 a2 (White)"
    result = run("show", "--line", REFUTATION, game)
    assert result.stdout.splitlines()[7:9] == ["last turn: 2 b2 (Black)", "comment: Black links a1 and b1"]
    # Where the refutation branches, before its first turn: the set-up position.
    result = run("show", "--line", REFUTATION, "--turn", "0", game)
    assert result.exit_code == 0
    assert result.stdout.splitlines()[5:] == [
        " 1    X X .  d",
        "       a b c",
        "last turn: none, the setup position",
        "captured: by Black 0, by White 0",
        "button: not taken",
        "to move: White",
    ]


def test_an_illegal_first_turn_of_a_white_first_record_names_white(tmp_path: Path) -> None:
    game = _write(tmp_path, PROBLEM.replace("1... b2 {captures a1}", "1... a1 {captures a1}"))
    result = run("show", game)
    assert result.exit_code == 1
    assert result.stderr.splitlines()[0] == (
        f"keilref: {game}:10:6: game 1: illegal: move 1 (White) a1, turn 1: occupied; showing the position before it"
    )
    assert "last turn: none, the setup position\n" in result.stdout


# --- score ------------------------------------------------------------------------

_FINISHED_COUNT = (
    "              Black   White\n"
    "stones            4       4\n"
    "territory         3       3\n"
    "komi                      0\n"
    "button          0.5\n"
    "---------------------------\n"
    "total           7.5       7\n"
    "neutral points: 5\n"
    "result: B+0.5\n"
)
_FINISHED_BOARD = (
    " 5    . O o\n"
    " 4   X . O o\n"
    " 3  x X . O o\n"
    " 2   x X . O  e\n"
    " 1    x X .  d\n"
    "       a b c\n"
)


@pytest.mark.parametrize(("text", "last"), [(FINISHED, "White"), (FINISHED_WHITE_FIRST, "Black")])
def test_a_finished_position_is_judged_and_scored_like_any_game(tmp_path: Path, text: str, last: str) -> None:
    game = _write(tmp_path, text)
    (verdict,) = keilref.check_text(text)
    assert (verdict.status.value, verdict.computed, verdict.declared) == ("ok", "B+0.5", "B+0.5")
    result = run("score", game)
    assert result.exit_code == 0
    assert result.stdout == (
        f"{game} game 1: rules keil, size 3, komi 0, after turn 2 of 2\n" + _FINISHED_BOARD + _FINISHED_COUNT
    )
    shown = run("show", game).stdout.splitlines()
    assert shown[7:] == [f"last turn: 2 pass ({last})", "captured: by Black 0, by White 0", "button: taken by Black",
                         "game over"]


@pytest.mark.parametrize("text", [FINISHED, FINISHED_WHITE_FIRST])
def test_score_turn_0_counts_the_setup_as_if_the_game_ended_there(tmp_path: Path, text: str) -> None:
    game = _write(tmp_path, text)
    result = run("score", "--turn", "0", game)
    assert result.exit_code == 0
    assert result.stdout == (
        f"{game} game 1: rules keil, size 3, komi 0, after turn 0 of 2\n"
        + _FINISHED_BOARD
        + "this counts the setup position as if the game ended there\n"
        + _FINISHED_COUNT
    )


def test_score_turn_0_of_a_problem_counts_its_setup(tmp_path: Path) -> None:
    game = _write(tmp_path, PROBLEM)
    lines = run("score", "--turn", "0", game).stdout.splitlines()
    assert lines[7] == wording.SETUP_COUNTED
    assert lines[8:] == [
        "              Black   White",
        "stones            2       1",
        "territory         0       0",
        "komi                      0",
        "button",
        "---------------------------",
        "total             2       1",
        "neutral points: 16",
        "result: B+1",
    ]
    # Later turns are counted as ever: the game has not ended there.
    assert run("score", "--turn", "1", game).stdout.splitlines()[7] == (
        "the game has not ended: this counts the current position"
    )


def test_score_of_the_empty_board_at_turn_0_is_not_a_setup(tmp_path: Path) -> None:
    game = _write(tmp_path, '[Rules "keil"]\n[Size "3"]\n[Komi "0"]\n[Button "yes"]\n\n1. b2 *\n')
    lines = run("score", "--turn", "0", game).stdout.splitlines()
    assert lines[7] == "the game has not ended: this counts the current position"


def test_score_turn_0_as_a_picture_says_result(tmp_path: Path) -> None:
    game = _write(tmp_path, FINISHED_WHITE_FIRST)
    result = run("score", "--turn", "0", "--format", "svg", game)
    assert result.exit_code == 0
    assert _caption(result.stdout) == [
        "the setup position, no turn yet · button: Black",
        "White to move",
        "Black 7.5, White 7: result B+0.5",
    ]
    assert _stones(result.stdout) == {p: "b" for p in ("b1", "b2", "b3", "b4")} | {
        p: "w" for p in ("d2", "d3", "d4", "d5")
    }


# --- SVG and PNG ------------------------------------------------------------------


def test_the_svg_of_turn_0_draws_the_setup(tmp_path: Path) -> None:
    game = _write(tmp_path, PROBLEM)
    result = run("show", "--turn", "0", "--format", "svg", game)
    assert result.exit_code == 0
    assert _stones(result.stdout) == PROBLEM_START
    assert _captured(result.stdout) == {}
    assert _caption(result.stdout) == ["the setup position, no turn yet · button: not taken", "White to move"]


@pytest.mark.parametrize(("turn", "caption", "captured"), [
    (1, "last turn: 1 b2 (White) · button: not taken", {"a1": "b"}),
    (2, "last turn: 2 c1 (Black) · button: not taken", {}),
    (3, "last turn: 3 c2 (White) · button: not taken", {"b1": "b", "c1": "b"}),
])
def test_the_svg_after_each_turn_from_the_setup(tmp_path: Path, turn: int, caption: str, captured: dict[str, str]) -> None:
    game = _write(tmp_path, PROBLEM)
    result = run("show", "--turn", str(turn), "--format", "svg", game)
    assert result.exit_code == 0
    assert _stones(result.stdout) == PROBLEM_SOLUTION[turn - 1]
    # Replayed from the set-up position, the stones taken keep their colour.
    assert _captured(result.stdout) == captured
    assert _caption(result.stdout)[0] == caption


def test_the_captured_colours_come_from_the_game_own_start() -> None:
    game = keilref.Game.from_position("B: a1 b1 W: c3", size=3, to_move="White")
    game.play("b2")
    before = svg.before_last_turn(game)
    assert (before.turn, before.to_move, before.stones(Color.BLACK), before.stones(Color.WHITE)) == (
        0, Color.WHITE, frozenset({"a1", "b1"}), frozenset({"c3"})
    )
    assert svg.captured_colours(game) == {"a1": Color.BLACK}


def test_the_png_of_turn_0_is_the_setup_svg_rendered(tmp_path: Path) -> None:
    pytest.importorskip("resvg_py")
    game = _write(tmp_path, PROBLEM)
    out = tmp_path / "setup.png"
    result = run("show", "--turn", "0", "--format", "png", "-o", str(out), game)
    assert result.exit_code == 0
    picture = run("show", "--turn", "0", "--format", "svg", game).stdout
    assert _stones(picture) == PROBLEM_START
    data = out.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert data == svg.to_png(picture)
    after = tmp_path / "after.png"
    assert run("show", "--turn", "1", "--format", "png", "-o", str(after), game).exit_code == 0
    assert after.read_bytes() != data


# --- the HTML report's viewer -------------------------------------------------------


def _viewer_game(tmp_path: Path, text: str) -> dict[str, object]:
    game = _write(tmp_path, text)
    out = tmp_path / "report.html"
    run("check", "--format", "html", "-o", str(out), game)
    page = out.read_text(encoding="utf-8")
    found = re.search(r'<script type="application/json" id="keilref-data">(.*?)</script>', page, re.S)
    assert found is not None
    games: dict[str, dict[str, object]] = json.loads(found[1])["games"]
    return games["1"]


def _position(points: dict[str, str]) -> str:
    return "".join(points.get(p, ".") for p in _SIZE3.points())


def test_the_viewer_starts_from_the_setup_and_labels_white_first_turns(tmp_path: Path) -> None:
    data = _viewer_game(tmp_path, PROBLEM)
    assert data["start"] == _position(PROBLEM_START)
    assert (data["setup"], data["whiteFirst"]) == (True, True)
    turns = data["turns"]
    assert isinstance(turns, list)
    assert [t[0] for t in turns] == ["b2 (White)", "c1 (Black)", "c2 (White)"]
    # Each turn's changes lead from the setup to the position after it.
    position = list(_position(PROBLEM_START))
    for (_, changes), expected in zip(turns, PROBLEM_SOLUTION):
        for p, c in zip(changes[::2], changes[1::2]):
            position[p] = c
        assert "".join(position) == _position(expected)
    assert data["branches"] == {"0:0": [[0, "main line: 1... b2"], [1, f"variation at {REFUTATION}: 1... a2?"]]}
    (line,) = data["lines"]  # type: ignore[misc]
    assert [t[0] for t in line["turns"]] == ["a2? (White)", "b2 (Black)"]
    position = list(_position(PROBLEM_START))
    for (_, changes), expected in zip(line["turns"], PROBLEM_REFUTATION):
        for p, c in zip(changes[::2], changes[1::2]):
            position[p] = c
        assert "".join(position) == _position(expected)


def test_the_viewer_of_an_empty_board_game_is_as_before(tmp_path: Path) -> None:
    data = _viewer_game(tmp_path, '[Rules "keil"]\n[Size "3"]\n[Komi "0"]\n[Button "yes"]\n\n1. b2 c2 *\n')
    assert data["start"] == "." * 19
    assert "setup" not in data and "whiteFirst" not in data
    assert [t[0] for t in data["turns"]] == ["b2 (Black)", "c2 (White)"]  # type: ignore[attr-defined]


def test_the_viewer_names_white_in_an_illegal_turn(tmp_path: Path) -> None:
    text = PROBLEM.replace("(1... a2?", "(1... a1").replace("1... b2 {captures a1}", "1... b1 {captures a1}")
    data = _viewer_game(tmp_path, text)
    assert data["turns"] == []
    assert data["faultText"] == "10:6: move 1 (White) b1, turn 1: occupied"
    (line,) = data["lines"]  # type: ignore[misc]
    assert line["faultText"] == "move 1 (White) a1, turn 1: occupied"


def test_the_viewer_gives_a_white_first_clock_to_white(tmp_path: Path) -> None:
    text = PROBLEM.replace("[Result", '[TimeControl "60"]\n[Result').replace(
        "1... b2 {captures a1}", "1... b2 {[%clk 0:00:59]}"
    )
    data = _viewer_game(tmp_path, text)
    assert data["whiteFirst"] is True
    assert data["turns"][0] == ["b2 (White)", data["turns"][0][1], "0:00:59"]  # type: ignore[index]


# --- clocks ----------------------------------------------------------------------



def test_show_gives_each_clock_to_its_player(tmp_path: Path) -> None:
    game = _write(tmp_path, TIMED)
    assert run("show", "--turn", "1", game).stdout.splitlines()[-1] == "clocks: Black no clock yet, White 0:00:59"
    assert run("show", "--turn", "2", game).stdout.splitlines()[-1] == "clocks: Black 0:00:58, White 0:00:59"


def test_the_clock_checks_and_time_used_of_a_white_first_record() -> None:
    (verdict,) = keilref.check_text(TIMED)
    assert verdict.warnings == (
        "move 2 (White) c2, turn 3: clock rises from 0:00:59 to 0:01:05, more than the increments since (0:00:00)",
    )
    assert verdict.time_used is not None
    assert (verdict.time_used.black, verdict.time_used.white) == (20, -50)


# --- the notebook -------------------------------------------------------------------


def test_the_notebook_steps_from_the_setup() -> None:
    page = record_html(keilref.read_game(PROBLEM))
    frames = re.findall(r'<div class="keilref-position"(?: hidden)?>(.*?)</div>', page, re.S)
    assert len(frames) == 4
    pictures = [f'<svg xmlns="http://www.w3.org/2000/svg"{f[4:]}' for f in frames]
    assert [_stones(p) for p in pictures] == [PROBLEM_START, *PROBLEM_SOLUTION]
    assert [_caption(p)[0] for p in pictures] == [
        "the setup position, no turn yet · button: not taken",
        "last turn: 1 b2 (White) · button: not taken",
        "last turn: 2 c1 (Black) · button: not taken",
        "last turn: 3 c2 (White) · button: not taken",
    ]


def test_a_record_of_a_position_alone_shows_it() -> None:
    page = keilref.read_game(FINISHED.replace("1. pass pass B+0.5", "*").replace("B+0.5", "*"))._repr_html_()
    (frame,) = re.findall(r'<div class="keilref-position">(.*?)</div>', page, re.S)
    picture = f'<svg xmlns="http://www.w3.org/2000/svg"{frame[4:]}'
    assert _stones(picture) == {p: "b" for p in ("b1", "b2", "b3", "b4")} | {p: "w" for p in ("d2", "d3", "d4", "d5")}
    assert _caption(picture) == ["the setup position, no turn yet · button: Black", "Black to move"]


def test_a_game_from_a_position_shows_it_in_a_notebook() -> None:
    game = keilref.Game.from_position("B: a1 b1 W: c3", size=3, to_move="White")
    page = game._repr_html_()
    picture = page[page.index("<svg"): page.index("</svg>") + 6]
    assert _stones(picture) == PROBLEM_START
    assert _caption(picture) == ["the setup position, no turn yet · button: not taken", "White to move"]
    assert "&lt;KeilGame keil, size 3, komi 0, turn 0, White to move&gt;" in page
