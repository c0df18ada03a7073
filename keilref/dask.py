"""Checking on a Dask cluster: archives beyond what one machine checks in a coffee break.

Three ways in, all giving exactly the verdicts of a local run:

* :func:`check_bag` is the library's: a ``dask.bag`` of verdicts, the files
  spread over partitions as Dask recommends for many files
  (``from_sequence(paths)``), each file checked whole, so no game is ever
  split between partitions. The workers read the files themselves: the
  paths must name the same files on every worker (a shared file system).
* :func:`check_dataframe` is the same as a Dask DataFrame in the verdict
  table's schema (:mod:`keilref.arrow`), from paths or from a frame whose
  column holds record text; its ``to_parquet`` has every worker write its
  own partitions.
* :func:`judged_on_cluster` is what ``keilref check --scheduler ADDRESS``
  runs: this process cuts the files into batches of games, exactly as a
  local ``--jobs`` run does, and the cluster's workers parse and judge them
  and make each verdict into the output's text, as ``--jobs`` workers do.
  The workers need no access to the files, large files are spread too, and
  the text comes back in input order as it is ready.

What a worker sends back goes as one pickle a task (:class:`_Whole`), and
a task is large enough that Dask's own cost per task is small beside it:
that is the difference between a cluster at the speed of ``--jobs`` and one
at a third of it.

Needs the ``dask`` extra (``pip install 'keilref[dask]'``) here and on
every worker.
"""

# This module is keilref.dask; the imports below are absolute, so "dask"
# always means the Dask package, never this module.
from __future__ import annotations

import contextlib
import functools
import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import dask.bag as db
from dask.bag.core import finalize as bag_finalize
from distributed import Client, KilledWorker
from distributed.comm.addressing import parse_address, parse_host_port

from keilref import wording
from keilref.records.native_cut import native_off
from keilref.records.remote import is_url
from keilref.referee.batches import Batch, check_file, collection_paused, cut_batches, judged_batch
from keilref.records.sources import STDIN, PathError, Source, expand_paths
from keilref.errors import wrong_type
from keilref.escaping import shown_name
from keilref.files import bad_name as _bad_name
from keilref.engine.rules import find_rules
from keilref.referee.verdict import Verdict
from keilref.second_try import checked_alone, this_try

WAIT_FOR_WORKERS = 30.0
"""Seconds to wait for a first worker when the scheduler has none."""

if TYPE_CHECKING:
    # The dataframe machinery (pandas, pyarrow) is check_dataframe's alone: imported when it is called.
    import dask.dataframe as dd
    import pandas as pd

_GLOB_CHARACTERS = frozenset("*?[")
_T = TypeVar("_T")


class ClusterError(Exception):
    """The cluster cannot be reached, has no workers, or failed during a check."""


def find_files(paths_or_glob: str | os.PathLike[str] | Iterable[str | os.PathLike[str]]) -> list[str]:
    """The record files to check, sorted as ``keilref check`` would take them.

    A string with ``*``, ``?`` or ``[`` is a glob pattern (``**`` reaches into
    subdirectories); other paths are files, or directories (and URL
    prefixes) searched for ``*.keil`` and compressed records (``*.keil.gz``,
    ``.bz2``, ``.xz``, ``.zst``), as ``keilref check`` searches them. Like a
    directory search, a pattern follows no symbolic link below its fixed start: a match that is a link, or lies under a linked
    directory, is left out. Raises :class:`~keilref.referee.batches.PathError`
    when nothing is found, or for a path that cannot be a file's name, and
    ``TypeError`` unless given a path (``str`` or :class:`os.PathLike`) or an
    iterable of them.
    """
    if isinstance(paths_or_glob, (str, os.PathLike)):
        given = _path(paths_or_glob)
        if _GLOB_CHARACTERS & set(given) and not is_url(given):
            import glob

            fixed = len(_fixed_start(given))
            files = [
                f
                for f in sorted(glob.glob(given, recursive=True))
                if os.path.isfile(f) and not _through_a_link(f, fixed)
            ]
            if not files:
                raise PathError(f"{shown_name(given)}: no file matches")
            return files
        paths = [given]
    elif isinstance(paths_or_glob, Iterable) and not isinstance(paths_or_glob, (bytes, bytearray)):
        paths = [_path(p) for p in paths_or_glob]
    else:
        raise wrong_type("the files to check", paths_or_glob, _PATHS)
    for name in paths:
        bad = _bad_name(name)
        if bad is not None:
            raise PathError(f"{name!r}: {bad}")
    if STDIN in paths:
        raise PathError("standard input cannot be read by a cluster's workers; give files")
    return [s.name for s in expand_paths(paths, compressed=True)]


_PATHS = "a path (str or os.PathLike), a glob pattern (str) or an iterable of paths"


def _path(given: object) -> str:
    name = os.fspath(given) if isinstance(given, (str, os.PathLike)) else given
    if not isinstance(name, str):
        raise wrong_type("each file to check", given, _PATHS)
    return name


def _fixed_start(pattern: str) -> tuple[str, ...]:
    """The leading components of ``pattern`` that hold no glob character."""
    parts = Path(pattern).parts
    for i, part in enumerate(parts):
        if _GLOB_CHARACTERS & set(part):
            return parts[:i]
    return parts


def _through_a_link(match: str, fixed: int) -> bool:
    """Whether ``match`` is, or lies under, a symbolic link past its first ``fixed`` components."""
    parts = Path(match).parts
    return any(os.path.islink(os.path.join(*parts[: i + 1])) for i in range(fixed, len(parts)))


def check_located(item: tuple[str, str], rules: str | None = None) -> list[Verdict]:
    """:func:`~keilref.referee.batches.check_file` on ``item[0]``, the verdicts naming the file ``item[1]``.

    Workers may run in another directory: they read the absolute path, and
    the verdicts name the file as the user gave it, as a local run does.
    """
    path, name = item
    return [v if v.file == name else replace(v, file=name) for v in check_file(path, rules)]


def check_bag(
    paths_or_glob: str | os.PathLike[str] | Iterable[str | os.PathLike[str]],
    rules: str | None = None,
    *,
    npartitions: int | None = None,
) -> db.Bag:
    """A ``dask.bag`` of every game's :class:`~keilref.referee.verdict.Verdict`, files in order.

    Nothing runs until the bag is computed, on whatever scheduler is in use
    (a :class:`distributed.Client` once one is made). Each file is checked
    whole by one task, so a bag's element order is a local run's order.
    ``npartitions`` is passed to :func:`dask.bag.from_sequence` (by default
    one file per partition up to 100 files, then 100 partitions). A path may
    be an fsspec URL (``s3://bucket/games/``, ``https://...``; the
    ``keilref[remote]`` extra on the workers): each worker reads its objects
    from where they are, and one it cannot reach is its ``error`` verdict.

    Raises :class:`~keilref.referee.batches.PathError` when a path names nothing to
    check (as :func:`find_files` does), :class:`~keilref.ConfigError` for
    unknown ``rules``, ``ValueError`` for an ``npartitions`` below 1 and
    ``TypeError`` for an argument of the wrong type. A file that cannot be
    read gets an ``error`` verdict, as in :func:`~keilref.check_file`.

    A partition whose worker died (a crash in native code, the memory
    killer) is checked again, on Dask's next try, by the Python referee, a
    file at a time in processes of their own: a file that ends even that
    process gets one ``error`` verdict at 1:1 saying so, and no game is lost
    (see :mod:`keilref.second_try`).
    """
    items = _files_to_check(paths_or_glob, rules, npartitions)
    bag = db.from_sequence(items, npartitions=npartitions).map_partitions(_checked_files, rules=rules)
    return _Bag(bag.dask, bag.name, bag.npartitions)


class _Bag(db.Bag):
    """A bag whose computed elements come to the client as one pickle (see
    :class:`_Whole`), not one message part per verdict."""

    def __dask_postcompute__(self) -> tuple[Callable[[Any], Any], tuple[()]]:
        return _gathered, ()


def _gathered(results: Any) -> Any:
    """Dask's own end of a bag's computation, its list sent whole."""
    out = bag_finalize(results)
    return _Whole(out) if type(out) is list else out


def _files_to_check(
    paths_or_glob: str | os.PathLike[str] | Iterable[str | os.PathLike[str]], rules: str | None, npartitions: int | None
) -> list[tuple[str, str]]:
    """Each file to check as ``(absolute path, name as given)``, the arguments checked as :func:`check_bag` says."""
    if npartitions is not None and (not isinstance(npartitions, int) or isinstance(npartitions, bool)):
        raise wrong_type("npartitions", npartitions, "an int or None")
    if npartitions is not None and npartitions < 1:
        raise ValueError(f"npartitions must be at least 1, not {npartitions}")
    if rules is not None:
        find_rules(rules)
    # A URL is read by each worker from where it is (no shared file system needed).
    items = [(name if is_url(name) else os.path.abspath(name), name) for name in find_files(paths_or_glob)]
    return items


def _checked_files(items: Iterable[tuple[str, str]], rules: str | None) -> _Whole:
    """Runs on a worker: a partition's files checked, their verdicts as one list."""
    return _Whole(_files_verdicts(list(items), rules))


def _files_verdicts(items: list[tuple[str, str]], rules: str | None) -> list[Verdict]:
    """A partition's files checked in this worker; on a try after a worker
    died with the partition, each file alone in a process of its own (see
    :mod:`keilref.second_try`)."""
    with this_try() as earlier:
        if earlier:
            check = functools.partial(check_located, rules=rules)
            return checked_alone(check, items, [name for _, name in items])
        with collection_paused():
            return [v for item in items for v in check_located(item, rules)]


def check_dataframe(
    source: str | os.PathLike[str] | Iterable[str | os.PathLike[str]] | dd.DataFrame,
    rules: str | None = None,
    *,
    column: str = "record",
    file_column: str | None = None,
    npartitions: int | None = None,
) -> dd.DataFrame:
    """A Dask DataFrame of verdicts, one row per game, in the verdict table's
    schema (:data:`keilref.arrow.VERDICT_SCHEMA`), files and games in order.

    ``source`` is what :func:`check_bag` takes (paths, a directory or a glob:
    each file is checked whole by one task, as a local run checks it), or a
    Dask DataFrame whose ``column`` holds record text (one game or several a
    row), each partition checked by :func:`keilref.arrow.check_batch`: a
    row's games go by ``NAME#row=N`` as ``check --column`` names a table's
    rows, ``NAME`` the row's ``file_column`` value where given (else
    ``frame``), ``N`` the frame's index where that is an integer index (as
    ``from_pandas`` keeps it), else the row's place in its partition.
    Nothing runs until the frame is computed; ``to_parquet(path,
    partition_on=[...])`` has each worker write its own partitions.
    ``npartitions`` is as in :func:`check_bag` (for paths only).

    A partition whose worker died is checked again as :func:`check_bag`
    says, a file, or a row, at a time: a row that ends even its own process
    gets one ``error`` row at 1:1 under its name.

    Raises as :func:`check_bag` does, ``TypeError`` for a ``column`` that is
    not a ``str`` and ``KeyError`` for a frame without it.
    """
    import dask.dataframe as dd

    from keilref.arrow import VERDICT_SCHEMA

    if not isinstance(column, str):
        raise wrong_type("column", column, "a str naming the column of record text")
    if file_column is not None and not isinstance(file_column, str):
        raise wrong_type("file_column", file_column, "a str naming the column of file names, or None")
    meta = _frame(VERDICT_SCHEMA.empty_table())
    if isinstance(source, dd.DataFrame):
        if rules is not None:
            if not isinstance(rules, str):
                raise wrong_type("rules", rules, "a str or None")
            find_rules(rules)
        for name in (column, file_column):
            if name is not None and name not in source.columns:
                raise KeyError(wording.column_missing(name, [str(c) for c in source.columns]))
        checked: dd.DataFrame = source.map_partitions(
            _checked_rows, column=column, file_column=file_column, rules=rules, meta=meta
        )
        return checked
    items = _files_to_check(source, rules, npartitions)
    if not items:
        empty: dd.DataFrame = dd.from_pandas(meta, npartitions=1)
        return empty
    # As dask.bag.from_sequence cuts them: a file a partition up to 100 files.
    parts = npartitions or min(len(items), 100)
    size = -(-len(items) // parts)
    groups = [items[i : i + size] for i in range(0, len(items), size)]
    frame: dd.DataFrame = dd.from_map(
        _checked_paths, groups, rules=rules, meta=meta, label="keilref-check", enforce_metadata=False
    )
    return frame


def _frame(table: Any) -> pd.DataFrame:
    """An Arrow table as pandas holds it without loss: Arrow's own types, nested ones included."""
    import pandas as pd

    frame: pd.DataFrame = table.to_pandas(types_mapper=pd.ArrowDtype)
    return frame


def _checked_paths(items: list[tuple[str, str]], rules: str | None) -> pd.DataFrame:
    """Runs on a worker: the files' verdicts, as a local run gives them, made into the verdict table."""
    from keilref.arrow import verdict_batch

    return _frame(verdict_batch(_files_verdicts(items, rules)))


_FRAME = "frame"
"""What a frame's rows go by without a ``file_column``: ``frame#row=N``."""


def _checked_rows(part: pd.DataFrame, column: str, file_column: str | None, rules: str | None) -> pd.DataFrame:
    """Runs on a worker: one partition's records checked by the batch function every engine calls."""
    import pandas as pd
    import pyarrow as pa

    from keilref.arrow import batch_rows, check_batch, row_verdicts, verdict_batch

    names = [column] if file_column is None or file_column == column else [column, file_column]
    table = pa.Table.from_pandas(part[names], preserve_index=False)
    row_column = None
    if pd.api.types.is_integer_dtype(part.index.dtype):
        # A name no column of the frame has: the rows are the frame's index.
        row_column = "".join(names) + " row"
        table = table.append_column(row_column, pa.array(part.index, pa.int64()))
    with this_try() as earlier:
        if earlier:
            # A worker died with this partition: each row alone (see keilref.second_try).
            rows = batch_rows(table, column, file=_FRAME, first_row=1, name_column=file_column, row_column=row_column)
            check = functools.partial(row_verdicts, column=column, rules=rules)
            return _frame(verdict_batch(checked_alone(check, rows, [where for _, where in rows])))
        with collection_paused():
            batch = check_batch(table, column=column, name_column=file_column, row_column=row_column, rules=rules, file=_FRAME)
    return _frame(batch)


@contextlib.contextmanager
def connect(address: str) -> Iterator[Client]:
    """A client of the running scheduler at ``address``, closed on leaving.

    The connection timeout is Dask's own setting
    (``DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT``, 30 s by default).
    """
    try:
        scheme, location = parse_address(address)
        if scheme in ("tcp", "tls"):
            parse_host_port(location)
    except ValueError as e:
        # Checked before connecting: Dask's client would wait out its timeout first.
        raise ClusterError(
            f"{address!r} is not a scheduler address (expected HOST:PORT or tcp://HOST:PORT): {e}"
        ) from None
    try:
        client = Client(address, set_as_default=False)
    except Exception as e:  # noqa: BLE001
        # Dask raises OSError, TimeoutError or ValueError depending on how the address fails.
        raise ClusterError(f"cannot reach the Dask scheduler at {address}: {_words(e)}") from None
    try:
        yield client
    finally:
        with contextlib.suppress(Exception):
            client.close()


def check_on_cluster(
    sources: Sequence[Source],
    address: str,
    *,
    rules: str | None = None,
    on_progress: Callable[[int], None] | None = None,
    on_crash: Callable[[str], None] | None = None,
) -> Iterator[Verdict]:
    """Every game's verdict, in input order, computed by the cluster at ``address``.

    The same batches and the same function as a local run
    (:func:`~keilref.referee.batches.check_sources`), so the same verdicts in the
    same order. Raises :class:`ClusterError`, with one line saying why, when
    the cluster cannot be reached or fails on the way.
    """
    for verdicts in judged_on_cluster(
        sources, address, _the_verdict, rules=rules, on_progress=on_progress, on_crash=on_crash
    ):
        yield from verdicts


def _the_verdict(v: Verdict) -> Verdict:
    return v


def judged_on_cluster(
    sources: Sequence[Source],
    address: str,
    each: Callable[[Verdict], _T],
    *,
    rules: str | None = None,
    on_progress: Callable[[int], None] | None = None,
    on_crash: Callable[[str], None] | None = None,
) -> Iterator[list[_T]]:
    """What ``each`` makes of every game's verdict, a batch at a time in input
    order, made by the workers of the cluster at ``address``: what
    ``keilref check --scheduler`` runs, as
    :func:`~keilref.referee.batches.judged_batches` is what ``--jobs`` runs.

    The workers make each verdict into what ``each`` makes of it (a writer's
    text), so only that crosses to this process, and each task holds
    :data:`TASK_BYTES` of games, so that Dask's cost per task is small beside
    the task's work. A task whose worker died on every try (a crash in native
    code, the memory killer) is checked here by the Python referee, and
    ``on_crash`` is told which games those were: no game is lost. Raises
    :class:`ClusterError` when the cluster cannot be reached or fails otherwise.
    """
    with connect(address) as client:
        threads = _threads(client, address)
        window = max(threads, 1) * IN_FLIGHT_PER_THREAD
        work = functools.partial(_judged_chunk, rules=rules, each=each)
        pending: deque[tuple[Any, list[Batch]]] = deque()
        try:
            for chunk in _chunks(sources):
                pending.append((client.submit(work, chunk, pure=False), chunk))
                while len(pending) >= window:
                    yield from _collect(pending.popleft(), work, on_progress, on_crash)
            while pending:
                yield from _collect(pending.popleft(), work, on_progress, on_crash)
        except ClusterError:
            raise
        except Exception as e:  # noqa: BLE001
            # judged_batch keeps every game's fault to its verdict: what reaches here is the cluster's.
            hint = " (is keilref installed on every worker?)" if isinstance(e, ImportError) else ""
            raise ClusterError(f"the Dask cluster at {address} failed: {_words(e)}{hint}") from None
        finally:
            for future, _ in pending:
                future.cancel()


TASK_BYTES = 4 << 20
"""Input bytes per cluster task: a batch of a local run is a few milliseconds'
work for the compiled referee, about what Dask spends on a task; this many
bytes are a tenth of a second or more."""
IN_FLIGHT_PER_THREAD = 3
"""Tasks sent ahead per worker thread, so that none waits for its next."""


def _threads(client: Client, address: str) -> int:
    threads = sum(client.nthreads().values())
    if threads == 0:
        try:
            client.wait_for_workers(1, timeout=WAIT_FOR_WORKERS)
        except Exception:  # noqa: BLE001
            raise ClusterError(
                f"the Dask scheduler at {address} has no workers (waited {WAIT_FOR_WORKERS:.0f} s)"
            ) from None
        threads = sum(client.nthreads().values())
    return int(threads)


def _chunks(sources: Sequence[Source]) -> Iterator[list[Batch]]:
    """A local run's batches (the natively cut ones as their bytes), grouped
    in input order into tasks of about :data:`TASK_BYTES`."""
    chunk: list[Batch] = []
    nbytes = 0
    for batch in cut_batches(sources, runs=True):
        chunk.append(batch)
        nbytes += batch.nbytes
        if nbytes >= TASK_BYTES:
            yield chunk
            chunk, nbytes = [], 0
    if chunk:
        yield chunk


class _Whole(list):  # type: ignore[type-arg]
    """A list that a worker sends whole, and that arrives as a plain list.
    Dask sends a plain ``list`` item by item (a header and frames each),
    which costs more than checking the games did; any other type goes as one
    pickle."""

    __slots__ = ()

    def __reduce__(self) -> tuple[type[list[Any]], tuple[list[Any]]]:
        return list, (list(self),)


def _judged_chunk(chunk: list[Batch], *, rules: str | None, each: Callable[[Verdict], _T]) -> _Whole:
    """Runs on a worker: each batch of a task judged as a local run's worker judges it.

    Without cyclic collection: a game's objects hold no cycles, and its
    collections, which walk every object a worker holds (the results it
    keeps for the client among them), cost a tenth of the work; a local
    run's workers freeze what they hold for the same reason."""
    with collection_paused():
        return _Whole(judged_batch(batch, rules=rules, each=each) for batch in chunk)


def _collect(
    sent: tuple[Any, list[Batch]],
    work: Callable[[list[Batch]], _Whole],
    on_progress: Callable[[int], None] | None,
    on_crash: Callable[[str], None] | None,
) -> Iterator[list[Any]]:
    future, chunk = sent
    try:
        results: list[list[Any]] = future.result()
        crashed = False
    except KilledWorker:
        # Dask tried the task on several workers and each died with it: a
        # game that crashes native code, or more memory than a worker has.
        with native_off():
            results = work(chunk)
        crashed = True
    for batch, items in zip(chunk, results, strict=True):
        if crashed and on_crash is not None:
            on_crash(wording.worker_crashed(shown_name(batch.file), batch.first_game, len(items)))
        if on_progress is not None:
            on_progress(batch.nbytes)
        yield items


def _words(e: BaseException) -> str:
    text = " ".join(str(e).split())
    return f"{type(e).__name__}: {text}" if text else type(e).__name__


__all__ = [
    "ClusterError",
    "check_bag",
    "check_dataframe",
    "check_located",
    "check_on_cluster",
    "connect",
    "find_files",
    "judged_on_cluster",
]
