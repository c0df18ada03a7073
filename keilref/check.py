"""Finding records on disk and checking them: paths in, verdicts out, in input order.

The main process only cuts files into games (cheap: a regex over bytes) and
hands batches of raw games to worker processes, which parse and adjudicate
them. Results come back in submission order, and at most a few batches per
worker are in flight, so memory stays flat whatever the archive's size and
the output is the same as a serial run's, byte for byte.
"""

from __future__ import annotations

import contextlib
import functools
import io
import os
import signal
import stat
import sys
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, TypeVar

from keilref.compression import RECORD_PATTERNS, compression_of, open_record_file
from keilref.errors import RecordError
from keilref.rules import find_rules
from keilref.abstract_games import MATCH_SUFFIXES, amend
from keilref.formats import iter_source, read_piece_match, split_source
from keilref.parser import GameBytes
from keilref.record import Record
from keilref.verdict import Verdict, adjudicate

STDIN = "-"
BATCH_GAMES = 250
"""Games per unit of work: large enough that process hand-offs cost little."""
BATCH_BYTES = 1 << 20
PARALLEL_THRESHOLD = 256 * 1024
"""Below this many bytes of input, one process is faster than starting more."""
IN_FLIGHT_PER_WORKER = 3
MAX_JOBS = 1024
"""The most worker processes one may ask for; more is a usage error. Within
it, a request beyond the number of cores is lowered to that number."""

_T = TypeVar("_T")


class PathError(Exception):
    """A path on the command line that names nothing to check."""


@dataclass(frozen=True)
class Source:
    """One file to read: ``name`` is how it is shown, as the user gave it."""

    name: str
    unreadable: str | None = field(default=None, kw_only=True)
    """Why this path cannot be read, when that is known before opening it."""

    def open(self) -> BinaryIO:
        if self.unreadable is not None:
            raise OSError(0, self.unreadable, self.name)
        if self.name == STDIN:
            return sys.stdin.buffer
        return open_record_file(self.name)

    def size(self) -> int | None:
        if self.name == STDIN or compression_of(self.name) is not None:
            return None  # the size of the text is not known before reading it
        try:
            return os.path.getsize(self.name)
        except OSError:
            return None


def expand_paths(
    paths: Sequence[str],
    *,
    suffix: str = ".keil",
    compressed: bool = False,
    matches: bool = True,
    on_error: Callable[[PathError], None] | None = None,
) -> list[Source]:
    """Files as given, directories searched recursively for ``*.keil``, ``-`` for stdin.

    Raises :class:`PathError` for a path that does not exist, a directory
    holding no records, or a device (``/dev/zero`` would never end): a typo
    must not pass as "nothing failed". With ``on_error``, such a path is
    handed to it instead and the others are kept. A named pipe given by name
    is read like standard input (``<(zcat archive.keil.gz)``); a directory
    search takes regular files only, and a subdirectory it cannot read
    becomes a source that reads as one error, so that it is reported, not
    skipped. With ``compressed``, directories are searched for compressed
    records too (``*.keil.gz``, ``.bz2``, ``.xz``, ``.zst``). With ``matches``
    (the default), they are searched for the matches of the abstract_games
    server too (``*.match.json``, ``*.replay.json``, ``*.moves.json``).
    """
    sources: list[Source] = []
    for given in paths:
        try:
            sources.extend(_expand_path(given, suffix, compressed, matches))
        except PathError as e:
            if on_error is None:
                raise
            on_error(e)
    return sources


def _expand_path(given: str, suffix: str, compressed: bool, matches: bool) -> list[Source]:
    if given == STDIN:
        return [Source(STDIN)]
    p = Path(given)
    try:
        is_dir, exists = p.is_dir(), p.exists()
    except OSError:
        # Not even looked into (permissions): reading it will say why.
        return [Source(given)]
    if is_dir:
        endings = tuple(p.lstrip("*") for p in RECORD_PATTERNS) if compressed and suffix == ".keil" else (suffix,)
        if matches and (suffix == ".keil" or suffix in MATCH_SUFFIXES):
            endings = tuple(dict.fromkeys(endings + MATCH_SUFFIXES))
        found = _walk(given, endings)
        if not found:
            what = "abstract_games matches" if suffix in MATCH_SUFFIXES else f"{suffix} records"
            raise PathError(f"{given}: directory holds no {what}")
        return found
    if exists:
        mode = os.stat(given).st_mode
        if not (stat.S_ISREG(mode) or stat.S_ISFIFO(mode)):
            raise PathError(f"{given}: not a regular file (a device or socket is never read)")
        return [Source(given)]
    raise PathError(f"{given}: no such file or directory")


def _walk(top: str, endings: tuple[str, ...]) -> list[Source]:
    """The regular files under ``top`` whose names end in one of ``endings``, sorted, and each
    subdirectory that cannot be read, in its place in the order."""
    found: list[Source] = []

    def unreadable(e: OSError) -> None:
        name = e.filename if isinstance(e.filename, str) else top
        found.append(Source(name, unreadable=e.strerror or str(e)))

    for root, dirs, files in os.walk(top, onerror=unreadable):
        dirs.sort()
        for name in files:
            if name.endswith(endings):
                path = os.path.join(root, name)
                try:
                    regular = stat.S_ISREG(os.stat(path).st_mode)
                except OSError as e:
                    found.append(Source(path, unreadable=e.strerror or str(e)))
                    continue
                if regular:
                    found.append(Source(path))
    return sorted(found, key=lambda s: s.name)


def _unreadable(source: Source, e: OSError) -> RecordError:
    what = "directory" if source.unreadable is not None and os.path.isdir(source.name) else "file"
    return RecordError(f"cannot read {what}: {e.strerror or e}", 1, 1, filename=source.name)


def read_source(source: Source) -> Iterator[Record | RecordError]:
    """The games of one source; an unreadable file gives one error."""
    try:
        stream = source.open()
    except OSError as e:
        yield _unreadable(source, e)
        return
    try:
        yield from iter_source(stream, source.name)
    except OSError as e:
        yield _unreadable(source, e)
    finally:
        if source.name != STDIN:
            stream.close()


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


def _batches(sources: Sequence[Source]) -> Iterator[Batch]:
    for source in sources:
        index = 1
        games: list[GameBytes] = []
        nbytes = 0
        try:
            stream = source.open()
        except OSError as e:
            yield Batch(source.name, index, (), 0, _unreadable(source, e))
            continue
        try:
            for piece in split_source(stream, source.name):
                games.append(piece)
                nbytes += len(piece.data)
                if len(games) >= BATCH_GAMES or nbytes >= BATCH_BYTES:
                    yield Batch(source.name, index, tuple(games), nbytes)
                    index += sum(1 for g in games if g.counts)
                    games, nbytes = [], 0
        except OSError as e:
            if games:
                yield Batch(source.name, index, tuple(games), nbytes)
                index += sum(1 for g in games if g.counts)
            yield Batch(source.name, index, (), 0, _unreadable(source, e))
            continue
        finally:
            if source.name != STDIN:
                stream.close()
        if games:
            yield Batch(source.name, index, tuple(games), nbytes)


def check_batch(batch: Batch, rules: str | None) -> list[Verdict]:
    """Parse and adjudicate one batch. Runs in a worker process, or inline."""
    return [verdict for _, _, verdict in checked_games(batch, rules)]


def checked_games(
    batch: Batch, rules: str | None
) -> Iterator[tuple[GameBytes | None, Record | None, Verdict]]:
    """Each game of a batch: its bytes, its record (``None`` when it cannot be
    read) and its verdict. For work that needs more of a game than its verdict."""
    if batch.failure is not None:
        yield None, None, adjudicate(batch.failure, file=batch.file, game=batch.first_game)
        return
    index = batch.first_game
    for piece in batch.games:
        item, match = read_piece_match(piece, batch.file)
        if item is None:
            continue
        try:
            verdict = adjudicate(item, file=batch.file, game=index, rules=rules, line=piece.first_line)
            if match is not None:
                verdict = amend(verdict, match)
        except Exception as e:  # noqa: BLE001
            # A referee bug must cost one game its verdict, never the others theirs.
            fault = RecordError(f"internal error while checking this game: {type(e).__name__}: {e}", piece.first_line, 1)
            verdict = adjudicate(fault, file=batch.file, game=index, line=piece.first_line)
        yield piece, item if isinstance(item, Record) else None, verdict
        index += 1


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


def map_batches(
    sources: Sequence[Source],
    work: Callable[[Batch], _T],
    *,
    jobs: int = 1,
    on_progress: Callable[[int], None] | None = None,
    parallel_threshold: int = PARALLEL_THRESHOLD,
    executor: Executor | None = None,
) -> Iterator[tuple[Batch, _T]]:
    """``work`` done on every batch of the sources, each batch with its result,
    in input order, using up to ``jobs`` processes as :func:`check_sources` does.

    ``work`` runs in worker processes, so it must be picklable: a module-level
    function, or a :func:`functools.partial` of one.
    """
    sizes = [s.size() for s in sources]
    known = sum(s for s in sizes if s is not None)
    if executor is None and (jobs <= 1 or (None not in sizes and known < parallel_threshold)):
        for batch in _batches(sources):
            yield batch, work(batch)
            if on_progress is not None:
                on_progress(batch.nbytes)
        return
    window = max(jobs, 1) * IN_FLIGHT_PER_WORKER
    # A given executor belongs to the caller: it is used, not shut down.
    owned: contextlib.AbstractContextManager[Executor] = (
        ProcessPoolExecutor(max_workers=jobs, initializer=_leave_interrupts_to_the_parent)
        if executor is None
        else contextlib.nullcontext(executor)
    )
    with owned as pool:
        pending: deque[tuple[Future[_T], Batch]] = deque()
        try:
            for batch in _batches(sources):
                pending.append((pool.submit(work, batch), batch))
                while len(pending) >= window:
                    yield _collect(pending, on_progress)
            while pending:
                yield _collect(pending, on_progress)
        except KeyboardInterrupt:
            # Ctrl-C: the batches in flight are no longer wanted, and
            # finishing them could take seconds.
            _cancel(pending)
            if isinstance(pool, ProcessPoolExecutor) and executor is None:
                _stop_now(pool)
            raise
        except BaseException:
            # A reader that stopped reading: let the running batches end
            # (a worker stopped mid-reply would leave the pool unjoinable).
            _cancel(pending)
            raise


def _cancel(pending: deque[tuple[Future[_T], Batch]]) -> None:
    for future, _ in pending:
        future.cancel()


def _leave_interrupts_to_the_parent() -> None:
    """In a worker: Ctrl-C reaches the whole process group, and the parent
    decides; a worker interrupted on its own would print a traceback."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


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
) -> tuple[Batch, _T]:
    future, batch = pending.popleft()
    result = future.result()
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
    """
    if rules is not None:
        find_rules(rules)
    return list(check_sources([Source(os.fspath(path))], rules=rules, jobs=1))


def check_text(text: str | bytes, rules: str | None = None, *, filename: str = STDIN) -> list[Verdict]:
    """Every game's verdict in ``text``, the contents of a record file.

    ``filename`` is what the verdicts name as their file (standard input's
    ``-`` by default). Bytes are read as a file's bytes are, so text that is
    not valid UTF-8 gets the same error as on disk. Picklable and pure, like
    :func:`check_file`.
    """
    if rules is not None:
        find_rules(rules)
    data = text if isinstance(text, bytes) else text.encode("utf-8", "surrogatepass")
    games = tuple(split_source(io.BytesIO(data), filename))
    return check_batch(Batch(filename, 1, games, len(data)), rules)


def default_jobs() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1
