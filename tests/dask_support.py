"""The local Dask clusters the tests run on: worker processes of one thread
each, on 127.0.0.1 only, with no dashboard."""

from __future__ import annotations

import logging
from typing import Any


def local_cluster(workers: int, *, logs: int = logging.ERROR) -> Any:
    """A ``distributed.LocalCluster`` of ``workers`` single-threaded processes
    (a context manager), its logs at ``logs`` and above."""
    from distributed import LocalCluster

    return LocalCluster(
        n_workers=workers,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address=None,
        silence_logs=logs,
    )
