"""``keilref.arrow.check_batch`` run by the engines docs/scale.md shows: Spark's
``mapInArrow`` and Ray Data's ``map_batches``, each on a local instance, the
verdicts the same as ``check_batch`` gives in this process.

Each test skips where its engine is not installed (PySpark needs Java 17 too).
"""

from __future__ import annotations

import functools
import os
import shutil
import sys
from collections.abc import Iterator
from typing import Any

import pytest

pa = pytest.importorskip("pyarrow")

from cli_support import ROOT  # noqa: E402
from keilref.arrow import VERDICT_SCHEMA, check_batch  # noqa: E402

TEXTS = [
    (ROOT / "records/faults/illegal-superko.keil").read_text(encoding="utf-8"),
    (ROOT / "records/games/small-boards-three-games.keil").read_text(encoding="utf-8"),
    (ROOT / "records/faults/error-bad-token.keil").read_text(encoding="utf-8"),
    "",
]


def _records() -> Any:
    return pa.table({"n": list(range(len(TEXTS))), "record": TEXTS})


def _expected() -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = check_batch(_records(), file="games", row_column="n").to_pylist()
    return sorted(rows, key=lambda r: (r["file"], r["game"]))


@pytest.fixture
def workers_import_this_checkout(monkeypatch: pytest.MonkeyPatch) -> None:
    """The engines' worker processes import keilref from this checkout, as the test does."""
    path = os.environ.get("PYTHONPATH")
    monkeypatch.setenv("PYTHONPATH", str(ROOT) if not path else f"{ROOT}{os.pathsep}{path}")
    monkeypatch.setenv("PYSPARK_PYTHON", sys.executable)
    monkeypatch.setenv("PYSPARK_DRIVER_PYTHON", sys.executable)


def test_spark_runs_check_batch_with_map_in_arrow(workers_import_this_checkout: None) -> None:
    pytest.importorskip("pyspark")
    if shutil.which("java") is None:
        pytest.skip("PySpark needs Java")
    from pyspark.sql import SparkSession
    from pyspark.sql.pandas.types import from_arrow_schema

    spark = (
        SparkSession.builder.master("local[1]")
        .appName("keilref-verdicts")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "1")
        .getOrCreate()
    )
    try:
        games = spark.createDataFrame(_records().to_pandas())
        check = functools.partial(check_batch, column="record", file="games", row_column="n")

        def each(batches: Iterator[Any]) -> Iterator[Any]:
            return map(check, batches)

        verdicts = games.mapInArrow(each, schema=from_arrow_schema(VERDICT_SCHEMA))
        rows = [r.asDict(recursive=True) for r in verdicts.collect()]
    finally:
        spark.stop()
    assert sorted(rows, key=lambda r: (r["file"], r["game"])) == _expected()


def test_ray_runs_check_batch_with_map_batches(workers_import_this_checkout: None) -> None:
    ray = pytest.importorskip("ray")
    pytest.importorskip("ray.data")
    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False,
             runtime_env={"env_vars": {"PYTHONPATH": os.environ["PYTHONPATH"]}})
    try:
        games = ray.data.from_arrow(_records())

        def check(table: Any) -> Any:
            # Ray Data takes a table back from a pyarrow batch function.
            return pa.Table.from_batches([check_batch(table, column="record", file="games", row_column="n")])

        verdicts = games.map_batches(check, batch_format="pyarrow")
        rows = verdicts.to_arrow_refs()
        table = pa.concat_tables(ray.get(rows))
    finally:
        ray.shutdown()
    assert table.schema.equals(VERDICT_SCHEMA)
    assert sorted(table.to_pylist(), key=lambda r: (r["file"], r["game"])) == _expected()
