"""Shared fixtures for the test suite."""

from __future__ import annotations

import pytest
from syrupy.assertion import SnapshotAssertion

from cli_support import ROOT
from snapshot_ext import SvgSnapshotExtension, TextSnapshotExtension


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
