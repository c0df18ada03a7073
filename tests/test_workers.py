"""Worker processes: they end with the process they work for, however it ends."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cli_support import ROOT
from keilref.referee.batches import default_jobs

GOOD = ROOT / "records" / "games" / "size5-keil-corner-ko.keil"

# keilref's command line, with the kernel's help refused: as on a system
# without prctl or pidfds, where each worker watches for its parent itself.
WITHOUT_PRCTL = (
    "import sys, keilref.referee.batches as check; check._kill_on_parent_death = lambda: False; "
    "check._wait_for_end = lambda pid: False; "
    "from keilref.cli import main; sys.argv[0] = 'keilref'; main()"
)


def _stat(pid: int) -> list[str] | None:
    """The fields of /proc/PID/stat after the command name, or ``None`` when gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text[text.rindex(")") + 2 :].split()


def children(parent: int) -> list[tuple[int, str]]:
    """Each child of ``parent`` as its pid and start time (so that a reused pid is not taken for it)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and (fields := _stat(int(entry.name))) is not None and int(fields[1]) == parent:
            found.append((int(entry.name), fields[19]))
    return found


def running(pid: int, started: str) -> bool:
    fields = _stat(pid)
    return fields is not None and fields[19] == started and fields[0] not in ("Z", "X")


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="finds processes in /proc")
@pytest.mark.skipif(default_jobs() < 2, reason="one core: a check starts no workers")
@pytest.mark.parametrize("how", ["prctl", "polling"])
def test_workers_end_within_a_second_of_their_parent_being_killed(tmp_path: Path, how: str) -> None:
    archive = tmp_path / "archive.keil"
    archive.write_text((GOOD.read_text(encoding="utf-8") + "\n") * 8000, encoding="utf-8")  # a minute of work
    command = ["-m", "keilref"] if how == "prctl" else ["-c", WITHOUT_PRCTL]
    proc = subprocess.Popen(
        [sys.executable, *command, "check", "--jobs", "2", str(archive)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    workers: list[tuple[int, str]] = []
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline().decode()  # the workers are at work
        assert first.startswith(f"{archive}:1:1: game 1: ok: "), first
        workers = children(proc.pid)
        assert len(workers) >= 2, workers
        proc.kill()
        proc.wait(timeout=10)
        killed_at = time.monotonic()
        while any(running(*w) for w in workers) and time.monotonic() - killed_at < 5:
            time.sleep(0.02)
        took = time.monotonic() - killed_at
        left = [pid for pid, started in workers if running(pid, started)]
    finally:
        if proc.poll() is None:
            proc.kill()
        for pid, started in workers:
            if running(pid, started):
                os.kill(pid, signal.SIGKILL)
    assert left == [], f"{len(left)} workers still running {took:.1f} s after their parent was killed"
    assert took < 2.0, f"the workers took {took:.2f} s to end"  # a second, and room for a busy machine


def test_a_worker_whose_parent_is_gone_before_it_looks_ends_at_once() -> None:
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()  # its pid names no process now
    for parent, forked_by_main_thread in ((gone.pid, True), (gone.pid, False)):
        proc = subprocess.run(
            [sys.executable, "-c", f"from keilref.referee.batches import _die_with_parent; _die_with_parent({parent}, {forked_by_main_thread}); print('ran on')"],
            cwd=ROOT, capture_output=True, text=True, timeout=30,
        )
        assert (proc.returncode, proc.stdout) == (1, ""), proc.stderr


@pytest.mark.parametrize("forked_by_main_thread", [True, False])
def test_a_worker_whose_parent_is_there_works_on(forked_by_main_thread: bool) -> None:
    code = (
        "import os, time; from keilref.referee.batches import _die_with_parent; "
        f"_die_with_parent(os.getppid(), {forked_by_main_thread}); time.sleep(0.5); print('ran on')"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=30)
    assert (proc.returncode, proc.stdout) == (0, "ran on\n"), proc.stderr


CHECK_WITH_START_METHOD = """
import json, multiprocessing, sys
multiprocessing.set_start_method(sys.argv[1])
from keilref.referee.batches import check_sources
from keilref.records.sources import Source
verdicts = check_sources([Source(sys.argv[2])], jobs=2, parallel_threshold=0)
print(json.dumps([[v.game, v.status.value] for v in verdicts]))
"""


@pytest.mark.parametrize("method", ["fork", "forkserver", "spawn"])
def test_workers_work_whatever_starts_them(tmp_path: Path, method: str) -> None:
    """A fork server (Python 3.14's default on Linux) is the workers' parent,
    not the process they work for: they must not take that for its death."""
    archive = tmp_path / "archive.keil"
    archive.write_text((GOOD.read_text(encoding="utf-8") + "\n") * 600, encoding="utf-8")  # several batches
    proc = subprocess.run(
        [sys.executable, "-c", CHECK_WITH_START_METHOD, method, str(archive)],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == [[n, "ok"] for n in range(1, 601)]
