"""``keilref.arrow.check_batch`` run by the engines docs/scale.md shows: the
page's Spark script (``mapInArrow``) and Ray script (``map_batches``), run as
they stand on the page, each on a local instance, in a directory whose
``selfplay/`` holds games of ``records/``; the verdict table each writes is
held to what ``check_batch`` gives in this process.

The scripts are the page's ``python spark`` and ``python ray`` blocks, so the
page and the test cannot drift apart. Each test skips where its engine is not
installed (PySpark needs Java too), unless ``KEILREF_REQUIRE_SPARK=1`` or
``KEILREF_REQUIRE_RAY=1`` (CI sets both) makes that a failure.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from doc_examples import ROOT, blocks

SCALE = ROOT / "docs" / "scale.md"

TEXTS = [
    (ROOT / "records/faults/illegal-superko.keil").read_text(encoding="utf-8"),
    (ROOT / "records/games/small-boards-three-games.keil").read_text(encoding="utf-8"),
    (ROOT / "records/faults/error-bad-token.keil").read_text(encoding="utf-8"),
    "",
]


def _example(engine: str) -> str:
    """The page's script for ``engine``: its one ``python ENGINE`` block."""
    found = [b.text for b in blocks(SCALE) if b.info == f"python {engine}"]
    assert len(found) == 1, f"docs/scale.md should show one python {engine} block, not {len(found)}"
    return found[0]


def test_the_page_shows_a_script_for_each_engine() -> None:
    # Runs without the engines: the examples the engine tests run are on the page.
    assert "mapInArrow(" in _example("spark") and 'write.parquet("verdicts/")' in _example("spark")
    assert "map_batches(" in _example("ray") and 'write_parquet("verdicts/")' in _example("ray")


def _require(engine: str, missing: str | None) -> None:
    """Skip for a missing engine, or fail where CI requires it."""
    if missing is None:
        return
    switch = f"KEILREF_REQUIRE_{engine.upper()}"
    if os.environ.get(switch) == "1":
        pytest.fail(f"{missing}, and {switch}=1 requires it", pytrace=False)
    pytest.skip(f"{missing} ({switch}=1 makes this a failure)")


def _have(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        return False


def _selfplay(here: Path) -> Any:
    """The games the scripts read: two Parquet files, the rows numbered by
    ``n`` across them from 11, so that a script that numbered each batch's
    rows from 1 instead would name the games otherwise, however the engine
    cuts its batches."""
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    table = pa.table({"n": list(range(11, 11 + len(TEXTS))), "record": TEXTS})
    (here / "selfplay").mkdir()
    pq.write_table(table.slice(0, 2), here / "selfplay" / "part-0.parquet")
    pq.write_table(table.slice(2), here / "selfplay" / "part-1.parquet")
    return table


def _run_example(engine: str, here: Path, env: dict[str, str]) -> Any:
    """Runs the page's script in ``here`` and reads back the table it wrote."""
    import pyarrow.parquet as pq

    from keilref.arrow import VERDICT_SCHEMA, check_batch

    games = _selfplay(here)
    script = here / f"{engine}_example.py"
    script.write_text(_example(engine), encoding="utf-8")
    path = os.environ.get("PYTHONPATH")
    # The script and the engine's worker processes import this checkout's keilref.
    env = {**os.environ, **env, "PYTHONPATH": str(ROOT) if not path else f"{ROOT}{os.pathsep}{path}"}
    done = subprocess.run(
        [sys.executable, str(script)], cwd=here, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-4000:]
    table = pq.read_table(here / "verdicts")
    assert table.column_names == VERDICT_SCHEMA.names

    def ordered(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return sorted(rows, key=lambda r: (r["file"], r["game"]))

    expected = ordered(check_batch(games, file="selfplay", row_column="n").to_pylist())
    assert {r["status"] for r in expected} == {"ok", "illegal", "error"}
    assert ordered(table.to_pylist()) == expected
    return table


def test_spark_runs_the_pages_map_in_arrow_script(tmp_path: Path) -> None:
    missing = None
    if not _have("pyspark"):
        missing = "PySpark is not installed (pip install 'pyspark[sql]')"
    elif shutil.which("java") is None:
        missing = "PySpark needs Java, and there is none on PATH"
    elif not _have("pyarrow"):
        missing = "the arrow extra (pyarrow) is not installed"
    _require("spark", missing)
    _run_example(
        "spark",
        tmp_path,
        {
            "PYSPARK_PYTHON": sys.executable,
            "PYSPARK_DRIVER_PYTHON": sys.executable,
            # One core, no web UI: the page's script stays as a reader runs it.
            "PYSPARK_SUBMIT_ARGS": "--master local[1] --conf spark.ui.enabled=false pyspark-shell",
        },
    )


def test_ray_runs_the_pages_map_batches_script(tmp_path: Path) -> None:
    missing = None
    if not _have("ray") or not _have("ray.data"):
        missing = "Ray Data is not installed (pip install 'ray[data]')"
    elif not _have("pyarrow"):
        missing = "the arrow extra (pyarrow) is not installed"
    _require("ray", missing)
    from keilref.arrow import VERDICT_SCHEMA

    table = _run_example("ray", tmp_path, {"RAY_USAGE_STATS_ENABLED": "0"})
    # Ray writes the schema check_batch gives, untouched.
    assert table.schema.remove_metadata().equals(VERDICT_SCHEMA.remove_metadata())
