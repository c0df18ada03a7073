"""Compressed archives: .keil.gz, .keil.bz2, .keil.xz and .keil.zst read like plain files."""

from __future__ import annotations

import bz2
import contextlib
import functools
import gzip
import json
import lzma
import os
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from cli_support import ROOT, run
from keilref.cli import EXIT_FAILED, EXIT_OK
from keilref.records.compression import BOMB_RATIO, MIN_CAP, open_record_file
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


@pytest.mark.parametrize("suffix", [".gz", ".bz2", ".xz"])
def test_fmt_reads_a_compressed_file_to_check_diff_and_print_it(tmp_path: Path, suffix: str) -> None:
    import bz2
    import lzma

    messy = b'[Rules   "keil"]\n[Size "2"]\n1. a1 *\n'
    packed = tmp_path / f"g.keil{suffix}"
    packed.write_bytes({".gz": gzip.compress, ".bz2": bz2.compress, ".xz": lzma.compress}[suffix](messy))
    plain = tmp_path / "g.keil"
    plain.write_bytes(messy)
    for args in (["--check"], ["--diff"], []):
        got, want = run("fmt", *args, str(packed)), run("fmt", *args, str(plain))
        assert got.exit_code == want.exit_code, (args, got.stderr)
        assert got.stdout == want.stdout.replace("g.keil", f"g.keil{suffix}"), args
    assert run("fmt", "--check", str(packed)).stdout == f"would reformat {packed}\n"


# --- compression bombs ----------------------------------------------------------------

PIECE = 16 << 20
"""Spaces compressed as one unit of a bomb; bombs are units repeated, as
gzip members, bzip2 and xz streams, or zstd frames, which cost nothing to
make however far they expand."""


@functools.cache
def bomb_unit(suffix: str) -> bytes:
    spaces = b" " * PIECE
    if suffix == ".gz":
        return gzip.compress(spaces, compresslevel=9)  # about 1,030 times: gzip's most
    return COMPRESS[suffix](spaces)


def bomb(suffix: str, pieces: int) -> bytes:
    """Two good games, then ``pieces`` times 16 MiB of spaces: a file that
    expands past its cap after a game that could be read whole."""
    return COMPRESS[suffix](GOOD.read_bytes() + b"\n" + GOOD.read_bytes()) + bomb_unit(suffix) * pieces


WITH_RUSAGE = """
import json, resource, subprocess, sys
proc = subprocess.run(sys.argv[1:], capture_output=True)
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"code": proc.returncode, "stdout": proc.stdout.decode(), "stderr": proc.stderr.decode(),
                  "rss_kb": usage.ru_maxrss, "cpu": usage.ru_utime + usage.ru_stime}))
"""


def measured_check(path: Path) -> dict[str, Any]:
    """``keilref check`` in a process of its own, with its peak memory and CPU time
    (from a parent of its own, so that no other child's figures mix in)."""
    out = subprocess.run(
        [sys.executable, "-c", WITH_RUSAGE, sys.executable, "-m", "keilref", "check", "--jobs", "1", "--format", "jsonl", str(path)],
        capture_output=True, text=True, check=True, cwd=ROOT,
    )
    result: dict[str, Any] = json.loads(out.stdout)
    assert "Traceback" not in result["stderr"], result["stderr"]
    result["verdicts"] = [json.loads(line) for line in result["stdout"].splitlines()]
    return result


@pytest.mark.parametrize("suffix", SUFFIXES)
def test_every_read_returns_at_most_what_was_asked(tmp_path: Path, suffix: str) -> None:
    """However far the data expands (here 8 MiB of spaces from a few hundred
    bytes, under the cap), a read gives no more than it was asked for."""
    packed = tmp_path / f"spaces.keil{suffix}"
    packed.write_bytes(COMPRESS[suffix](b" " * (8 << 20)))
    stream = open_record_file(str(packed))
    sizes = []
    while data := stream.read(4096):
        sizes.append(len(data))
    stream.close()
    assert sum(sizes) == 8 << 20
    assert max(sizes) <= 4096


@pytest.mark.parametrize("suffix", SUFFIXES)
def test_a_compression_bomb_is_one_error_at_the_start_of_its_file(tmp_path: Path, suffix: str) -> None:
    small = tmp_path / f"small.keil{suffix}"
    small.write_bytes(COMPRESS[suffix](GOOD.read_bytes()))
    baseline = measured_check(small)
    assert baseline["code"] == EXIT_OK
    packed = bomb(suffix, 8)  # 128 MiB of spaces after the games
    path = tmp_path / f"bomb.keil{suffix}"
    path.write_bytes(packed)
    got = measured_check(path)
    assert got["code"] == EXIT_FAILED
    # The whole file is refused: the good games before the bomb are not read.
    assert [(v["status"], v["game"], v["line"]) for v in got["verdicts"]] == [("error", 1, 1)]
    error = got["verdicts"][0]["error"]
    assert (error["line"], error["column"]) == (1, 1)
    cap = max(BOMB_RATIO * len(packed), MIN_CAP)
    label = {".gz": "gzip", ".bz2": "bzip2", ".xz": "xz", ".zst": "zstd"}[suffix]
    assert error["message"] == (
        f"cannot read file: the {label} data expands past {cap:,} bytes, the cap for its "
        f"{len(packed):,} compressed bytes (1,000 times as many, and at least 10,000,000): a compression bomb?"
    )
    # Read a chunk at a time and dropped: memory stays near that of a small
    # file's check (read whole, about twice it).
    assert got["rss_kb"] < baseline["rss_kb"] * 1.5, (got["rss_kb"], baseline["rss_kb"])


# Two bombs of each kind, the larger expanding to 4 to 8 times the smaller, both
# small enough to have the least cap (xz cannot pass about 7,000 times). gzip
# is left out: it cannot pass about 1,030 times, so its cap is never far below
# a gzip bomb's size, and there is no rest of the bomb to skip.
BOMB_PAIRS = {".bz2": (2, 16), ".xz": (1, 4), ".zst": (2, 16)}


@pytest.mark.parametrize("suffix", sorted(BOMB_PAIRS))
def test_a_compression_bomb_costs_its_cap_not_its_size(tmp_path: Path, suffix: str) -> None:
    """Refused after reading about the cap: a larger bomb costs no more."""
    paths = []
    for pieces in BOMB_PAIRS[suffix]:
        path = tmp_path / f"bomb{pieces}.keil{suffix}"
        path.write_bytes(bomb(suffix, pieces))
        paths.append(path)
    # The least of three runs each, taken in turns: a busy machine adds, never
    # takes, and a spell of load falls on both bombs alike.
    costs = [float("inf")] * len(paths)
    for _ in range(3):
        for i, path in enumerate(paths):
            got = measured_check(path)
            assert got["code"] == EXIT_FAILED
            assert [v["status"] for v in got["verdicts"]] == ["error"]
            costs[i] = min(costs[i], got["cpu"])
    small, large = costs
    # Read whole, the larger costs 1.6 (xz) to 3.8 (bzip2) times the smaller.
    assert large < small * 1.4, f"{large:.2f} s of CPU for the larger bomb, against {small:.2f} s"


def test_a_bomb_in_a_pipe_is_refused_once_it_passes_its_cap(tmp_path: Path) -> None:
    """A pipe is read once, as it streams: the games read before the cap is
    hit are checked, then the file is one error more, at its start. (The
    game still being read, whose end was not seen, is not among them.)"""
    pipe = tmp_path / "stream.keil.bz2"
    os.mkfifo(pipe)
    data = bomb(".bz2", 2)

    def feed() -> None:
        with contextlib.suppress(BrokenPipeError), pipe.open("wb") as f:
            f.write(data)

    writer = threading.Thread(target=feed)
    writer.start()
    try:
        code, got = jsonl(str(pipe))
    finally:
        with contextlib.suppress(OSError):  # a reader that gave up early leaves the writer blocked
            os.open(pipe, os.O_RDONLY | os.O_NONBLOCK)
        writer.join(timeout=10)
    assert code == EXIT_FAILED
    assert [(v["status"], v["game"]) for v in got] == [("ok", 1), ("error", 2)]  # the second game is lost
    error = got[1]["error"]
    assert isinstance(error, dict)
    assert (error["line"], error["column"]) == (1, 1)
    assert "the bzip2 data expands past 10,000,000 bytes, the cap for its " in error["message"]
    assert "compressed bytes read so far" in error["message"]


def test_zstd_checksums_skippable_frames_and_many_frames_read_whole(tmp_path: Path) -> None:
    data = archive_text()
    half = len(data) // 2
    cut_at = data.rindex(b"\n[", 0, half) + 1  # frames end between games, as a writer's flushes might
    checksummed = zstandard.ZstdCompressor(write_checksum=True, write_content_size=True)
    plain = zstandard.ZstdCompressor(write_content_size=False)
    skippable = (0x184D2A5A).to_bytes(4, "little") + (5).to_bytes(4, "little") + b"notes"
    packed = skippable + checksummed.compress(data[:cut_at]) + skippable + plain.compress(data[cut_at:])
    (tmp_path / "archive.keil").write_bytes(data)
    whole = tmp_path / "archive.keil.zst"
    whole.write_bytes(packed)
    code_plain, expected = jsonl(str(tmp_path / "archive.keil"))
    code, got = jsonl(str(whole))
    assert code == code_plain
    assert without_file(got) == without_file(expected)
    # Cut inside the last frame's blocks or checksum: the end is seen to be missing.
    for cut in (1, 4, len(packed) - len(skippable) - 9):
        (tmp_path / "cut.keil.zst").write_bytes(packed[:-cut])
        code, verdicts = jsonl(str(tmp_path / "cut.keil.zst"))
        assert code == EXIT_FAILED
        assert verdicts[-1]["error"]["message"] == "cannot read file: the zstd data ends too soon: the file is truncated", cut  # type: ignore[index]


def test_the_expansion_cap_is_a_documented_number() -> None:
    assert (BOMB_RATIO, MIN_CAP) == (1000, 10_000_000)
    for doc in ("README.md", "docs/record-format.md"):
        text = " ".join((ROOT / doc).read_text(encoding="utf-8").split())
        assert "1,000 times its compressed size" in text and "always to 10,000,000 bytes" in text, doc
