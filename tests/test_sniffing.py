"""Which reader a file gets: a match of abstract_games only when its name says
so or the whole of it is one of the server's JSON shapes; anything else is
records, a record whose first comment opens like a JSON object included.

Every reader decides by the same rule (``keilref.records.sniffing.is_match``):
``check``, ``show``, ``stats``, ``filter``, standard input, compressed files,
the library, ``fmt`` and the language server.
"""

from __future__ import annotations

import gzip
import io
import json
from pathlib import Path
from typing import Any

import pytest

import keilref
from cli_support import run
from keilref.records import sniffing
from keilref.records.sniffing import MatchBytes, is_match, split_source
from keilref.records.record import Record
from keilref.referee.verdict import Status

# The reproducer: a record whose first comment starts as a JSON object does.
NOTE = '{"Note": from the club archive}\n'
GAME = """[Event "club"]
[Black "ana"]
[White "ben"]
[Rules "keil"]
[Size "4"]
[Komi "6"]
[Button "yes"]
[Result "*"]

1. d4 e5 *
"""
RECORD = NOTE + GAME
# The same game as the server's stored rows.
MATCH = {
    "game_uid": "keil",
    "options": {"size": 4},
    "players": [{"type": "user", "user_id": 1, "name": "ana"}, {"type": "user", "user_id": 2, "name": "ben"}],
    "status": "active",
    "winner": None,
    "moves": [
        {"ply": 0, "seat": 0, "move": "komi=6"},
        {"ply": 1, "seat": 1, "move": "white"},
        {"ply": 2, "seat": 0, "move": "0,0"},
        {"ply": 3, "seat": 1, "move": "1,-1"},
    ],
}
MATCH_TEXT = json.dumps(MATCH, indent=1) + "\n"


def _the_game(v: keilref.Verdict, line: int = 2) -> None:
    """The verdict the reproducer's game gets: read as the record it is."""
    assert (v.status, v.turns, v.black, v.white, v.line) == (Status.UNFINISHED, 2, "ana", "ben", line), v
    assert v.error is None


@pytest.fixture
def note(tmp_path: Path) -> Path:
    path = tmp_path / "note.keil"
    path.write_text(RECORD, encoding="utf-8")
    return path


# --------------------------------------------------------------------------
# The reproducer, in every reader


def test_check_reads_the_record_as_a_record(note: Path) -> None:
    result = run("check", str(note))
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == f"{note}:2:1: game 1: unfinished: computed -, declared *; score so far W+6"
    assert "JSON" not in result.output


def test_check_jsonl_gives_the_records_verdict(note: Path) -> None:
    result = run("check", "--format", "jsonl", str(note))
    (row, *_) = [json.loads(line) for line in result.stdout.splitlines()]
    assert (row["status"], row["turns"], row["line"], row["error"]) == ("unfinished", 2, 2, None)


def test_show_reads_the_record_as_a_record(note: Path) -> None:
    result = run("show", str(note))
    assert result.exit_code == 0, result.output
    assert "JSON" not in result.output
    lines = result.stdout.splitlines()
    assert lines[0] == f"{note} game 1: rules keil, size 4, komi 6, after turn 2 of 2"
    assert "last turn: 2 e5 (White)" in lines and "to move: Black" in lines


def test_stats_reads_the_record_as_a_record(note: Path) -> None:
    result = run("stats", str(note))
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == "1 game: 1 unfinished"
    assert "(unread)" not in result.stdout


def test_filter_writes_the_record_as_it_is(note: Path) -> None:
    result = run("filter", str(note))
    assert result.exit_code == 0, result.output
    assert result.stdout == RECORD
    assert "1 of 1 games written" in result.stderr


def test_standard_input_reads_the_record_as_a_record() -> None:
    result = keilref_stdin("check", "-", stdin=RECORD)
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == "-:2:1: game 1: unfinished: computed -, declared *; score so far W+6"


def keilref_stdin(*args: str, stdin: str) -> Any:
    from cli_support import runner
    from keilref.cli import app

    result = runner.invoke(app, list(args), input=stdin)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


def test_a_compressed_record_reads_as_a_record(tmp_path: Path) -> None:
    path = tmp_path / "note.keil.gz"
    path.write_bytes(gzip.compress(RECORD.encode()))
    result = run("check", str(path))
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == f"{path}:2:1: game 1: unfinished: computed -, declared *; score so far W+6"


def test_the_library_reads_the_record_as_a_record(note: Path) -> None:
    for source in (note, str(note), RECORD, RECORD.encode(), io.BytesIO(RECORD.encode()), io.StringIO(RECORD)):
        (record,) = keilref.read_games(source)
        assert isinstance(record, Record), record
        assert (record.tag_value("Black"), len(record.turns)) == ("ana", 2)
    assert keilref.read_game(note).tag_value("White") == "ben"
    (v,) = keilref.check_file(note)
    _the_game(v)
    (v,) = keilref.check_text(RECORD)
    _the_game(v)
    (v,) = keilref.check_text(RECORD.encode())
    _the_game(v)


def test_fmt_reads_the_record_as_a_record(note: Path) -> None:
    # The reproducer is in the canonical layout: fmt reads it as the record it is, and finds nothing to change.
    result = run("fmt", "--check", str(note))
    assert (result.exit_code, result.output) == (0, "")
    moved = note.with_name("moved.keil")
    moved.write_text(RECORD.replace("1. d4 e5 *", "1.   d4    e5 *"), encoding="utf-8")
    result = run("fmt", "--in-place", str(moved))
    assert result.exit_code == 0, result.output
    assert moved.read_text(encoding="utf-8") == RECORD


def test_the_language_server_reads_the_record_as_a_record(note: Path) -> None:
    diagnostics, games, _ = _lsp_check(note.as_uri(), RECORD)
    assert games == 1
    assert [d.code for d in diagnostics] == ["unfinished"]
    assert diagnostics[0].range.start.line == 1  # the game's first tag, 0-based


def _lsp_check(uri: str, text: str) -> tuple[list[Any], int, int]:
    pytest.importorskip("pygls")
    from pygls.workspace import TextDocument

    from lsprotocol import types as lsp

    from keilref.lsp import KeilServer

    from lsp_support import initialize_in_process

    server = KeilServer()
    initialize_in_process(server, lsp.InitializeParams(capabilities=lsp.ClientCapabilities()))
    found = server.check(TextDocument(uri, text))
    return found.diagnostics, found.games, found.checked


# --------------------------------------------------------------------------
# What is a match, and what is not


def test_a_whole_json_match_is_a_match_whatever_its_name(tmp_path: Path) -> None:
    path = tmp_path / "m.keil"
    path.write_text(MATCH_TEXT, encoding="utf-8")
    result = run("check", str(path))
    assert result.stdout.splitlines()[0] == f"{path}:1:1: game 1: unfinished: computed -, declared *; score so far W+6"
    result = keilref_stdin("check", "-", stdin=MATCH_TEXT)
    assert result.stdout.splitlines()[0] == "-:1:1: game 1: unfinished: computed -, declared *; score so far W+6"
    (record,) = keilref.read_games(MATCH_TEXT)
    assert record.tag_value("Site") == "abstract_games"
    gz = tmp_path / "m.keil.gz"
    gz.write_bytes(gzip.compress(MATCH_TEXT.encode()))
    (v,) = keilref.check_file(gz)
    assert (v.status, v.black, v.line) == (Status.UNFINISHED, "ana", 1)


@pytest.mark.parametrize(
    "text",
    [
        RECORD,
        '{"Note": "from the club archive"}\n' + GAME,  # a comment that is JSON, then a game
        '{"moves": "a comment that is JSON"}\n' + GAME,
        '\ufeff{"Note": from the club archive}\n' + GAME,
        "{a comment}\n" + GAME,
        # JSON for longer than the first look, then not.
        '{"Note": "' + "x" * 20_000 + '"}\n' + GAME,
        '{"Note": [' + "1, " * 10_000 + "from the club archive]}\n" + GAME,
    ],
)
def test_a_record_that_opens_like_json_is_records(text: str) -> None:
    data = text.encode()
    assert not is_match(data)
    assert not is_match(data, "g.keil")
    pieces = list(split_source(io.BytesIO(data), "g.keil"))
    assert not any(isinstance(p, MatchBytes) for p in pieces)
    assert b"".join(p.data for p in pieces) == data.removeprefix(b"\xef\xbb\xbf")
    (v,) = keilref.check_text(data)
    _the_game(v, line=2)


@pytest.mark.parametrize(
    "text",
    [
        MATCH_TEXT,
        json.dumps(MATCH),  # compact, as the server sends it
        "\ufeff" + MATCH_TEXT,
        "\n  \t" + MATCH_TEXT + "\n\n",
        json.dumps({**MATCH, "players": MATCH["players"], "padding": "x" * 30_000}),  # past the first look
        json.dumps({"history": [], "game_uid": "keil"}),
        json.dumps({"frames": [], "game_uid": "go"}),
    ],
)
def test_a_whole_json_object_of_a_shape_is_a_match(text: str) -> None:
    data = text.encode()
    assert is_match(data) and is_match(data, "g.keil")
    (piece,) = split_source(io.BytesIO(data), "g.keil")
    assert isinstance(piece, MatchBytes) and piece.data == data


@pytest.mark.parametrize(
    "text",
    [
        '{"Note": "x"}\n',  # JSON, but none of the server's shapes
        '["moves"]',
        json.dumps(MATCH)[:-1],  # cut short
        json.dumps(MATCH) + "\n[Event \"x\"]\n",  # JSON, then more
        json.dumps(MATCH).encode("utf-16").decode("latin-1"),  # not UTF-8
    ],
)
def test_anything_else_is_records(text: str) -> None:
    assert not is_match(text.encode("latin-1" if "\x00" in text else "utf-8"))


def test_a_matchs_name_makes_it_a_match_whatever_it_holds() -> None:
    for name in ("m.match.json", "m.replay.json", "m.moves.json", "dir/x.moves.json"):
        assert is_match(RECORD.encode(), name)
        (piece,) = split_source(io.BytesIO(RECORD.encode()), name)
        assert isinstance(piece, MatchBytes)


class _Trickle(io.RawIOBase):
    """A pipe that gives a few bytes at a time."""

    def __init__(self, data: bytes, step: int) -> None:
        super().__init__()
        self._data, self._at, self._step = data, 0, step

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        n = self._step if size < 0 else min(size, self._step)
        chunk = self._data[self._at : self._at + n]
        self._at += len(chunk)
        return chunk


@pytest.mark.parametrize("step", [1, 7, 4096, 1 << 20])
def test_a_pipe_that_gives_little_at_a_time_is_decided_as_a_file_is(step: int) -> None:
    padded = json.dumps({**MATCH, "padding": "y" * 9_000}).encode()
    long_note = ('{"Note": "' + "x" * 9_000 + "\n" + GAME).encode()
    for data, match in ((MATCH_TEXT.encode(), True), (padded, True), (RECORD.encode(), False), (long_note, False)):
        pieces = list(split_source(_Trickle(data, step), None))  # type: ignore[arg-type]
        assert any(isinstance(p, MatchBytes) for p in pieces) is match
        assert b"".join(p.data for p in pieces) == data


def test_json_past_the_byte_cap_of_a_game_is_records_unless_its_name_says_match(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sniffing, "MAX_GAME_BYTES", 50_000)
    data = json.dumps({**MATCH, "padding": "z" * 60_000}).encode()
    assert not is_match(data) and is_match(data, "big.moves.json")
    assert not any(isinstance(p, MatchBytes) for p in split_source(io.BytesIO(data), None))
    (piece,) = split_source(io.BytesIO(data), "big.moves.json")
    assert isinstance(piece, MatchBytes) and piece.piece.too_large and piece.data == b""


def test_fmt_refuses_a_match_in_its_own_words(tmp_path: Path) -> None:
    for name in ("m.moves.json", "m.keil"):
        path = tmp_path / name
        path.write_text(MATCH_TEXT, encoding="utf-8")
        result = run("fmt", "--check", str(path))
        assert result.exit_code == 1
        assert (
            f"{path}: a match of abstract_games (JSON), not records: matches are checked as they are, "
            "not formatted (file left as it is)"
        ) in result.stderr
        assert path.read_text(encoding="utf-8") == MATCH_TEXT


def test_the_language_server_checks_a_match_document_as_check_does(tmp_path: Path) -> None:
    for name in ("m.keil", "m.moves.json"):
        uri = (tmp_path / name).as_uri()
        diagnostics, games, _ = _lsp_check(uri, MATCH_TEXT)
        assert games == 1
        assert [d.code for d in diagnostics] == ["unfinished"]
    # A wrong seat in a match: the error at the seat, as check puts it.
    bad = MATCH_TEXT.replace('"seat": 1,\n   "move": "1,-1"', '"seat": 0,\n   "move": "1,-1"')
    assert bad != MATCH_TEXT
    path = tmp_path / "bad.moves.json"
    path.write_text(bad, encoding="utf-8")
    (v,) = keilref.check_file(path)
    diagnostics, _, _ = _lsp_check(path.as_uri(), bad)
    (d,) = diagnostics
    assert v.error is not None
    assert (d.code, d.range.start.line + 1, d.range.start.character + 1) == ("error", v.error.line, v.error.column)
