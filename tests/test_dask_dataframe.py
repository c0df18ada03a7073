"""``keilref.dask.check_dataframe``: the verdict table as a Dask DataFrame, on a
real local cluster, holding the facts of a local run's jsonl, written as
partitioned Parquet by the workers and queried with DuckDB.

Needs the ``dask`` and ``arrow`` extras (and DuckDB for the query); skipped
without them, unless ``KEILREF_REQUIRE_DASK`` is set (CI sets it).
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cli_support import ROOT

_NEEDED = ("dask", "distributed", "pandas", "pyarrow", "duckdb")
HAVE = all(importlib.util.find_spec(m) is not None for m in _NEEDED) and importlib.util.find_spec("keilref.arrow") is not None
if os.environ.get("KEILREF_REQUIRE_DASK") and not HAVE:
    raise RuntimeError("KEILREF_REQUIRE_DASK is set but the dask or arrow extra (or duckdb) is not installed")
pytestmark = pytest.mark.skipif(not HAVE, reason="the dask and arrow extras and duckdb are needed")

PATHS = ["records/games", "records/faults"]
FACTS = ("file", "game", "status", "rules", "size", "komi", "turns", "declared", "computed")
"""The verdict's facts that the table and the jsonl line name alike."""


def _jsonl(*paths: str) -> list[dict[str, Any]]:
    r = subprocess.run(
        [sys.executable, "-m", "keilref", "check", "--jobs", "1", "--format", "jsonl", *paths],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )
    assert r.returncode == 1, r.stderr
    return [json.loads(line) for line in r.stdout.splitlines()]


@pytest.fixture(scope="module")
def client(cluster: Any) -> Iterator[Any]:
    from distributed import Client

    with Client(cluster) as c:
        yield c


@pytest.fixture(scope="module")
def local() -> list[dict[str, Any]]:
    return _jsonl(*PATHS)


def _rows(frame: Any) -> list[dict[str, Any]]:
    import pyarrow as pa

    return pa.Table.from_pandas(frame, preserve_index=False).to_pylist()


def test_the_frame_holds_a_local_runs_verdicts_in_order(client: Any, local: list[dict[str, Any]], at_the_root: None) -> None:
    from keilref.arrow import VERDICT_SCHEMA, verdict_batch
    from keilref.dask import check_dataframe
    from keilref.referee.batches import check_sources
    from keilref.records.sources import expand_paths

    assert {v["status"] for v in local} == {"ok", "unfinished", "mismatch", "illegal", "error"}
    frame = check_dataframe(PATHS)
    assert list(frame.columns) == VERDICT_SCHEMA.names
    rows = _rows(frame.compute())
    assert [{k: r[k] for k in FACTS} for r in rows] == [{k: v[k] for k in FACTS} for v in local]
    illegal = [(r["illegal"] or {}).get("reason") for r in rows]
    assert illegal == [(v["illegal"] or {}).get("reason") for v in local]
    # Every column, nested ones included, as the table of the same verdicts made here.
    here = verdict_batch(list(check_sources(expand_paths(PATHS), jobs=1))).to_pylist()
    assert rows == here


def test_a_frame_of_record_text_is_checked_row_by_row(client: Any) -> None:
    import dask.dataframe as dd
    import pandas as pd
    import pyarrow as pa

    from keilref import check_text
    from keilref.arrow import check_batch
    from keilref.dask import check_dataframe

    paths = [p for p in sorted((ROOT / "records/faults").glob("*.keil")) if "utf8" not in p.name]
    texts = [p.read_text(encoding="utf-8") for p in paths]
    texts.append(texts[0] + "\n" + texts[1])  # two games in one row
    names = [p.name for p in paths] + ["two.keil"]
    table = pd.DataFrame({"name": names, "record": texts})
    records = dd.from_pandas(table, npartitions=3)
    assert records.npartitions == 3
    rows = _rows(check_dataframe(records, file_column="name").compute())
    # Each row's games as the batch function makes them of the whole table at once: the rows are the frame's.
    whole = pa.Table.from_pandas(table).append_column("index", pa.array(range(len(texts)), pa.int64()))
    assert rows == check_batch(whole, name_column="name", row_column="index").to_pylist()
    expected = [
        v.to_json() for i, (name, text) in enumerate(zip(names, texts)) for v in check_text(text, filename=f"{name}#row={i}")
    ]
    keys = ("file", "game", "status", "rules", "size", "turns", "declared", "computed")
    assert [{k: r[k] for k in keys} for r in rows] == [{k: v[k] for k in keys} for v in expected]
    assert rows[-1]["file"] == f"two.keil#row={len(texts) - 1}"
    with pytest.raises(KeyError, match="'moves'"):
        check_dataframe(records, column="moves")


def test_partitioned_parquet_answers_duckdb_exactly(
    client: Any, local: list[dict[str, Any]], tmp_path: Path, at_the_root: None
) -> None:
    import duckdb

    from keilref.dask import check_dataframe

    out = tmp_path / "verdicts"
    check_dataframe(PATHS).to_parquet(str(out), partition_on=["status"], write_index=False)
    assert sorted(p.name for p in out.iterdir() if p.is_dir()) == sorted(f"status={s}" for s in {v["status"] for v in local})
    files = f"{out}/**/*.parquet"
    by_status = dict(duckdb.sql(f"select status, count(*) from read_parquet('{files}', hive_partitioning=true) group by all").fetchall())
    assert by_status == dict(Counter(v["status"] for v in local))
    refusals = duckdb.sql(
        f"select size, illegal.reason, count(*) from read_parquet('{files}', hive_partitioning=true) "
        "where status = 'illegal' group by all order by all"
    ).fetchall()
    expected = Counter((v["size"], v["illegal"]["reason"]) for v in local if v["status"] == "illegal")
    assert refusals == sorted((size, reason, n) for (size, reason), n in expected.items())
    games = duckdb.sql(f"select file, game from read_parquet('{files}') order by all").fetchall()
    assert games == sorted((v["file"], v["game"]) for v in local), "every game once, none lost"


def test_check_dataframe_refuses_what_check_bag_refuses(tmp_path: Path) -> None:
    from keilref.dask import check_dataframe
    from keilref.errors import ConfigError
    from keilref.records.sources import PathError

    with pytest.raises(PathError, match="no file matches"):
        check_dataframe(str(tmp_path / "*.keil"))
    with pytest.raises(ValueError, match="npartitions must be at least 1"):
        check_dataframe(["records/games"], npartitions=0)
    with pytest.raises(ConfigError):
        check_dataframe([str(ROOT / "records/games")], rules="chess")
