"""Files as people save them: UTF-16 and UTF-32, told by their byte order mark.

Notepad's "Unicode" is UTF-16 little-endian with a byte order mark. Read as
UTF-8, such a file is one error that names its encoding and the way out,
never an error per game; read with ``--encoding utf-16`` it is read as any
other file, and ``fmt`` writes it back in UTF-16, in its byte order, with its
mark.
"""

from __future__ import annotations

import codecs
import io
import json
from pathlib import Path

import pytest

import keilref
from cli_support import lines_of, run, untimed

GAME = '[Rules "keil"] [Size "3"] [Komi "2"] [Button "yes"]\n1. e3 a1 B+R\n'
TEN = "\n".join([GAME] * 10)
# Two blanks where the canonical layout has one, in the tags and the moves.
LOOSE = '[Rules "keil"]  [Size "3"] [Komi "2"] [Button "yes"]\n1. e3   a1 B+R\n'
CANONICAL = '[Rules "keil"]\n[Size "3"]\n[Komi "2"]\n[Button "yes"]\n\n1. e3 a1 B+R\n'

SAVED = {
    # name: (the file's bytes, the encoding its mark names)
    "utf-16-le": (codecs.BOM_UTF16_LE + TEN.encode("utf-16-le"), "UTF-16"),
    "utf-16-be": (codecs.BOM_UTF16_BE + TEN.encode("utf-16-be"), "UTF-16"),
    "utf-32-le": (codecs.BOM_UTF32_LE + TEN.encode("utf-32-le"), "UTF-32"),
    "utf-32-be": (codecs.BOM_UTF32_BE + TEN.encode("utf-32-be"), "UTF-32"),
}


def _message(encoding: str) -> str:
    return (
        f"the file is {encoding} (it starts with a {encoding} byte-order mark): "
        f"re-save it as UTF-8, or read it with --encoding {encoding.lower()}"
    )


def _saved(tmp_path: Path, name: str) -> tuple[Path, str]:
    data, encoding = SAVED[name]
    path = tmp_path / "saved.keil"
    path.write_bytes(data)
    return path, encoding


@pytest.mark.parametrize("jobs", ["1", "2"])
@pytest.mark.parametrize("name", SAVED)
def test_read_as_utf8_the_file_is_one_error_naming_its_encoding(tmp_path: Path, name: str, jobs: str) -> None:
    path, encoding = _saved(tmp_path, name)
    result = run("check", "-j", jobs, str(path))
    assert result.exit_code == 1
    assert untimed(result.stdout) == (
        f"{path}:1:1: game 1: error: {_message(encoding)}\n1 game: 1 error in <TIME> s (<RATE> games/s)\n"
    )
    (line,) = lines_of(run("check", "--format", "jsonl", str(path)).stdout)
    verdict = json.loads(line)
    assert (verdict["status"], verdict["error"]) == ("error", {"message": _message(encoding), "line": 1, "column": 1})


def test_the_same_on_standard_input_and_in_the_library(tmp_path: Path) -> None:
    path, _ = _saved(tmp_path, "utf-16-le")
    from keilref.cli import app
    from typer.testing import CliRunner

    result = CliRunner().invoke(app, ["check", "-"], input=path.read_bytes())
    assert result.exit_code == 1
    assert lines_of(result.stdout)[0] == f"-:1:1: game 1: error: {_message('UTF-16')}"
    (error,) = keilref.read_games(str(path))
    assert isinstance(error, keilref.RecordError) and (error.line, error.column) == (1, 1)
    assert error.message == _message("UTF-16")
    (error,) = keilref.read_games(io.BytesIO(path.read_bytes()))
    assert isinstance(error, keilref.RecordError) and error.message == _message("UTF-16")


@pytest.mark.parametrize("command", ["score", "legal", "show"])
def test_the_position_commands_say_it_without_quoting_the_line(tmp_path: Path, command: str) -> None:
    path, _ = _saved(tmp_path, "utf-16-le")
    result = run(command, str(path))
    assert result.exit_code == 1
    # The first line read as UTF-8 is no text to quote: the message alone.
    assert result.stderr == f"keilref: {path}:1:1: game 1: {_message('UTF-16')}\n"


@pytest.mark.parametrize("jobs", ["1", "2"])
@pytest.mark.parametrize("name", SAVED)
def test_with_the_encoding_every_game_reads(tmp_path: Path, name: str, jobs: str) -> None:
    path, encoding = _saved(tmp_path, name)
    result = run("check", "-j", jobs, "--encoding", encoding.lower(), str(path))
    assert result.exit_code == 0, result.output
    assert untimed(result.stdout).endswith("\n10 games: 10 ok in <TIME> s (<RATE> games/s)\n")
    # Lines and columns are the text's, not the bytes': game 10 starts on line 28.
    assert f"{path}:28:1: game 10: ok: computed -, declared B+R" in result.stdout


def test_stats_filter_and_show_read_it_with_the_encoding(tmp_path: Path) -> None:
    path, _ = _saved(tmp_path, "utf-16-le")
    assert "10 games: 10 ok" in run("stats", "--encoding", "utf-16", str(path)).stdout
    filtered = run("filter", "--encoding", "utf-16", "--status", "ok", str(path))
    assert filtered.exit_code == 0
    assert filtered.stdout.count('[Rules "keil"]') == 10  # written as UTF-8 text
    shown = run("show", "--encoding", "utf-16", "--game", "10", str(path))
    assert shown.exit_code == 0 and f"{path} game 10: rules keil, size 3, komi 2" in shown.stdout


def test_a_utf16_file_cut_short_by_a_byte_is_an_error_not_a_traceback(tmp_path: Path) -> None:
    path, _ = _saved(tmp_path, "utf-16-le")
    data = path.read_bytes()
    path.write_bytes(data[:-1])
    result = run("check", "--encoding", "utf-16", str(path))
    assert result.exit_code == 1
    # The last byte, alone, is half of the final line feed (0a 00).
    assert f"not utf-16 text at byte {len(data) - 2:,} (0x0a)" in result.stdout


@pytest.mark.parametrize(
    ("name", "codec", "mark"),
    [
        ("utf-16", "utf-16-le", codecs.BOM_UTF16_LE),
        ("utf-16", "utf-16-be", codecs.BOM_UTF16_BE),
        ("utf-32", "utf-32-be", codecs.BOM_UTF32_BE),
        ("utf-16-le", "utf-16-le", b""),
    ],
)
def test_fmt_writes_it_back_in_its_encoding_order_and_mark(tmp_path: Path, name: str, codec: str, mark: bytes) -> None:
    path = tmp_path / "saved.keil"
    path.write_bytes(mark + (LOOSE + "\n" + LOOSE).encode(codec))
    assert run("fmt", "--check", "--encoding", name, str(path)).exit_code == 1
    result = run("fmt", "--in-place", "--encoding", name, str(path))
    assert result.exit_code == 0, result.output
    assert path.read_bytes() == mark + (CANONICAL + "\n" + CANONICAL).encode(codec)
    assert run("fmt", "--check", "--encoding", name, str(path)).exit_code == 0


def test_fmt_without_the_encoding_names_it_and_leaves_the_file(tmp_path: Path) -> None:
    path = tmp_path / "saved.keil"
    data = codecs.BOM_UTF16_LE + LOOSE.encode("utf-16-le")
    path.write_bytes(data)
    result = run("fmt", "--in-place", str(path))
    assert result.exit_code == 1
    assert result.stderr == f"keilref: {path}:1:1: {_message('UTF-16')} (file left as it is)\n"
    assert path.read_bytes() == data


def test_a_compressed_utf16_file_is_named_and_read_the_same(tmp_path: Path) -> None:
    # Decompressed first, then told by its mark, or decoded before it is cut.
    import gzip

    path = tmp_path / "saved.keil.gz"
    path.write_bytes(gzip.compress(SAVED["utf-16-le"][0]))
    plain = run("check", str(path))
    assert plain.exit_code == 1
    assert lines_of(plain.stdout)[0] == f"{path}:1:1: game 1: error: {_message('UTF-16')}"
    read = run("check", "--encoding", "utf-16", str(path))
    assert read.exit_code == 0, read.output
    assert untimed(read.stdout).endswith("\n10 games: 10 ok in <TIME> s (<RATE> games/s)\n")
