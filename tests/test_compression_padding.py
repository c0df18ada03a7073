"""Compressed files of several streams, and xz's stream padding, read whole as their tools read them."""

from __future__ import annotations

import bz2
import gzip
import json
import lzma
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from cli_support import ROOT, run
from keilref.engine.generate import random_games, to_record
from keilref.records.compression import open_record_file
from keilref.records.writer import write_record

GOOD = ROOT / "records" / "games" / "size5-keil-corner-ko.keil"
FAULT = ROOT / "records" / "faults" / "illegal-superko.keil"
COMPRESS: dict[str, Callable[[bytes], bytes]] = {".gz": gzip.compress, ".bz2": bz2.compress, ".xz": lzma.compress}


def _games() -> list[bytes]:
    return [GOOD.read_bytes(), FAULT.read_bytes(), GOOD.read_bytes().replace(b"]", b"] ", 1)]


def _verdicts(path: Path) -> tuple[int, list[tuple[str, int]]]:
    r = run("check", "--jobs", "1", "--format", "jsonl", str(path))
    verdicts = [json.loads(line) for line in r.stdout.splitlines()]
    return r.exit_code, [(v["status"], v["line"]) for v in verdicts]


def _plain(tmp_path: Path, data: bytes) -> tuple[int, list[tuple[str, int]]]:
    plain = tmp_path / "plain.keil"
    plain.write_bytes(data)
    return _verdicts(plain)


def _read_whole(path: Path) -> bytes:
    stream = open_record_file(str(path))
    try:
        out = b""
        while chunk := stream.read(1000):
            out += chunk
        return out
    finally:
        stream.close()


def _xz_accepts(path: Path) -> bool | None:
    """Whether ``xz -t`` accepts the file; ``None`` without xz."""
    if shutil.which("xz") is None:
        return None
    return subprocess.run(["xz", "-t", str(path)], capture_output=True).returncode == 0


@pytest.mark.parametrize("padding", [4, 8, 12, 65536])
def test_an_xz_file_with_stream_padding_reads_whole(tmp_path: Path, padding: int) -> None:
    data = b"\n".join(_games())
    packed = tmp_path / "padded.keil.xz"
    packed.write_bytes(lzma.compress(data) + b"\0" * padding)
    assert _xz_accepts(packed) in (True, None)
    assert _read_whole(packed) == data
    assert _verdicts(packed) == _plain(tmp_path, data)
    assert [status for status, _ in _verdicts(packed)[1]] == ["ok", "illegal", "ok"]


@pytest.mark.parametrize("suffix", sorted(COMPRESS))
@pytest.mark.parametrize("cut", ["between games", "inside a game"])
def test_streams_one_after_another_read_as_one_text(tmp_path: Path, suffix: str, cut: str) -> None:
    data = b"\n".join(_games())
    at = len(_games()[0]) + 1 if cut == "between games" else len(_games()[0]) // 2
    packed = tmp_path / f"two{suffix}".replace(suffix, f".keil{suffix}")
    packed.write_bytes(COMPRESS[suffix](data[:at]) + COMPRESS[suffix](data[at:]))
    assert _read_whole(packed) == data
    assert _verdicts(packed) == _plain(tmp_path, data)
    if suffix == ".xz":
        assert _xz_accepts(packed) in (True, None)


def test_xz_streams_with_padding_between_and_after_read_whole(tmp_path: Path) -> None:
    parts = _games()
    packed = tmp_path / "three.keil.xz"
    packed.write_bytes(
        lzma.compress(parts[0] + b"\n") + b"\0" * 4 + lzma.compress(parts[1] + b"\n") + b"\0" * 8
        + lzma.compress(parts[2]) + b"\0" * 4
    )
    assert _xz_accepts(packed) in (True, None)
    assert _read_whole(packed) == b"\n".join(parts)
    assert _verdicts(packed) == _plain(tmp_path, b"\n".join(parts))
    assert [status for status, _ in _verdicts(packed)[1]] == ["ok", "illegal", "ok"]


@pytest.mark.parametrize("where", ["after", "between"])
@pytest.mark.parametrize("padding", [1, 3, 5])
def test_xz_padding_not_a_multiple_of_four_is_damage_after_the_games_before_it(
    tmp_path: Path, where: str, padding: int
) -> None:
    games = [write_record(to_record(g, event=f"g{i}")) for i, g in enumerate(random_games(5, 300, sizes=(7,)))]
    first = "\n".join(games).encode() + b"\n"
    packed = tmp_path / "bad.keil.xz"
    tail = b"" if where == "after" else lzma.compress(GOOD.read_bytes())
    packed.write_bytes(lzma.compress(first) + b"\0" * padding + tail)
    assert _xz_accepts(packed) in (False, None)
    r = run("check", "--jobs", "1", "--format", "jsonl", str(packed))
    assert r.exit_code == 1
    verdicts = [json.loads(line) for line in r.stdout.splitlines()]
    assert verdicts[-1]["error"]["message"] == (
        f"cannot read file: the xz data is damaged (stream padding of {padding} null bytes, not a multiple of four)"
    )
    # The games read before the damage keep their verdicts (the last ones, still being cut, are lost with it).
    assert len(verdicts) > 100 and all(v["status"] == "ok" for v in verdicts[:-1])


def test_a_gzip_file_padded_with_null_bytes_reads_whole_as_gzip_reads_it(tmp_path: Path) -> None:
    data = b"\n".join(_games())
    packed = tmp_path / "padded.keil.gz"
    packed.write_bytes(gzip.compress(data) + b"\0" * 7)
    assert _read_whole(packed) == data
    assert _verdicts(packed) == _plain(tmp_path, data)


def test_a_cut_xz_stream_is_still_truncated(tmp_path: Path) -> None:
    games = "\n".join(write_record(to_record(g, event=f"g{i}")) for i, g in enumerate(random_games(3, 60, sizes=(7,))))
    packed = lzma.compress(games.encode())
    for cut in (packed[:-1], packed[: len(packed) // 2], lzma.compress(b"x") + packed[:20]):
        path = tmp_path / "cut.keil.xz"
        path.write_bytes(cut)
        r = run("check", "--jobs", "1", "--format", "jsonl", str(path))
        last = json.loads(r.stdout.splitlines()[-1])
        assert r.exit_code == 1 and last["error"]["message"] == "cannot read file: the xz data ends too soon: the file is truncated"


def test_an_xz_file_of_many_streams_with_padding_streams_in_chunks(tmp_path: Path) -> None:
    """Each read gives at most what was asked, across stream ends and padding."""
    parts = [write_record(to_record(g, event=f"g{i}")).encode() + b"\n" for i, g in enumerate(random_games(7, 40, sizes=(5,)))]
    packed = tmp_path / "many.keil.xz"
    packed.write_bytes(b"".join(lzma.compress(p) + b"\0" * (4 * (i % 3)) for i, p in enumerate(parts)))
    stream = open_record_file(str(packed))
    got = b""
    while chunk := stream.read(97):
        assert len(chunk) <= 97
        got += chunk
    stream.close()
    assert got == b"".join(parts)
