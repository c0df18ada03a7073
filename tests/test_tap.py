"""``--format tap``: TAP 14 that ``prove`` reads, a test point per game, its
``not ok`` points exactly the games that fail."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from cli_support import ROOT, run
from keilref.referee.batches import check_sources
from keilref.records.sources import expand_paths

PROVE = shutil.which("prove")
needs_prove = pytest.mark.skipif(PROVE is None, reason="prove (Perl's Test::Harness) is not installed")

_VERSION_14 = "TAP specified version 14 but we don't know about versions later than 13"


def _prove(path: Path) -> str:
    """What prove says of a TAP file (``cat`` is the test it runs)."""
    assert PROVE is not None
    done = subprocess.run([PROVE, "-e", "cat", str(path)], capture_output=True, text=True, timeout=60)
    return done.stdout + done.stderr


def _failed_points(summary: str) -> tuple[int, set[int]]:
    """The tests prove counted, and the numbers of the failed ones."""
    tests = re.search(r"Tests=(\d+)", summary)
    assert tests, summary
    failed: set[int] = set()
    listed = re.search(r"Failed tests:\s+([\d,\s-]+)", summary)
    if listed:
        for part in re.split(r",\s*", listed.group(1).strip()):
            first, _, last = part.partition("-")
            failed.update(range(int(first), int(last or first) + 1))
    return int(tests.group(1)), failed


@needs_prove
@pytest.mark.parametrize("strict", [False, True], ids=["lenient", "strict"])
def test_prove_reads_a_point_per_game_failing_exactly_the_failing_games(tmp_path: Path, strict: bool) -> None:
    paths = [str(ROOT / "records")]
    verdicts = list(check_sources(expand_paths(paths)))
    want = {i for i, v in enumerate(verdicts, 1) if v.fails(strict=strict)}
    assert want and len(want) < len(verdicts)
    result = run("check", "--format", "tap", *(["--strict"] if strict else []), *paths)
    assert result.exit_code == 1
    tap = result.stdout
    assert tap.startswith("TAP version 14\n") and tap.endswith(f"\n1..{len(verdicts)}\n")
    path = tmp_path / "check.tap"
    path.write_text(tap, encoding="utf-8")
    told = _prove(path)
    # prove knows TAP 13, of which TAP 14 without subtests is a superset: the
    # version line is the one thing it may not read.
    assert [e for e in re.findall(r"Parse errors: (.*)", told) if e != _VERSION_14] == [], told
    assert _failed_points(told) == (len(verdicts), want), told
    as_13 = tmp_path / "check-13.tap"
    as_13.write_text(tap.replace("TAP version 14", "TAP version 13", 1), encoding="utf-8")
    told_13 = _prove(as_13)
    assert "Parse errors" not in told_13, told_13
    assert _failed_points(told_13) == (len(verdicts), want), told_13
    assert ("Result: PASS" in told_13) == (not want)


def test_a_failing_point_has_its_faults_in_yaml_and_a_passing_one_its_notes_as_comments() -> None:
    superko = "records/faults/illegal-superko.keil"
    unfinished = "records/games/size9-keil-unfinished.keil"
    result = run("check", "--format", "tap", superko, unfinished)
    assert result.exit_code == 1
    assert result.stdout == (
        "TAP version 14\n"
        f"not ok 1 - {superko} game 1\n"
        "  ---\n"
        '  message: "game 1: illegal: move 16 (Black) e2, turn 31: superko (repeats turn 29)"\n'
        "  severity: error\n"
        "  rule: illegal/superko\n"
        "  at:\n"
        f'    file: "{superko}"\n'
        "    line: 8\n"
        "    column: 79\n"
        "  ...\n"
        f"ok 2 - {unfinished} game 1\n"
        f"# {unfinished}:1:1: game 1: unfinished: computed -, declared *; score so far W+6\n"
        "1..2\n"
    )


_UNFINISHED = '[Rules "keil"]\n[Size "3"]\n[Komi "1"]\n[Result "*"]\n\n1. c5 d5 *\n'


def test_warnings_fail_a_strict_point_in_its_yaml_and_hashes_and_backslashes_are_escaped(tmp_path: Path) -> None:
    path = tmp_path / "a#b\\c.keil"
    path.write_text(_UNFINISHED, encoding="utf-8")
    lenient = run("check", "--format", "tap", str(path))
    strict = run("check", "--format", "tap", "--strict", str(path))
    assert (lenient.exit_code, strict.exit_code) == (0, 1)
    described = str(path).replace("\\", "\\\\").replace("#", "\\#")
    assert described.endswith("/a\\#b\\\\c.keil")
    assert lenient.stdout == (
        "TAP version 14\n"
        f"ok 1 - {described} game 1\n"
        f"# {path}:1:1: game 1: unfinished: computed -, declared *; score so far W+1\n"
        f"# {path}:1:1: game 1: warning: no Button tag: using yes\n"
        "1..1\n"
    )
    quoted = str(path).replace("\\", "\\\\")  # a YAML double-quoted scalar
    assert strict.stdout == (
        "TAP version 14\n"
        f"not ok 1 - {described} game 1\n"
        "  ---\n"
        '  message: "game 1: unfinished: the game did not end; score so far W+1"\n'
        "  severity: warning\n"
        "  rule: unfinished\n"
        "  at:\n"
        f'    file: "{quoted}"\n'
        "    line: 1\n"
        "    column: 1\n"
        "  warnings:\n"
        '    - message: "game 1: warning: no Button tag: using yes"\n'
        "      severity: warning\n"
        "      rule: warning\n"
        "      at:\n"
        f'        file: "{quoted}"\n'
        "        line: 1\n"
        "        column: 1\n"
        "  ...\n"
        "1..1\n"
    )
    from keilref.formats.tap import TapWriter

    assert TapWriter.read_back(strict.stdout) == {(str(path), 1): ["unfinished", "warning"]}
    assert TapWriter.read_back(lenient.stdout) == {}
