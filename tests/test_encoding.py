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


@pytest.mark.parametrize(("codec", "says"), [("utf-16", "does not write ASCII as ASCII"), ("klingon", "unknown encoding")])
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
