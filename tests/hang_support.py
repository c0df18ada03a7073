"""A guard for tests of work that must end: a hang fails the test instead of stalling the suite."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from typing import TypeVar

import pytest

_T = TypeVar("_T")


def within(seconds: float, work: Callable[[], _T]) -> _T:
    """``work()``, failing the test, not hanging it, if it takes longer than ``seconds``."""
    pool = ThreadPoolExecutor(1)
    try:
        return pool.submit(work).result(timeout=seconds)
    except FutureTimeout:
        pytest.fail(f"the check hung (no answer in {seconds:.0f} s)")
    finally:
        pool.shutdown(wait=False)  # a hung thread is left behind, not waited for
