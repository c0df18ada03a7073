"""``read_games(directory)`` reads what ``keilref check DIRECTORY`` reads,
in the same order; a directory holding no record is an ``OSError`` naming it."""

from __future__ import annotations

from pathlib import Path

import pytest

import keilref
from keilref.records.sources import expand_paths, read_source


def _tree(tmp_path: Path) -> Path:
    one = '[Size "3"]\n[Komi "0"]\n[Button "no"]\n\n1. a1 pass 2. pass *\n'
    two = '[Size "4"]\n[Komi "0"]\n[Button "no"]\n\n1. b2 *\n\n[Size "5"]\n[Komi "0"]\n\n1. ?? *\n'
    (tmp_path / "b").mkdir()
    (tmp_path / "a.keil").write_text(one, encoding="utf-8")
    (tmp_path / "b" / "c.keil").write_text(two, encoding="utf-8")
    (tmp_path / ".hidden").mkdir()
    (tmp_path / ".hidden" / "x.keil").write_text(one, encoding="utf-8")
    (tmp_path / "notes.txt").write_text(one, encoding="utf-8")
    return tmp_path


def test_a_directory_yields_the_games_of_each_record_under_it(tmp_path: Path) -> None:
    games = list(keilref.read_games(_tree(tmp_path)))
    assert [g.tag_value("Size") if isinstance(g, keilref.Record) else "error" for g in games] == ["3", "4", "error"]
    error = games[2]
    assert isinstance(error, keilref.RecordError)
    assert error.filename == str(tmp_path / "b" / "c.keil") and error.line == 10


def test_it_reads_what_the_command_line_reads(tmp_path: Path) -> None:
    root = Path(__file__).resolve().parent.parent / "records" / "games"
    by_walk = [g for s in expand_paths([str(root)]) for g in read_source(s)]
    assert list(keilref.read_games(str(root))) == by_walk and len(by_walk) > 10
    assert keilref.read_game(root) == by_walk[0]


def test_a_directory_without_records_is_an_is_a_directory_error(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("nothing", encoding="utf-8")
    games = keilref.read_games(tmp_path)
    with pytest.raises(IsADirectoryError) as e:
        next(games)
    assert str(tmp_path) in str(e.value) and "directory holds no .keil records" in str(e.value)
