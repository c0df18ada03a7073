"""What ``check`` and the other commands print, and how they end, as a user meets them.

Each test asserts the exit code and the exact first line of output. The
ones about the terminal (encodings, a full disk, standard input, Ctrl-C)
run keilref as a real process.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

import keilref
from typer.testing import Result

from cli_support import ROOT, lines_of, run, runner
from keilref.cli import EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE, app
from keilref.engine.kernel import is_compiled
from keilref.referee.native import describe_build, is_built, native_path

pytestmark = pytest.mark.usefixtures("at_the_root")

GAMES = "records/games"
FAULTS = "records/faults"
KO = f"{GAMES}/size5-keil-corner-ko.keil"
ANNOTATED = f"{GAMES}/size7-keil-invasion-annotated.keil"
SENSITIVE = f"{GAMES}/size6-keil-rule-sensitive.keil"
SUPERKO = f"{FAULTS}/illegal-superko.keil"
SUPERKO_LINE = (
    f"{SUPERKO}:8:79: game 1: illegal: move 16 (Black) e2, turn 31: superko (repeats turn 29)"
)
BAD_TOKEN = f"{FAULTS}/error-bad-token.keil"

# Komi 2 makes this B+16.5; a misspelt Komi tag leaves komi at 0 (B+18.5).
KOMI_GAME = '[Event "Komi typo"]\n[Rules "keil"]\n[Size "3"]\n[{name} "2"]\n[Button "yes"]\n\n1. c3 button 2. pass pass B+16.5\n'


def run_with(stdin: str, *args: str) -> Result:
    """keilref in this process, reading ``stdin``."""
    result = runner.invoke(app, list(args), input=stdin)
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


def keilref_process(*args: str, **kw: object) -> subprocess.CompletedProcess[bytes]:
    """keilref as a separate process, from the checkout root."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONIOENCODING", "PYTHONUTF8", "CI")}
    env.update(kw.pop("env", {}))  # type: ignore[arg-type]
    kw.setdefault("stdout", subprocess.PIPE)
    kw.setdefault("stderr", subprocess.PIPE)
    return subprocess.run(  # type: ignore[call-overload, no-any-return]
        [sys.executable, "-m", "keilref", *args], cwd=ROOT, env=env, timeout=120, **kw
    )


# --- nothing slips through ------------------------------------------------------------


@pytest.mark.parametrize(
    "name,meant",
    [
        ("KOMI", "did you mean 'Komi'? (tag names are case-sensitive)"),
        ("Komj", "did you mean 'Komi'?"),
        ("Kmoi", "did you mean 'Komi'?"),
        ("Komii", "did you mean 'Komi'?"),
    ],
)
def test_a_misspelt_komi_tag_is_an_error_at_the_tag_when_its_value_is_not_the_one_used(name: str, meant: str) -> None:
    # Replayed with komi 0, the game would be judged as another game (B+18.5).
    result = run_with(KOMI_GAME.format(name=name), "check", "-")
    assert result.exit_code == EXIT_FAILED
    lines = result.stdout.splitlines()
    assert lines[0] == (
        f"-:4:1: game 1: error: unknown tag {name!r} sets nothing: {meant}; "
        'the game would be replayed with Komi 0, not "2"'
    )
    # With the komi in use (0), it is a warning at the tag.
    result = run_with(KOMI_GAME.format(name=name).replace('"2"]', '"0"]').replace("B+16.5", "B+18.5"), "check", "-")
    assert result.exit_code == EXIT_OK
    lines = result.stdout.splitlines()
    assert lines[0] == "-:1:1: game 1: ok: computed B+18.5, declared B+18.5"
    assert lines[1] == f"-:4:1: game 1: warning: unknown tag {name!r} sets nothing: {meant}"
    assert lines[2] == "-:1:1: game 1: warning: no Komi tag: using 0"


def test_a_tag_name_in_the_wrong_case_names_the_tag_it_means() -> None:
    record = '[size "7"]\n[Komi "3"]\n[Rules "keil"]\n[Button "yes"]\n[event "x"]\n[Sise "x"]\n1. a1 *\n'
    result = run_with(record, "check", "--format", "jsonl", "-")
    assert result.exit_code == EXIT_OK
    (verdict,) = map(json.loads, lines_of(result.stdout))
    assert verdict["warnings"] == [
        "unknown tag 'size' sets nothing: did you mean 'Size'? (tag names are case-sensitive)",
        "unknown tag 'event' sets nothing: did you mean 'Event'? (tag names are case-sensitive)",
        "unknown tag 'Sise' sets nothing: did you mean 'Site' or 'Size'?",
        "no Size tag: using 7",
    ]


def test_unknown_tags_far_from_any_known_one_are_free_text() -> None:
    record = '[Rules "keil"]\n[Size "3"]\n[Komi "2"]\n[Button "yes"]\n[Opening "x"]\n[Time "x"]\n1. c3 *\n'
    result = run_with(record, "check", "--format", "jsonl", "-")
    assert result.exit_code == EXIT_OK
    assert json.loads(result.stdout)["warnings"] == []


def test_warnings_are_printed_and_strict_fails_them() -> None:
    record = '[Size "3"]\n[Komi "2"]\n[Rules "keil"]\n1. c3 button 2. pass pass B+16.5\n'
    plain = run_with(record, "check", "-")
    assert plain.exit_code == EXIT_OK
    assert plain.stdout.splitlines()[:2] == [
        "-:1:1: game 1: ok: computed B+16.5, declared B+16.5",
        "-:1:1: game 1: warning: no Button tag: using yes",
    ]
    assert re.match(r"1 game: 1 ok; 1 with warnings in ", plain.stdout.splitlines()[2])
    strict = run_with(record, "check", "--strict", "-")
    assert strict.exit_code == EXIT_FAILED
    assert strict.stdout.splitlines()[0] == "-:1:1: game 1: ok: computed B+16.5, declared B+16.5"
    # The other formats fail it too.
    junit = ET.fromstring(run_with(record, "check", "--strict", "--format", "junit", "-").stdout)
    failure = junit.find(".//failure")
    assert failure is not None and failure.get("type") == "warning"
    github = run_with(record, "check", "--strict", "--format", "github", "-")
    assert github.exit_code == EXIT_FAILED
    assert github.stdout == "::error file=-,line=1,col=1,title=keilref warning::game 1: warning: no Button tag: using yes\n"


# --- locations ---------------------------------------------------------------------------


def test_each_line_starts_at_the_fault_of_its_own_game() -> None:
    text = (
        '[Size "3"]\n[Komi "2"]\n[Rules "keil"]\n[Button "yes"]\n1. c3 button 2. pass pass B+16.5\n\n'
        '[Size "3"]\n[Komi "2"]\n[Rules "keil"]\n[Button "yes"]\n1. c3 button 2. pass pass W+1\n\n'
        '[Size "3"]\n[Komi "2"]\n[Rules "keil"]\n[Button "yes"]\n1. c3 c3\n\n'
        '[Size "3"]\n[Komi "x"]\n[Rules "keil"]\n[Button "yes"]\n1. c3 *\n'
    )
    result = run_with(text, "check", "-")
    assert result.exit_code == EXIT_FAILED
    assert result.stdout.splitlines()[:4] == [
        "-:1:1: game 1: ok: computed B+16.5, declared B+16.5",
        "-:11:27: game 2: mismatch: computed B+16.5, declared W+1; wrong winner",
        "-:17:7: game 3: illegal: move 1 (White) c3, turn 2: occupied",
        '-:20:1: game 4: error: Komi "x" is not a number such as 6, -3 or 6.5',
    ]


def test_a_result_declared_only_by_its_tag_is_where_a_mismatch_points() -> None:
    text = '[Size "3"]\n[Komi "2"]\n[Rules "keil"]\n[Button "yes"]\n[Result "W+1"]\n1. c3 button 2. pass pass\n'
    result = run_with(text, "check", "-")
    assert result.exit_code == EXIT_FAILED
    assert result.stdout.splitlines()[0] == "-:5:1: game 1: mismatch: computed B+16.5, declared W+1; wrong winner"


def test_legal_of_an_unreadable_record_shows_the_line_and_a_caret() -> None:
    result = run("legal", BAD_TOKEN)
    assert result.exit_code == EXIT_FAILED
    assert result.stdout == ""
    assert result.stderr.splitlines() == [
        f"keilref: {BAD_TOKEN}:7:16: game 1: found 'hh6'; expected a move, a comment or a result",
        "    7. g8 h7 8. g5 hh6",
        "                   ^",
    ]


def test_score_of_an_illegal_record_shows_the_line_and_a_caret() -> None:
    result = run("score", SUPERKO)
    assert result.exit_code == EXIT_FAILED
    assert result.stdout.splitlines()[0] == f"{SUPERKO} game 1: rules keil, size 5, komi 3, after turn 30 of 31"
    assert result.stderr.splitlines() == [
        f"keilref: {SUPERKO}:8:79: game 1: illegal: move 16 (Black) e2, turn 31: superko (repeats turn 29);"
        " showing the position before it",
        "    10. d4 b2 11. b3 a2 12. c3 h9 13. f9 g9 14. e8 h8 15. e2 e1 {captures e2} 16. e2",
        "    " + " " * 78 + "^",
    ]


def test_fmt_of_an_unreadable_record_shows_the_line_and_a_caret() -> None:
    result = run("fmt", BAD_TOKEN)
    assert result.exit_code == EXIT_FAILED
    assert result.stderr.splitlines() == [
        f"keilref: {BAD_TOKEN}:7:16: found 'hh6'; expected a move, a comment or a result (file left as it is)",
        "    7. g8 h7 8. g5 hh6",
        "                   ^",
    ]


def test_the_excerpt_counts_lines_as_the_parser_does(tmp_path: Path) -> None:
    """A lone CR is not a line break for the parser, so not for the excerpt either."""
    path = tmp_path / "cr.keil"
    path.write_bytes(b'\xef\xbb\xbf[Size "3"]\r{a\rb}\r\n{c} zz\r\n')
    result = run("show", str(path))
    assert result.exit_code == EXIT_FAILED
    assert result.stderr.splitlines() == [
        f"keilref: {path}:2:5: game 1: found 'zz'; expected a tag, a move, a comment or a result",
        "    {c} zz",
        "        ^",
    ]


def test_a_long_line_is_cut_around_the_caret(tmp_path: Path) -> None:
    path = tmp_path / "long.keil"
    path.write_text('[Size "7"]\n' + "{" + "x" * 300 + "} zz9 " + "{" + "y" * 300 + "}\n", encoding="utf-8")
    result = run("show", str(path))
    assert result.exit_code == EXIT_FAILED
    message, source, caret = result.stderr.splitlines()
    assert message.startswith(f"keilref: {path}:2:304: game 1: found 'zz9'")
    assert source.startswith("    ...") and source.endswith("...") and len(source) == 4 + 100
    assert source[caret.index("^") :].startswith("zz9")


# --- output for archives -------------------------------------------------------------


def test_quiet_prints_only_the_failing_games_and_the_summary() -> None:
    result = run("check", "-q", KO, SUPERKO, ANNOTATED)
    assert result.exit_code == EXIT_FAILED
    lines = result.stdout.splitlines()
    assert lines[0] == SUPERKO_LINE
    assert len(lines) == 2 and lines[1].startswith("3 games: 2 ok, 1 illegal in ")
    assert run("check", "--quiet", "--format", "jsonl", KO).stdout == ""


def test_version() -> None:
    result = run("--version")
    assert result.exit_code == EXIT_OK
    kernel = "compiled" if is_compiled() else "Python"
    native = "on" if native_path() else "off (KEILREF_NATIVE=0)" if is_built() else "not built"
    assert result.stdout == f"keilref {keilref.__version__} (engine kernel: {kernel}; native path: {native})\n"
    assert describe_build() in result.stdout


@pytest.mark.parametrize(
    "command,usage",
    [
        ([], "Usage: keilref [OPTIONS] COMMAND [ARGS]..."),
        (["check"], "Usage: keilref check [OPTIONS] [PATH...]"),
        (["show"], "Usage: keilref show [OPTIONS] FILE"),
        (["score"], "Usage: keilref score [OPTIONS] FILE"),
        (["legal"], "Usage: keilref legal [OPTIONS] FILE"),
        (["fmt"], "Usage: keilref fmt [OPTIONS] PATH..."),
        (["generate"], "Usage: keilref generate [OPTIONS]"),
        (["rules"], "Usage: keilref rules [OPTIONS]"),
    ],
)
def test_short_and_long_help_with_readable_metavars(command: list[str], usage: str) -> None:
    short = run(*command, "-h")
    assert short.exit_code == EXIT_OK
    assert short.stdout.splitlines()[0] == usage
    assert run(*command, "--help").stdout == short.stdout
    # Metavars are words, never Python types such as <list[str]> or <int range>.
    assert not re.search(r"<[a-z]|\{[a-z]", short.stdout), short.stdout
    for option in ("--game", "--turn", "--jobs", "--games", "--seed", "--size"):
        if f"{option} " in short.stdout:
            assert re.search(rf"{option} N\b", short.stdout), short.stdout


@pytest.mark.parametrize(
    "args,first",
    [
        (["--format", "JSONL", SUPERKO], '{"file": "records/faults/illegal-superko.keil", "game": 1, "status": "illegal"'),
        (["-f", "Text", SUPERKO], SUPERKO_LINE),
        (["--rules", "KEIL-2019", "--format", "jsonl", SENSITIVE], '{"file": "records/games/size6-keil-rule-sensitive.keil", "game": 1, "status": "mismatch", "rules": "keil-2019"'),
    ],
)
def test_option_values_ignore_case(args: list[str], first: str) -> None:
    result = run("check", *args)
    assert result.exit_code == EXIT_FAILED
    assert result.stdout.splitlines()[0].startswith(first)


@pytest.mark.parametrize(
    "args,message",
    [
        (
            ["check", "--format", "json", KO],
            "keilref: --format: unknown value 'json' (expected text, jsonl, junit, github, sarif, gitlab, html, checkstyle, tap, parquet); did you mean 'jsonl'?",
        ),
        (["check", "--rules", "kiel", KO], "keilref: --rules: unknown value 'kiel' (expected dehil, keil, keil-2019, yugo); did you mean 'keil'?"),
        (["show", "--rules", "yogu", KO], "keilref: --rules: unknown value 'yogu' (expected dehil, keil, keil-2019, yugo); did you mean 'yugo'?"),
        (["check", "--format", "xml", KO], "keilref: --format: unknown value 'xml' (expected text, jsonl, junit, github, sarif, gitlab, html, checkstyle, tap, parquet); did you mean 'html'?"),
    ],
)
def test_an_unknown_option_value_suggests_the_nearest(args: list[str], message: str) -> None:
    result = run(*args)
    assert result.exit_code == EXIT_USAGE
    assert result.stdout == ""
    assert result.stderr == message + "\n"


def test_check_without_a_path_reads_standard_input_when_it_is_piped() -> None:
    with open(ROOT / SUPERKO, "rb") as f:
        proc = keilref_process("check", stdin=f)
    assert proc.returncode == EXIT_FAILED
    assert proc.stdout.decode().splitlines()[0] == SUPERKO_LINE.replace(SUPERKO, "-")


def test_check_without_a_path_on_a_terminal_is_a_usage_error() -> None:
    leader, follower = os.openpty()
    try:
        proc = keilref_process("check", stdin=follower)
    finally:
        os.close(follower)
        os.close(leader)
    assert proc.returncode == EXIT_USAGE
    assert proc.stdout == b""
    assert proc.stderr.decode() == (
        "keilref: no PATH given: name files or directories, or pipe records to standard input\n"
    )


def test_a_missing_path_is_reported_and_the_others_are_still_checked() -> None:
    result = run("check", "no-such.keil", SUPERKO, "records/no-such-dir", KO)
    assert result.exit_code == EXIT_USAGE
    assert result.stderr.splitlines() == [
        "keilref: no-such.keil: no such file or directory",
        "keilref: records/no-such-dir: no such file or directory",
    ]
    lines = result.stdout.splitlines()
    assert lines[0] == SUPERKO_LINE
    assert lines[1] == f"{KO}:1:1: game 1: ok: computed W+5.5, declared W+5.5"
    assert lines[2].startswith("2 games: 1 ok, 1 illegal in ")


def test_jsonl_and_junit_carry_the_players_and_the_event() -> None:
    result = run("check", "--format", "jsonl", ANNOTATED)
    assert result.exit_code == EXIT_OK
    verdict = json.loads(result.stdout)
    players = {key: verdict[key] for key in ("event", "black", "white")}
    record = (ROOT / ANNOTATED).read_text(encoding="utf-8")
    for key, tag in (("event", "Event"), ("black", "Black"), ("white", "White")):
        m = re.search(rf'^\[{tag} "(.*)"\]$', record, re.MULTILINE)
        assert m is not None and players[key] == m.group(1)
    junit = run("check", "--format", "junit", ANNOTATED)
    assert junit.exit_code == EXIT_OK
    assert junit.stdout.splitlines()[0] == '<?xml version="1.0" encoding="UTF-8"?>'
    properties = {p.get("name"): p.get("value") for p in ET.fromstring(junit.stdout).iter("property")}
    assert properties == players


def test_score_takes_a_turn_like_show_and_legal() -> None:
    result = run("score", "--turn", "30", KO)
    assert result.exit_code == EXIT_OK
    assert result.stdout.splitlines()[0] == f"{KO} game 1: rules keil, size 5, komi 3, after turn 30 of 42"
    assert "the game has not ended: this counts the current position" in result.stdout
    shown = run("show", "--turn", "30", "--territory", KO).stdout
    assert result.stdout.splitlines()[:11] == shown.splitlines()[:11]  # the same position, marked alike
    beyond = run("score", "--turn", "43", KO)
    assert beyond.exit_code == EXIT_USAGE
    assert beyond.stderr == f"keilref: {KO}: game 1 has 42 turns; there is no turn 43\n"


# --- never a traceback ------------------------------------------------------------


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("args", [["check", GAMES], ["show", KO], ["generate", "--games", "50"]])
def test_a_full_disk_is_one_line_and_exit_2(args: list[str]) -> None:
    with open("/dev/full", "wb") as full:
        proc = keilref_process(*args, stdout=full, stderr=subprocess.PIPE)
    assert proc.returncode == EXIT_USAGE
    assert proc.stderr.decode() == "keilref: cannot write the output: No space left on device\n"


@pytest.mark.parametrize("encoding", ["cp1252", "ascii"])
def test_an_encoding_without_the_glyphs_falls_back_to_ascii(encoding: str) -> None:
    proc = keilref_process("show", "--unicode", "--game", "2", f"{GAMES}/small-boards-three-games.keil",
                           env={"PYTHONIOENCODING": encoding})
    assert proc.returncode == EXIT_OK, proc.stderr
    out = proc.stdout.decode(encoding)
    assert out.splitlines()[0] == (
        f"{GAMES}/small-boards-three-games.keil game 2: rules keil-2019, size 3, komi 2.5, after turn 15 of 15"
    )
    assert out.splitlines()[2] == " 4   O O O O"  # ● and ○ became X and O
    assert "●" not in out and "○" not in out
    helped = keilref_process("show", "--help", env={"PYTHONIOENCODING": encoding})
    assert helped.returncode == EXIT_OK, helped.stderr
    text = helped.stdout.decode(encoding)
    assert text.splitlines()[0] == "Usage: keilref show [OPTIONS] FILE"
    assert re.search(r"--unicode +Draw X O ", text)
    assert b"Traceback" not in proc.stderr + helped.stderr


def test_ctrl_c_during_a_parallel_check_stops_at_once_with_the_partial_summary(tmp_path: Path) -> None:
    game = (ROOT / ANNOTATED).read_text(encoding="utf-8")
    archive = tmp_path / "archive.keil"
    archive.write_text((game + "\n") * 6000, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONIOENCODING", "PYTHONUTF8")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "keilref", "check", "--jobs", "2", str(archive)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,  # a group of its own, as a terminal's foreground job
    )
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline().decode()  # checking is under way
        assert first.startswith(f"{archive}:3:1: game 1: ok: ")
        interrupted_at = time.monotonic()
        os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C reaches the whole group
        rest = proc.stdout.read()  # what readline left in its buffer too
        proc.wait(timeout=30)
        took = time.monotonic() - interrupted_at
        assert proc.stderr is not None
        err = proc.stderr.read()
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == EXIT_INTERRUPTED
    # Well before the rest of the archive could have been checked, with room
    # for a machine that is busy with other work.
    assert took < 2.0, f"took {took:.2f} s to stop"
    lines = rest.decode().splitlines()
    checked = 1 + len(lines) - 1
    assert 0 < checked < 6000
    noun = "game" if checked == 1 else "games"
    assert re.match(rf"interrupted after {checked} {noun}: {checked} ok in ", lines[-1]), lines[-1]
    assert err == b""


def test_counts_have_thousands_separators_as_rates_do(tmp_path: Path) -> None:
    from cli_support import run

    archive = tmp_path / "many.keil"
    archive.write_text(run("generate", "-n", "1200", "--seed", "3", "--size", "2").stdout, encoding="utf-8")
    summary = run("check", "-q", str(archive)).stdout.splitlines()[-1]
    assert summary.startswith("1,200 games: 1,200 ok in "), summary
    assert run("stats", str(archive)).stdout.startswith("1,200 games: 1,200 ok\n")
