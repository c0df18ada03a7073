"""Nothing the user wrote is lost: every file keilref writes goes through one
atomic writer, which never writes over a file the command reads, never over
a file with other hard links, never replaces an existing file for ``import``
or ``export`` without ``--force``, follows no link out of a directory target,
writes several files all or none, and leaves temporaries no walk reads.

Each test names a victim file and checks it byte for byte afterwards.
"""

from __future__ import annotations

import errno
import os
import resource
import signal
import stat
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from cli_support import ROOT, run
from keilref.cli import EXIT_FAILED, EXIT_OK, EXIT_USAGE
from keilref.files import OUTPUT_TEMP_SUFFIX, is_temporary

GAME = ROOT / "records/games/size5-keil-corner-ko.keil"
ANNOTATED = ROOT / "records/games/size7-keil-invasion-annotated.keil"

OWN_INPUT = "cannot write: the command reads this file, and its output would replace it; write elsewhere"


def _record(directory: Path, name: str = "in.keil", source: Path = GAME) -> Path:
    path = directory / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(source.read_bytes())
    return path


def _match(directory: Path, name: str = "m.moves.json", source: Path = GAME) -> Path:
    """A move list of the abstract_games server, made by exporting a record."""
    exported = run("export", "--to", "abstract-games", str(source))
    assert exported.exit_code == EXIT_OK, exported.output
    path = directory / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(exported.stdout, encoding="utf-8")
    return path


def _files(directory: Path) -> list[str]:
    return sorted(str(p.relative_to(directory)) for p in directory.rglob("*"))


def _no_temporaries(directory: Path) -> None:
    assert [p.name for p in directory.rglob("*") if is_temporary(p.name)] == []


# --- a report never lands on its own input ----------------------------------------------

REPORTS: list[Callable[[str, str], list[str]]] = [
    lambda given, out: ["check", given, "-o", out],
    lambda given, out: ["check", "--format", "html", given, "-o", out],
    lambda given, out: ["check", "--format", "sarif", given, "-o", out],
    lambda given, out: ["show", given, "-o", out],
    lambda given, out: ["show", "--format", "svg", given, "-o", out],
    lambda given, out: ["score", given, "-o", out],
    lambda given, out: ["legal", given, "-o", out],
    lambda given, out: ["stats", given, "-o", out],
    lambda given, out: ["stats", "--standings", given, "-o", out],
    lambda given, out: ["stats", given, "--plot", out],
    lambda given, out: ["export", "--to", "abstract-games", given, "-o", out],
]
REPORT_IDS = [
    "check", "check-html", "check-sarif", "show", "show-svg", "score", "legal", "stats", "stats-standings",
    "stats-plot", "export",
]


@pytest.mark.parametrize("command", REPORTS, ids=REPORT_IDS)
@pytest.mark.parametrize("spelling", ["same", "dot-slash", "absolute", "symlink", "hard-link"])
def test_no_command_writes_over_the_record_it_reads(
    command: Callable[[str, str], list[str]], spelling: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    victim = _record(tmp_path)
    before = victim.read_bytes()
    out = {
        "same": "in.keil",
        "dot-slash": "./in.keil",
        "absolute": str(victim),
        "symlink": "link.keil",
        "hard-link": "other-name.keil",
    }[spelling]
    if spelling == "symlink":
        os.symlink("in.keil", "link.keil")
    if spelling == "hard-link":
        os.link("in.keil", "other-name.keil")
    result = run(*command("in.keil", out))
    assert result.exit_code == EXIT_USAGE, result.output
    # A Path option shows ./in.keil as in.keil.
    shown = out if command("", "")[0] == "export" else str(Path(out))
    assert result.stderr.endswith(f"keilref: {shown}: {OWN_INPUT}\n"), result.stderr
    assert victim.read_bytes() == before
    _no_temporaries(tmp_path)


@pytest.mark.parametrize("command", REPORTS[:3] + REPORTS[7:9] + REPORTS[10:], ids=REPORT_IDS[:3] + REPORT_IDS[7:9] + REPORT_IDS[10:])
def test_nor_over_a_record_found_inside_a_directory_it_reads(
    command: Callable[[str, str], list[str]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    victim = _record(tmp_path, "archive/sub/in.keil")
    other = tmp_path / "archive" / "notes.txt"
    other.write_bytes(b"not a record\n")
    before = victim.read_bytes()
    result = run(*command("archive", str(tmp_path / "archive" / "sub" / ".." / "sub" / "in.keil")))
    assert result.exit_code == EXIT_USAGE, result.output
    assert OWN_INPUT in result.stderr
    assert victim.read_bytes() == before
    assert other.read_bytes() == b"not a record\n"
    _no_temporaries(tmp_path)


def test_nor_over_the_file_standard_input_comes_from(tmp_path: Path) -> None:
    victim = _record(tmp_path)
    before = victim.read_bytes()
    with victim.open("rb") as stdin:
        done = subprocess.run(
            [sys.executable, "-m", "keilref", "check", "-", "-o", str(victim)],
            cwd=ROOT, stdin=stdin, capture_output=True, timeout=120,
        )
    assert done.returncode == EXIT_USAGE
    assert done.stderr.decode() == f"keilref: {victim}: {OWN_INPUT}\n"
    assert victim.read_bytes() == before


def test_import_never_writes_over_the_match_it_reads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    victim = _match(tmp_path)
    before = victim.read_bytes()
    for out in ("m.moves.json", "./m.moves.json", str(victim)):
        for force in ((), ("--force",)):
            result = run("import", "m.moves.json", "-o", out, *force)
            assert result.exit_code == EXIT_USAGE, result.output
            assert result.stderr.endswith(f"keilref: {out}: {OWN_INPUT}\n")
            assert victim.read_bytes() == before
    _no_temporaries(tmp_path)


def test_another_file_in_the_directory_read_is_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Only the files read are protected: a report beside them is an ordinary output."""
    monkeypatch.chdir(tmp_path)
    _record(tmp_path, "archive/in.keil")
    (tmp_path / "archive" / "report.txt").write_text("last week\n", encoding="utf-8")
    result = run("check", "archive", "-o", "archive/report.txt")
    assert result.exit_code == EXIT_OK
    assert (tmp_path / "archive" / "report.txt").read_text(encoding="utf-8").startswith("archive/in.keil:1:1: game 1: ok")


# --- import and export replace nothing without --force -----------------------------------


def test_import_leaves_a_hand_written_record_as_it_is(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    _match(tmp_path)
    victim = tmp_path / "m.keil"
    victim.write_bytes(b'[Event "typed by hand"]\n\n1. a1 *\n')
    for out in ("./", str(tmp_path) + "/", "m.keil"):
        result = run("import", "m.moves.json", "-o", out)
        assert result.exit_code == EXIT_USAGE, result.output
        assert result.stderr.endswith("m.keil: exists; left as it is (--force replaces it)\n"), result.stderr
        assert victim.read_bytes() == b'[Event "typed by hand"]\n\n1. a1 *\n'
    forced = run("import", "m.moves.json", "-o", "./", "--force")
    assert forced.exit_code == EXIT_OK, forced.output
    assert victim.read_bytes().startswith(b'[Site "abstract_games"]')
    _no_temporaries(tmp_path)


def test_export_leaves_an_existing_move_list_as_it_is(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    _record(tmp_path, "g.keil")
    victim = tmp_path / "g.moves.json"
    victim.write_bytes(b"{}\n")
    for out in ("g.moves.json", "./"):
        result = run("export", "--to", "abstract-games", "g.keil", "-o", out)
        assert result.exit_code == EXIT_USAGE
        assert "g.moves.json: exists; left as it is (--force replaces it)" in result.stderr
        assert victim.read_bytes() == b"{}\n"
    assert run("export", "--to", "abstract-games", "g.keil", "-o", "./", "--force").exit_code == EXIT_OK
    assert victim.read_bytes().startswith(b"{") and len(victim.read_bytes()) > 10


def test_a_link_planted_in_the_directory_is_not_followed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    _match(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    victim = outside / "victim.keil"
    victim.write_bytes(b"the user's own archive\n")
    target = tmp_path / "out"
    target.mkdir()
    (target / "m.keil").symlink_to(victim)
    (target / "dangling.keil").symlink_to(outside / "new.keil")
    dangling = _match(tmp_path, "dangling.moves.json")
    result = run("import", "m.moves.json", str(dangling), "-o", "out/")
    assert result.exit_code == EXIT_USAGE
    assert result.stderr.splitlines() == [
        "keilref: out/m.keil: a symbolic link, not followed out of the directory; left as it is (--force replaces the link)",
        "keilref: out/dangling.keil: a symbolic link, not followed out of the directory; left as it is (--force replaces the link)",
    ]
    assert victim.read_bytes() == b"the user's own archive\n"
    assert sorted(p.name for p in outside.iterdir()) == ["victim.keil"]
    # With --force the links themselves are replaced: nothing outside is written.
    forced = run("import", "m.moves.json", str(dangling), "-o", "out/", "--force")
    assert forced.exit_code == EXIT_OK, forced.output
    assert not (target / "m.keil").is_symlink() and (target / "m.keil").read_bytes().startswith(b'[Site "abstract_games"]')
    assert victim.read_bytes() == b"the user's own archive\n"
    assert sorted(p.name for p in outside.iterdir()) == ["victim.keil"]
    _no_temporaries(tmp_path)


# --- two outputs of one name: nothing written -----------------------------------------


def test_export_of_two_files_of_one_name_writes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    _record(tmp_path, "x/g.keil")
    _record(tmp_path, "y/g.keil", ANNOTATED)
    _record(tmp_path, "z/h.keil")
    result = run("export", "--to", "abstract-games", "x", "y", "z", "-o", "out/")
    assert result.exit_code == EXIT_USAGE
    assert result.stderr == (
        "keilref: out/g.moves.json: x/g.keil and y/g.keil would both be written here; nothing written "
        "(give them different names)\n"
    )
    assert not (tmp_path / "out").exists()
    # Into a directory that exists: it stays empty.
    (tmp_path / "out").mkdir()
    assert run("export", "--to", "abstract-games", "x", "y", "z", "-o", "out/", "--force").exit_code == EXIT_USAGE
    assert list((tmp_path / "out").iterdir()) == []


def test_export_numbers_against_a_file_of_that_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Game 1 of g.keil is g-1; a file g-1.keil would be written there too."""
    monkeypatch.chdir(tmp_path)
    archive = tmp_path / "g.keil"
    archive.write_bytes(GAME.read_bytes() + b"\n" + ANNOTATED.read_bytes())
    _record(tmp_path, "g-1.keil")
    result = run("export", "--to", "abstract-games", "g.keil", "g-1.keil", "-o", "out/")
    assert result.exit_code == EXIT_USAGE
    assert "out/g-1.moves.json: g.keil (game 1) and g-1.keil would both be written here" in result.stderr
    assert not (tmp_path / "out").exists()


def test_import_of_two_matches_of_one_name_writes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    _match(tmp_path, "a/m.moves.json")
    _match(tmp_path, "b/m.moves.json", ANNOTATED)
    result = run("import", "a", "b", "-o", "out/")
    assert result.exit_code == EXIT_USAGE
    assert "out/m.keil: a/m.moves.json and b/m.moves.json would both be written here; nothing written" in result.stderr
    assert not (tmp_path / "out").exists()


# --- a full disk leaves the archive as it was ------------------------------------------


def _limited(limit: int) -> Callable[[], None]:
    def apply() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return apply


@pytest.mark.parametrize("out", ["archive.keil", "dir/"])
def test_a_write_cut_short_leaves_the_archive_whole(out: str, tmp_path: Path) -> None:
    """A file may grow to 128 bytes only, as on a disk that fills up part
    way through a record: the import fails, and the archive it would have
    replaced is whole."""
    matches = tmp_path / "matches"
    _match(matches, "a.moves.json", ANNOTATED)
    _match(matches, "b.moves.json", ANNOTATED)
    victim = tmp_path / ("archive.keil" if out == "archive.keil" else "dir/a.keil")
    victim.parent.mkdir(exist_ok=True)
    old = b'[Event "years of games"]\n' * 400
    victim.write_bytes(old)
    done = subprocess.run(
        [sys.executable, "-m", "keilref", "import", str(matches), "-o", str(tmp_path / out), "--force"],
        cwd=ROOT, capture_output=True, timeout=120, preexec_fn=_limited(128),
    )
    assert done.returncode == EXIT_USAGE, done.stderr
    assert done.stderr.decode().endswith(": cannot write: File too large\n")
    assert victim.read_bytes() == old
    assert _files(tmp_path) == sorted(
        ["matches", "matches/a.moves.json", "matches/b.moves.json", str(victim.relative_to(tmp_path))]
        + (["dir"] if out == "dir/" else [])
    )


@pytest.mark.parametrize("failing", [1, 2])
def test_a_full_disk_while_syncing_writes_none_of_the_files(
    failing: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Several files are all written or none: the disk fills at the first
    file's sync, or at the second's, after the first was written whole."""
    monkeypatch.chdir(tmp_path)
    _record(tmp_path, "a.keil")
    _record(tmp_path, "b.keil", ANNOTATED)
    (tmp_path / "out").mkdir()
    victim = tmp_path / "out" / "a.moves.json"
    victim.write_bytes(b'{"moves": "the only copy"}\n')
    calls = []
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        calls.append(fd)
        if len(calls) == failing:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    result = run("export", "--to", "abstract-games", "a.keil", "b.keil", "-o", "out/", "--force")
    assert result.exit_code == EXIT_USAGE
    name = "a" if failing == 1 else "b"
    assert result.stderr == f"keilref: out/{name}.moves.json: cannot write: No space left on device\n"
    assert victim.read_bytes() == b'{"moves": "the only copy"}\n'
    assert _files(tmp_path / "out") == ["a.moves.json"]


def test_a_full_disk_leaves_a_report_as_it_was(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    victim = tmp_path / "report.txt"
    victim.write_bytes(b"last week's report\n")

    def fsync(fd: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", fsync)
    result = run("check", str(GAME), "-o", str(victim))
    assert result.exit_code == EXIT_USAGE
    assert result.stderr == f"keilref: {victim}: cannot write: No space left on device\n"
    assert victim.read_bytes() == b"last week's report\n"
    assert [p.name for p in tmp_path.iterdir()] == ["report.txt"]


# --- hard links, owner ----------------------------------------------------------------


@pytest.mark.parametrize(
    "command",
    [["check", str(GAME)], ["show", str(GAME)], ["stats", str(GAME)], ["filter", str(GAME)], ["generate", "-n", "1"]],
    ids=["check", "show", "stats", "filter", "generate"],
)
def test_a_file_with_other_hard_links_is_refused(command: list[str], tmp_path: Path) -> None:
    victim = tmp_path / "report.txt"
    victim.write_bytes(b"shared\n")
    other = tmp_path / "other-name.txt"
    os.link(victim, other)
    result = run(*command, "-o", str(victim))
    assert result.exit_code == EXIT_USAGE
    assert result.stderr == (
        f"keilref: {victim}: has 2 hard links, which replacing it would separate (the other names would keep "
        "the old text); left as it is (write elsewhere, or remove it first)\n"
    )
    assert victim.read_bytes() == other.read_bytes() == b"shared\n"
    assert os.stat(victim).st_ino == os.stat(other).st_ino
    assert sorted(p.name for p in tmp_path.iterdir()) == ["other-name.txt", "report.txt"]


def test_import_force_replaces_one_hard_linked_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    _match(tmp_path)
    (tmp_path / "m.keil").write_bytes(b"old\n")
    os.link("m.keil", "other.keil")
    refused = run("import", "m.moves.json", "-o", "m.keil")
    assert refused.exit_code == EXIT_USAGE and "exists; left as it is" in refused.stderr
    assert run("import", "m.moves.json", "-o", "m.keil", "--force").exit_code == EXIT_OK
    assert (tmp_path / "other.keil").read_bytes() == b"old\n"
    assert (tmp_path / "m.keil").read_bytes().startswith(b'[Site "abstract_games"]')


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="giving a file another owner needs root")
def test_the_report_keeps_the_files_owner_group_and_mode(tmp_path: Path) -> None:
    victim = tmp_path / "report.txt"
    victim.write_bytes(b"theirs\n")
    os.chown(victim, 12345, 23456)
    victim.chmod(0o664)
    assert run("check", str(GAME), "-o", str(victim)).exit_code == EXIT_OK
    st = os.stat(victim)
    assert (st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode)) == (12345, 23456, 0o664)
    assert victim.read_text(encoding="utf-8").startswith(f"{GAME}:1:1: game 1: ok")


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="giving a file another owner needs root")
def test_a_report_that_cannot_keep_the_owner_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """As for a user writing into another's file: the new file could not be theirs."""
    victim = tmp_path / "report.txt"
    victim.write_bytes(b"theirs\n")
    os.chown(victim, 12345, 23456)

    def fchown(fd: int, uid: int, gid: int) -> None:
        raise PermissionError(errno.EPERM, os.strerror(errno.EPERM))

    monkeypatch.setattr(os, "fchown", fchown)
    result = run("check", str(GAME), "-o", str(victim))
    assert result.exit_code == EXIT_USAGE
    assert result.stderr == f"keilref: {victim}: the new file cannot keep its owner, group; left as it is\n"
    assert victim.read_bytes() == b"theirs\n" and os.stat(victim).st_uid == 12345
    assert [p.name for p in tmp_path.iterdir()] == ["report.txt"]


# --- temporaries ----------------------------------------------------------------------


def test_a_killed_report_leaves_nothing_a_walk_reads(tmp_path: Path) -> None:
    game = ANNOTATED.read_text(encoding="utf-8")
    archive = tmp_path / "archive" / "big.keil"
    archive.parent.mkdir()
    archive.write_text((game + "\n") * 6000, encoding="utf-8")
    proc = subprocess.Popen(
        [sys.executable, "-m", "keilref", "check", "--jobs", "1", str(archive), "-o", str(tmp_path / "archive" / "out.keil")],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 60
        while not [p for p in archive.parent.iterdir() if is_temporary(p.name)]:
            assert time.monotonic() < deadline and proc.poll() is None
            time.sleep(0.01)
        time.sleep(0.2)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    (left,) = [p.name for p in archive.parent.iterdir() if is_temporary(p.name)]
    assert left.startswith(".keilref-") and left.endswith(OUTPUT_TEMP_SUFFIX), left
    assert not (archive.parent / "out.keil").exists()
    # An older version's name ended in the target's suffix: skipped too, whatever the patterns say.
    (archive.parent / ".keilref-k3yx9q2a.keil").write_bytes(GAME.read_bytes())
    small = tmp_path / "small"
    small.mkdir()
    _record(small, "g.keil")
    for name in (left, ".keilref-k3yx9q2a.keil"):
        (small / name).write_bytes(b'[Size "5"] 1. zz9 *\n')
    for args in (["--exclude", "nothing"], []):
        result = run("check", "-q", *args, str(small))
        assert result.exit_code == EXIT_OK, result.output
        assert result.stdout.startswith("1 game: 1 ok")
    assert run("fmt", "--check", str(small)).exit_code == EXIT_OK


def test_many_files_are_written_with_few_descriptors(tmp_path: Path) -> None:
    """All or none, but one file open at a time: 200 games under a limit of 64 descriptors."""
    archive = tmp_path / "many.keil"
    assert run("generate", "-n", "200", "--size", "3", "-o", str(archive)).exit_code == EXIT_OK

    def few() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64))

    done = subprocess.run(
        [sys.executable, "-m", "keilref", "export", "--to", "abstract-games", str(archive), "-o", str(tmp_path / "out") + "/"],
        cwd=ROOT, capture_output=True, timeout=120, preexec_fn=few,
    )
    assert done.returncode == EXIT_OK, done.stderr
    assert _files(tmp_path / "out") == sorted(f"many-{n}.moves.json" for n in range(1, 201))


def test_filters_copy_of_standard_input_is_never_read_by_a_walk(tmp_path: Path) -> None:
    """filter copies standard input to a directory of keilref's own; one left by a killed run is skipped."""
    _record(tmp_path, "g.keil")
    _record(tmp_path, ".keilref-k3yx9q2a/stdin.keil", ANNOTATED)
    result = run("check", "-q", "--exclude", "nothing", str(tmp_path))
    assert result.exit_code == EXIT_OK
    assert result.stdout.startswith("1 game: 1 ok")
