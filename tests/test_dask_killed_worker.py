"""A Dask worker that dies while it checks costs no game and hangs nothing.

Dask gives a task whose worker died to another worker; a task that every
try kills (a game that crashes native code, or needs more memory than a
worker has) ends in ``KilledWorker``. ``check --scheduler`` then checks
those games here, by the Python referee, and says which they were, as
``--jobs`` does when one of its own workers dies.

Each test starts a cluster of its own: its workers are killed.
"""

from __future__ import annotations

import functools
import importlib.util
import logging
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from dask_support import local_cluster
from hang_support import within

from keilref import wording
from keilref.engine.generate import random_games, to_record
from keilref.records.sources import Source
from keilref.records.writer import write_record
from keilref.referee.batches import judged_sources
from keilref.referee.verdict import Verdict

HAVE_DASK = all(importlib.util.find_spec(m) is not None for m in ("dask", "distributed"))
if os.environ.get("KEILREF_REQUIRE_DASK") and not HAVE_DASK:
    raise RuntimeError("KEILREF_REQUIRE_DASK is set but dask or distributed is not installed")
pytestmark = pytest.mark.skipif(not HAVE_DASK, reason="the dask extra is not installed")

NO_HANG = 90.0
"""Seconds a check here may take before it counts as hung (it takes a few)."""

MARK = "crash here"


def _line(v: Verdict) -> str:
    return f"{v.file} {v.game} {v.status.value} {v.computed} {v.turns}"


def _dies_on_the_mark(v: Verdict, *, parent: int) -> str:
    """``_line``, but a worker process that meets the marked game dies (as a crash in native code would)."""
    if v.event == MARK and os.getpid() != parent:
        os._exit(1)
    return _line(v)


def _archive(root: Path) -> list[Source]:
    sources = []
    for f, seed in (("a.keil", 1), ("b.keil", 2), ("c.keil", 3)):
        games = random_games(seed, 40, sizes=(3, 4), rules=("keil", "keil-2019"))
        texts = [write_record(to_record(g, event=MARK if f == "b.keil" and i == 17 else f"game {i}")) for i, g in enumerate(games)]
        (root / f).write_text("\n".join(texts), encoding="utf-8")
        sources.append(Source(str(root / f)))
    return sources


@pytest.fixture
def fragile_cluster() -> Iterator[Any]:
    """One worker process, and no second try: a task whose worker dies ends in KilledWorker at once."""
    import dask

    with dask.config.set({"distributed.scheduler.allowed-failures": 0}), local_cluster(1, logs=logging.CRITICAL) as c:
        yield c


def test_games_whose_worker_always_dies_are_checked_here_and_named(fragile_cluster: Any, tmp_path: Path) -> None:
    from keilref.dask import judged_on_cluster

    sources = _archive(tmp_path)
    expected = list(judged_sources(sources, _line, jobs=1))
    said: list[str] = []
    each = functools.partial(_dies_on_the_mark, parent=os.getpid())
    checking = lambda: [  # noqa: E731
        line for items in judged_on_cluster(sources, fragile_cluster.scheduler_address, each, on_crash=said.append)
        for line in items
    ]
    got = within(NO_HANG, checking)
    assert got == expected
    assert len(got) == 120, "no game lost"
    b = str(tmp_path / "b.keil")
    assert wording.worker_crashed(b, 1, 40) in said, said


def _loader(name: str, *, marker: str) -> Any:
    """A partition of record text; the first try at ``b.keil`` kills its worker."""
    import pandas as pd

    if name.endswith("b.keil"):
        try:
            os.close(os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        except FileExistsError:
            pass
        else:
            os._exit(1)
    return pd.DataFrame({"record": [Path(name).read_text(encoding="utf-8")]})


def test_a_frame_whose_worker_dies_once_loses_no_game(tmp_path: Path) -> None:
    pytest.importorskip("pandas")
    pytest.importorskip("keilref.arrow")
    import dask.dataframe as dd
    import pandas as pd
    from distributed import Client

    from keilref import check_text
    from keilref.dask import check_dataframe

    sources = _archive(tmp_path)
    names = [s.name for s in sources]
    marker = str(tmp_path / "died")
    with local_cluster(2, logs=logging.CRITICAL) as cluster, Client(cluster):
        meta = pd.DataFrame({"record": pd.Series([], dtype=object)})
        records = dd.from_map(functools.partial(_loader, marker=marker), names, meta=meta, enforce_metadata=False)
        rows = within(NO_HANG, check_dataframe(records).compute)
    assert os.path.exists(marker), "the worker was not killed"
    expected = [(v.game, v.status.value, v.computed) for n in names for v in check_text(Path(n).read_text(encoding="utf-8"))]
    assert list(zip(rows["game"], rows["status"], rows["computed"], strict=True)) == expected
    assert len(rows) == 120
