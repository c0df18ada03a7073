"""A directory search walks without recursion, and finds what the recursive walk found, in its order."""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cli_support import ROOT, run
from keilref.records import sources
from keilref.records.sources import Source

GAME = ROOT / "records/games/size4-keil-no-result-claimed.keil"


def _recursive_walk(top: str, endings: tuple[str, ...], exclude: tuple[str, ...]) -> tuple[list[Source], list[str]]:
    """The walk as it was, over ``os.walk`` (recursive in Python 3.11): the reference."""
    found: list[Source] = []
    links: list[str] = []

    def unreadable(e: OSError) -> None:
        name = e.filename if isinstance(e.filename, str) else top
        found.append(Source(name, unreadable=e.strerror or str(e)))

    for root, dirs, files in os.walk(top, onerror=unreadable, followlinks=False):
        below = os.path.relpath(root, top).replace(os.sep, "/")
        below = "" if below == "." else below + "/"
        dirs[:] = sorted(name for name in dirs if not sources._excluded(name, below + name, exclude))
        files = [name for name in files if not sources._excluded(name, below + name, exclude)]
        links.extend(path for path in (os.path.join(root, name) for name in dirs) if os.path.islink(path))
        for name in files:
            if name.endswith(endings):
                path = os.path.join(root, name)
                try:
                    mode = os.lstat(path).st_mode
                except OSError as e:
                    found.append(Source(path, unreadable=e.strerror or str(e)))
                    continue
                if stat.S_ISREG(mode):
                    found.append(Source(path))
                elif stat.S_ISLNK(mode):
                    links.append(path)
    return sorted(found, key=lambda s: s.name), sorted(links)


NAMES = st.sampled_from(["a", "b", "c.keil", "d.keil.gz", ".e.keil", ".git", "f.txt", "g.moves.json", "h h.keil"])
Tree = dict[str, Any]
# A folder holds, by name: a file, a folder, a link (to a file, to a folder, to nothing), a folder
# that cannot be opened, or one that fails while it is being listed.
LEAVES = ["file", "link-file", "link-dir", "broken-link", "locked", "fails"]
TREES: st.SearchStrategy[Tree] = st.recursive(
    st.dictionaries(NAMES, st.sampled_from(LEAVES), max_size=4),
    lambda inner: st.dictionaries(NAMES, st.one_of(inner, st.sampled_from(LEAVES)), max_size=4),
    max_leaves=14,
)
EXCLUDES = st.lists(st.sampled_from([".*", "a", "b/*", "*.gz", "a/b", "c.keil", "[ab]", "*/a"]), max_size=3).map(tuple)


def _build(folder: Path, tree: Tree, refused: dict[str, str]) -> None:
    for name, what in tree.items():
        path = folder / name
        if isinstance(what, dict):
            path.mkdir()
            _build(path, what, refused)
        elif what == "file":
            path.write_text("x", encoding="utf-8")
        elif what == "link-file":
            path.symlink_to(GAME)
        elif what == "link-dir":
            path.symlink_to(ROOT / "records", target_is_directory=True)
        elif what == "broken-link":
            path.symlink_to(folder / "nowhere")
        else:  # even as root, a folder cannot be refused by its mode: scandir is told to refuse it
            path.mkdir()
            (path / "c.keil").write_text("x", encoding="utf-8")
            (path / "d.keil").write_text("x", encoding="utf-8")
            refused[str(path)] = what


class _FailingListing:
    """A folder's listing that fails after its first entry, as a folder on a failing disk does."""

    def __init__(self, path: str) -> None:
        self._inner = _real_scandir(path)
        self._path = path
        self._given = 0

    def __enter__(self) -> _FailingListing:
        return self

    def __exit__(self, *exc: object) -> None:
        self._inner.close()

    def __iter__(self) -> Iterator[os.DirEntry[str]]:
        return self

    def __next__(self) -> os.DirEntry[str]:
        if self._given == 1:
            raise OSError(errno.EIO, "Input/output error", self._path)
        self._given += 1
        return next(self._inner)

    def close(self) -> None:
        self._inner.close()


_real_scandir = os.scandir


@contextlib.contextmanager
def _refusing(refused: dict[str, str]) -> Iterator[None]:
    def scandir(path: Any = ".") -> Any:
        what = refused.get(os.fspath(path))
        if what == "locked":
            raise PermissionError(errno.EACCES, "Permission denied", os.fspath(path))
        if what == "fails":
            return _FailingListing(os.fspath(path))
        return _real_scandir(path)

    with mock.patch.object(os, "scandir", scandir):
        yield


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tree=TREES, exclude=EXCLUDES, compressed=st.booleans())
def test_the_walk_finds_what_the_recursive_walk_found_in_its_order(tree: Tree, exclude: tuple[str, ...], compressed: bool) -> None:
    endings = (".keil", ".keil.gz", ".moves.json") if compressed else (".keil",)
    with tempfile.TemporaryDirectory() as top:
        refused: dict[str, str] = {}
        _build(Path(top), tree, refused)
        with _refusing(refused):
            expected = _recursive_walk(top, endings, exclude)
            assert sources._walk(top, endings, exclude) == expected
            # The steps themselves, in order, with the same pruning: not only the sorted result.
            steps = []
            for root, dirs, files in sources._tree(top, lambda e: steps.append(("error", e.filename))):
                steps.append((root, list(dirs), list(files)))
                dirs[:] = sorted(d for d in dirs if not sources._excluded(d, d, exclude))
            reference = []
            for root, dirs, files in os.walk(top, onerror=lambda e: reference.append(("error", e.filename))):
                reference.append((root, list(dirs), list(files)))
                dirs[:] = sorted(d for d in dirs if not sources._excluded(d, d, exclude))
            assert steps == reference


def test_the_reference_walk_meets_every_kind_of_entry() -> None:
    """The trees above reach links, refusals and failures: the comparison is not between empty walks."""
    tree: Tree = {"a": {"c.keil": "file", "b": "locked"}, "b": "fails", "c.keil": "link-file", "d.keil.gz": "link-dir"}
    with tempfile.TemporaryDirectory() as top:
        refused: dict[str, str] = {}
        _build(Path(top), tree, refused)
        with _refusing(refused):
            found, links = sources._walk(top, (".keil",), ())
    names = [(os.path.relpath(s.name, top), s.unreadable) for s in found]
    assert names == [("a/b", "Permission denied"), ("a/c.keil", None), ("b", "Input/output error")]
    assert [os.path.relpath(p, top) for p in links] == ["c.keil", "d.keil.gz"]


DEPTH = 1_000  # past Python's recursion limit, and what a recursive walk could survive


@pytest.fixture(scope="module")
def deep_tree() -> Iterator[Path]:
    # Not under pytest's temporary folders: its clean-up (shutil.rmtree) recurses, and would fail later runs.
    top = Path(tempfile.mkdtemp(prefix="keilref-deep-"))
    path = str(top)
    for _ in range(DEPTH):  # one level at a time: os.makedirs recurses too
        path = os.path.join(path, "d")
        os.mkdir(path)
    (Path(path) / "g.keil").write_bytes(GAME.read_bytes())
    (top / "first.keil").write_bytes(GAME.read_bytes())
    try:
        yield top
    finally:
        os.remove(os.path.join(path, "g.keil"))
        os.remove(top / "first.keil")
        while path != str(top):  # bottom up, one level at a time
            os.rmdir(path)
            path = os.path.dirname(path)
        os.rmdir(top)


@pytest.mark.parametrize("command", ["check", "fmt", "stats", "filter"])
def test_a_tree_a_thousand_folders_deep_is_searched_to_its_bottom(deep_tree: Path, command: str) -> None:
    r = run(command, str(deep_tree))
    assert r.exit_code == 0, r.output
    if command == "check":
        assert r.stdout.splitlines()[-1].startswith("2 games: 2 ok")
    elif command == "stats":
        assert "2 games: 2 ok" in r.stdout
    elif command == "filter":
        assert r.stdout.count("[Size ") == 2 and "2 of 2 games written" in r.stderr
    else:
        assert r.stdout.count("[Size ") == 2
    found = sources.expand_paths([str(deep_tree)])
    assert [len(Path(s.name).relative_to(deep_tree).parts) for s in found] == [DEPTH + 1, 1]
