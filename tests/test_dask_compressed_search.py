"""A directory given to ``keilref.dask`` is searched as ``keilref check``
searches it: compressed records (``.keil.gz``, ``.xz``...) included."""

from __future__ import annotations

import gzip
import json
import lzma
from pathlib import Path

import pytest
from typer.testing import CliRunner

from keilref.cli import app

from remote_support import GAMES

pytest.importorskip("dask.bag")
pytest.importorskip("distributed")


def test_a_directorys_compressed_records_are_checked_as_the_cli_checks_them(tmp_path: Path) -> None:
    from keilref.dask import check_bag, find_files

    (tmp_path / "a.keil.gz").write_bytes(gzip.compress(GAMES[0].read_bytes()))
    (tmp_path / "b.keil").write_bytes(GAMES[1].read_bytes())
    (tmp_path / "c.keil.xz").write_bytes(lzma.compress(GAMES[2].read_bytes()))
    assert find_files(str(tmp_path)) == [str(tmp_path / n) for n in ("a.keil.gz", "b.keil", "c.keil.xz")]
    cli = CliRunner().invoke(app, ["check", "--format", "jsonl", str(tmp_path)])
    from_cli = [(v["file"], v["game"], v["status"], v["computed"]) for v in map(json.loads, cli.stdout.splitlines())]
    bag = check_bag(str(tmp_path)).compute(scheduler="sync")
    assert [(v.file, v.game, v.status.value, v.computed) for v in bag] == from_cli
    assert len(from_cli) == 3
