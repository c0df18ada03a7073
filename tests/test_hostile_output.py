"""No printed line a CI runner would run, whatever the tags hold: every tag,
every command, every ``--format`` of each.

GitHub Actions runs a line of a step's output that starts with ``::`` (after
white space) as a workflow command: ``[Event "::stop-commands::pwned"]``
printed at a line start would silence every later annotation. Every command
prints through one guard (:class:`keilref.escaping.RunnerGuard`), which
writes such a line start ``\\x3a:``; only the github format's annotations pass
it. The formats are read from their registries, so a new one is covered
here without a word; a new command fails
:func:`test_every_command_is_run_with_hostile_input` until it is added.
"""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import typer.main
from hypothesis import given, settings
from hypothesis import strategies as st

from cli_support import ROOT, run
from keilref.cli import app
from keilref.cli.interop import EXPORT_FORMATS
from keilref.cli.position_commands import PICTURE_FORMATS
from keilref.cli.terminal import RunnerSafeStream
from keilref.escaping import RunnerGuard
from keilref.formats import FORMATS
from keilref.formats.stats_report import STATS_FORMATS

PAYLOADS = (
    "::stop-commands::pwned",
    " \t::error file=x::boom",
    "\ufeff::warning::bom",
    "cr\r::notice::cr",
)
"""What a hostile tag holds: a command at the start, after blanks, after a byte-order mark, after a bare CR."""

FREE_TAGS = ("Event", "Site", "Date", "Round", "Black", "White", "Annotator", "KomiBy", "GameId", "Note")
"""Tags the referee keeps as free text (Note: one it does not know)."""

TYPED_TAGS = ("Rules", "Size", "Komi", "Button", "Result", "Setup", "ToMove", "ButtonTaken", "FirstPass", "Removed")
"""Tags the referee reads: a hostile value is an error, or a warning, that quotes it."""

_SETUP = {"Rules": "keil", "Size": "3", "Komi": "1", "Button": "yes"}


def _game(tags: dict[str, str], moves: str) -> str:
    every = {**_SETUP, **tags}
    return "".join(f'[{name} "{value}"]\n' for name, value in every.items()) + f"\n{moves}\n"


def _free(payload: str, round_: str, black: str, white: str, result: str) -> str:
    tags = {name: f"{payload}{name}" for name in FREE_TAGS}
    tags.update(Round=f"{payload}{round_}", Black=f"{payload}{black}", White=f"{payload}{white}", Result=result)
    return _game(tags, f"1. c5 d5 {result}")


def _standings_file(payload: str) -> str:
    """Two counted games and an illegal one of an event whose every free tag is hostile."""
    illegal = _free(payload, "3", "b", "a", "*").replace("1. c5 d5 *", "1. c5 c5 *")
    return "\n".join([_free(payload, "1", "a", "b", "W+R"), _free(payload, "2", "b", "a", "B+R"), illegal])


def _typed_file(payload: str) -> str:
    return "\n".join(_game({"Event": "typed", name: f"{payload}{name}"}, "1. c5 d5 *") for name in TYPED_TAGS)


COMMENTS = _game({"Event": "comments"}, "1. c5 {\n::stop-commands::pwned\n  ::error::x\r::notice::y} c5 *")
"""Comments whose lines start with commands, before an illegal turn."""


@pytest.fixture
def hostile(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The hostile records and a hostile server match, named relatively in the working directory."""
    for i, payload in enumerate(PAYLOADS):
        (tmp_path / f"free{i}.keil").write_text(_standings_file(payload), encoding="utf-8", newline="")
        (tmp_path / f"typed{i}.keil").write_text(_typed_file(payload), encoding="utf-8", newline="")
    (tmp_path / "comments.keil").write_text(COMMENTS, encoding="utf-8", newline="")
    (tmp_path / "::error::named.keil").write_text(_standings_file("x"), encoding="utf-8", newline="")
    match = {
        "id": "::error::id",
        "game_uid": "keil",
        "options": {"size": 3},
        "players": [{"name": "::stop-commands::pwned\n::error::nl"}, {"name": " ::error file=x::boom"}],
        "status": "finished",
        "winner": 1,
        "history": [
            {"ply": 0, "seat": 0, "player": "::stop-commands::pwned\n::error::nl", "label": "komi 1"},
            {"ply": 1, "seat": 1, "player": " ::error file=x::boom", "label": "choose White"},
            {"ply": 2, "seat": 0, "player": "::stop-commands::pwned\n::error::nl", "label": "0,0"},
        ],
    }
    (tmp_path / "hostile.match.json").write_text(json.dumps(match), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    imported = run("import", "hostile.match.json", "-o", "imported/")
    assert imported.exit_code == 0, imported.stderr
    return sorted(p.name for p in tmp_path.glob("*.keil"))


def runner_lines(text: str) -> list[str]:
    """The lines a runner would run, split at every line break Python knows
    (more than a runner's) and stripped of every blank (more than a runner strips)."""
    return [line for line in text.splitlines() if line.lstrip().lstrip("\ufeff").lstrip().startswith("::")]


ANNOTATION = re.compile(
    r"::(?:error|notice) file=[^:,\r\n]*,line=\d+,col=\d+,title=keilref [a-z]+::[^\r\n]*"
)
"""The only lines the github format writes: workflow commands it built, every part escaped."""


def _commands(records: list[str]) -> list[list[str]]:
    every = [*records, "hostile.match.json"]
    commands: list[list[str]] = []
    for fmt in FORMATS:
        commands += [["check", "-j", "1", "-f", fmt, *every], ["check", "-j", "1", "--strict", "-f", fmt, *every]]
    commands.append(["check", "--show-settings", *every])
    for fmt in STATS_FORMATS:
        commands += [["stats", "-j", "1", "-f", fmt, *every], ["stats", "-j", "1", "--standings", "-f", fmt, *every]]
    commands += [["filter", "-j", "1", *every], ["fmt", *records], ["fmt", "--check", *records]]
    commands += [["fmt", "--diff", *records]]
    commands += [["export", "--to", fmt, *records] for fmt in EXPORT_FORMATS]
    commands += [["import", "hostile.match.json", "-o", "imported/"], ["generate", "-n", "3"], ["rules"]]
    commands += [["completion", "bash"]]
    for file in [*every, "imported/hostile.keil"]:
        games = 1 if file.endswith(".json") else Path(file).read_text(encoding="utf-8").count("\n[Event ") + 1
        for game in range(1, games + 1):
            at = ["--game", str(game), file]
            commands += [["legal", *at]]
            commands += [[command, "-f", fmt, *at] for command in ("show", "score") for fmt in PICTURE_FORMATS]
    return commands


def test_every_command_is_run_with_hostile_input(hostile: list[str]) -> None:
    # The language server writes JSON-RPC messages, never lines.
    registered = set(typer.main.get_command(app).commands) - {"lsp"}  # type: ignore[attr-defined]
    assert registered == {args[0] for args in _commands(hostile)}


def test_no_command_prints_a_line_a_ci_runner_would_run(hostile: list[str]) -> None:
    for args in _commands(hostile):
        result = run(*args)
        assert result.exit_code in (0, 1, 2), (args, result.exit_code, result.stderr)
        err = result.stderr_bytes.decode("utf-8")
        assert not runner_lines(err), (args, runner_lines(err))
        if "png" in args:
            continue  # bytes, not lines
        out = result.stdout_bytes.decode("utf-8")
        commands_meant = any(FORMATS[a].runner_commands for a in args if a in FORMATS and args[0] == "check")
        if commands_meant and "--show-settings" not in args:
            # Only the annotations it means, each exactly so.
            assert all(ANNOTATION.fullmatch(line) for line in out.splitlines()), (args, out)
            continue
        assert not runner_lines(out), (args, runner_lines(out))


def test_the_github_format_is_the_only_one_that_writes_workflow_commands() -> None:
    assert [f.name for f in FORMATS.values() if f.runner_commands] == ["github"]


def test_standings_print_a_hostile_event_defused(hostile: list[str]) -> None:
    result = run("stats", "-j", "1", "--standings", "free0.keil", "free1.keil", "free2.keil")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    heads = [line for line in lines if "players," in line]
    assert heads == [
        "\\x3a:stop-commands::pwnedEvent: 2 players, 2 games counted, 1 not counted",
        " \\x09::error file=x::boomEvent: 2 players, 2 games counted, 1 not counted",  # a tab is escaped anyway
        "\ufeff\\x3a:warning::bomEvent: 2 players, 2 games counted, 1 not counted",
    ]
    # Only the line start is touched: inside a line the text stays as written.
    inside = "  round ::stop-commands::pwned3, ::stop-commands::pwnedb - ::stop-commands::pwneda: illegal"
    assert inside in result.stdout


def test_a_hostile_event_after_a_bare_carriage_return_is_escaped_in_its_line(hostile: list[str]) -> None:
    result = run("stats", "-j", "1", "--standings", "free3.keil")
    assert result.exit_code == 0
    assert result.stdout.splitlines()[0] == "cr\\x0d::notice::crEvent: 2 players, 2 games counted, 1 not counted"


def test_the_file_a_report_is_written_to_holds_what_the_format_made(hostile: list[str]) -> None:
    """``-o`` is not printed: a report in a file is the format's text, not the guard's."""
    assert run("stats", "-j", "1", "--standings", "free0.keil", "-o", "standings.txt").exit_code == 0
    text = Path("standings.txt").read_text(encoding="utf-8")
    assert text.startswith("::stop-commands::pwnedEvent: 2 players, 2 games counted, 1 not counted\n")
    printed = run("stats", "-j", "1", "--standings", "free0.keil").stdout
    assert printed == text.replace("::stop-commands::pwnedEvent:", "\\x3a:stop-commands::pwnedEvent:", 1)


def test_the_console_script_prints_through_the_guard(hostile: list[str]) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "keilref", "stats", "-j", "1", "--standings", "free0.keil"],
        capture_output=True, timeout=120, check=False, env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(b"\\x3a:stop-commands::pwnedEvent: 2 players")


def test_the_annotations_pass_the_guard_as_they_are(hostile: list[str]) -> None:
    result = run("check", "-j", "1", "-f", "github", "free0.keil")
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        "::error file=free0.keil,line=53,col=7,title=keilref illegal::"
        "game 3: illegal: move 1 (White) c5, turn 2: occupied"
    ]


# --- the guard itself ---------------------------------------------------------------------

PIECES = st.text(st.sampled_from([":", ":", " ", "\t", "\ufeff", "\n", "\r", "\x0c", "\u2028", "\x85", "a", "\\"]))


def _through(pieces: list[str], guard: RunnerGuard | None = None) -> str:
    guard = guard or RunnerGuard()
    return "".join(guard.feed(piece) for piece in pieces) + guard.end()


@settings(max_examples=3000, deadline=None)
@given(st.lists(PIECES, max_size=6))
def test_no_line_of_the_guarded_text_would_run_however_the_writes_cut_it(pieces: list[str]) -> None:
    out = _through(pieces)
    assert not runner_lines(out)
    # The same text however it is cut, and nothing changed but a '::' at a line start.
    assert out == _through(["".join(pieces)])
    assert out.replace("\\x3a:", "::") == "".join(pieces).replace("\\x3a:", "::")


@pytest.mark.parametrize(
    ("pieces", "out"),
    [
        (["::x"], "\\x3a:x"),
        ([":", ":x"], "\\x3a:x"),
        (["  :", ":x\n"], "  \\x3a:x\n"),
        (["a", "::x\n::y"], "a::x\n\\x3a:y"),
        (["a\r", "::y"], "a\r\\x3a:y"),
        (["b:", ":c"], "b::c"),
        ([":"], ":"),
        (["x\n", ":"], "x\n:"),
        (["\ufeff::x"], "\ufeff\\x3a:x"),
    ],
)
def test_the_guard_defuses_a_line_start_across_writes(pieces: list[str], out: str) -> None:
    assert _through(pieces) == out


def test_commands_written_past_the_guard_leave_it_knowing_where_the_line_is() -> None:
    guard = RunnerGuard()
    guard.passed("::error::x\n")
    assert guard.feed("::y") == "\\x3a:y"
    guard.passed("::error::x")
    assert guard.feed("::y") == "::y"  # the same line, not its start


def test_bytes_after_text_keep_their_order() -> None:
    """``filter`` writes games as bytes after its text; a held colon goes first."""
    raw = io.BytesIO()
    text = io.TextIOWrapper(raw, encoding="utf-8", newline="\n")
    stream = RunnerSafeStream(text)
    stream.write("x\n:")
    stream.buffer.write(b"[Event]")
    assert raw.getvalue() == b"x\n:[Event]"


def test_show_settings_names_each_file_escaped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    name = "nl\n::error file=x::nl.keil"
    Path(name).write_text(_standings_file("x"), encoding="utf-8")
    result = run("check", "--show-settings", name)
    assert result.exit_code == 0
    last = result.stdout.splitlines()[-1]
    assert last == "nl\\x0a::error file=x::nl.keil: rules from each game (the record's Rules tag)"


@pytest.mark.parametrize(
    "command",
    [["check"], ["stats"], ["filter"], ["fmt", "--check"], ["export", "--to", "abstract-games"], ["show"], ["legal"]],
)
def test_a_path_after_double_dash_is_a_path_whatever_its_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: list[str]
) -> None:
    """What the Action relies on: after ``--`` a name like an option is a file."""
    monkeypatch.chdir(tmp_path)
    Path("--exit-zero").write_text(_standings_file("x"), encoding="utf-8")
    Path("victim.txt").write_text("kept\n", encoding="utf-8")
    result = run(*command, "--", "--exit-zero")
    assert "no such file" not in result.stderr, result.stderr
    if command == ["check"]:
        assert result.exit_code == 1  # the illegal third game fails the check: --exit-zero was not taken
        assert "--exit-zero:53:7: game 3: illegal" in result.stdout
    missing = run(*command, "--", "--output-file=victim.txt")
    assert missing.exit_code == 2
    assert "keilref: --output-file=victim.txt: no such file or directory" in missing.stderr
    assert Path("victim.txt").read_bytes() == b"kept\n"
