"""Checking on a Dask cluster: archives beyond what one machine checks in a coffee break.

Two ways in, both giving exactly the verdicts of a local run:

* :func:`check_bag` is the library's: a ``dask.bag`` of verdicts, one file
  per element, built as Dask recommends for many files
  (``from_sequence(paths).map(...)``), so no game is ever split between
  partitions. The workers read the files themselves: the paths must name
  the same files on every worker (a shared file system).
* :func:`check_on_cluster` is what ``keilref check --scheduler ADDRESS``
  runs: this process cuts the files into batches of games, exactly as a
  local ``--jobs`` run does, and the cluster's workers parse and judge them.
  The workers need no access to the files, large files are spread too, and
  verdicts come back in input order as they are ready.

Needs the ``dask`` extra (``pip install 'keilref[dask]'``) here and on
every worker.
"""

# This module is keilref.dask; the imports below are absolute, so "dask"
# always means the Dask package, never this module.
from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path

import dask.bag as db
from distributed import Client
from distributed.comm.addressing import parse_address, parse_host_port

from keilref.referee.batches import check_file, check_sources
from keilref.records.remote import is_url
from keilref.records.sources import STDIN, PathError, Source, expand_paths
from keilref.errors import wrong_type
from keilref.escaping import shown_name
from keilref.files import bad_name as _bad_name
from keilref.engine.rules import find_rules
from keilref.referee.verdict import Verdict

WAIT_FOR_WORKERS = 30.0
"""Seconds to wait for a first worker when the scheduler has none."""

_GLOB_CHARACTERS = frozenset("*?[")


class ClusterError(Exception):
    """The cluster cannot be reached, has no workers, or failed during a check."""


def find_files(paths_or_glob: str | os.PathLike[str] | Iterable[str | os.PathLike[str]]) -> list[str]:
    """The record files to check, sorted as ``keilref check`` would take them.

    A string with ``*``, ``?`` or ``[`` is a glob pattern (``**`` reaches into
    subdirectories); other paths are files, or directories searched for
    ``*.keil``. Like a directory search, a pattern follows no symbolic link
    below its fixed start: a match that is a link, or lies under a linked
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
    return [s.name for s in expand_paths(paths)]


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
    """
    if npartitions is not None and (not isinstance(npartitions, int) or isinstance(npartitions, bool)):
        raise wrong_type("npartitions", npartitions, "an int or None")
    if npartitions is not None and npartitions < 1:
        raise ValueError(f"npartitions must be at least 1, not {npartitions}")
    if rules is not None:
        find_rules(rules)
    # A URL is read by each worker from where it is (no shared file system needed).
    items = [(name if is_url(name) else os.path.abspath(name), name) for name in find_files(paths_or_glob)]
    bag: db.Bag = db.from_sequence(items, npartitions=npartitions).map(check_located, rules=rules).flatten()
    return bag


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
) -> Iterator[Verdict]:
    """Every game's verdict, in input order, computed by the cluster at ``address``.

    The same batches and the same function as a local run
    (:func:`~keilref.referee.batches.check_sources`), so the same verdicts in the
    same order. Raises :class:`ClusterError`, with one line saying why, when
    the cluster cannot be reached or fails on the way.
    """
    with connect(address) as client:
        threads = sum(client.nthreads().values())
        if threads == 0:
            try:
                client.wait_for_workers(1, timeout=WAIT_FOR_WORKERS)
            except Exception:  # noqa: BLE001
                raise ClusterError(
                    f"the Dask scheduler at {address} has no workers (waited {WAIT_FOR_WORKERS:.0f} s)"
                ) from None
            threads = sum(client.nthreads().values())
        executor = client.get_executor(pure=False)
        try:
            yield from check_sources(
                sources, rules=rules, jobs=threads, on_progress=on_progress, executor=executor
            )
        except Exception as e:  # noqa: BLE001
            # check_batch keeps every game's fault to its verdict: what reaches here is the cluster's.
            hint = " (is keilref installed on every worker?)" if isinstance(e, ImportError) else ""
            raise ClusterError(f"the Dask cluster at {address} failed: {_words(e)}{hint}") from None


def _words(e: BaseException) -> str:
    text = " ".join(str(e).split())
    return f"{type(e).__name__}: {text}" if text else type(e).__name__


__all__ = ["ClusterError", "check_bag", "check_located", "check_on_cluster", "connect", "find_files"]
