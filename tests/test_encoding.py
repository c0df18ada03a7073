"""Archives written in Latin-1 or Windows-1252: an error with a hint, or read with --encoding."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_support import run

GAME = '[Black "José Núñez"] [Rules "keil"] [Size "3"] [Komi "2"] [Button "yes"]\n1. e3 a1 B+R\n'


@pytest.fixture
def cp1252(tmp_path: Path) -> Path:
    path = tmp_path / "old.keil"
    path.write_bytes((GAME + "\n" + GAME.replace("José", "Zoë")) .encode("cp1252"))
    return path


def test_without_the_option_a_byte_that_is_not_utf8_is_an_error_with_the_way_out(cp1252: Path) -> None:
    r = run("check", str(cp1252))
    assert r.exit_code == 1
    assert f"{cp1252}:1:12: game 1: error: the text is not valid UTF-8 here (byte 0xe9): re-save the file as UTF-8, " \
        "or read it with --encoding (such as --encoding cp1252)" in r.stdout


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_with_the_encoding_every_game_reads_and_names_are_right(cp1252: Path, jobs: str) -> None:
    r = run("check", "--encoding", "cp1252", "-j", jobs, "--format", "jsonl", str(cp1252))
    assert r.exit_code == 0, r.output
    verdicts = [json.loads(line) for line in r.stdout.splitlines()]
    assert [(v["status"], v["black"]) for v in verdicts] == [("ok", "José Núñez"), ("ok", "Zoë Núñez")]


def test_stats_and_filter_read_it_too(cp1252: Path) -> None:
    assert run("stats", "--encoding", "windows-1252", str(cp1252)).exit_code == 0
    r = run("filter", "--encoding", "latin-1", "--player", "zoë", str(cp1252))
    assert r.exit_code == 0 and '[Black "Zoë Núñez"]' in r.stdout


@pytest.mark.parametrize(("codec", "says"), [("klingon", "unknown encoding")])
def test_an_encoding_that_cannot_work_is_a_usage_error(cp1252: Path, codec: str, says: str) -> None:
    r = run("check", "--encoding", codec, str(cp1252))
    assert r.exit_code == 2 and says in r.stderr


def test_a_byte_the_encoding_does_not_have_is_an_error_at_its_place(tmp_path: Path) -> None:
    path = tmp_path / "bad.keil"
    path.write_bytes(b'[Black "\x81"] [Rules "keil"]\n1. e3 *\n')
    r = run("check", "--encoding", "cp1252", str(path))
    assert r.exit_code == 1 and "not cp1252 text at byte 8 (0x81)" in r.stdout


@pytest.mark.parametrize("command", ["show", "score", "legal"])
def test_the_position_commands_read_it_too(cp1252: Path, command: str) -> None:
    wrong = run(command, "--game", "2", str(cp1252))
    assert wrong.exit_code == 1 and "not valid UTF-8" in wrong.stderr
    right = run(command, "--game", "2", "--encoding", "cp1252", str(cp1252))
    assert right.exit_code == 0, right.output
    assert f"{cp1252} game 2: rules keil, size 3, komi 2, after turn 2 of 2" in right.stdout



@pytest.mark.parametrize("command", ["check", "stats", "filter", "show"])
def test_encoding_utf8_on_the_command_line_overrides_the_projects(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: str
) -> None:
    (tmp_path / "keilref.toml").write_text('encoding = "cp1252"\n', encoding="utf-8")
    # "Ł" is C5 81 in UTF-8, and 0x81 is no character in cp1252: read in the project's encoding, this fails.
    (tmp_path / "new.keil").write_bytes(GAME.replace("José", "Łukasz").encode("utf-8"))
    monkeypatch.chdir(tmp_path)
    wrong = run(command, "new.keil")
    right = run(command, "--encoding", "utf-8", "new.keil")
    if command == "stats":  # it counts a game it cannot read, and exits 0
        assert "1 game: 1 error" in wrong.stdout and "1 game: 1 ok" in right.stdout
        return
    assert wrong.exit_code == 1 and "not cp1252 text at byte 9 (0x81)" in wrong.output
    assert right.exit_code == 0, right.output
