"""The verdict table made where the games are judged.

With ``--jobs`` each worker makes its batch's rows (``Writer.of_batch``) and
the main process only writes them: the table must be the one a single
process writes, row for row, ``--quiet`` and ``--strict`` included, and
its row groups whole.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

from cli_support import ROOT  # noqa: E402
from keilref.cli import EXIT_FAILED  # noqa: E402


def keilref(*args: str) -> subprocess.CompletedProcess[str]:
    """The command as a user runs it: a process of its own, so that ``--jobs`` starts real workers."""
    return subprocess.run([sys.executable, "-m", "keilref", *args], capture_output=True, text=True, cwd=ROOT)


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Generated games past the size where ``--jobs`` starts workers, beside every fault of the fault archive."""
    root = tmp_path_factory.mktemp("archive")
    made = keilref("generate", "-n", "700", "--seed", "5", "--size", "5", "--size", "4", "-o", str(root / "generated.keil"))
    assert made.returncode == 0, made.stderr
    assert (root / "generated.keil").stat().st_size > 256 * 1024
    shutil.copytree(ROOT / "records" / "faults", root / "faults")
    return root


def table(path: Path) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = pq.read_table(path).to_pylist()
    return rows


@pytest.mark.parametrize("flags", [(), ("--strict",), ("--quiet",)], ids=["plain", "strict", "quiet"])
def test_workers_make_the_table_one_process_makes(archive: Path, tmp_path: Path, flags: tuple[str, ...]) -> None:
    one, two = tmp_path / "one.parquet", tmp_path / "two.parquet"
    alone = keilref("check", "--format", "parquet", "-j", "1", *flags, "-o", str(one), str(archive))
    spread = keilref("check", "--format", "parquet", "-j", "2", *flags, "-o", str(two), str(archive))
    assert alone.returncode == spread.returncode == EXIT_FAILED, (alone.stderr, spread.stderr)
    lines = keilref("check", "--format", "jsonl", "-j", "1", *flags, str(archive))
    expected = [(v["file"], v["game"], v["status"]) for v in map(json.loads, lines.stdout.splitlines())]
    rows = table(two)
    assert rows == table(one)
    assert [(r["file"], r["game"], r["status"]) for r in rows] == expected
    assert len(expected) > 700 if "--quiet" not in flags else 0 < len(expected) < 100
    if "--quiet" in flags:
        assert all(r["fails"] for r in rows)
    assert pq.ParquetFile(two).metadata.num_row_groups == 1


def test_rows_made_here_and_in_workers_keep_their_order_in_whole_row_groups(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Verdicts judged in the main process (as a crashed worker's batch is)
    and batches' rows from workers, interleaved: written in the order they
    came, in row groups of ``ROW_GROUP`` rows but the last."""
    import keilref.formats.parquet as parquet
    from keilref import check_file
    from keilref.arrow import verdict_batch
    from keilref.formats import CheckOptions, judge

    monkeypatch.setattr(parquet, "ROW_GROUP", 7)
    paths = [path for d in ("games", "faults") for path in sorted((ROOT / "records" / d).glob("*.keil"))]
    verdicts = [v for path in paths for v in check_file(path)]
    assert len(verdicts) > 30
    target = tmp_path / "t.parquet"
    options = CheckOptions(format="parquet", binary_output=str(target))
    writer = parquet.ParquetWriter(lambda _: None, options)
    given, n = [], 0
    for size in (3, 5, 1, 9, 2, 8, 4):
        batch = [judge(v, parquet.ParquetWriter, options) for v in verdicts[n : n + size]]
        if size % 2:
            writer.take_all(parquet.ParquetWriter.of_batch(batch, options))
        else:
            for j in batch:
                writer.add(j.verdict)  # type: ignore[arg-type]
        given += verdicts[n : n + size]
        n += size
    writer.close()
    assert table(target) == verdict_batch(given).to_pylist()
    groups = pq.ParquetFile(target).metadata
    assert [groups.row_group(i).num_rows for i in range(groups.num_row_groups)] == [7, 7, 7, 7, 4]


def test_a_batch_leaves_the_worker_as_rows_not_verdicts() -> None:
    from keilref import check_file
    from keilref.formats import CheckOptions, judge
    from keilref.formats.parquet import ParquetWriter

    options = CheckOptions(format="parquet", quiet=True)
    verdicts = [v for path in sorted((ROOT / "records" / "faults").glob("*.keil")) for v in check_file(path)]
    handed = ParquetWriter.of_batch([judge(v, ParquetWriter, options) for v in verdicts], options)
    assert all(j.verdict is None for j in handed)
    assert handed[0].part is not None and all(j.part is None for j in handed[1:])
    # --quiet: the rows are the failing games only, and each item still counts its game.
    assert handed[0].part.num_rows == sum(v.fails() for v in verdicts) < len(verdicts)
    assert [j.status for j in handed] == [v.status.value for v in verdicts]
