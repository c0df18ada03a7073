"""``keilref fmt --in-place``: a file is replaced whole, or left exactly as it was.

Each refusal is checked through the command line (exit code, the one line on
standard error) and on disk (the bytes, the mode, the links); the rewrite
itself through :mod:`keilref.records.inplace`.
"""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from keilref.records import reformat as formatting
from keilref.records import inplace
from keilref.referee.batches import Source
from keilref.cli import EXIT_FAILED, EXIT_OK, EXIT_USAGE, app
from keilref.records.record import Record

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
    real_write = formatting._write

    def write_then_someone_edits(records: list[Record], name: str) -> str:
        text = real_write(records, name)
        path.write_text(edited, encoding="utf-8")  # another editor saves the file now
        return text

    monkeypatch.setattr(formatting, "_write", write_then_someone_edits)
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


# --- temporary files ---------------------------------------------------------


def test_the_temporary_file_is_named_beside_the_file(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "game.keil"
    assert inplace.temp_path(str(path)) == str(tmp_path / "sub" / ".game.keil.keilref-fmt.tmp")


def test_a_leftover_temporary_file_is_removed_by_the_next_run(tmp_path: Path) -> None:
    path = messy(tmp_path)
    leftover = tmp_path / ".game.keil.keilref-fmt.tmp"
    leftover.write_text('[Event "Club night"]\n[Si', encoding="utf-8")  # cut off by a kill
    result = fmt("--in-place", str(path))
    assert result.exit_code == EXIT_OK
    assert result.stderr == f"keilref: note: {path}: removed {leftover}, left by an interrupted run\nreformatted {path}\n"
    assert names(tmp_path) == ["game.keil"]
    assert path.read_text(encoding="utf-8") == CANONICAL


def test_check_and_fmt_never_take_a_leftover_for_a_record(tmp_path: Path) -> None:
    messy(tmp_path)
    (tmp_path / ".game.keil.keilref-fmt.tmp").write_text('[Size "3"] 1. zz9 *', encoding="utf-8")
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
    formatted = formatting.format_source(Source(str(path))).data
    tmp = Path(inplace.temp_path(str(path)))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "keilref", "fmt", "--in-place", str(path)], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while not tmp.exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.0005)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    after = path.read_bytes()
    # Never a mixture: the old text, or (if the rename already happened) the new.
    assert after in (original, formatted)
    if after == original:
        assert names(tmp_path) in (["big.keil"], [".big.keil.keilref-fmt.tmp", "big.keil"])
    else:
        assert names(tmp_path) == ["big.keil"]
    # Whatever the kill left, the next run finishes the job and cleans up.
    result = fmt("--in-place", str(path))
    assert result.exit_code == EXIT_OK
    assert path.read_bytes() == formatted
    assert names(tmp_path) == ["big.keil"]
