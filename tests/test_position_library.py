"""What ``show``, ``score`` and ``legal`` share, as library calls: the Nth game
of a file, and the line above a drawn position."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from cli_support import ROOT, run
from keilref.errors import RecordError
from keilref.formats.position_text import position_header
from keilref.records.record import Record
from keilref.records.sources import NoSuchGame, PathError, nth_game
from keilref.referee.replay import replay

THREE = ROOT / "records" / "games" / "small-boards-three-games.keil"


def test_nth_game_gives_that_game_of_the_file() -> None:
    firsts = [nth_game(str(THREE), n) for n in (1, 2, 3)]
    assert all(isinstance(r, Record) for r in firsts)
    lines = [r.line for r in firsts if isinstance(r, Record)]
    assert lines == sorted(lines) and len(set(lines)) == 3


def test_nth_game_past_the_end_says_how_many_there_are() -> None:
    with pytest.raises(NoSuchGame) as info:
        nth_game(str(THREE), 4)
    assert info.value.count == 3
    assert str(info.value).endswith("there is no game 4 (the file holds 3)")


def test_nth_game_wants_one_file(tmp_path: Path) -> None:
    with pytest.raises(PathError, match="is a directory; give one record file"):
        nth_game(str(tmp_path), 1)
    with pytest.raises(PathError):
        nth_game(str(tmp_path / "missing.keil"), 1)


def test_nth_game_reads_a_compressed_file_and_gives_a_faulty_game_as_its_error(tmp_path: Path) -> None:
    path = tmp_path / "two.keil.gz"
    path.write_bytes(gzip.compress(b'[Event "a"]\n\n1. d4 *\n\n[Event "b"]\n\n1. d4 hh9 *\n'))
    assert isinstance(nth_game(str(path), 1), Record)
    second = nth_game(str(path), 2)
    assert isinstance(second, RecordError)
    assert (second.line, second.column) == (7, 7)


def test_the_position_header_is_the_one_show_prints() -> None:
    record = nth_game(str(THREE), 2)
    assert isinstance(record, Record)
    rep = replay(record, stop=3)
    header = position_header(str(THREE), 2, rep.setup, rep.game.turn, len(record.turns))
    assert header.startswith(f"{THREE} game 2: rules {rep.setup.rules}, size {rep.setup.size}, komi ")
    assert header.endswith(f"after turn 3 of {len(record.turns)}")
    shown = run("show", str(THREE), "--game", "2", "--turn", "3")
    assert shown.exit_code == 0
    assert shown.output.splitlines()[0] == header
