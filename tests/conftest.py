"""Shared fixtures for the test suite."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from typing import Any

import pytest
from syrupy.assertion import SnapshotAssertion

from cli_support import ROOT
from dask_support import local_cluster
from snapshot_ext import SvgSnapshotExtension, TextSnapshotExtension

# The browser tests' fixtures (browser, page), for every module that asks for them.
pytest_plugins = ("browser_support",)


@pytest.fixture
def snapshot_txt(snapshot: SnapshotAssertion) -> SnapshotAssertion:
    """Plain-text snapshots, one ``.txt`` file per assertion (see snapshot_ext.py)."""
    return snapshot.use_extension(TextSnapshotExtension)


@pytest.fixture
def snapshot_svg(snapshot: SnapshotAssertion) -> SnapshotAssertion:
    """SVG snapshots, one ``.svg`` file per assertion, to be read in a browser."""
    return snapshot.use_extension(SvgSnapshotExtension)


@pytest.fixture
def at_the_root(monkeypatch: pytest.MonkeyPatch) -> None:
    """Paths in the output are as given: run from the checkout root with relative paths."""
    monkeypatch.chdir(ROOT)


@pytest.fixture(scope="session")
def cluster() -> Iterator[Any]:
    """A Dask scheduler and two single-threaded worker processes, on 127.0.0.1 only."""
    if not all(importlib.util.find_spec(m) is not None for m in ("dask", "distributed")):
        pytest.skip("the dask extra is not installed")
    with local_cluster(2) as c:
        yield c
