"""check_bag and check_dataframe on a worker that dies: every game gets its
verdict, or the file (or row) that ends every process checking it gets one
error of its own; the computation neither fails nor hangs.

The deaths are real: the cluster's processes start with a ``sitecustomize``
(on ``PYTHONPATH``) that kills the process, as the kernel kills one (SIGKILL),
when it opens a file, or checks a row's text, holding a mark:

* ``dies natively`` only while the native path may run, as a crash in
  native code does: the Python referee (``native_off``) checks it;
* ``dies always`` whatever runs, as more memory than the machine has does;
* ``dies alone`` only where the Python referee alone runs: a first try
  that went there (and paid for it) instead of running as it always does
  would show.

The test process itself has no such hook: it checks the same games locally
for the verdicts expected.
"""

from __future__ import annotations

import importlib.util
import logging
import os
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from dask_support import local_cluster
from hang_support import within

from keilref import check_file, check_text, wording
from keilref.engine.generate import random_games, to_record
from keilref.errors import RecordError
from keilref.records.writer import write_record
from keilref.referee.verdict import Verdict, error_verdict

HAVE_DASK = all(importlib.util.find_spec(m) is not None for m in ("dask", "distributed", "pandas", "pyarrow"))
if os.environ.get("KEILREF_REQUIRE_DASK") and not HAVE_DASK:
    raise RuntimeError("KEILREF_REQUIRE_DASK is set but dask, distributed, pandas or pyarrow is not installed")
pytestmark = pytest.mark.skipif(not HAVE_DASK, reason="the dask extra is not installed")

NO_HANG = 90.0
"""Seconds a check here may take before it counts as hung (it takes a few)."""

NATIVE = "dies natively"
ALWAYS = "dies always"
ALONE = "dies alone"

_HOOK = textwrap.dedent(
    '''
    """Kills this process when it reads marked games (see the test module)."""
    import importlib.abc
    import importlib.util
    import os
    import signal
    import sys

    def _python_only():
        cut = sys.modules.get("keilref.records.native_cut")
        return getattr(cut, "_off", 0) > 0

    def _maybe_die(text):
        if "dies" not in text:
            return
        python_only = _python_only()
        natively = "dies natively" in text and not python_only
        if "dies always" in text or natively or ("dies alone" in text and python_only):
            os.kill(os.getpid(), signal.SIGKILL)

    def _on_open(event, args):
        if event == "open" and isinstance(args[0], str):
            _maybe_die(args[0])

    sys.addaudithook(_on_open)

    class _CheckTextHook(importlib.abc.MetaPathFinder):
        """keilref.arrow's check_text, once imported, looks at each row's text first."""

        def find_spec(self, name, path=None, target=None):
            if name != "keilref.arrow":
                return None
            sys.meta_path.remove(self)
            spec = importlib.util.find_spec(name)
            run = spec.loader.exec_module

            def exec_module(module):
                run(module)
                checked = module.check_text

                def check_text(text, *args, **kwargs):
                    _maybe_die(text if isinstance(text, str) else bytes(text).decode("utf-8", "replace"))
                    return checked(text, *args, **kwargs)

                module.check_text = check_text

            spec.loader.exec_module = exec_module
            return spec

    sys.meta_path.insert(0, _CheckTextHook())
    '''
)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """Two single-threaded worker processes that start with the hook, as do the processes they start."""
    site = tmp_path_factory.mktemp("site")
    (site / "sitecustomize.py").write_text(_HOOK, encoding="utf-8")
    before = os.environ.get("PYTHONPATH")
    # Set for the module's whole life: the nanny starts a new worker after each death.
    os.environ["PYTHONPATH"] = os.pathsep.join([str(site), *([before] if before else [])])
    try:
        with local_cluster(2, logs=logging.CRITICAL) as c:
            yield c
    finally:
        if before is None:
            del os.environ["PYTHONPATH"]
        else:
            os.environ["PYTHONPATH"] = before


def _games(seed: int, event: str) -> str:
    games = random_games(seed, 6, sizes=(3, 4), rules=("keil", "keil-2019"))
    return "\n".join(write_record(to_record(g, event=event if i == 3 else f"game {i}")) for i, g in enumerate(games))


def _archive(root: Path) -> list[str]:
    """Four files: the second crashes native code, the third every process that reads it."""
    names = []
    for i, stem in enumerate(("a", f"b {NATIVE}", f"c {ALWAYS}", "d")):
        path = root / f"{stem}.keil"
        path.write_text(_games(i + 1, f"game of {stem}"), encoding="utf-8")
        names.append(str(path))
    return names


def _lost(name: str) -> Verdict:
    """The one error of a file or row that killed its worker and then its process of its own."""
    failure = RecordError(wording.checked_alone_crashed(-9), 1, 1, filename=name)
    return error_verdict(failure, file=name, game=1)


def _expected(names: list[str]) -> list[Verdict]:
    return [v for n in names for v in ([_lost(n)] if ALWAYS in n else check_file(n))]


def test_checked_alone_crashed_says_how_the_process_ended() -> None:
    said = wording.checked_alone_crashed(-9)
    assert said == (
        "a worker process ended abruptly while it checked these games' partition, and so did a process checking "
        "them again alone by the Python referee (killed by SIGKILL; a crash in native code, the memory killer): "
        "they have no verdict"
    )
    assert "by the Python referee (exit status 1): they have" in wording.checked_alone_crashed(1)


def test_a_bag_gives_each_file_its_verdicts_or_its_own_error(cluster: Any, tmp_path: Path) -> None:
    from distributed import Client

    from keilref.dask import check_bag

    names = _archive(tmp_path)
    with Client(cluster, set_as_default=False) as client:
        got = within(NO_HANG, lambda: client.compute(check_bag(names, npartitions=2)).result())
    expected = _expected(names)
    assert got == expected
    assert len(got) == 6 * 3 + 1, "the games of a, b and d, and one error for c"
    assert [v.status.value for v in got if v.file == names[2]] == ["error"]


def test_a_frame_of_paths_gives_each_file_its_verdicts_or_its_own_error(cluster: Any, tmp_path: Path) -> None:
    from distributed import Client

    from keilref.arrow import verdict_batch
    from keilref.dask import check_dataframe

    names = _archive(tmp_path)
    with Client(cluster, set_as_default=False) as client:
        rows = within(NO_HANG, lambda: client.compute(check_dataframe(names, npartitions=1)).result())
    expected = verdict_batch(_expected(names)).to_pylist()
    assert _table_rows(rows) == expected


def test_a_frame_of_records_gives_each_row_its_verdicts_or_its_own_error(cluster: Any) -> None:
    import dask.dataframe as dd
    import pandas as pd
    from distributed import Client

    from keilref.arrow import verdict_batch
    from keilref.dask import check_dataframe

    texts = [_games(seed, event) for seed, event in ((5, "plain"), (6, NATIVE), (7, ALWAYS), (8, "plain too"))]
    frame = dd.from_pandas(pd.DataFrame({"record": texts}), npartitions=1)
    with Client(cluster, set_as_default=False) as client:
        rows = within(NO_HANG, lambda: client.compute(check_dataframe(frame)).result())
    names = [wording.in_row("frame", row) for row in range(4)]
    expected = [v for text, n in zip(texts, names) for v in ([_lost(n)] if ALWAYS in text else check_text(text, filename=n))]
    assert _table_rows(rows) == verdict_batch(expected).to_pylist()
    assert [r["file"] for r in _table_rows(rows) if r["status"] == "error"] == ["frame#row=2"]


def test_a_first_try_checks_in_the_worker_as_always(cluster: Any, tmp_path: Path) -> None:
    from distributed import Client

    from keilref.dask import check_bag, check_dataframe

    names = []
    for i, stem in enumerate(("a", f"e {ALONE}")):
        path = tmp_path / f"{stem}.keil"
        path.write_text(_games(i + 10, "plain"), encoding="utf-8")
        names.append(str(path))
    expected = [v for n in names for v in check_file(n)]
    with Client(cluster, set_as_default=False) as client:
        got = within(NO_HANG, lambda: client.compute(check_bag(names, npartitions=1)).result())
        rows = within(NO_HANG, lambda: client.compute(check_dataframe(names)).result())
    assert got == expected
    assert len(rows) == len(expected)
    assert set(rows["status"]) <= {"ok", "unfinished", "illegal", "mismatch"}


def _table_rows(frame: Any) -> list[dict[str, Any]]:
    """A computed frame of verdicts as the verdict table's rows."""
    import pyarrow as pa

    from keilref.arrow import VERDICT_SCHEMA

    rows: list[dict[str, Any]] = pa.Table.from_pandas(frame, schema=VERDICT_SCHEMA, preserve_index=False).to_pylist()
    return rows
