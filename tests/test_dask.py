"""Checking on a Dask cluster gives exactly the verdicts of a local run.

The cluster tests need the ``dask`` extra and skip without it, unless
``KEILREF_REQUIRE_DASK`` is set (CI sets it: there they must run).
"""

from __future__ import annotations

import importlib.util
import json
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cli_support import ROOT
from keilref.referee.batches import BATCH_GAMES, check_sources
from keilref.records.sources import expand_paths
from keilref.engine.generate import random_games, to_record
from keilref.records.writer import write_record

HAVE_DASK = all(importlib.util.find_spec(m) is not None for m in ("dask", "distributed"))
if os.environ.get("KEILREF_REQUIRE_DASK") and not HAVE_DASK:
    raise RuntimeError("KEILREF_REQUIRE_DASK is set but dask or distributed is not installed")
needs_dask = pytest.mark.skipif(not HAVE_DASK, reason="the dask extra is not installed")

FAULTY = """[Rules "keil"]
[Size "3"]
[Komi "1"]

1. c5 c5 *
"""
WRONG_RESULT_TAIL = "B+99"


def _keilref(*args: str, env: dict[str, str] | None = None, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "keilref", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        input=stdin,
        env={**os.environ, **(env or {})},
        timeout=300,
    )


def _local(paths: list[str]) -> list[dict[str, Any]]:
    return [v.to_json() for v in check_sources(expand_paths(paths), jobs=1)]


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Several files of generated games, with faults among them, one file longer than a batch."""
    root = tmp_path_factory.mktemp("archive")
    sizes = {"a.keil": 12, "b.keil": 1, "sub/c.keil": BATCH_GAMES + 40, "sub/deeper/d.keil": 7}
    seed = 0
    for name, n in sizes.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        texts = []
        for i, g in enumerate(random_games(seed, n, rules=("keil", "keil-2019"), sizes=(3, 4), fill=1.0), 1):
            text = write_record(to_record(g, event=f"{name} {i}"))
            if i % 5 == 0:
                # A wrong result: the game replays, its claim does not hold.
                text = "\n".join(ln for ln in text.splitlines() if not ln.startswith("[Result "))
                head, _, _ = text.rstrip().rpartition(" ")
                text = f"{head} {WRONG_RESULT_TAIL}\n"
            texts.append(text)
            if i % 7 == 0:
                texts.append(FAULTY)
        seed += 1
        path.write_text("\n".join(texts), encoding="utf-8")
    (root / "broken.keil").write_text('[Rules "keil"\n1. a1 *\n', encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def client(cluster: Any) -> Iterator[Any]:
    from distributed import Client

    with Client(cluster) as c:
        yield c


def _statuses(verdicts: list[dict[str, Any]]) -> set[str]:
    return {v["status"] for v in verdicts}


@needs_dask
def test_check_bag_on_records_is_a_local_run(client: Any, at_the_root: None) -> None:
    from keilref.dask import check_bag

    local = _local(["records"])
    assert _statuses(local) == {"ok", "unfinished", "mismatch", "illegal", "error"}
    got = [v.to_json() for v in check_bag("records").compute()]
    assert got == local


@needs_dask
def test_check_bag_on_a_generated_archive_is_a_local_run(client: Any, archive: Path) -> None:
    from keilref.dask import check_bag

    local = _local([str(archive)])
    assert len(local) > BATCH_GAMES + 60
    assert _statuses(local) == {"ok", "mismatch", "illegal", "error"}
    bag = check_bag(str(archive))
    assert bag.npartitions == 5, "one file per partition: no game is split between two"
    assert [v.to_json() for v in bag.compute()] == local
    # A glob names the same files.
    assert [v.to_json() for v in check_bag(f"{archive}/**/*.keil").compute()] == local


@needs_dask
def test_a_result_bag_reads_into_a_summary(client: Any, archive: Path) -> None:
    from keilref.dask import check_bag

    local = _local([str(archive)])
    counts = dict(check_bag(str(archive)).map(lambda v: v.status.value).frequencies().compute())
    expected: dict[str, int] = {}
    for v in local:
        expected[v["status"]] = expected.get(v["status"], 0) + 1
    assert counts == expected


@needs_dask
def test_check_bag_refuses_what_names_nothing(tmp_path: Path) -> None:
    from keilref.records.sources import PathError
    from keilref.dask import check_bag

    with pytest.raises(PathError, match="no file matches"):
        check_bag(str(tmp_path / "*.keil"))
    with pytest.raises(PathError, match="no such file"):
        check_bag([str(tmp_path / "missing.keil")])
    with pytest.raises(PathError, match="standard input"):
        check_bag(["-"])


@needs_dask
def test_a_glob_follows_no_symbolic_link_below_its_fixed_start(tmp_path: Path) -> None:
    """As a directory search: ``**`` and ``*`` take no link, to a file or a directory."""
    from keilref.dask import find_files

    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "theirs.keil").write_text(FAULTY, encoding="utf-8")
    tree = tmp_path / "tree"
    (tree / "sub").mkdir(parents=True)
    (tree / "sub" / "ours.keil").write_text(FAULTY, encoding="utf-8")
    (tree / "sub" / "link.keil").symlink_to(outside / "theirs.keil")
    (tree / "dir-link").symlink_to(outside, target_is_directory=True)
    ours = [str(tree / "sub" / "ours.keil")]
    assert find_files(str(tree / "**" / "*.keil")) == ours
    assert find_files(str(tree / "*" / "*.keil")) == ours
    assert find_files(str(tree)) == ours
    # A link in the pattern's fixed start is the user's to name.
    assert find_files(str(tree / "dir-link" / "*.keil")) == [str(tree / "dir-link" / "theirs.keil")]


@needs_dask
@pytest.mark.parametrize(
    ("fmt", "paths"),
    [
        ("jsonl", ["records/games"]),
        ("jsonl", ["records/faults"]),
        ("jsonl", ["ARCHIVE"]),
        ("text", ["records/faults"]),
        ("sarif", ["records/faults", "ARCHIVE"]),
    ],
)
def test_scheduler_gives_the_output_and_exit_code_of_a_local_run(
    cluster: Any, archive: Path, fmt: str, paths: list[str]
) -> None:
    paths = [str(archive) if p == "ARCHIVE" else p for p in paths]
    local = _keilref("check", "--jobs", "1", "--format", fmt, *paths)
    remote = _keilref("check", "--scheduler", cluster.scheduler_address, "--format", fmt, *paths)
    assert remote.stderr == ""
    assert local.returncode == remote.returncode == (0 if paths == ["records/games"] else 1)
    assert local.stdout
    if fmt == "text":
        # The summary line's timing differs; every verdict line must not.
        assert local.stdout.splitlines()[:-1] == remote.stdout.splitlines()[:-1]
        assert local.stdout.splitlines()[-1].split(" in ")[0] == remote.stdout.splitlines()[-1].split(" in ")[0]
    else:
        assert local.stdout == remote.stdout
    if fmt == "jsonl":
        assert [json.loads(ln) for ln in remote.stdout.splitlines()] == _local(paths)


@needs_dask
def test_scheduler_writes_the_table_a_local_run_writes(cluster: Any, archive: Path, tmp_path: Path) -> None:
    """The cluster's workers make each batch's rows of the verdict table, as ``--jobs`` workers do."""
    pq = pytest.importorskip("pyarrow.parquet")
    here, there = tmp_path / "here.parquet", tmp_path / "there.parquet"
    paths = ["records/faults", str(archive)]
    local = _keilref("check", "--jobs", "1", "--format", "parquet", "-o", str(here), *paths)
    remote = _keilref("check", "--scheduler", cluster.scheduler_address, "--format", "parquet", "-o", str(there), *paths)
    assert remote.stderr == ""
    assert local.returncode == remote.returncode == 1
    rows = pq.read_table(there).to_pylist()
    assert rows == pq.read_table(here).to_pylist()
    assert [(r["file"], r["game"], r["status"]) for r in rows] == [
        (v["file"], v["game"], v["status"]) for v in _local(paths)
    ]


@needs_dask
def test_scheduler_reads_standard_input_here(cluster: Any) -> None:
    text = (ROOT / "records/faults/illegal-superko.keil").read_text(encoding="utf-8")
    remote = _keilref("check", "--scheduler", cluster.scheduler_address, "-f", "jsonl", "-", stdin=text)
    assert remote.returncode == 1
    (v,) = [json.loads(ln) for ln in remote.stdout.splitlines()]
    assert (v["file"], v["status"], v["illegal"]["reason"]) == ("-", "illegal", "superko")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@needs_dask
def test_an_unreachable_scheduler_is_one_line_and_exit_2() -> None:
    address = f"tcp://127.0.0.1:{_free_port()}"
    r = _keilref(
        "check", "--scheduler", address, "records/games", env={"DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT": "2s"}
    )
    assert r.returncode == 2
    assert r.stdout == ""
    assert "Traceback" not in r.stderr
    (line,) = r.stderr.splitlines()
    assert line.startswith(f"keilref: cannot reach the Dask scheduler at {address}: ")


def test_without_the_extra_scheduler_says_how_to_install_it() -> None:
    # None in sys.modules makes the imports fail, as if the extra were not
    # installed, whether or not it is here.
    code = (
        "import sys; sys.modules['dask'] = None; sys.modules['distributed'] = None; "
        "sys.argv = ['keilref', 'check', '--scheduler', '127.0.0.1:8786', 'records/games']; "
        "from keilref.cli import main; main()"
    )
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode == 2
    assert r.stdout == ""
    assert r.stderr == (
        "keilref: --scheduler needs Dask (dask is not installed): pip install 'keilref[dask]'\n"
    )


@needs_dask
def test_a_malformed_address_is_refused_at_once() -> None:
    r = _keilref("check", "--scheduler", "scheduler-host", "records/games")
    assert r.returncode == 2
    assert r.stderr == (
        "keilref: 'scheduler-host' is not a scheduler address (expected HOST:PORT or tcp://HOST:PORT): "
        "missing port number in address 'scheduler-host'\n"
    )


@needs_dask
def test_check_bag_keeps_each_games_family_under_an_override(client: Any, at_the_root: None) -> None:
    """An override of another family does not apply on a cluster either."""
    from keilref.dask import check_bag

    paths = ["records/games/yugo", "records/games/dehil", "records/games/size5-keil-corner-ko.keil"]
    for override in ("keil", "keil-2019", "yugo", "dehil"):
        local = [json.loads(ln) for ln in _keilref("check", "--format", "jsonl", "--rules", override, *paths).stdout.splitlines()]
        got = [v.to_json() for v in check_bag(paths, rules=override).compute()]
        assert got == local
        assert {v["rules"] for v in got} >= {"yugo", "dehil"}
        assert all(v["status"] != "illegal" for v in got)
