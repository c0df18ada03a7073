"""A file that its encoding cannot decode is one located error, whatever the codec.

Most codecs name the byte they stop at (``UnicodeDecodeError``); a few raise a
bare ``UnicodeError`` that names none: ``utf-16`` on text without its mark
(``UTF-16 stream does not start with BOM``) and ``punycode``. Each ended
``check``, ``stats``, ``fmt`` and ``check --fix`` with a traceback. A lone
surrogate spelt in a match (``"\\ud800"``) was written raw into the JSON line,
which no UTF-8 output can hold.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_support import run

GAME = '[Rules "keil"]\n[Size "3"]\n[Komi "2"]\n\n1. e3 a1 2. button pass 3. pass W+1.5\n'


@pytest.mark.parametrize("encoding", ["utf-16", "punycode"])
@pytest.mark.parametrize(
    "command",
    [["check"], ["stats"], ["fmt", "--check"], ["check", "--fix"], ["filter"]],
    ids=["check", "stats", "fmt", "fix", "filter"],
)
def test_a_bare_unicode_error_is_a_located_error_for_its_file(
    tmp_path: Path, encoding: str, command: list[str]
) -> None:
    bad = tmp_path / "bad.keil"
    bad.write_bytes(GAME.encode("utf-8"))
    good = tmp_path / "good.keil"
    good.write_bytes(GAME.encode(encoding) if encoding == "utf-16" else GAME.encode("ascii"))
    before = (bad.read_bytes(), good.read_bytes())
    result = run(*command, "--encoding", encoding, str(bad))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output + result.stderr
    if command == ["stats"]:
        # stats counts the file's game as an error, as it counts any other.
        assert result.exit_code == 0 and "1 game: 1 error" in result.stdout
    elif command[0] == "fmt" and encoding == "utf-16":
        # fmt decodes the file whole, and Python's whole-text UTF-16 decoder
        # takes text without its mark as little-endian: the file is text, not records.
        assert result.exit_code == 1 and "a game starts with tags" in result.stderr
    else:
        assert result.exit_code in (1, 2), result.output
        assert f"not {encoding} text" in result.stderr + result.stdout
    assert (bad.read_bytes(), good.read_bytes()) == before  # nothing rewritten


def test_the_other_files_are_still_judged(tmp_path: Path) -> None:
    bad = tmp_path / "a-bad.keil"
    bad.write_bytes(GAME.encode("utf-8"))
    good = tmp_path / "b-good.keil"
    good.write_bytes(GAME.encode("utf-16"))
    result = run("check", "--encoding", "utf-16", "--format", "jsonl", str(bad), str(good))
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert [(Path(v["file"]).name, v["status"]) for v in lines] == [("a-bad.keil", "error"), ("b-good.keil", "ok")]
    assert "not utf-16 text from byte 0 on (UTF-16 stream does not start with BOM)" in lines[0]["error"]["message"]
    assert result.exit_code == 1


def test_a_lone_surrogate_in_a_match_is_escaped_in_the_json_line(tmp_path: Path) -> None:
    match = tmp_path / "m.moves.json"
    match.write_text('{"moves": [], "name": "x\\ud800y", "size": 99}', encoding="utf-8")
    result = run("check", "--format", "jsonl", str(match))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    (line,) = result.stdout.splitlines()
    assert all(not 0xD800 <= ord(c) < 0xE000 for c in line)
    assert json.loads(line)["status"] == "error"
