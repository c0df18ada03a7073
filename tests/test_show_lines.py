"""``keilref show --line``: the position after any turn of any line of an
annotated game, with the glyphs of the turn shown and both players' clocks.

Each snapshot (``tests/__snapshots__/test_show_lines/``) is the exact output;
each test also asserts what it means (the exit code, the line and turn
shown, the stones, the clocks), so that a snapshot blessed with a wrong
position in it still fails. The game is ``tests/lines_support.py``'s.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from syrupy.assertion import SnapshotAssertion
from typer.testing import Result

from cli_support import ROOT, board_points, count_glyphs, run
from keilref.records.parser import parse_record
from keilref.records.record import Clock
from keilref.referee.clocks import has_clocks, last_clocks
from keilref.referee.lines import find_line, replay_node, variation_places
from lines_support import ANNOTATED, ILLEGAL, MAIN_TURNS, NESTED, VARIATION, write_annotated

FILE = "annotated.keil"
KO = "records/games/size5-keil-corner-ko.keil"


@pytest.fixture(autouse=True)
def in_a_folder_with_the_game(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The game as ``annotated.keil`` in the working directory: the outputs name it so."""
    write_annotated(tmp_path, FILE)
    monkeypatch.chdir(tmp_path)


def header(result: Result) -> str:
    return result.stdout.splitlines()[0]


def last_line(result: Result) -> str:
    return result.stdout.splitlines()[-1]


def assert_usage_error(result: Result, message: str) -> None:
    """A usage error: exit 2, nothing on stdout, one line on stderr, exactly."""
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr == f"keilref: {message}\n"


# --- the main line ---------------------------------------------------------------


def test_the_end_of_the_main_line_shows_both_clocks(snapshot_txt: SnapshotAssertion) -> None:
    result = run("show", FILE)
    assert result.exit_code == 0
    assert header(result) == f"{FILE} game 1: rules keil, size 3, komi 0, after turn {MAIN_TURNS} of {MAIN_TURNS}"
    # Black's last clock is turn 5's; White's, turn 4's (turn 6 has none).
    assert last_line(result) == "clocks: Black 0:00:50.5, White 0:00:55"
    assert "game over" in result.stdout
    assert result.stdout == snapshot_txt


def test_an_annotated_turn_shows_its_glyphs(snapshot_txt: SnapshotAssertion) -> None:
    result = run("show", "--turn", "4", FILE)
    assert result.exit_code == 0
    assert header(result).endswith(", after turn 4 of 6, button $1")
    assert "last turn: 4 button (White)" in result.stdout
    assert last_line(result) == "clocks: Black 0:00:58, White 0:00:55"
    # --line main is the default, spelt out.
    assert run("show", "--turn", "4", "--line", "main", FILE).stdout == result.stdout
    assert result.stdout == snapshot_txt


def test_a_turn_without_glyphs_says_none() -> None:
    result = run("show", "--turn", "3", FILE)
    assert header(result).endswith(", after turn 3 of 6")


def test_before_any_clock_a_player_has_none_yet() -> None:
    start = run("show", "--turn", "0", FILE)
    assert start.exit_code == 0
    assert last_line(start) == "clocks: Black no clock yet, White no clock yet"
    first = run("show", "--turn", "1", FILE)
    assert header(first).endswith(", after turn 1 of 6, c3!")
    assert last_line(first) == "clocks: Black 0:01:00, White no clock yet"


def test_a_game_without_annotations_shows_as_before(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    plain = run("show", "--turn", "30", KO)
    assert plain.exit_code == 0
    assert run("show", "--turn", "30", "--line", "main", KO).stdout == plain.stdout
    assert "clocks:" not in plain.stdout
    assert header(plain) == f"{KO} game 1: rules keil, size 5, komi 3, after turn 30 of 42"


# --- a variation ------------------------------------------------------------------


def test_a_variation_by_default_at_its_last_turn(snapshot_txt: SnapshotAssertion) -> None:
    result = run("show", "--line", VARIATION, FILE)
    assert result.exit_code == 0
    assert header(result) == f"{FILE} game 1, variation at {VARIATION}: rules keil, size 3, komi 0, after turn 4 of 4"
    # c3 and b2 for Black, d4 and c2 for White: the variation's own turns replaced b2 (White) and what followed.
    assert "last turn: 4 c2 (White)" in result.stdout
    assert count_glyphs(result.stdout, "X") == 2 and count_glyphs(result.stdout, "O") == 2
    assert "to move: Black" in result.stdout
    # White's clock is the variation's own (turn 2, d4?!); b2 and c2 carry none.
    assert last_line(result) == "clocks: Black 0:01:00, White 0:00:58"
    assert result.stdout == snapshot_txt


def test_the_first_turn_of_a_variation_is_the_turn_it_replaces(snapshot_txt: SnapshotAssertion) -> None:
    result = run("show", "--line", VARIATION, "--turn", "2", FILE)
    assert result.exit_code == 0
    assert header(result).endswith(", after turn 2 of 4, d4?! $6")
    assert "last turn: 2 d4 (White)" in result.stdout
    assert count_glyphs(result.stdout, "X") == 1 and count_glyphs(result.stdout, "O") == 1
    assert result.stdout == snapshot_txt


def test_a_variation_at_its_branch_point_is_the_main_line_there() -> None:
    result = run("show", "--line", VARIATION, "--turn", "1", FILE)
    main = run("show", "--turn", "1", FILE)
    assert result.exit_code == main.exit_code == 0
    assert header(result) == f"{FILE} game 1, variation at {VARIATION}: rules keil, size 3, komi 0, after turn 1 of 4, c3!"
    assert board_points(result.stdout) == board_points(main.stdout)
    assert result.stdout.splitlines()[1:] == main.stdout.splitlines()[1:]


def test_a_nested_variation(snapshot_txt: SnapshotAssertion) -> None:
    result = run("show", "--line", NESTED, FILE)
    assert result.exit_code == 0
    assert header(result).endswith(f"game 1, variation at {NESTED}: rules keil, size 3, komi 0, after turn 3 of 3")
    # It replaces the third turn of the variation it is written in: c3, d4?!, then a1.
    assert "last turn: 3 a1 (Black)" in result.stdout
    assert count_glyphs(result.stdout, "X") == 2 and count_glyphs(result.stdout, "O") == 1
    assert last_line(result) == "clocks: Black 0:00:57, White 0:00:58"
    assert result.stdout == snapshot_txt


def test_an_illegal_turn_in_a_variation_shows_the_position_before_it(snapshot_txt: SnapshotAssertion) -> None:
    result = run("show", "--line", ILLEGAL, FILE)
    # As show says of an illegal turn of the main line: where, why, and the position before it; exit 1.
    assert result.exit_code == 1
    assert result.stderr.splitlines()[0] == (
        f"keilref: {FILE}:10:62: game 1: illegal: variation at {ILLEGAL}: move 2 (White) c3, turn 4: occupied;"
        " showing the position before it"
    )
    assert header(result).endswith(f"variation at {ILLEGAL}: rules keil, size 3, komi 0, after turn 3 of 4")
    assert "last turn: 3 d4 (Black)" in result.stdout
    assert result.stdout == snapshot_txt


def test_an_illegal_main_line_turn_before_the_branch(tmp_path: Path) -> None:
    (tmp_path / "late.keil").write_text(
        '[Rules "keil"]\n[Size "3"]\n[Komi "0"]\n[Button "yes"]\n\n1. c3 c3 2. d4 (2. b2 d4) 2... b2 *\n',
        encoding="utf-8",
    )
    result = run("show", "--line", "6:16", "late.keil")
    assert result.exit_code == 1
    # The illegal turn is the main line's, on the way to the variation: worded as the main line's.
    assert result.stderr.splitlines()[0] == (
        "keilref: late.keil:6:7: game 1: illegal: move 1 (White) c3, turn 2: occupied; showing the position before it"
    )
    assert header(result).endswith("variation at 6:16: rules keil, size 3, komi 0, after turn 1 of 4")


# --- what --line and --turn may be ------------------------------------------------


def test_no_variation_opens_there() -> None:
    assert_usage_error(
        run("show", "--line", "3:4", FILE),
        f"{FILE}: game 1: no variation opens at 3:4; variations open at 9:1, 9:38, 10:56",
    )


def test_a_game_without_variations_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    assert_usage_error(
        run("show", "--line", "8:25", KO), f"{KO}: game 1: no variation opens at 8:25; the game has no variations"
    )


@pytest.mark.parametrize(("line", "turn", "branch", "last"), [(VARIATION, 0, 1, 4), (VARIATION, 5, 1, 4), (NESTED, 1, 2, 3)])
def test_a_turn_outside_the_variation(line: str, turn: int, branch: int, last: int) -> None:
    assert_usage_error(
        run("show", "--line", line, "--turn", str(turn), FILE),
        f"{FILE}: game 1: the variation at {line} branches after turn {branch} and ends at turn {last}: "
        f"there is no turn {turn} in it (--turn {branch} to {last})",
    )


@pytest.mark.parametrize("value", ["9", "9:", ":1", "a:b", "9:1:2", "Main", "-1:3", "٩:١"])
def test_a_line_that_names_no_line(value: str) -> None:
    assert_usage_error(
        run("show", "--line", value, FILE),
        f"--line takes main or LINE:COLUMN, where a variation's '(' stands (such as 8:25), not {value!r}",
    )


def test_the_main_line_keeps_its_own_turn_check() -> None:
    result = run("show", "--turn", "7", FILE)
    assert result.exit_code == 2
    assert f"game 1 has {MAIN_TURNS} turns; there is no turn 7" in result.stderr


# --- pictures ---------------------------------------------------------------------


def captions(svg: str) -> list[str]:
    caption = svg[svg.index('<g class="caption"') :]
    return re.findall(r"<text[^>]*>([^<]*)</text>", caption)


def test_the_picture_names_the_line_the_glyphs_and_the_clocks(snapshot_svg: SnapshotAssertion) -> None:
    result = run("show", "--line", VARIATION, "--turn", "2", "--format", "svg", FILE)
    assert result.exit_code == 0
    assert captions(result.stdout) == [
        "last turn: 2 d4 (White) · button: not taken",
        "Black to move",
        f"variation at {VARIATION}, after turn 2: d4?! $6",
        "clocks: Black 0:01:00, White 0:00:58",
    ]
    # The text diagram it carries is the text show's.
    text = run("show", "--line", VARIATION, "--turn", "2", FILE).stdout
    diagram = text[text.index("\n") + 1 : text.index("last turn:")]
    assert f"<desc>\n{diagram}</desc>" in result.stdout
    written = run("show", "--line", VARIATION, "--turn", "2", "--format", "svg", "-o", "board.svg", FILE)
    assert written.exit_code == 0 and written.stdout == ""
    assert Path("board.svg").read_text(encoding="utf-8") == result.stdout
    assert result.stdout == snapshot_svg


def test_a_picture_of_a_plain_position_has_no_note() -> None:
    result = run("show", "--turn", "3", "--format", "svg", FILE)
    assert captions(result.stdout) == [
        "last turn: 3 d4 (Black) · button: not taken",
        "White to move",
        "clocks: Black 0:00:58, White 0:00:59",
    ]


# --- the library beneath --------------------------------------------------------


def test_any_node_replays_along_its_path() -> None:
    record = parse_record(ANNOTATED)
    root = record.tree()
    assert variation_places(root) == [(9, 1), (9, 38), (10, 56)]
    nested = find_line(root, NESTED)
    rep, bad = replay_node(nested)
    assert bad is None and rep.illegal is None
    assert rep.game.moves == ("c3", "d4", "a1") and rep.complete
    illegal = find_line(root, ILLEGAL)
    rep, bad = replay_node(illegal)
    assert bad is illegal and rep.illegal is not None
    assert (rep.illegal.turn, rep.illegal.point, rep.illegal.reason) == (4, "c3", "occupied")
    assert rep.game.turn == 3


def test_the_clocks_of_a_line() -> None:
    record = parse_record(ANNOTATED)
    assert has_clocks(record)
    assert last_clocks(record.turns[:1]) == (Clock(600), None)
    assert last_clocks(record.turns[:4]) == (Clock(580), Clock(550))
    assert not has_clocks(parse_record('[Size "3"]\n\n1. c3 {no clock here} *\n'))


def test_the_readme_example_game_passes_a_strict_check(monkeypatch: pytest.MonkeyPatch) -> None:
    """README.md shows --line on docs/variations-example.keil: a clean game, warnings included."""
    monkeypatch.chdir(ROOT)
    result = run("check", "--strict", "docs/variations-example.keil")
    assert result.exit_code == 0, result.stdout
