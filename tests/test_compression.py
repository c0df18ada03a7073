"""Compressed archives: .keil.gz, .keil.bz2, .keil.xz and .keil.zst read like plain files."""

from __future__ import annotations

import bz2
import gzip
import json
import lzma
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from cli_support import ROOT, run
from keilref.cli import EXIT_FAILED, EXIT_OK
from keilref.records.compression import open_record_file
from keilref.engine.generate import random_games, to_record
from keilref.records.parser import iter_games
from keilref.records.record import Record
from keilref.records.writer import write_record

zstandard = pytest.importorskip("zstandard")

COMPRESS: dict[str, Callable[[bytes], bytes]] = {
    ".gz": gzip.compress,
    ".bz2": bz2.compress,
    ".xz": lzma.compress,
    ".zst": lambda data: zstandard.ZstdCompressor().compress(data),  # type: ignore[no-any-return]
}
SUFFIXES = sorted(COMPRESS)
GOOD = ROOT / "records" / "games" / "size5-keil-corner-ko.keil"
FAULTS = [ROOT / "records" / "faults" / n for n in ("error-bad-token.keil", "error-wrong-move-number.keil", "illegal-superko.keil")]


def archive_text() -> bytes:
    """Several games, some faulty, so that verdicts and error places can be compared."""
    return b"\n".join(p.read_bytes() for p in [GOOD, *FAULTS, GOOD])


def jsonl(*args: str) -> tuple[int, list[dict[str, object]]]:
    result = run("check", "--jobs", "1", "--format", "jsonl", *args)
    return result.exit_code, [json.loads(line) for line in result.stdout.splitlines()]


def without_file(verdicts: list[dict[str, object]]) -> list[dict[str, object]]:
    return [{k: v for k, v in d.items() if k != "file"} for d in verdicts]


@pytest.mark.parametrize("suffix", SUFFIXES)
def test_check_reads_a_compressed_archive_as_the_plain_one(tmp_path: Path, suffix: str) -> None:
    data = archive_text()
    plain = tmp_path / "archive.keil"
    plain.write_bytes(data)
    packed = tmp_path / f"archive.keil{suffix}"
    packed.write_bytes(COMPRESS[suffix](data))
    code_plain, expected = jsonl(str(plain))
    code, got = jsonl(str(packed))
    assert code == code_plain == EXIT_FAILED
    assert [v["file"] for v in got] == [str(packed)] * 5
    # Same verdicts, and every error and illegal turn at the same line and column
    # of the decompressed text as in the plain file.
    assert without_file(got) == without_file(expected)
    statuses = [v["status"] for v in got]
    assert statuses == ["ok", "error", "error", "illegal", "ok"]
    bad_token = got[1]["error"]
    assert isinstance(bad_token, dict)
    assert "found 'hh6'" in bad_token["message"]
    assert bad_token["line"] > GOOD.read_bytes().count(b"\n")  # counted from the start of the archive


@pytest.mark.parametrize("suffix", SUFFIXES)
def test_directories_are_searched_for_compressed_records(tmp_path: Path, suffix: str) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "plain.keil").write_bytes(GOOD.read_bytes())
    (tmp_path / "sub" / f"packed.keil{suffix}").write_bytes(COMPRESS[suffix](GOOD.read_bytes()))
    (tmp_path / "notes.txt.gz").write_bytes(gzip.compress(b"not a record"))
    code, got = jsonl(str(tmp_path))
    assert code == EXIT_OK
    assert sorted(Path(str(v["file"])).name for v in got) == ["packed.keil" + suffix, "plain.keil"]
    assert all(v["status"] == "ok" for v in got)


@pytest.mark.parametrize("command", ["show", "score", "legal"])
@pytest.mark.parametrize("suffix", SUFFIXES)
def test_show_score_and_legal_read_compressed_files(tmp_path: Path, suffix: str, command: str) -> None:
    plain = tmp_path / "g.keil"
    plain.write_bytes(GOOD.read_bytes())
    packed = tmp_path / f"g.keil{suffix}"
    packed.write_bytes(COMPRESS[suffix](GOOD.read_bytes()))
    want = run(command, str(plain), *(["--turn", "30"] if command != "score" else []))
    got = run(command, str(packed), *(["--turn", "30"] if command != "score" else []))
    assert got.exit_code == want.exit_code == EXIT_OK
    assert got.stdout.replace(str(packed), str(plain)) == want.stdout
    assert "after turn" in got.stdout


@pytest.mark.parametrize("suffix", SUFFIXES)
def test_a_cut_compressed_file_is_one_clear_error_verdict(tmp_path: Path, suffix: str) -> None:
    packed = COMPRESS[suffix](GOOD.read_bytes())
    cut = tmp_path / f"cut.keil{suffix}"
    cut.write_bytes(packed[: len(packed) // 2])
    code, got = jsonl(str(cut))
    assert code == EXIT_FAILED
    assert got[-1]["status"] == "error"
    assert got[-1]["error"]["message"].startswith("cannot read file: the ")  # type: ignore[index]


@pytest.mark.parametrize("suffix", SUFFIXES)
def test_a_damaged_compressed_file_is_one_clear_error_verdict(tmp_path: Path, suffix: str) -> None:
    bad = tmp_path / f"bad.keil{suffix}"
    bad.write_bytes(b"this is not compressed at all\n" * 20)
    good = tmp_path / "good.keil"
    good.write_bytes(GOOD.read_bytes())
    code, got = jsonl(str(bad), str(good))
    assert code == EXIT_FAILED
    assert [v["status"] for v in got] == ["error", "ok"]  # the next file is still checked
    error = got[0]["error"]
    assert isinstance(error, dict)
    label = {".gz": "gzip", ".bz2": "bzip2", ".xz": "xz", ".zst": "zstd"}[suffix]
    assert error["message"].startswith(f"cannot read file: the {label} data ")
    assert (error["line"], error["column"]) == (1, 1)


@pytest.mark.parametrize("suffix", [".gz", ".xz", ".zst"])  # bzip2 decodes only whole 900 kB blocks
def test_a_truncated_archive_keeps_the_games_before_the_cut(tmp_path: Path, suffix: str) -> None:
    # Different games, so that the compressed data is long enough to cut in the middle.
    games = "\n".join(write_record(to_record(g, event=f"g{i}")) for i, g in enumerate(random_games(5, 300, sizes=(7,)))).encode()
    packed = COMPRESS[suffix](games)
    cut = tmp_path / f"cut.keil{suffix}"
    cut.write_bytes(packed[: len(packed) * 3 // 4])
    result = run("check", "--jobs", "1", "--format", "jsonl", str(cut))
    assert result.exit_code == EXIT_FAILED
    verdicts = [json.loads(line) for line in result.stdout.splitlines()]
    assert verdicts[-1]["status"] == "error"
    assert verdicts[-1]["error"]["message"].startswith("cannot read file: the ")
    # Some whole games came out of the part that was there (the last may be cut short).
    assert len(verdicts) > 2
    assert all(v["status"] == "ok" for v in verdicts[:-2])


def test_zstd_without_the_extra_says_how_to_get_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    packed = tmp_path / "g.keil.zst"
    packed.write_bytes(COMPRESS[".zst"](GOOD.read_bytes()))
    monkeypatch.setitem(sys.modules, "zstandard", None)  # as if not installed
    code, got = jsonl(str(packed))
    assert code == EXIT_FAILED
    error = got[0]["error"]
    assert isinstance(error, dict)
    assert "pip install 'keilref[zstd]'" in error["message"]


def test_a_compressed_file_streams_a_chunk_at_a_time(tmp_path: Path) -> None:
    """Memory stays flat: the reader asks for chunks, never for the whole file."""
    games = b"\n".join([GOOD.read_bytes()] * 300)
    packed = tmp_path / "big.keil.gz"
    packed.write_bytes(gzip.compress(games))
    stream = open_record_file(str(packed))
    sizes: list[int] = []
    read = stream.read

    def spy(n: int = -1) -> bytes:
        sizes.append(n)
        return read(n)

    stream.read = spy  # type: ignore[method-assign]
    records = [g for g in iter_games(stream, "big.keil.gz", chunk_size=4096) if isinstance(g, Record)]
    stream.close()
    assert len(records) == 300
    assert sizes and all(0 < n <= 4096 for n in sizes)


def test_fmt_never_rewrites_a_compressed_file_in_place(tmp_path: Path) -> None:
    packed = tmp_path / "g.keil.gz"
    original = gzip.compress(b"[Rules   \"keil\"]\n[Size \"2\"]\n1. a1 *\n")
    packed.write_bytes(original)
    result = run("fmt", "--in-place", str(packed))
    assert result.exit_code == EXIT_FAILED
    assert "not rewritten in place" in result.stderr
    assert packed.read_bytes() == original
