"""A cluster task's second try, after its worker died on the first.

Dask gives a task whose worker died to another worker, up to
``distributed.scheduler.allowed-failures`` times, then fails the whole
computation with ``KilledWorker``. A worker dies with a task when checking
its games crashes native code, or takes more memory than the machine has:
the same games would kill the next worker too. So a task of
:func:`keilref.dask.check_bag` or :func:`keilref.dask.check_dataframe`
first asks the scheduler whether an earlier try of it began and never came
back (:func:`this_try`): the first try runs as a local run does, in the
worker, at full speed; a later one checks its files (or a frame's rows) again
by the Python referee, as ``--jobs`` does with a batch whose worker died,
each in a process of its own (:func:`checked_alone`), so that a file that
still ends the process that checks it costs its own games their verdicts
and no one else's, and the worker lives on.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import pickle
import subprocess
import sys
import uuid
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

from keilref import wording
from keilref.errors import RecordError
from keilref.records.native_cut import native_off
from keilref.referee.verdict import Verdict, error_verdict

_U = TypeVar("_U")

TRIES = "keilref-tries"
"""Where the scheduler keeps, beside a task's own metadata, how many tries of
it began: Dask drops a task's metadata when it forgets the task, so the
count lives as long as the task and no longer."""

_LENGTH = 8
"""Bytes of the length before each pickle a process of its own sends back."""

_CHILD = "import pickle, sys; sys.path[:] = pickle.load(sys.stdin.buffer); import keilref.second_try as s; s.serve()"
"""What a process of its own runs: the worker's own ``sys.path`` first (a
worker may import keilref from where its ``PYTHONPATH`` does not say), then
the work."""


@contextlib.contextmanager
def this_try() -> Iterator[int]:
    """Within, the Dask task running this is on a try that the scheduler
    knows of; it is given how many earlier tries of the task began and never
    ended (their worker died): ``0`` on a first try, and outside a
    ``distributed`` worker (where no worker dies alone).

    One round trip to the scheduler on the way in, a millisecond or so
    beside a task's seconds of checking: this try is written down and the
    earlier ones read at once, before the check starts, so a worker that dies
    during the check has told the scheduler already. On the way out the try
    is marked ended without waiting: a task run again because the worker
    that held its result died is on a first try again.
    """
    task = _running_task()
    if task is None:
        # Dask's local schedulers try a task once: there is no second try to tell.
        yield 0
        return
    worker, key = task
    from distributed.utils import sync

    where, this = [key, TRIES], uuid.uuid4().hex
    try:
        tries = sync(worker.loop, _count_and_add, worker.scheduler, where, this)
    except Exception:  # noqa: BLE001
        # Only bookkeeping failed: the check itself goes on, as a first try.
        tries = 0
    try:
        yield tries
    finally:
        worker.loop.add_callback(_ended, worker.scheduler, [*where, this])


def _running_task() -> tuple[Any, Any] | None:
    """The ``distributed`` worker whose task this thread runs, and the task's key; ``None`` outside one."""
    try:
        from distributed import get_worker

        worker = get_worker()
        return worker, worker.get_current_task()
    except (ImportError, ValueError, KeyError):
        return None


async def _count_and_add(scheduler: Any, where: list[Any], this: str) -> int:
    """The tries written down at ``where`` that began and never ended, once ``this`` is written down too."""
    # Both messages go at once: whichever the scheduler reads first, the
    # count leaves this try out by its name.
    tries, _ = await asyncio.gather(
        scheduler.get_metadata(keys=where, default=None), scheduler.set_metadata(keys=[*where, this], value=True)
    )
    return sum(1 for name, running in tries.items() if running and name != this) if isinstance(tries, dict) else 0


async def _ended(scheduler: Any, where: list[Any]) -> None:
    with contextlib.suppress(Exception):
        # A scheduler gone, or a message lost, costs only a later try's speed.
        await scheduler.set_metadata(keys=where, value=False)


def checked_alone(check: Callable[[_U], list[Verdict]], units: Sequence[_U], names: Sequence[str]) -> list[Verdict]:
    """``check`` of each unit (a file, a frame's row), in order, run by the
    Python referee in processes of their own, one after another: a unit
    whose process ends abruptly gets one ``error`` verdict at 1:1 under its
    name in ``names`` (saying how the process ended, as an unreadable file
    gets one), and the units after it a new process.

    ``check`` and the units must pickle (a module-level function, or a
    :func:`functools.partial` of one, and plain data).
    """
    verdicts: list[Verdict] = []
    start = 0
    while start < len(units):
        answers, ended = _in_a_process(check, units[start:])
        for answer in answers:
            verdicts.extend(answer)
        start += len(answers)
        if start < len(units):
            name = names[start]
            lost = RecordError(wording.checked_alone_crashed(ended), 1, 1, filename=name)
            verdicts.append(error_verdict(lost, file=name, game=1))
            start += 1
    return verdicts


def _in_a_process(check: Callable[[_U], list[Verdict]], units: Sequence[_U]) -> tuple[list[list[Verdict]], int]:
    """The answers of a process of its own that ran ``check`` on ``units``
    in order, as many as it gave before it ended, and its exit status."""
    payload = pickle.dumps(sys.path, pickle.HIGHEST_PROTOCOL) + pickle.dumps((check, units), pickle.HIGHEST_PROTOCOL)
    child = subprocess.run(
        [sys.executable, "-c", _CHILD],
        input=payload,
        stdout=subprocess.PIPE,
        check=False,
    )
    return _answers(child.stdout, len(units)), child.returncode


def _answers(out: bytes, most: int) -> list[list[Verdict]]:
    """The whole answers in ``out``, a process's length-prefixed pickles;
    one it was writing when it ended is cut short, and is left out."""
    answers: list[list[Verdict]] = []
    at = 0
    while len(answers) < most and at + _LENGTH <= len(out):
        size = int.from_bytes(out[at : at + _LENGTH], "little")
        end = at + _LENGTH + size
        if end > len(out):
            break
        answers.append(pickle.loads(out[at + _LENGTH : end]))
        at = end
    return answers


def serve() -> None:
    """Runs in a process of its own: each unit checked by the Python
    referee, its verdicts sent back as soon as they are made."""
    check, units = pickle.load(sys.stdin.buffer)
    # The answers go down a pipe of their own: anything printed (by native
    # code, say) goes to standard error and cannot be taken for one.
    wire = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    with native_off():
        for unit in units:
            answer = pickle.dumps(check(unit), pickle.HIGHEST_PROTOCOL)
            wire.write(len(answer).to_bytes(_LENGTH, "little"))
            wire.write(answer)
            wire.flush()
    wire.close()
