"""``-o/--output-file``: the same meaning in every command that writes a result.

What would go to standard output goes to the file, whole, when the command
is done; a run without a result leaves the file as it was.
"""

from __future__ import annotations

import os
import re
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cli_support import ROOT, run, untimed
from keilref.cli import EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE
from keilref.formats import FORMATS

GAME = "records/games/size5-keil-corner-ko.keil"
ILLEGAL = "records/faults/illegal-superko.keil"
ANNOTATED = "records/games/size7-keil-invasion-annotated.keil"

_JUNIT_TIME = re.compile(r' time="[0-9.]+"')


def _same(text: str) -> str:
    """What varies from run to run fixed: the summary's timing, JUnit's times."""
    text = _JUNIT_TIME.sub("", text)
    if re.search(r" in \d+\.\d\d s \(", text):
        text = untimed(text)
    return text


COMMANDS = [
    # A binary format goes to a file only (tests/test_verdict_table.py).
    *(
        pytest.param(["check", "-f", name, "records/games", ILLEGAL], id=f"check-{name}")
        for name, fmt in FORMATS.items()
        if not fmt.binary
    ),
    pytest.param(["check", "--show-settings", GAME], id="check-show-settings"),
    pytest.param(["show", GAME], id="show"),
    pytest.param(["show", ILLEGAL], id="show-illegal"),
    pytest.param(["show", "-f", "svg", GAME], id="show-svg"),
    pytest.param(["score", GAME], id="score"),
    pytest.param(["score", "-f", "svg", ILLEGAL], id="score-svg-illegal"),
    pytest.param(["legal", GAME, "--turn", "3"], id="legal"),
    pytest.param(["stats", "records/games"], id="stats"),
    pytest.param(["stats", "-f", "json", "records/games"], id="stats-json"),
    pytest.param(["stats", "--standings", "records/games"], id="stats-standings"),
    pytest.param(["filter", "--status", "unfinished", "records/games"], id="filter"),
    pytest.param(["generate", "-n", "3", "--size", "5"], id="generate"),
]


@pytest.mark.parametrize("args", COMMANDS)
def test_the_file_holds_what_standard_output_would(args: list[str], tmp_path: Path, at_the_root: None) -> None:
    plain = run(*args)
    assert plain.exit_code in (EXIT_OK, EXIT_FAILED)
    assert plain.stdout_bytes, "the command writes a result"
    target = tmp_path / "out"
    target.write_text("what was there before\n", encoding="utf-8")
    written = run(*args, "-o", str(target))
    assert written.exit_code == plain.exit_code
    assert _same(target.read_text(encoding="utf-8")) == _same(plain.stdout)
    assert written.stderr == plain.stderr or args[0] == "check", "notes and errors stay on the terminal"
    if args[0] == "check" and "--show-settings" not in args:
        # The terminal still says how the check went: the summary line, only.
        assert re.fullmatch(r"\d+ games: .* games/s\)\n", written.stdout), written.stdout
    else:
        assert written.stdout == ""
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"], "no temporary file left beside it"


@pytest.mark.parametrize("spelling", ["-o", "--output-file", "--output"])
def test_every_spelling_and_dash_for_standard_output(spelling: str, tmp_path: Path, at_the_root: None) -> None:
    plain = run("show", GAME)
    target = tmp_path / "board.txt"
    assert run("show", GAME, spelling, str(target)).exit_code == EXIT_OK
    assert target.read_text(encoding="utf-8") == plain.stdout
    to_stdout = run("show", GAME, spelling, "-")
    assert to_stdout.exit_code == EXIT_OK and to_stdout.stdout == plain.stdout
    assert not Path("-").exists()


@pytest.mark.parametrize(
    "args",
    [
        pytest.param(["show", "records/games/no-such-file.keil"], id="show-missing-file"),
        pytest.param(["show", GAME, "--game", "9"], id="show-missing-game"),
        pytest.param(["score", GAME, "--turn", "999"], id="score-missing-turn"),
        pytest.param(["legal", "records/faults/error-bad-token.keil"], id="legal-unreadable"),
        pytest.param(["check", "records/no-such-folder"], id="check-missing-path"),
        pytest.param(["check", "--rules", "chess", GAME], id="check-bad-option"),
        pytest.param(["stats", "records/no-such-folder"], id="stats-missing-path"),
        pytest.param(["filter", "records/no-such-folder"], id="filter-missing-path"),
        pytest.param(["generate", "--size", "1"], id="generate-bad-size"),
    ],
)
def test_a_run_without_a_result_leaves_the_file_as_it_was(
    args: list[str], tmp_path: Path, at_the_root: None
) -> None:
    target = tmp_path / "keep.txt"
    target.write_bytes(b"the user's own words\n")
    result = run(*args, "-o", str(target))
    assert result.exit_code in (EXIT_FAILED, EXIT_USAGE)
    assert result.stderr.startswith("keilref: ")
    assert target.read_bytes() == b"the user's own words\n"
    assert [p.name for p in tmp_path.iterdir()] == ["keep.txt"]


def test_failing_games_are_a_result_the_file_gets(tmp_path: Path, at_the_root: None) -> None:
    target = tmp_path / "faults.jsonl"
    result = run("check", "-f", "jsonl", "records/faults", "-o", str(target))
    assert result.exit_code == EXIT_FAILED
    statuses = {line.split('"status": "')[1].split('"')[0] for line in target.read_text(encoding="utf-8").splitlines()}
    assert {"illegal", "mismatch", "error"} <= statuses


def test_a_missing_path_still_writes_the_others_report(tmp_path: Path, at_the_root: None) -> None:
    target = tmp_path / "report.txt"
    result = run("check", GAME, "records/no-such-file.keil", "-o", str(target))
    assert result.exit_code == EXIT_USAGE
    assert "no-such-file.keil" in result.stderr
    assert target.read_text(encoding="utf-8").startswith(f"{GAME}:")


def test_filter_can_write_over_the_file_it_reads(tmp_path: Path) -> None:
    """The games are written to the file only once they are all read."""
    archive = tmp_path / "archive.keil"
    archive.write_bytes((ROOT / "records/games/size5-keil-corner-ko.keil").read_bytes() + b"\n" + (ROOT / ANNOTATED).read_bytes())
    expected = run("filter", "--rules", "keil", "--size", "5", str(archive)).stdout_bytes
    assert expected and expected != archive.read_bytes()
    result = run("filter", "--rules", "keil", "--size", "5", str(archive), "-o", str(archive))
    assert result.exit_code == EXIT_OK
    assert archive.read_bytes() == expected


def test_a_directory_is_not_a_file_to_write(tmp_path: Path, at_the_root: None) -> None:
    result = run("stats", "records/games", "-o", str(tmp_path))
    assert result.exit_code == EXIT_USAGE
    assert result.stderr == f"keilref: {tmp_path}: cannot write: it is a directory\n"


def test_png_goes_to_the_file_too(tmp_path: Path, at_the_root: None) -> None:
    pytest.importorskip("resvg_py")
    target = tmp_path / "board.png"
    result = run("show", GAME, "-f", "png", "-o", str(target))
    assert result.exit_code == EXIT_OK
    assert target.read_bytes() == run("show", GAME, "-f", "png").stdout_bytes
    assert target.read_bytes().startswith(b"\x89PNG")


def test_an_interrupted_check_leaves_the_file_as_it_was(tmp_path: Path) -> None:
    game = (ROOT / ANNOTATED).read_text(encoding="utf-8")
    archive = tmp_path / "archive.keil"
    archive.write_text((game + "\n") * 6000, encoding="utf-8")
    target = tmp_path / "report.txt"
    target.write_bytes(b"last week's report\n")
    proc = subprocess.Popen(
        [sys.executable, "-m", "keilref", "check", "--jobs", "2", str(archive), "-o", str(target)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 30
        # Checking is under way once the report's temporary file is there.
        while not any(p.name.startswith(".keilref-") for p in tmp_path.iterdir()):
            assert time.monotonic() < deadline and proc.poll() is None
            time.sleep(0.01)
        time.sleep(0.2)
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == EXIT_INTERRUPTED
    assert target.read_bytes() == b"last week's report\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["archive.keil", "report.txt"]
    assert out == b""
    assert re.match(rb"keilref: interrupted after [\d,]+ games?: ", err), err


def test_a_device_is_written_not_replaced(at_the_root: None) -> None:
    before = os.stat(os.devnull)
    result = run("stats", "records/games", "-o", os.devnull)
    assert result.exit_code == EXIT_OK and result.stdout == ""
    after = os.stat(os.devnull)
    assert stat.S_ISCHR(after.st_mode) and (after.st_ino, after.st_rdev) == (before.st_ino, before.st_rdev)


def test_a_link_stays_a_link_and_a_file_keeps_its_mode(tmp_path: Path, at_the_root: None) -> None:
    real = tmp_path / "real.txt"
    real.write_text("old\n", encoding="utf-8")
    real.chmod(0o640)
    link = tmp_path / "link.txt"
    link.symlink_to(real.name)
    assert run("show", GAME, "-o", str(link)).exit_code == EXIT_OK
    assert link.is_symlink() and os.readlink(link) == real.name
    assert real.read_text(encoding="utf-8") == run("show", GAME).stdout
    assert stat.S_IMODE(real.stat().st_mode) == 0o640
