"""Checking archives: sources in, verdicts out, in input order.

The main process only cuts files into games (cheap: a regex over bytes) and
hands batches of raw games to worker processes, which parse and adjudicate
them. Results come back in submission order, and at most a few batches per
worker are in flight, so memory stays flat whatever the archive's size and
the output is the same as a serial run's, byte for byte.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import gc
import io
import multiprocessing
import os
import select
import signal
import sys
import threading
import time
import weakref
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any, NoReturn, TextIO, TypeVar

from keilref import wording
from keilref.errors import RecordError, wrong_type
from keilref.escaping import shown_name
from keilref.files import unreadable
from keilref.engine.rules import find_rules
from keilref.records.native_cut import CutRun, native_off
from keilref.records.parser import GameBytes
from keilref.records.record import Record
from keilref.referee.verdict import Verdict, adjudicate
from keilref.records.sources import STDIN, Source, unreadable_error
from keilref.records.sniffing import read_piece_match, split_source, split_source_runs
from keilref.referee.matches import amend
from keilref.referee.native import Facts, facts_of, native_judge, verdict_of
from keilref.referee.shapes import FileShapes, group_shapes

BATCH_GAMES = 250
"""Games per unit of work: large enough that process hand-offs cost little."""
BATCH_BYTES = 1 << 20
PARALLEL_THRESHOLD = 256 * 1024
"""Below this many bytes of input, one process is faster than starting more."""
IN_FLIGHT_PER_WORKER = 3
MAX_JOBS = 1024
"""The most worker processes one may ask for; more is a usage error. Within
it, a request beyond the number of cores is lowered to that number."""
PARENT_POLL_SECONDS = 0.2
"""How often a worker that cannot ask the kernel to end it with its parent
looks whether its parent is still there."""

_T = TypeVar("_T")


@dataclass(frozen=True)
class Batch:
    """Consecutive games of one file, as raw bytes: the unit of work."""

    file: str
    first_game: int
    """The 1-based index in its file of the first game here."""
    games: tuple[GameBytes, ...]
    nbytes: int
    failure: RecordError | None = None
    """Set instead of ``games`` when the file could not be read."""
    rules: str | None = None
    """The source's own rule set (a project setting), used when the check names none."""
    shapes: FileShapes | None = None
    """Which of its games are shapes of a match judged elsewhere (see
    :mod:`keilref.referee.shapes`); ``None``: every game is its own."""
    run: CutRun | None = None
    """Set instead of ``games``: games as the native cut found them, made
    into games by the worker (so the main process only passes bytes on)."""
    parts: tuple[Batch, ...] = ()
    """Set instead of ``games``: consecutive rows of a table (``--column``),
    each a batch of its own file, sent as one unit of work (a row often
    holds one game, too few to be worth a hand-off)."""

    def pieces(self) -> Sequence[GameBytes]:
        """The batch's games."""
        return self.games if self.run is None else self.run.pieces()


def cut_batches(sources: Sequence[Source], *, runs: bool = False) -> Iterator[Batch]:
    """The sources cut into batches of games, in input order (``runs``: see :func:`map_batches`)."""
    shapes = group_shapes(sources)
    for number, source in enumerate(sources):
        if source.column is not None and source.row is None:
            yield from _row_batches(source)
            continue
        mine = shapes.of(number)
        index = 1
        games: list[GameBytes] = []
        nbytes = 0
        try:
            with source.reading() as stream:
                for piece in split_source_runs(stream, source.name, runs=runs and mine is None):
                    if isinstance(piece, CutRun):
                        if games:
                            yield Batch(source.name, index, tuple(games), nbytes, rules=source.rules)
                            index += sum(1 for g in games if g.counts)
                            games, nbytes = [], 0
                        yield Batch(source.name, index, (), len(piece.data), rules=source.rules, run=piece)
                        index += piece.games
                        continue
                    games.append(piece)
                    nbytes += len(piece.data)
                    if len(games) >= BATCH_GAMES or nbytes >= BATCH_BYTES:
                        yield Batch(source.name, index, tuple(games), nbytes, rules=source.rules, shapes=mine)
                        index += sum(1 for g in games if g.counts)
                        games, nbytes = [], 0
        except OSError as e:
            # Not opened (no games yet), or failed part way: the games read so far, then why.
            if games:
                yield Batch(source.name, index, tuple(games), nbytes, rules=source.rules, shapes=mine)
                index += sum(1 for g in games if g.counts)
            yield Batch(source.name, index, (), 0, unreadable_error(source, e))
            continue
        if games:
            yield Batch(source.name, index, tuple(games), nbytes, rules=source.rules, shapes=mine)


def _row_batches(source: Source) -> Iterator[Batch]:
    """A table's rows, each cut as a file of its own, grouped into batches of
    about :data:`BATCH_GAMES` games; a fault of the whole table after them."""
    rows: list[Batch] = []
    games = nbytes = 0
    try:
        for name, text in source.rows():
            if isinstance(text, RecordError):
                rows.append(Batch(name, 1, (), 0, text))
                games += 1
            else:
                pieces = tuple(split_source(io.BytesIO(text), name))
                rows.append(Batch(name, 1, pieces, len(text), rules=source.rules))
                games += len(pieces)
                nbytes += len(text)
            if games >= BATCH_GAMES or nbytes >= BATCH_BYTES:
                yield Batch(rows[0].file, 1, (), nbytes, rules=source.rules, parts=tuple(rows))
                rows, games, nbytes = [], 0, 0
    except OSError as e:
        if rows:
            yield Batch(rows[0].file, 1, (), nbytes, rules=source.rules, parts=tuple(rows))
        yield Batch(source.name, 1, (), 0, unreadable_error(source, e))
        return
    if rows:
        yield Batch(rows[0].file, 1, (), nbytes, rules=source.rules, parts=tuple(rows))


def check_batch(batch: Batch, rules: str | None) -> list[Verdict]:
    """Parse and adjudicate one batch. Runs in a worker process, or inline."""
    return _judged(
        batch, rules, lambda facts, piece, index, file: verdict_of(facts, piece, file=file, game=index), lambda v: v
    )


def _judged(
    batch: Batch,
    rules: str | None,
    of_facts: Callable[[Facts, GameBytes, int, str], _T],
    of_verdict: Callable[[Verdict], _T],
) -> list[_T]:
    """What ``of_verdict`` makes of each game's verdict in a batch, in order;
    for a game the native path certified (see :mod:`keilref.referee.native`),
    what ``of_facts`` makes of its facts, bytes, index and file instead."""
    if batch.parts:
        return [item for part in batch.parts for item in _judged(part, rules, of_facts, of_verdict)]
    judge = native_judge(rules if rules is not None else batch.rules)
    if judge is None or batch.shapes is not None or batch.failure is not None:
        return [of_verdict(verdict) for _, _, verdict in checked_games(batch, rules)]
    out: list[_T] = []
    index = batch.first_game
    for piece in batch.pieces():
        facts = facts_of(judge, piece)
        if facts is not None:
            out.append(of_facts(facts, piece, index, batch.file))
            index += 1
            continue
        judged = _checked_piece(batch, piece, index, rules)
        if judged is not None:
            out.append(of_verdict(judged[1]))
            index += 1
    return out


def checked_games(
    batch: Batch, rules: str | None
) -> Iterator[tuple[GameBytes | None, Record | None, Verdict]]:
    """Each game of a batch: its bytes, its record (``None`` when it cannot be
    read) and its verdict. For work that needs more of a game than its verdict."""
    for part in batch.parts:
        yield from checked_games(part, rules)
    if batch.parts:
        return
    if batch.failure is not None:
        yield None, None, adjudicate(batch.failure, file=batch.file, game=batch.first_game)
        return
    index = batch.first_game
    shapes = batch.shapes
    for piece in batch.pieces():
        if shapes is not None and index in shapes.also:
            if read_piece_match(piece, batch.file)[0] is not None:
                index += 1
            continue
        judged = _checked_piece(batch, piece, index, rules)
        if judged is not None:
            yield piece, *judged
            index += 1


def _checked_piece(
    batch: Batch, piece: GameBytes, index: int, rules: str | None
) -> tuple[Record | None, Verdict] | None:
    """One cut game of a batch read and judged by the Python referee (``None``
    for blank space between games); the game's index is ``index``."""
    item, match = read_piece_match(piece, batch.file)
    if item is None:
        return None
    if rules is None:
        rules = batch.rules
    disagrees = None if batch.shapes is None else batch.shapes.error_for(index)
    if disagrees is not None:
        item, match = RecordError(disagrees, piece.first_line, 1, None, batch.file), None
    try:
        verdict = adjudicate(item, file=batch.file, game=index, rules=rules, line=piece.first_line)
        if match is not None:
            verdict = amend(verdict, match)
    except Exception as e:  # noqa: BLE001
        # A referee bug must cost one game its verdict, never the others theirs.
        fault = RecordError(wording.internal_error("checking", e), piece.first_line, 1)
        verdict = adjudicate(fault, file=batch.file, game=index, line=piece.first_line)
    return (item if isinstance(item, Record) else None), verdict


def check_sources(
    sources: Sequence[Source],
    *,
    rules: str | None = None,
    jobs: int = 1,
    on_progress: Callable[[int], None] | None = None,
    parallel_threshold: int = PARALLEL_THRESHOLD,
    executor: Executor | None = None,
) -> Iterator[Verdict]:
    """Every game's verdict, in input order, using up to ``jobs`` processes.

    ``on_progress`` is called with the number of input bytes each finished
    batch covered. Small inputs are checked in this process whatever
    ``jobs`` says: the answer is the same, only sooner. With an
    ``executor`` (such as a Dask cluster's), batches always go to it, and
    ``jobs`` says how many workers it has.
    """
    work = functools.partial(check_batch, rules=rules)
    for _, verdicts in map_batches(
        sources,
        work,
        jobs=jobs,
        on_progress=on_progress,
        parallel_threshold=parallel_threshold,
        executor=executor,
    ):
        yield from verdicts


def judged_sources(
    sources: Sequence[Source],
    each: Callable[[Verdict], _T],
    *,
    rules: str | None = None,
    jobs: int = 1,
    on_progress: Callable[[int], None] | None = None,
    parallel_threshold: int = PARALLEL_THRESHOLD,
) -> Iterator[_T]:
    """:func:`check_sources`, with ``each`` applied to every verdict in the
    process that judged it (a writer's text, made in the worker), in input order.

    ``each`` must be picklable, like ``work`` of :func:`map_batches`.
    """
    for items in judged_batches(
        sources, each, rules=rules, jobs=jobs, on_progress=on_progress, parallel_threshold=parallel_threshold
    ):
        yield from items


def judged_batches(
    sources: Sequence[Source],
    each: Callable[[Verdict], _T],
    *,
    rules: str | None = None,
    jobs: int = 1,
    on_progress: Callable[[int], None] | None = None,
    parallel_threshold: int = PARALLEL_THRESHOLD,
    on_crash: Callable[[str], None] | None = None,
) -> Iterator[list[_T]]:
    """:func:`judged_sources` a batch at a time: what ``each`` made of each
    verdict of a batch, in input order, as one list (a writer takes a batch
    at once). ``on_crash`` is told, in words, of each batch a worker died
    with (checked again here, see :func:`map_batches`)."""
    work = functools.partial(judged_batch, rules=rules, each=each)
    crashed: set[int] = set()
    for batch, items in map_batches(
        sources,
        work,
        jobs=jobs,
        on_progress=on_progress,
        parallel_threshold=parallel_threshold,
        on_crash=lambda lost: crashed.add(id(lost)),
        runs=True,
    ):
        if id(batch) in crashed:
            crashed.discard(id(batch))
            if on_crash is not None:
                on_crash(wording.worker_crashed(shown_name(batch.file), batch.first_game, len(items)))
        yield items


def judged_batch(batch: Batch, *, rules: str | None, each: Callable[[Verdict], _T]) -> list[_T]:
    """What ``each`` makes of each verdict of one batch, in order (a natively
    judged game's text straight from its facts when ``each`` can)."""
    rendered: Callable[[Facts, GameBytes, str, int], _T] | None = getattr(each, "of_facts", None)
    if rendered is None:
        items = [each(v) for v in check_batch(batch, rules)]
    else:
        items = _judged(batch, rules, lambda facts, piece, index, file: rendered(facts, piece, file, index), each)
    # A writer's share of the batch as a whole is made here, where the batch was judged.
    whole: Callable[[list[_T]], list[_T]] | None = getattr(each, "of_batch", None)
    return items if whole is None else whole(items)


def map_batches(
    sources: Sequence[Source],
    work: Callable[[Batch], _T],
    *,
    jobs: int = 1,
    on_progress: Callable[[int], None] | None = None,
    parallel_threshold: int = PARALLEL_THRESHOLD,
    executor: Executor | None = None,
    on_crash: Callable[[Batch], None] | None = None,
    runs: bool = False,
) -> Iterator[tuple[Batch, _T]]:
    """``work`` done on every batch of the sources, each batch with its result,
    in input order, using up to ``jobs`` processes as :func:`check_sources` does.

    ``work`` runs in worker processes, so it must be picklable: a module-level
    function, or a :func:`functools.partial` of one. A batch whose worker
    died is worked here instead, by Python alone (no native code), and
    ``on_crash`` is told of it; no batch is lost and none is waited for in vain.
    With ``runs``, games the native code cut are handed on as the bytes they
    are (:attr:`Batch.run`), for ``work`` to read through :meth:`Batch.pieces`.
    """
    sizes = [s.size() for s in sources]
    known = sum(s for s in sizes if s is not None)
    if executor is None and (jobs <= 1 or (None not in sizes and known < parallel_threshold)):
        for batch in cut_batches(sources, runs=runs):
            yield batch, work(batch)
            if on_progress is not None:
                on_progress(batch.nbytes)
        return
    window = max(jobs, 1) * IN_FLIGHT_PER_WORKER
    # A given executor belongs to the caller: it is used, not shut down.
    own = _Workers(jobs) if executor is None else None
    pending: deque[tuple[Future[_T], Batch]] = deque()

    def again(batch: Batch, future: Future[_T]) -> _T:
        # A worker died with this batch in flight (native code crashed, the
        # memory killer): the pool is lost, so the batch is checked here,
        # by Python alone, and the next batches go to new workers.
        assert own is not None
        own.lost(future)
        with native_off():
            result = work(batch)
        if on_crash is not None:
            on_crash(batch)
        return result

    try:
        for batch in cut_batches(sources, runs=runs):
            if own is not None:
                future = own.submit(work, batch)
            else:
                assert executor is not None
                future = executor.submit(work, batch)
            pending.append((future, batch))
            while len(pending) >= window:
                yield _collect(pending, on_progress, again if own is not None else None)
        while pending:
            yield _collect(pending, on_progress, again if own is not None else None)
    except KeyboardInterrupt:
        # Ctrl-C: the batches in flight are no longer wanted, and
        # finishing them could take seconds.
        _cancel(pending)
        if own is not None:
            own.stop_now()
        raise
    except BaseException:
        # A reader that stopped reading: let the running batches end
        # (a worker stopped mid-reply would leave the pool unjoinable).
        _cancel(pending)
        raise
    finally:
        if own is not None:
            own.close()


class _Workers:
    """A check's own worker processes: started at the first batch, and again
    after one of them died (the batches then in flight are lost with them)."""

    def __init__(self, jobs: int) -> None:
        self.jobs = jobs
        self.broken = False
        """Set when a worker died: the next batch starts new workers."""
        self._pool: ProcessPoolExecutor | None = None
        self._current: weakref.WeakSet[Future[Any]] = weakref.WeakSet()
        """The futures of the workers now running."""

    def pool(self) -> ProcessPoolExecutor:
        if self._pool is not None and self.broken:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
        if self._pool is None:
            self.broken = False
            self._current = weakref.WeakSet()
            self._pool = ProcessPoolExecutor(
                max_workers=self.jobs,
                initializer=_start_worker,
                # The workers are started by this thread (at the first submit).
                initargs=(os.getpid(), threading.current_thread() is threading.main_thread()),
            )
        return self._pool

    def submit(self, work: Callable[[Batch], _T], batch: Batch) -> Future[_T]:
        try:
            future = self.pool().submit(work, batch)
        except BrokenProcessPool:
            # A worker died before its batch was collected: start anew.
            self.broken = True
            future = self.pool().submit(work, batch)
        self._current.add(future)
        return future

    def lost(self, future: Future[Any]) -> None:
        """A batch's worker died: new workers for the next batches, unless
        the batch was sent to workers that were already replaced."""
        if future in self._current:
            self.broken = True

    def stop_now(self) -> None:
        if self._pool is not None:
            _stop_now(self._pool)
            self._pool = None

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=not self.broken)
            self._pool = None


def _cancel(pending: deque[tuple[Future[_T], Batch]]) -> None:
    for future, _ in pending:
        future.cancel()


def _leave_interrupts_to_the_parent() -> None:
    """In a worker: Ctrl-C reaches the whole process group, and the parent
    decides; a worker interrupted on its own would print a traceback."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@contextlib.contextmanager
def collection_paused() -> Iterator[None]:
    """No cyclic garbage collection inside the block, the collector as it
    was after it. For work that makes many objects and no cycles beside
    many kept ones: each collection it set off would walk everything kept."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def _start_worker(parent: int, forked_by_main_thread: bool) -> None:
    gc.freeze()  # as the command line does: what a worker inherited or imported stays
    _leave_interrupts_to_the_parent()
    _die_with_parent(parent, forked_by_main_thread)


def _die_with_parent(parent: int, forked_by_main_thread: bool) -> None:
    """In a worker: end when the process it works for (``parent``) ends.

    A parent killed outright (SIGKILL, the OOM killer) cannot stop its
    workers, which would run on to the end of their batches with nobody to
    read their results, holding the parent's output open. On Linux the
    kernel kills the worker (PR_SET_PDEATHSIG) when the parent's main thread
    forked it; any other worker (started by a fork server, as on Python
    3.14, or by another thread) has a thread wait on a descriptor of the
    parent's process (a pidfd), which the kernel wakes as the parent ends,
    whether or not anyone has reaped it yet. Without pidfds (not Linux) a
    thread of the worker looks for its parent every :data:`PARENT_POLL_SECONDS`.
    """
    if os.getppid() != parent:
        # Not the parent's own child: started by a fork server (Python 3.14's
        # default on Linux), or the parent is already gone.
        if _wait_for_end(parent):
            return
        if not _alive(parent):
            os._exit(1)
        _watch(lambda: _alive(parent))
        return
    # The kernel's signal comes when the *thread* that forked the worker
    # ends, not its process: only the main thread lasts as long as that.
    if forked_by_main_thread and _kill_on_parent_death():
        if os.getppid() != parent:  # it died before the request was made
            os._exit(1)
        return
    if _wait_for_end(parent):
        if os.getppid() != parent:  # it died before the wait began
            os._exit(1)
        return
    _watch(lambda: os.getppid() == parent)


def _kill_on_parent_death() -> bool:
    """Ask the kernel for SIGKILL when this process's parent ends; ``False``
    where that cannot be asked (not Linux)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        pr_set_pdeathsig = 1
        return bool(libc.prctl(pr_set_pdeathsig, signal.SIGKILL, 0, 0, 0) == 0)
    except (OSError, AttributeError):
        return False


def _wait_for_end(pid: int) -> bool:
    """End this process as soon as process ``pid`` ends, from a thread that
    sleeps in the kernel until then; ``False`` where that cannot be asked
    (no pidfd: not Linux, or a kernel before 5.3).

    Asking whether ``pid`` is alive would take a parent killed but not yet
    reaped (a zombie) for a live one, and its workers would run on for as
    long as nobody reaped it.
    """
    pidfd_open = getattr(os, "pidfd_open", None)
    if pidfd_open is None:
        return False
    try:
        fd: int = pidfd_open(pid)
    except ProcessLookupError:
        os._exit(1)
    except OSError:
        return False

    def wait() -> None:
        poller = select.poll()
        poller.register(fd, select.POLLIN)
        while not poller.poll():
            pass
        os._exit(1)

    threading.Thread(target=wait, name="keilref-parent-watch", daemon=True).start()
    return True


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # there, but not ours to signal
    return True


def _watch(parent_there: Callable[[], bool]) -> None:
    def watch() -> None:
        while parent_there():
            time.sleep(PARENT_POLL_SECONDS)
        os._exit(1)

    threading.Thread(target=watch, name="keilref-parent-watch", daemon=True).start()


def _stop_now(pool: ProcessPoolExecutor) -> None:
    # The executor has no public way to stop a running call. A worker ended
    # while it writes its reply leaves the pool's reader thread waiting for
    # the rest for ever, so the process must then leave without joining it:
    # the command line does (os._exit); Ctrl-C is the end of the run.
    workers = list((pool._processes or {}).values())
    for process in workers:
        process.terminate()
    pool.shutdown(wait=False, cancel_futures=True)


def _collect(
    pending: deque[tuple[Future[_T], Batch]],
    on_progress: Callable[[int], None] | None,
    again: Callable[[Batch, Future[_T]], _T] | None = None,
) -> tuple[Batch, _T]:
    future, batch = pending.popleft()
    try:
        result = future.result()
    except BrokenProcessPool:
        if again is None:
            raise
        result = again(batch, future)
    if on_progress is not None:
        on_progress(batch.nbytes)
    return batch, result


def bounded_jobs(requested: int | None) -> tuple[int, str | None]:
    """The worker count to use for ``requested`` (``None``: all cores), and a
    note when the request was lowered to the number of cores."""
    cores = default_jobs()
    if requested is None:
        return cores, None
    if requested > cores:
        return cores, f"--jobs {requested} is more than the {cores} cores here: using {cores}"
    return requested, None


def check_file(path: str | os.PathLike[str], rules: str | None = None) -> list[Verdict]:
    """Every game's verdict in one record file, in order, as ``keilref check FILE`` gives them.

    A module-level function of plain arguments, so it pickles and can be
    mapped over many files by a process pool or a cluster. It has no side
    effects, and bad input never raises: a game that cannot be read gets an
    ``error`` verdict, and so does a file that cannot be read (one, at 1:1).
    ``rules`` replays every game under that rule set, as ``--rules`` does;
    an unknown name raises :class:`~keilref.errors.ConfigError`.

    Only a regular file is read: a device, a socket or a named pipe gets
    the ``error`` verdict at once, without being opened (a named pipe would
    wait for a writer; read its stream with :func:`check_text` instead).
    Raises ``TypeError`` for a ``path`` that is not a ``str`` or
    :class:`os.PathLike` of one, or a ``rules`` that is not a ``str``.
    """
    name = os.fspath(path) if isinstance(path, (str, os.PathLike)) else path
    if not isinstance(name, str):
        raise wrong_type("check_file's path", path, "a str or os.PathLike naming a file")
    if rules is not None:
        find_rules(rules)
    source = Source(name, unreadable=unreadable(name))
    return list(check_sources([source], rules=rules, jobs=1))


def check_text(text: str | bytes | bytearray | memoryview, rules: str | None = None, *, filename: str = STDIN) -> list[Verdict]:
    """Every game's verdict in ``text``, the contents of a record file.

    ``filename`` is what the verdicts name as their file (standard input's
    ``-`` by default). Bytes (or a ``bytearray`` or ``memoryview``) are read
    as a file's bytes are, so text that is not valid UTF-8 gets the same
    error as on disk. Picklable and pure, like :func:`check_file`. Raises
    ``TypeError`` for a ``text``, ``rules`` or ``filename`` of another type,
    and :class:`~keilref.errors.ConfigError` for an unknown ``rules``.
    """
    if not isinstance(text, (str, bytes, bytearray, memoryview)):
        raise wrong_type("check_text's text", text, "a str, or bytes, bytearray or memoryview")
    if not isinstance(filename, str):
        raise wrong_type("check_text's filename", filename, "a str")
    if rules is not None:
        find_rules(rules)
    data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else bytes(text)
    games = tuple(split_source(io.BytesIO(data), filename))
    return check_batch(Batch(filename, 1, games, len(data)), rules)


def default_jobs() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def abandon_workers(code: int, *streams: TextIO) -> NoReturn:
    """End this process at once after an interrupted check, with exit ``code``.

    Worker processes stopped mid-batch leave the pool's threads unjoinable,
    and a normal exit would wait for them for ever; workers still waiting for
    a batch would outlive this process and hold its output open. So every
    worker is killed, ``streams`` are flushed, and the process leaves
    without running the interpreter's exit.
    """
    for child in multiprocessing.active_children():
        child.kill()
    for stream in streams:
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(code)
