"""Only a text encoding reads records: a codec of bytes to bytes or text to text is a usage error, wherever it is named."""

from __future__ import annotations

from pathlib import Path

import pytest

from cli_support import ROOT, run
from keilref.records.sources import check_encoding

GAME = ROOT / "records/games/size4-keil-no-result-claimed.keil"
NOT_TEXT = ["hex", "rot13", "base64", "zlib", "uu", "bz2_codec", "quopri", "bz2", "rot_13", "HEX"]
COMMANDS = [
    ["check"],
    ["fmt", "--check"],
    ["stats"],
    ["filter", "--status", "ok"],
    ["show"],
    ["score"],
    ["legal"],
]


@pytest.mark.parametrize("name", NOT_TEXT)
def test_a_codec_that_is_not_a_text_encoding_is_refused_in_one_place(name: str) -> None:
    with pytest.raises(ValueError, match=rf"^'{name}' is not a text encoding \(such as cp1252, latin-1 or utf-8\)$"):
        check_encoding(name)


@pytest.mark.parametrize("name", ["", "\x00", "cp1252\x00", "\ud800", "no-such-codec", "x" * 300])
def test_a_name_no_codec_has_is_an_unknown_encoding(name: str) -> None:
    with pytest.raises(ValueError, match="^unknown encoding "):
        check_encoding(name)


@pytest.mark.parametrize("name", ["cp1252", "latin-1", "ISO-8859-15", "utf_8", "ascii", "mac-roman"])
def test_text_encodings_are_still_read(name: str) -> None:
    assert check_encoding(name) in {None, "cp1252", "iso8859-1", "iso8859-15", "ascii", "mac-roman"}


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
@pytest.mark.parametrize("name", ["hex", "rot13", "base64", "zlib", "uu", "bz2_codec"])
def test_on_the_command_line_every_command_says_so_and_exits_2(command: list[str], name: str) -> None:
    r = run(*command, "--encoding", name, str(GAME))
    assert r.exit_code == 2, r.output
    assert f"'{name}' is not a text encoding" in r.stderr
    assert r.stdout == ""


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
@pytest.mark.parametrize("name", ["hex", "rot13", "base64", "zlib", "uu", "bz2_codec"])
def test_as_a_setting_every_command_names_the_file_and_line_and_exits_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: list[str], name: str
) -> None:
    (tmp_path / "keilref.toml").write_text(f'strict = false\nencoding = "{name}"\n', encoding="utf-8")
    (tmp_path / "g.keil").write_bytes(GAME.read_bytes())
    monkeypatch.chdir(tmp_path)
    r = run(*command, "g.keil")
    assert r.exit_code == 2, r.output
    assert f"keilref.toml:2: encoding: '{name}' is not a text encoding" in r.stderr
    assert r.stdout == ""
    assert (tmp_path / "g.keil").read_bytes() == GAME.read_bytes()
