"""File names and record text in the output: escaped the same way in every
format, never two names alike, and never a line a CI runner would run.

GitHub Actions runs any line of a step's output (standard output or error,
its lines ending at a carriage return too) that starts with ``::`` after
white space as a workflow command: ``::stop-commands::tok`` silences every
later annotation, ``::error file=x::boom`` forges one.
"""

from __future__ import annotations

import html.parser
import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from keilref.escaping import defused, one_line, runner_command_line, shown_name
from tests.cli_support import run

ILLEGAL = '[Rules "keil"]\n[Size "3"]\n[Komi "1"]\n[Button "yes"]\n\n1. c5 c5 *\n'
WARNED = '[Size "3"]\n\n1. c5 *\n'
"""Unfinished, and warned that Rules, Komi and Button take their defaults."""

NAMES = [
    "::stop-commands::tok.keil",
    "::error file=x::boom.keil",
    "nl\n::error file=x::nl.keil",
    "cr\r::error::cr.keil",
    " ::warning::space.keil",
    "\t::notice::tab.keil",
    ":.keil",
]
"""Each holds an illegal game, so every format names it."""

CONTENTS = {
    # A bare CR in a tag value, and comments whose lines (at LF or CR) start with '::'.
    "tags-and-comments.keil": (
        '[Event "e\r::error file=e::tag"]\n[Black "\r::stop-commands::tok"]\n[White "w"]\n'
        '[Rules "keil"]\n[Size "3"]\n[Komi "1"]\n[Button "yes"]\n\n'
        "1. c5 {\n::stop-commands::tok\n::error file=x::boom\r::error::cr} d5 ; x\r::notice::semi\n"
        "  {\n  ::notice::indented} *\n"
    ),
    # An error on a line of its own: its excerpt quotes it.
    "syntax.keil": '[Rules "keil"]\n[Size "3"]\n\n1. c5\n::error file=x::boom\n',
    # An illegal turn after a comment line that starts with '::'.
    "occupied.keil": '[Rules "keil"]\n[Size "3"]\n[Komi "1"]\n[Button "yes"]\n\n1. c5 {x\n::error::c} c5 *\n',
    "::warning::warned.keil": WARNED,
}

ANNOTATION = re.compile(
    r"::(?P<level>error|warning|notice) file=(?P<file>[^:,\r\n]*),line=\d+,col=\d+,"
    r"title=keilref (?:illegal|error|mismatch|unfinished|warning)::(?P<data>[^\r\n]*)"
)


def _gh_unescape(prop: str) -> str:
    return prop.replace("%2C", ",").replace("%3A", ":").replace("%0A", "\n").replace("%0D", "\r").replace("%25", "%")


def runner_lines(text: str) -> list[str]:
    """The lines of ``text`` that a runner would run: split at every line break
    Python knows (more than a runner's), white space stripped as a runner does."""
    return [line for line in text.splitlines() if line.lstrip(" \t\ufeff\x0b\x0c\x1c\x1d\x1e\x1f\x85\xa0").startswith("::")]


@pytest.fixture
def hostile(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Records under hostile names and with hostile text, in the working
    directory, named relatively (so a name starts its line)."""
    for name in NAMES:
        (tmp_path / name).write_text(ILLEGAL, encoding="utf-8", newline="")
    for name, text in CONTENTS.items():
        (tmp_path / name).write_text(text, encoding="utf-8", newline="")
    monkeypatch.chdir(tmp_path)
    return sorted([*NAMES, *CONTENTS])


def _commands(files: list[str]) -> list[list[str]]:
    commands = []
    for fmt in ("text", "jsonl", "github", "sarif", "gitlab", "junit", "html"):
        commands += [["check", "-j", "1", "-f", fmt, *files], ["check", "-j", "1", "--strict", "-f", fmt, *files]]
    commands += [
        ["check", "-j", "1", "-q", *files],
        ["check", "::error file=x::missing.keil", "nl\n::error::missing.keil"],
        ["stats", "-j", "1", *files],
        ["stats", "-j", "1", "-f", "json", *files],
        ["filter", "-j", "1", *files],
        ["fmt", *files],
        ["fmt", "--check", *files],
        ["fmt", "--diff", *files],
    ]
    for file in files:
        for command in ("show", "score", "legal"):
            commands.append([command, file])
        commands += [["show", "--turn", "99", file], ["show", "--game", "2", file], ["show", "-f", "svg", file]]
    return commands


def test_no_command_prints_a_line_a_ci_runner_would_run(hostile: list[str]) -> None:
    failing = 0
    for args in _commands(hostile):
        result = run(*args)
        assert result.exit_code in (0, 1, 2), (args, result.exit_code)
        out = result.stdout_bytes.decode("utf-8")  # strict: everything written is UTF-8
        err = result.stderr_bytes.decode("utf-8")
        assert not runner_lines(err), (args, runner_lines(err))
        if "github" not in args:
            assert not runner_lines(out), (args, runner_lines(out))
            continue
        # Only the annotations keilref means: one per fault of a game that needs attention
        # (a note for an unfinished one), each exactly so.
        shown = {shown_name(name) for name in hostile}
        annotations = runner_lines(out)
        assert annotations == out.splitlines()
        for line in annotations:
            m = ANNOTATION.fullmatch(line)
            assert m is not None, line
            assert _gh_unescape(m["file"]) in shown, line
            assert "\r" not in m["data"] and "\n" not in m["data"]
        failing += len(annotations)
    # Plain and strict: the 7 illegal games, the error and the illegal turn; unfinished and warned notes;
    # and with --strict, one more for each of the warned game's 3 warnings (one annotation per fault).
    assert failing == 2 * (len(NAMES) + 2) + 2 + 2 + 3


def test_a_name_at_the_start_of_a_line_never_starts_it_with_a_colon(hostile: list[str]) -> None:
    result = run("check", "-j", "1", *NAMES)
    lines = result.stdout.splitlines()
    assert lines[: len(NAMES)] == [
        shown_name(name) + ":6:7: game 1: illegal: move 1 (White) c5, turn 2: occupied" for name in NAMES
    ]
    assert "\\x3a:stop-commands::tok.keil:6:7: game 1: illegal" in result.stdout
    assert "nl\\x0a::error file=x::nl.keil:6:7:" in result.stdout
    assert " \\x3a:warning::space.keil:6:7:" in result.stdout
    assert "\\x3a.keil:6:7:" in result.stdout


def test_the_github_format_escapes_the_file_property_and_the_message(hostile: list[str]) -> None:
    result = run("check", "-f", "github", "::error file=x::boom.keil", "cr\r::error::cr.keil")
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        "::error file=\\x3a%3Aerror file=x%3A%3Aboom.keil,line=6,col=7,title=keilref illegal::"
        "game 1: illegal: move 1 (White) c5, turn 2: occupied",
        "::error file=cr\\x0d%3A%3Aerror%3A%3Acr.keil,line=6,col=7,title=keilref illegal::"
        "game 1: illegal: move 1 (White) c5, turn 2: occupied",
    ]


def test_an_excerpt_that_would_run_is_escaped_with_the_caret_kept_under_its_character(hostile: list[str]) -> None:
    result = run("show", "syntax.keil")
    assert result.exit_code == 1
    assert result.stderr.splitlines()[1:] == ["    \\x3a:error file=x::boom", "    ^"]
    Path("second.keil").write_text('[Size "3"]\n\n1. c5\n  ::x\n', encoding="utf-8")
    assert run("show", "second.keil").stderr.splitlines()[1:] == ["      \\x3a:x", "      ^"]
    Path("third.keil").write_text('[Size "3"]\n\n1. c5 {\n::x} c5 *\n', encoding="utf-8")
    (head, *excerpt) = run("show", "third.keil").stderr.splitlines()
    assert head.startswith("keilref: third.keil:4:6: game 1: illegal: move 1 (White) c5, turn 2: occupied"), head
    assert excerpt == ["    \\x3a:x} c5 *", "            ^"]


def test_record_text_a_runner_would_run_is_held_back_whole_from_standard_output(hostile: list[str]) -> None:
    data = Path("tags-and-comments.keil").read_bytes()
    filtered = run("filter", "tags-and-comments.keil", "occupied.keil", "::error file=x::boom.keil")
    assert filtered.exit_code == 1
    assert filtered.stdout_bytes == ILLEGAL.encode()
    assert filtered.stderr.splitlines() == [
        "keilref: tags-and-comments.keil:1 (game 1): not written to standard output: a CI runner would run this "
        "line as a workflow command ('::' at its start); write the games to a file with -o",
        "keilref: occupied.keil:7 (game 1): not written to standard output: a CI runner would run this "
        "line as a workflow command ('::' at its start); write the games to a file with -o",
        "keilref: 1 of 3 games written; 2 held back",
    ]
    # To a file, every game is written exactly.
    to_file = run("filter", "tags-and-comments.keil", "-o", "out.keil")
    assert to_file.exit_code == 0
    assert Path("out.keil").read_bytes() == data
    canonical = run("fmt", "tags-and-comments.keil")
    assert canonical.exit_code == 1 and canonical.stdout == ""
    assert "keilref: tags-and-comments.keil:1: its canonical text is not printed" in canonical.stderr
    Path("plain.keil").write_text(CONTENTS["tags-and-comments.keil"].replace("[", " ["), encoding="utf-8")
    diff = run("fmt", "--diff", "plain.keil")
    assert diff.exit_code == 1 and diff.stdout == ""
    assert "keilref: plain.keil:1: its diff is not printed" in diff.stderr
    # A line that starts with '::' only among a diff's removed or added lines is safe to show.
    changed = run("fmt", "--diff", "occupied.keil")
    assert changed.exit_code == 1
    assert "-::error::c} c5 *\n" in changed.stdout and not runner_lines(changed.stdout)


# --- a name that is not UTF-8, in every format ---------------------------------------------


def _keilref(*args: str, cwd: Path) -> subprocess.CompletedProcess[bytes]:
    """A real run: the streams' own encoding, as a terminal or a pipe has it."""
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    return subprocess.run(
        [sys.executable, "-m", "keilref", *args], cwd=cwd, capture_output=True, timeout=120, env=env
    )


@pytest.fixture
def latin1_name(tmp_path: Path) -> str:
    name = os.fsdecode(b"caf\xe9.keil")
    (tmp_path / name).write_text(ILLEGAL, encoding="utf-8")
    return name


class _Checked(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.text: list[str] = []

    def handle_data(self, data: str) -> None:
        self.text.append(data)


@pytest.mark.parametrize("fmt", ["text", "jsonl", "github", "sarif", "gitlab", "junit", "html"])
def test_a_name_that_is_not_utf8_is_escaped_in_every_check_format(
    tmp_path: Path, latin1_name: str, fmt: str
) -> None:
    proc = _keilref("check", "-j", "1", "-f", fmt, latin1_name, cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr == b""
    out = proc.stdout.decode("utf-8")
    if fmt in ("text", "github"):
        assert out.startswith("caf\\xe9.keil:6:7: game 1: illegal" if fmt == "text" else "::error file=caf\\xe9.keil,")
    elif fmt == "jsonl":
        assert json.loads(out)["file"] == "caf\\xe9.keil"
    elif fmt == "sarif":
        (result,) = json.loads(out)["runs"][0]["results"]
        assert result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "caf%E9.keil"
    elif fmt == "gitlab":
        (issue,) = json.loads(out)
        assert issue["location"]["path"] == "caf\\xe9.keil"
    elif fmt == "junit":
        suite = ET.fromstring(out).find("testsuite")
        assert suite is not None and suite.get("name") == "caf\\xe9.keil"
    else:
        page = _Checked()
        page.feed(out)
        page.close()
        assert "caf\\xe9.keil" in page.text


@pytest.mark.parametrize(
    ("args", "code", "shown"),
    [
        (["show"], 1, "caf\\xe9.keil game 1: rules keil, size 3"),
        (["score"], 1, "caf\\xe9.keil game 1: rules keil, size 3"),
        (["legal"], 1, "caf\\xe9.keil game 1: rules keil, size 3"),
        (["fmt", "--check"], 1, "would reformat caf\\xe9.keil"),
        (["fmt", "--diff"], 1, "--- caf\\xe9.keil\t(original)\n+++ caf\\xe9.keil\t(formatted)"),
        (["stats", "-j", "1"], 0, "1 game: 1 illegal"),
        (["filter", "-j", "1", "--duplicates", "caf\udce9.keil"], 0, "[Rules"),
    ],
)
def test_a_name_that_is_not_utf8_is_escaped_by_every_command(
    tmp_path: Path, latin1_name: str, args: list[str], code: int, shown: str
) -> None:
    (tmp_path / latin1_name).write_text(ILLEGAL.replace("\n\n", "\n\n\n"), encoding="utf-8")  # fmt has work to do
    proc = _keilref(*args, latin1_name, cwd=tmp_path)
    assert proc.returncode == code, proc.stderr
    out, err = proc.stdout.decode("utf-8"), proc.stderr.decode("utf-8")
    assert shown in out
    assert "Traceback" not in err
    if args[0] in ("show", "score", "legal"):
        assert err.startswith("keilref: caf\\xe9.keil:7:7: game 1: illegal: move 1 (White) c5, turn 2: occupied")
    if args[0] == "filter":
        assert err.startswith("keilref: caf\\xe9.keil:1 (game 1): duplicate of caf\\xe9.keil:1 (game 1)\n")


def test_fmt_check_and_check_show_an_undecodable_byte_alike(tmp_path: Path, latin1_name: str) -> None:
    checked = _keilref("check", latin1_name, cwd=tmp_path).stdout.decode()
    (tmp_path / latin1_name).write_text(ILLEGAL.replace("\n\n", "\n\n\n"), encoding="utf-8")
    would = _keilref("fmt", "--check", latin1_name, cwd=tmp_path).stdout.decode()
    assert checked.split(":")[0] == would.removeprefix("would reformat ").rstrip("\n") == "caf\\xe9.keil"


def test_fmt_in_place_words_a_name_that_is_not_utf8_escaped(tmp_path: Path, latin1_name: str) -> None:
    path = tmp_path / latin1_name
    path.write_text(ILLEGAL.replace("\n\n", "\n\n\n"), encoding="utf-8")
    path.chmod(0o444)  # refused without --force, and said with the file's name
    proc = _keilref("fmt", "--in-place", latin1_name, cwd=tmp_path)
    err = proc.stderr.decode("utf-8")
    assert proc.returncode == 1, err
    assert "caf\\xe9.keil: read-only; left as it is" in err
    assert "\\udce9" not in err and "Traceback" not in err


# --- the escape is one to one ---------------------------------------------------------------


def test_a_literal_escape_and_the_character_it_stands_for_print_differently(tmp_path: Path) -> None:
    literal, actual = "a\\x0d.keil", "a\r.keil"
    for name in (literal, actual):
        (tmp_path / name).write_text(ILLEGAL.replace("\n\n", "\n\n\n"), encoding="utf-8", newline="")
    check = _keilref("check", literal, actual, cwd=tmp_path).stdout.decode().splitlines()
    assert [line.split(":")[0] for line in check[:2]] == ["a\\\\x0d.keil", "a\\x0d.keil"]
    fmt = _keilref("fmt", "--check", literal, actual, cwd=tmp_path).stdout.decode().splitlines()
    assert fmt == ["would reformat a\\\\x0d.keil", "would reformat a\\x0d.keil"]
    junit = ET.fromstring(_keilref("check", "-f", "junit", literal, actual, cwd=tmp_path).stdout)
    assert [(s.get("name"), s[0].get("classname")) for s in junit] == [
        ("a\\\\x0d.keil", "a\\\\x0d"),
        ("a\\x0d.keil", "a\\x0d"),
    ]
    jsonl = _keilref("check", "-f", "jsonl", literal, actual, cwd=tmp_path).stdout.decode().splitlines()
    assert [json.loads(line)["file"] for line in jsonl] == ["a\\\\x0d.keil", "a\\x0d.keil"]


TRICKY = st.text(
    st.sampled_from(
        ["\\", "x", "u", "0", "d", "8", "5", "a", ":", " ", ".", "/", "\r", "\n", "\t", "\x1b", "\x7f",
         "\x85", "\x9b", "\u2028", "\udc85", "\udce9", "\udcff", "\ufeff", "\xa0"]
    ),
    min_size=1,
    max_size=8,
)


@settings(max_examples=2000, deadline=None)
@given(TRICKY, TRICKY)
def test_distinct_names_never_print_alike(a: str, b: str) -> None:
    if a != b:
        assert shown_name(a) != shown_name(b)


@settings(max_examples=500, deadline=None)
@given(TRICKY)
def test_a_shown_name_is_one_safe_line_and_a_plain_name_is_itself(name: str) -> None:
    shown = shown_name(name)
    assert shown == one_line(shown)  # nothing left to escape: no line break, no control, no lone surrogate
    assert not shown.lstrip().startswith(":")
    assert runner_command_line(shown + ":1:1: game 1") is None
    plain = not re.search("[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]|\\\\[xu]", name)
    if plain and not name.lstrip(" \xa0\ufeff").startswith(":"):
        assert shown == name


@pytest.mark.parametrize(
    "name",
    ["records/games/size5-keil-corner-ko.keil", "-", "a b/c,d%e.keil", "C:\\games\\a.keil", "caf\xe9.keil", "a:b.keil"],
)
def test_plain_names_print_as_given(name: str) -> None:
    assert shown_name(name) == name


@pytest.mark.parametrize(
    ("text", "line"),
    [("a\n::x", 2), ("a\r::x", 1), ("a\r\n \t::x", 2), ("\ufeff::x", 1), ("a::x\nb :: x", None), ("a\n\n  ::x", 3)],
)
def test_runner_command_line_finds_the_line_a_runner_would_run(text: str, line: int | None) -> None:
    assert runner_command_line(text) == line
    if line is not None:
        assert runner_command_line(defused(text.splitlines()[-1])) is None
