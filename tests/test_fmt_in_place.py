"""``keilref fmt --in-place``: a file is replaced whole, or left exactly as it was.

Each refusal is checked through the command line (exit code, the one line on
standard error) and on disk (the bytes, the mode, the links); the rewrite
itself through :mod:`keilref.records.inplace`.
"""

from __future__ import annotations

import multiprocessing
import os
import random
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from keilref.cli import EXIT_FAILED, EXIT_OK, EXIT_USAGE, app
from keilref.records import inplace
from keilref.records import tidy
from keilref.records.record import Record
from keilref.records.sources import Source

runner = CliRunner()

MESSY = '[Size "3"]   [Event "Club night"]\n1.c3 button 2. b2 pass *\n'
CANONICAL = '[Event "Club night"]\n[Size "3"]\n\n1. c3 button 2. b2 pass *\n'
ROOT = Path(__file__).resolve().parent.parent


def fmt(*args: str) -> Result:
    result = runner.invoke(app, ["fmt", *args])
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


def messy(tmp_path: Path, name: str = "game.keil") -> Path:
    path = tmp_path / name
    path.write_text(MESSY, encoding="utf-8")
    return path


def names(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir())


# --- a file that changes while it is formatted ------------------------------


def test_a_file_changed_after_it_was_read_is_not_overwritten(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = messy(tmp_path)
    edited = MESSY + "{an edit made while fmt was working}\n"
    real_write = tidy._write

    def write_then_someone_edits(records: list[Record], name: str) -> str:
        text = real_write(records, name)
        path.write_text(edited, encoding="utf-8")  # another editor saves the file now
        return text

    monkeypatch.setattr(tidy, "_write", write_then_someone_edits)
    result = fmt("--in-place", str(path))
    assert result.exit_code == EXIT_FAILED
    assert result.stderr == f"keilref: {path}: changed while it was being formatted; left as it is (run fmt again)\n"
    assert path.read_text(encoding="utf-8") == edited  # the edit survives
    assert names(tmp_path) == ["game.keil"]


def test_a_change_that_keeps_size_and_mtime_is_still_seen(tmp_path: Path) -> None:
    path = messy(tmp_path)
    before = os.stat(path)
    read = inplace.FileState.of(before)
    time.sleep(0.05)  # file times advance in clock ticks of a few milliseconds
    # Same length, and the modification time put back: only the change time tells.
    path.write_text(MESSY.replace("Club", "Pub "), encoding="utf-8")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert os.stat(path).st_size == read.size and os.stat(path).st_mtime_ns == read.mtime_ns
    with pytest.raises(inplace.ReplaceError, match="changed while it was being formatted"):
        inplace.replace_file(str(path), CANONICAL.encode(), read)
    assert "Pub " in path.read_text(encoding="utf-8")


def test_a_change_just_before_the_rename_is_seen(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The last check runs after the temporary file is written, right before the rename."""
    path = messy(tmp_path)
    read = inplace.FileState.of(os.stat(path))
    real_fsync = inplace.os.fsync
    calls = []

    def fsync_then_edit(fd: int) -> None:
        real_fsync(fd)
        if not calls:
            calls.append(fd)
            with open(path, "a", encoding="utf-8") as f:
                f.write("{late edit}\n")

    monkeypatch.setattr(inplace.os, "fsync", fsync_then_edit)
    with pytest.raises(inplace.ReplaceError, match="changed while it was being formatted"):
        inplace.replace_file(str(path), CANONICAL.encode(), read)
    assert path.read_text(encoding="utf-8").endswith("{late edit}\n")
    assert names(tmp_path) == ["game.keil"]


# --- read-only files, hard links, owner and mode bits ------------------------


def test_a_read_only_file_is_refused_unless_forced(tmp_path: Path) -> None:
    path = messy(tmp_path)
    os.chmod(path, 0o444)
    refused = fmt("--in-place", str(path))
    assert refused.exit_code == EXIT_FAILED
    assert refused.stderr == (
        f"keilref: {path}: read-only; left as it is (--force rewrites it, keeping it read-only)\n"
    )
    assert path.read_text(encoding="utf-8") == MESSY
    forced = fmt("--in-place", "--force", str(path))
    assert forced.exit_code == EXIT_OK
    assert forced.stderr == (
        f"keilref: note: {path}: read-only, rewritten because of --force\nreformatted {path}\n"
    )
    assert path.read_text(encoding="utf-8") == CANONICAL
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o444  # still read-only
    assert names(tmp_path) == ["game.keil"]


def test_force_needs_in_place(tmp_path: Path) -> None:
    result = fmt("--force", str(messy(tmp_path)))
    assert result.exit_code == EXIT_USAGE
    assert result.stderr == "keilref: --force only applies to --in-place\n"


def test_a_hard_linked_file_is_refused_unless_forced(tmp_path: Path) -> None:
    path = messy(tmp_path)
    other = tmp_path / "other-name.keil"
    os.link(path, other)
    refused = fmt("--in-place", str(path))
    assert refused.exit_code == EXIT_FAILED
    assert refused.stderr == (
        f"keilref: {path}: has 2 hard links, which a rewrite would separate (the other names would keep "
        "the old text); left as it is (--force rewrites this name)\n"
    )
    assert os.stat(path).st_nlink == 2 and path.read_text(encoding="utf-8") == MESSY
    forced = fmt("--in-place", "--force", str(path))
    assert forced.exit_code == EXIT_OK
    assert "its 1 other hard link(s) keep the old text" in forced.stderr
    assert path.read_text(encoding="utf-8") == CANONICAL
    assert other.read_text(encoding="utf-8") == MESSY  # as the note said
    assert os.stat(path).st_nlink == 1


@pytest.mark.skipif(not hasattr(os, "fchmod"), reason="POSIX mode bits")
def test_setuid_setgid_and_sticky_bits_are_kept(tmp_path: Path) -> None:
    path = messy(tmp_path)
    os.chmod(path, 0o7751)
    result = fmt("--in-place", str(path))
    assert result.exit_code == EXIT_OK
    assert path.read_text(encoding="utf-8") == CANONICAL
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o7751


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="giving a file away needs root")
def test_owner_and_group_are_kept_with_the_setuid_bits(tmp_path: Path) -> None:
    path = messy(tmp_path)
    os.chown(path, 4321, 8765)
    os.chmod(path, 0o6750)  # after the chown, which clears these bits
    result = fmt("--in-place", str(path))
    assert result.exit_code == EXIT_OK
    st = os.stat(path)
    assert (st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode)) == (4321, 8765, 0o6750)


@pytest.mark.skipif(not hasattr(os, "fchmod"), reason="POSIX mode bits")
def test_bits_that_cannot_be_kept_are_refused_not_dropped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """As on a file system (or for a user) that will not set them."""
    path = messy(tmp_path)
    os.chmod(path, 0o4755)
    real_fchmod = os.fchmod
    monkeypatch.setattr(inplace.os, "fchmod", lambda fd, mode: real_fchmod(fd, mode & 0o777))
    refused = fmt("--in-place", str(path))
    assert refused.exit_code == EXIT_FAILED
    assert refused.stderr == (
        f"keilref: {path}: the rewritten file cannot keep its setuid/setgid/sticky bits; left as it is "
        "(--force rewrites it without)\n"
    )
    assert path.read_text(encoding="utf-8") == MESSY
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o4755
    assert names(tmp_path) == ["game.keil"]
    forced = fmt("--in-place", "--force", str(path))
    assert forced.exit_code == EXIT_OK and "without its setuid/setgid/sticky bits" in forced.stderr
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o755


# --- symbolic links ------------------------------------------------------------


def linked(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A tree holding a record and two links out of it: to a record, and to a directory of records."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "theirs.keil").write_text(MESSY, encoding="utf-8")
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "ours.keil").write_text(MESSY, encoding="utf-8")
    (tree / "link.keil").symlink_to(outside / "theirs.keil")
    (tree / "linked-dir").symlink_to(outside, target_is_directory=True)
    return tree, outside, outside / "theirs.keil"


def test_a_link_given_by_name_is_not_rewritten_without_follow_symlinks(tmp_path: Path) -> None:
    tree, outside, theirs = linked(tmp_path)
    link = tree / "link.keil"
    result = fmt("--in-place", str(link))
    assert result.exit_code == EXIT_FAILED
    assert result.stderr == (
        f"keilref: {link}: a symbolic link; nothing rewritten "
        "(--follow-symlinks rewrites the file it points to, keeping the link)\n"
    )
    assert theirs.read_text(encoding="utf-8") == MESSY
    assert link.is_symlink() and os.readlink(link) == str(theirs)
    assert names(outside) == ["theirs.keil"]


def test_follow_symlinks_rewrites_the_file_a_link_names_and_keeps_the_link(tmp_path: Path) -> None:
    tree, outside, theirs = linked(tmp_path)
    os.chmod(theirs, 0o640)
    link = tree / "link.keil"
    result = fmt("--in-place", "--follow-symlinks", str(link))
    assert result.exit_code == EXIT_OK
    assert result.stderr == f"reformatted {link}\n"
    assert theirs.read_text(encoding="utf-8") == CANONICAL
    assert stat.S_IMODE(os.stat(theirs).st_mode) == 0o640
    assert link.is_symlink() and os.readlink(link) == str(theirs)
    assert names(outside) == ["theirs.keil"] and names(tree) == ["link.keil", "linked-dir", "ours.keil"]


@pytest.mark.parametrize("trailing", ["", "/"])
def test_a_directory_link_given_by_name_is_not_followed_without_follow_symlinks(tmp_path: Path, trailing: str) -> None:
    tree, _outside, theirs = linked(tmp_path)
    given = f"{tree / 'linked-dir'}{trailing}"
    result = fmt("--in-place", given, str(tree / "ours.keil"))
    assert result.exit_code == EXIT_FAILED
    assert result.stderr == (
        f"keilref: {given}: a symbolic link; nothing rewritten "
        "(--follow-symlinks rewrites the files in the directory it points to, keeping the link)\n"
        f"reformatted {tree / 'ours.keil'}\n"  # the other paths are still formatted
    )
    assert theirs.read_text(encoding="utf-8") == MESSY
    followed = fmt("--in-place", "--follow-symlinks", given)
    assert followed.exit_code == EXIT_OK
    assert theirs.read_text(encoding="utf-8") == CANONICAL
    assert (tree / "linked-dir").is_symlink()


@pytest.mark.parametrize("follow", [[], ["--follow-symlinks"]])
def test_fmt_in_place_of_a_directory_never_leaves_it(tmp_path: Path, follow: list[str]) -> None:
    """--follow-symlinks is about links given by name: a walk follows none."""
    tree, outside, theirs = linked(tmp_path)
    result = fmt("--in-place", *follow, str(tree))
    assert result.exit_code == EXIT_OK
    assert result.stderr == (
        f"keilref: note: {tree}: 2 symbolic link(s) not followed, the first {tree / 'link.keil'} "
        "(a directory search stays inside the directory; give a link by name to read it)\n"
        f"reformatted {tree / 'ours.keil'}\n"
    )
    assert (tree / "ours.keil").read_text(encoding="utf-8") == CANONICAL
    assert theirs.read_text(encoding="utf-8") == MESSY
    assert names(outside) == ["theirs.keil"]
    assert (tree / "link.keil").is_symlink() and (tree / "linked-dir").is_symlink()


def test_follow_symlinks_needs_in_place(tmp_path: Path) -> None:
    result = fmt("--follow-symlinks", str(messy(tmp_path)))
    assert result.exit_code == EXIT_USAGE
    assert result.stderr == "keilref: --follow-symlinks only applies to --in-place\n"


def test_a_link_is_refused_by_the_library_too(tmp_path: Path) -> None:
    tree, _outside, theirs = linked(tmp_path)
    link = str(tree / "link.keil")
    with pytest.raises(tidy.FormatError, match="a symbolic link; nothing rewritten"):
        tidy.format_source(Source(link), write=True)
    assert theirs.read_text(encoding="utf-8") == MESSY
    assert tidy.format_source(Source(link), write=True, follow_symlinks=True).changed
    assert theirs.read_text(encoding="utf-8") == CANONICAL


# --- temporary files ---------------------------------------------------------


def temps(directory: Path, name: str = "game.keil") -> list[str]:
    """The temporary files of ``name`` in ``directory``."""
    return sorted(p.name for p in directory.glob(f".{name}.*{inplace.TEMP_SUFFIX}"))


def test_each_run_writes_a_temporary_file_of_its_own_with_the_files_mode(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = messy(tmp_path)
    os.chmod(path, 0o640)
    read = inplace.FileState.of(os.stat(path))
    seen: list[tuple[list[str], int, bytes]] = []
    real_fsync = os.fsync

    def look_then_fsync(fd: int) -> None:
        if not seen:  # the temporary file's, before the rename
            (tmp,) = temps(tmp_path)
            seen.append((temps(tmp_path), stat.S_IMODE(os.fstat(fd).st_mode), (tmp_path / tmp).read_bytes()))
        real_fsync(fd)

    monkeypatch.setattr(inplace.os, "fsync", look_then_fsync)
    inplace.replace_file(str(path), CANONICAL.encode(), read)
    ((tmp,), mode, data) = seen[0]
    assert tmp.startswith(".game.keil.") and tmp.endswith(".keilref-fmt.tmp") and len(tmp) > len(".game.keil..keilref-fmt.tmp")
    assert mode == 0o640  # given the file's mode before it is synced, not after the rename
    assert data == CANONICAL.encode()
    assert inplace.temp_prefix(str(path)) == str(tmp_path / ".game.keil.")
    assert names(tmp_path) == ["game.keil"]
    assert path.read_text(encoding="utf-8") == CANONICAL and stat.S_IMODE(os.stat(path).st_mode) == 0o640


def test_another_runs_temporary_file_is_never_removed(tmp_path: Path) -> None:
    """Nothing tells a killed run's temporary file from a live one's: a run removes its own only."""
    path = messy(tmp_path)
    theirs = tmp_path / ".game.keil.k3yx9q2a.keilref-fmt.tmp"
    theirs.write_text('[Event "Club night"]\n[Si', encoding="utf-8")  # still being written, or cut off by a kill
    older = tmp_path / ".game.keil.keilref-fmt.tmp"  # the single name earlier versions used
    older.write_text("[Ev", encoding="utf-8")
    inodes = (theirs.stat().st_ino, older.stat().st_ino)
    result = fmt("--in-place", str(path))
    assert result.exit_code == EXIT_OK
    assert result.stderr == f"reformatted {path}\n"
    assert path.read_text(encoding="utf-8") == CANONICAL
    assert names(tmp_path) == sorted([older.name, theirs.name, "game.keil"])
    assert (theirs.stat().st_ino, older.stat().st_ino) == inodes
    assert theirs.read_text(encoding="utf-8") == '[Event "Club night"]\n[Si' and older.read_text(encoding="utf-8") == "[Ev"


def test_a_run_that_renames_first_makes_the_other_stop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Run A has written its temporary file; run B formats and renames the whole
    file before A's last check. A then leaves B's result alone, and says why."""
    path = messy(tmp_path)
    real_fsync = os.fsync
    calls: list[int] = []

    def other_run_finishes_now(fd: int) -> None:
        real_fsync(fd)
        if not calls:
            calls.append(fd)
            assert len(temps(tmp_path)) == 1  # A's, which B must not take for a leftover
            assert fmt("--in-place", str(path)).stderr == f"reformatted {path}\n"  # B, start to end
            assert len(temps(tmp_path)) == 1

    monkeypatch.setattr(inplace.os, "fsync", other_run_finishes_now)
    result = fmt("--in-place", str(path))  # A
    assert calls
    assert result.exit_code == EXIT_FAILED
    assert result.stderr == f"keilref: {path}: changed while it was being formatted; left as it is (run fmt again)\n"
    assert "reformatted" not in result.output
    assert path.read_text(encoding="utf-8") == CANONICAL  # B's, whole
    assert names(tmp_path) == ["game.keil"]  # A removed its own temporary file


def test_a_file_swapped_for_an_identical_copy_is_still_seen(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Same bytes, same size, same modification time: only the file the kept
    descriptor holds tells that the path now names another one."""
    path = messy(tmp_path)
    copy = tmp_path / "copy.keil"
    real_fsync = os.fsync
    calls: list[int] = []

    def swap(fd: int) -> None:
        real_fsync(fd)
        if not calls:
            calls.append(fd)
            before = os.stat(path)
            copy.write_bytes(path.read_bytes())
            os.utime(copy, ns=(before.st_atime_ns, before.st_mtime_ns))
            os.replace(copy, path)  # an editor's atomic save of the same text

    monkeypatch.setattr(inplace.os, "fsync", swap)
    swapped_in: list[int] = []
    real_replace = os.replace
    monkeypatch.setattr(inplace.os, "replace", lambda a, b: (swapped_in.append(os.stat(a).st_ino), real_replace(a, b)))
    result = fmt("--in-place", str(path))
    assert result.exit_code == EXIT_FAILED
    assert result.stderr == f"keilref: {path}: changed while it was being formatted; left as it is (run fmt again)\n"
    assert path.read_text(encoding="utf-8") == MESSY
    assert swapped_in == [swapped_in[0]] and path.stat().st_ino == swapped_in[0]  # only the swap itself renamed
    assert names(tmp_path) == ["game.keil"]


def test_the_descriptor_read_from_is_checked_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A write through the kept descriptor refuses the rename, even when the
    path's own state is (here: made to look) as it was read."""
    path = messy(tmp_path)
    as_read = os.stat(path)
    read = inplace.FileState.of(as_read)
    real_stat = os.stat
    monkeypatch.setattr(inplace.os, "stat", lambda p, **kw: as_read if str(p) == str(path) else real_stat(p, **kw))
    with open(path, "r+b") as f:
        f.write(b"[Size 9]")
        f.flush()
        with pytest.raises(inplace.ReplaceError, match="changed while it was being formatted"):
            inplace.replace_file(str(path), CANONICAL.encode(), read, original=f.fileno())
    assert path.read_bytes().startswith(b"[Size 9]")
    assert names(tmp_path) == ["game.keil"]


def test_fmt_keeps_the_file_it_read_open_until_the_rename(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """While it is open, its inode number cannot go to another file."""
    path = messy(tmp_path)
    inode = os.stat(path).st_ino
    held: list[int] = []
    real_replace_file = tidy.replace_file

    def replace_file(*args: Any, original: int | None = None, **kwargs: Any) -> inplace.Replaced:
        assert original is not None
        held.append(os.fstat(original).st_ino)
        return real_replace_file(*args, original=original, **kwargs)

    monkeypatch.setattr(tidy, "replace_file", replace_file)
    assert fmt("--in-place", str(path)).exit_code == EXIT_OK
    assert held == [inode]
    assert path.read_text(encoding="utf-8") == CANONICAL


def test_check_and_fmt_never_take_a_leftover_for_a_record(tmp_path: Path) -> None:
    messy(tmp_path)
    (tmp_path / ".game.keil.k3yx9q2a.keilref-fmt.tmp").write_text('[Size "3"] 1. zz9 *', encoding="utf-8")
    checked = runner.invoke(app, ["check", "--format", "jsonl", str(tmp_path)])
    assert checked.exit_code == EXIT_OK
    assert checked.stdout.count('"file"') == 1 and "game.keil" in checked.stdout
    listed = fmt("--check", str(tmp_path))
    assert listed.stdout == f"would reformat {tmp_path / 'game.keil'}\n"


def test_a_failed_write_leaves_no_temporary_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = messy(tmp_path)

    def disk_full(fd: int, data: object) -> int:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(inplace.os, "write", disk_full)
    result = fmt("--in-place", str(path))
    assert result.exit_code == EXIT_FAILED
    assert result.stderr == f"keilref: {path}: cannot write: No space left on device\n"
    assert path.read_text(encoding="utf-8") == MESSY
    assert names(tmp_path) == ["game.keil"]



def test_ctrl_c_during_the_write_removes_the_temporary_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = messy(tmp_path)
    read = inplace.FileState.of(os.stat(path))

    def interrupted(fd: int) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(inplace.os, "fsync", interrupted)
    with pytest.raises(KeyboardInterrupt):
        inplace.replace_file(str(path), CANONICAL.encode(), read)
    assert path.read_text(encoding="utf-8") == MESSY
    assert names(tmp_path) == ["game.keil"]

def _big_messy_archive(path: Path) -> bytes:
    """About 20 MB that formats fast: long comments, few turns."""
    game = '[Size "3"]   [Event "g{}"]\n1.c3 {{' + "x" * 100_000 + "}} button 2. b2 pass *\n\n"
    data = "".join(game.format(i) for i in range(200)).encode()
    path.write_bytes(data)
    return data


def test_sigkill_during_fmt_in_place_leaves_the_file_whole(tmp_path: Path) -> None:
    path = tmp_path / "big.keil"
    original = _big_messy_archive(path)
    os.chmod(path, 0o640)
    formatted = tidy.format_source(Source(str(path))).data
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "keilref", "fmt", "--in-place", str(path)], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while not temps(tmp_path, "big.keil") and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.0005)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    after = path.read_bytes()
    # Never a mixture: the old text, or (if the rename already happened) the new.
    assert after in (original, formatted)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o640
    left = temps(tmp_path, "big.keil")
    assert names(tmp_path) == sorted(["big.keil", *left])
    if after == formatted:
        assert left == []
    # The next run finishes the job, and leaves the killed run's file alone.
    leftovers = {name: (tmp_path / name).read_bytes() for name in left}
    result = fmt("--in-place", str(path))
    assert result.exit_code == EXIT_OK
    assert path.read_bytes() == formatted
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o640
    assert {name: (tmp_path / name).read_bytes() for name in temps(tmp_path, "big.keil")} == leftovers
    assert names(tmp_path) == sorted(["big.keil", *left])


# --- runs at once -------------------------------------------------------------


def _slow_run(path: str, start: Any, results: str, seed: int) -> None:
    """One ``fmt --in-place`` of ``path``, in a process of its own, its outcome written to ``results``.

    The write goes in 64 KiB steps with a pause between them, and the rename
    waits a moment after the last check: a slow disk, and a scheduler that
    lets other runs in just there, so that the runs' steps interleave often.
    """
    rng = random.Random(seed)
    real_write, real_replace = os.write, os.replace

    def slow_write(fd: int, data: bytes | memoryview) -> int:
        time.sleep(0.0005)
        return real_write(fd, data[: 1 << 16])

    def late_replace(src: str, dst: str) -> None:
        time.sleep(rng.random() * 0.03)
        real_replace(src, dst)

    inplace.os.write = slow_write  # type: ignore[assignment]
    inplace.os.replace = late_replace  # type: ignore[assignment]
    start.wait(timeout=120)
    time.sleep(rng.random() * 0.05)
    try:
        tidy.format_source(Source(path), write=True)
        outcome = "reformatted"
    except tidy.FormatError as e:
        outcome = str(e)
    Path(results, str(seed)).write_text(outcome, encoding="utf-8")


@pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(), reason="forks the runs")
def test_runs_at_once_on_one_file_leave_it_whole(tmp_path: Path) -> None:
    """Three runs on one 2 MB file, over and over, one of them often killed at
    a random moment: whatever any reader sees, at any time, is the original
    text or the formatted one, whole and with the file's mode."""
    records = tmp_path / "records"
    records.mkdir()
    path = records / "big.keil"
    game = '[Size "3"]   [Event "g{}"]\n1.c3 {{' + "x" * 20_000 + "}} button 2. b2 pass *\n\n"
    original = "".join(game.format(i) for i in range(100)).encode()
    path.write_bytes(original)
    formatted = tidy.format_source(Source(str(path))).data
    assert len(formatted) > 2_000_000 and formatted != original
    fork = multiprocessing.get_context("fork")
    rng = random.Random(20)
    changed = f"{path}: changed while it was being formatted; left as it is (run fmt again)"
    for round in range(16):
        path.write_bytes(original)
        os.chmod(path, 0o640)
        results = tmp_path / f"results-{round}"
        results.mkdir()
        # The runs and this process: a run is killed only once all three are
        # past the barrier, or the other two would wait there for it forever.
        start = fork.Barrier(4)
        runs = [
            fork.Process(target=_slow_run, args=(str(path), start, str(results), round * 10 + i)) for i in range(3)
        ]
        for run in runs:
            run.start()
        victim = rng.choice(runs) if round % 2 else None
        start.wait(timeout=120)
        kill_at = time.monotonic() + 0.05 + rng.random() * 0.1
        seen: set[tuple[int, int]] = set()
        while any(run.is_alive() for run in runs):
            if victim is not None and time.monotonic() >= kill_at:
                # Process.kill, not os.kill: the victim may have finished and
                # been reaped already, and its pid may belong to no one.
                victim.kill()
                victim = None
            with open(path, "rb") as f:
                data, mode = f.read(), stat.S_IMODE(os.fstat(f.fileno()).st_mode)
            if data not in (original, formatted) or mode != 0o640:
                seen.add((len(data), mode))
        for run in runs:
            run.join()
        assert seen == set(), f"round {round}: a reader saw (length, mode) {sorted(seen)}"
        assert path.read_bytes() in (original, formatted), f"round {round}"
        assert stat.S_IMODE(os.stat(path).st_mode) == 0o640
        outcomes = [p.read_text(encoding="utf-8") for p in results.iterdir()]
        assert set(outcomes) <= {"reformatted", changed}, outcomes
        if len(outcomes) == 3:  # none killed: one of them got there
            assert path.read_bytes() == formatted and "reformatted" in outcomes
        # Only a killed run leaves a temporary file, and only its own.
        left = temps(records, "big.keil")
        assert len(left) <= 3 - len(outcomes)
        assert names(records) == sorted(["big.keil", *left])
        for name in left:
            os.unlink(records / name)
