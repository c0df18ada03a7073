"""``score`` and ``legal`` take ``--line L:C`` as ``show`` does: the same
position of the same variation, the same header, the same usage errors and
exit codes (one implementation serves the three)."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_support import run
from lines_support import ILLEGAL, NESTED, VARIATION, write_annotated

from keilref import wording
from keilref.formats import position_text
from keilref.records.parser import parse_record
from keilref.referee.lines import Node, find_line, replay_node


@pytest.fixture
def game(tmp_path: Path) -> Path:
    return write_annotated(tmp_path)


def _node(path: Path, place: str, turn: int | None = None) -> Node:
    """The node of the line opening at ``place`` after ``turn`` (its last, by default)."""
    first = find_line(parse_record(path.read_text(encoding="utf-8")).tree(), place)
    line = [first, *first.mainline()]
    if turn is None:
        return line[-1]
    node = first.parent if turn == first.ply - 1 else line[turn - first.ply]
    assert node is not None
    return node


def _header(result_stdout: str) -> str:
    return result_stdout.splitlines()[0]


@pytest.mark.parametrize("command", ["score", "legal"])
@pytest.mark.parametrize(("place", "turn"), [(VARIATION, None), (VARIATION, 1), (VARIATION, 3), (NESTED, None)])
def test_the_header_is_shows(game: Path, command: str, place: str, turn: int | None) -> None:
    """The position named is show's: the same header, less the glyphs show adds."""
    args = ["--line", place, *([] if turn is None else ["--turn", str(turn)]), str(game)]
    shown = run("show", *args)
    result = run(command, *args)
    assert shown.exit_code == result.exit_code == 0
    rep, bad = replay_node(_node(game, place, turn))
    assert bad is None
    last = {VARIATION: 4, NESTED: 3}[place]
    line, column = place.split(":")
    expected = position_text.position_header(str(game), 1, rep.setup, rep.game.turn, last, line=(int(line), int(column)))
    assert _header(result.stdout) == expected
    assert _header(shown.stdout).startswith(expected)


def test_score_counts_the_variations_position(game: Path) -> None:
    result = run("score", "--line", VARIATION, str(game))
    assert result.exit_code == 0
    rep, _ = replay_node(_node(game, VARIATION))
    counted = rep.game.score()
    assert result.stdout.splitlines()[-1] == f"result: {counted.result}" == "result: W+5"
    main = run("score", str(game))
    assert main.exit_code == 0
    assert main.stdout.splitlines()[-1] != result.stdout.splitlines()[-1]


def test_legal_lists_the_variations_turns(game: Path) -> None:
    result = run("legal", "--line", VARIATION, "--turn", "2", str(game))
    assert result.exit_code == 0
    rep, _ = replay_node(_node(game, VARIATION, 2))
    g = rep.game
    assert result.stdout.splitlines()[1] == "Black to move"
    assert result.stdout.split("\n", 2)[2] == position_text.legal_listing(g.legal_moves(), g.piece_prefixes)
    # Not the main line's position after turn 2: d4 stands there, b2 here.
    main = run("legal", "--turn", "2", str(game))
    assert main.exit_code == 0
    assert main.stdout.split("\n", 2)[2] != result.stdout.split("\n", 2)[2]


def test_line_main_is_the_default(game: Path) -> None:
    for command in ("score", "legal"):
        assert run(command, "--line", "main", str(game)).stdout == run(command, str(game)).stdout


@pytest.mark.parametrize("command", ["score", "legal"])
def test_an_illegal_turn_on_the_line_fails_with_the_position_before_it(game: Path, command: str) -> None:
    result = run(command, "--line", ILLEGAL, str(game))
    assert result.exit_code == 1
    assert result.stderr.splitlines()[0] == (
        f"keilref: {game}:10:62: game 1: illegal: variation at {ILLEGAL}: move 2 (White) c3, turn 4: occupied;"
        " showing the position before it"
    )
    assert f"variation at {ILLEGAL}: rules keil, size 3, komi 0, after turn 3 of 4" in _header(result.stdout)


@pytest.mark.parametrize("command", ["score", "legal"])
def test_usage_errors(game: Path, command: str) -> None:
    bad = run(command, "--line", "x", str(game))
    assert bad.exit_code == 2
    assert bad.stderr == f"keilref: {wording.bad_line_name('x')}\n"
    assert bad.stdout == ""
    none = run(command, "--line", "3:3", str(game))
    assert none.exit_code == 2
    assert none.stderr == (
        f"keilref: {game}: game 1: no variation opens at 3:3; variations open at {VARIATION}, {NESTED}, {ILLEGAL}\n"
    )
    outside = run(command, "--line", VARIATION, "--turn", "9", str(game))
    assert outside.exit_code == 2
    assert outside.stderr == (
        f"keilref: {game}: game 1: the variation at {VARIATION} branches after turn 1 and ends at turn 4:"
        " there is no turn 9 in it (--turn 1 to 4)\n"
    )
