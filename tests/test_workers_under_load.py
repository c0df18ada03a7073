"""Workers end within a second of their parent's ``kill -9``, on a loaded
machine, however they were started, and whether or not anyone has reaped
the parent yet (a killed parent stays a zombie until its own parent waits
for it: asking whether its pid is alive would say yes)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from cli_support import ROOT
from keilref.referee.batches import default_jobs
from test_workers import GOOD, children, running

pytestmark = [
    pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="finds processes in /proc"),
    pytest.mark.skipif(not hasattr(os, "pidfd_open"), reason="Linux: the kernel ends the workers"),
    pytest.mark.skipif(default_jobs() < 2, reason="one core: a check starts no workers"),
]

CHECK_WITH_START_METHOD = """
import multiprocessing, sys
multiprocessing.set_start_method(sys.argv[1])
from keilref.referee.batches import check_sources
from keilref.records.sources import Source
for verdict in check_sources([Source(sys.argv[2])], jobs=2, parallel_threshold=0):
    print(verdict.game, flush=True)
"""


@pytest.fixture
def busy_machine() -> Iterator[None]:
    """A CPU-bound process per core beside the check."""
    loops = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(default_jobs())]
    try:
        time.sleep(0.2)
        yield
    finally:
        for loop in loops:
            loop.kill()
            loop.wait()


def _descendants(pid: int) -> list[tuple[int, str]]:
    found, stack = [], [pid]
    while stack:
        for child in children(stack.pop()):
            found.append(child)
            stack.append(child[0])
    return found


@pytest.mark.usefixtures("busy_machine")
@pytest.mark.parametrize("method", ["command line", "fork", "forkserver", "spawn"])
def test_workers_end_within_a_second_of_a_kill_on_a_loaded_machine(tmp_path: Path, method: str) -> None:
    archive = tmp_path / "archive.keil"
    archive.write_text((GOOD.read_text(encoding="utf-8") + "\n") * 8000, encoding="utf-8")  # a minute of work
    if method == "command line":
        command = ["-m", "keilref", "check", "--jobs", "2", str(archive)]
    else:
        command = ["-c", CHECK_WITH_START_METHOD, method, str(archive)]
    proc = subprocess.Popen(
        [sys.executable, *command], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, start_new_session=True
    )
    workers: list[tuple[int, str]] = []
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline()  # the workers are at work
        workers = _descendants(proc.pid)
        assert len(workers) >= 2, workers
        killed_at = time.monotonic()
        os.kill(proc.pid, signal.SIGKILL)  # and not reaped until the workers are looked for
        while any(running(*w) for w in workers) and time.monotonic() - killed_at < 5:
            time.sleep(0.01)
        took = time.monotonic() - killed_at
        left = [pid for pid, started in workers if running(pid, started)]
    finally:
        proc.kill()
        proc.wait()
        for pid, started in workers:
            if running(pid, started):
                os.kill(pid, signal.SIGKILL)
    assert left == [], f"{len(left)} of {len(workers)} processes still running {took:.1f} s after their parent was killed"
    assert took < 1.0, f"the workers took {took:.2f} s to end"
