"""``keilref filter --setup`` and ``--no-setup``: games from a position, or from the empty board.

A game starts from a position when its record has a tag of version 3
(``Setup``, ``ToMove``, ``ButtonTaken``, ``FirstPass``), whether or not its
values read; a game that cannot be read is neither. The games are written
verbatim. Duplicates are games with the same rules, size, position and
turns: the same solution to two problems is two games.
"""

from __future__ import annotations

from pathlib import Path

from cli_support import run
from keilref.cli import EXIT_OK

POSITION = """[Event "Problem 4"]
[Rules "keil"]
[Size "3"]
[Komi "0"]
[Result "*"]
[Setup "B: a1 b1 W: c3"]
[ToMove "White"]

1... b2 *
"""

# The same problem, its Setup spelt otherwise: the same game.
SAME_POSITION = """[Event "Problem 4, copied"]
[Rules "keil"]
[Size "3"]
[Setup "B: b1 a1   W: c3"]
[ToMove "White"]
{copied by hand}
1... b2 *
"""

OTHER_POSITION = """[Event "Problem 5"]
[Rules "keil"]
[Size "3"]
[Komi "0"]
[Result "*"]
[Setup "B: a1 W: c3"]
[ToMove "White"]

1... b2 *
"""

UNREAD_POSITION = """[Event "A Setup that does not read"]
[Rules "keil"]
[Size "3"]
[Setup "W: c3 B: a1"]

1. b2 *
"""

EMPTY_BOARD = """[Event "From the empty board"]
[Rules "keil"]
[Size "3"]
[Komi "0"]
[Result "*"]

1. b2 *
"""

UNREADABLE = """[Event "Cannot be read"]
[Rules "keil"]
[Setup "B: a1 W:"]

1. b1 % *
"""


def _filter(tmp_path: Path, *args: str) -> tuple[int, str, str]:
    path = tmp_path / "archive.keil"
    path.write_text("\n".join([POSITION, EMPTY_BOARD, UNREAD_POSITION, OTHER_POSITION, UNREADABLE]), encoding="utf-8")
    result = run("filter", *args, str(path))
    return result.exit_code, result.stdout, result.stderr


def test_setup_keeps_the_games_that_start_from_a_position(tmp_path: Path) -> None:
    code, out, err = _filter(tmp_path, "--setup")
    assert code == EXIT_OK
    # Verbatim: each game with the blank line that followed it in its file.
    assert out == "".join(game + "\n" for game in [POSITION, UNREAD_POSITION, OTHER_POSITION])
    assert err == "keilref: 3 of 5 games written\n"


def test_no_setup_keeps_the_games_from_the_empty_board(tmp_path: Path) -> None:
    code, out, err = _filter(tmp_path, "--no-setup")
    assert code == EXIT_OK
    assert out == EMPTY_BOARD + "\n"
    assert err == "keilref: 1 of 5 games written\n"


def test_with_neither_every_game_is_written(tmp_path: Path) -> None:
    code, out, _ = _filter(tmp_path)
    assert code == EXIT_OK
    assert out.count("[Event ") == 5


def test_setup_combines_with_the_other_criteria(tmp_path: Path) -> None:
    code, out, _ = _filter(tmp_path, "--setup", "--status", "unfinished")
    assert code == EXIT_OK
    assert out == "".join(game + "\n" for game in [POSITION, OTHER_POSITION])


def test_duplicates_are_the_same_turns_from_the_same_position(tmp_path: Path) -> None:
    path = tmp_path / "problems.keil"
    path.write_text("\n".join([POSITION, EMPTY_BOARD, OTHER_POSITION, SAME_POSITION]), encoding="utf-8")
    result = run("filter", "--duplicates", str(path))
    assert result.exit_code == EXIT_OK
    assert result.stdout == SAME_POSITION
    assert result.stderr == (
        f"keilref: {path}:29 (game 4): duplicate of {path}:1 (game 1)\n"
        "keilref: 1 of 4 games written; 1 duplicate\n"
    )


def test_the_help_says_what_setup_chooses() -> None:
    text = " ".join(run("filter", "--help").stdout.split())
    assert "--setup / --no-setup Only games that start from a position" in text
    assert "--no-setup: only games from the empty board" in text
