"""Bad input of every kind gets a clear answer, never a traceback, and never costs other games."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from typer.testing import CliRunner

import keilref
from keilref.referee.batches import check_sources
from keilref.records.sources import Source
from keilref.cli import EXIT_BROKEN_PIPE, EXIT_FAILED, EXIT_OK, EXIT_USAGE, app
from keilref.records.parser import parse_games
from keilref.referee.verdict import Status, adjudicate

runner = CliRunner()
GOOD = '[Size "3"]\n[Komi "2"]\n1. c3 button 2. pass pass\n'


def verdicts_of(text: str, **kw: object) -> list[dict[str, object]]:
    result = runner.invoke(app, ["check", "--format", "jsonl", "-"], input=text)
    assert "Traceback" not in result.output
    return [json.loads(line) for line in result.stdout.splitlines()]


@pytest.mark.skipif(not os.path.exists("/proc/self/mem"), reason="needs a file that opens but cannot be read")
def test_an_unreadable_file_in_a_parallel_run_is_one_error(tmp_path: Path) -> None:
    good = tmp_path / "good.keil"
    good.write_text(GOOD * 3, encoding="utf-8")
    # /proc/self/mem opens but fails to read (EIO), whoever runs the tests.
    sources = [Source(str(good)), Source("/proc/self/mem"), Source(str(good))]
    for jobs in (1, 2):
        verdicts = list(check_sources(sources, jobs=jobs, parallel_threshold=0))
        assert [v.status for v in verdicts] == [Status.OK] * 3 + [Status.ERROR] + [Status.OK] * 3
        bad = verdicts[3]
        assert bad.file == "/proc/self/mem" and bad.error is not None
        assert bad.error.message.startswith("cannot read file")


@pytest.mark.parametrize(
    "tag,phrase",
    [
        ('[Komi "1' + "0" * 400 + '"]', 'Komi "1' + "0" * 36 + '..." is not a number'),
        ('[Komi "2000000"]', 'Komi "2000000" is too large'),
        ('[Size "' + "9" * 5000 + '"]', "must be 2..13"),
        ('[Result "B+\u0663"]', "is not a result"),
    ],
)
def test_absurd_tag_values_are_errors_at_the_tag(tag: str, phrase: str) -> None:
    text = f"{tag}\n1. d4 *\n\n{GOOD}"
    first, second = verdicts_of(text)
    assert first["status"] == "error"
    error = first["error"]
    assert isinstance(error, dict) and phrase in error["message"]
    assert (error["line"], error["column"]) == (1, 1)
    assert len(str(error["message"])) < 120  # one readable line, not the value again
    assert second["status"] == "ok"  # and the next game is still checked


def test_komi_is_judged_by_value_not_spelling() -> None:
    assert keilref.Game(komi="6.0").komi == 6.0
    assert keilref.Game(rules="keil-2019", komi="6.50").komi == 6.5
    with pytest.raises(keilref.ConfigError, match="must be a whole number"):
        keilref.Game(komi="6.5")
    with pytest.raises(keilref.ConfigError, match="not a number"):
        keilref.Game(komi=float("nan"))


def test_a_game_starts_at_its_first_tag_whether_it_parses_or_not() -> None:
    lines = [v["line"] for v in verdicts_of('{note}\n\n[Size "2"] a1 *\n\n{note}\n\n[Size "2"] zz\n')]
    assert lines == [3, 7]


def test_a_bad_turn_found_in_replay_keeps_what_the_replay_used() -> None:
    (record,) = parse_games('[Size "3"]\n[Komi "2"]\n1. c3 b2 2. K@a1 *\n')
    v = adjudicate(record, file="x", game=1)
    assert v.status is Status.ERROR and v.error is not None
    assert (v.rules, v.size, v.komi, v.turns, v.declared) == ("keil", 3, 2.0, 2, "*")
    assert (v.error.line, v.error.column) == (3, 13)


def test_github_strict_marks_unfinished_games_as_errors(tmp_path: Path) -> None:
    path = tmp_path / "open.keil"
    path.write_text('[Size "3"]\n1. c3 *\n', encoding="utf-8")
    plain = runner.invoke(app, ["check", "--format", "github", str(path)])
    strict = runner.invoke(app, ["check", "--format", "github", "--strict", str(path)])
    assert (plain.exit_code, strict.exit_code) == (EXIT_OK, EXIT_FAILED)
    assert plain.stdout.startswith("::notice ")
    assert strict.stdout.startswith("::error ")


def test_junit_stays_xml_whatever_a_tag_holds(tmp_path: Path) -> None:
    path = tmp_path / "ctl.keil"
    path.write_text('[Rules "\x01\x1b"]\n1. a1\n', encoding="utf-8")
    result = runner.invoke(app, ["check", "--format", "junit", str(path)])
    assert result.exit_code == EXIT_FAILED
    failure = ET.fromstring(result.stdout).find(".//failure")
    assert failure is not None and "is not a known rule set" in (failure.text or "")


def test_fmt_in_place_follows_a_symlink_when_asked(tmp_path: Path) -> None:
    real = tmp_path / "real.keil"
    real.write_text('[Size  "3"]\n1.c3   *\n', encoding="utf-8")
    link = tmp_path / "link.keil"
    link.symlink_to(real.name)
    assert runner.invoke(app, ["fmt", "--in-place", str(link)]).exit_code == EXIT_FAILED
    assert real.read_text(encoding="utf-8") == '[Size  "3"]\n1.c3   *\n'
    result = runner.invoke(app, ["fmt", "--in-place", "--follow-symlinks", str(link)])
    assert result.exit_code == EXIT_OK
    assert link.is_symlink()
    assert real.read_text(encoding="utf-8") == '[Size "3"]\n\n1. c3 *\n'


def test_fmt_check_on_stdin_compares_with_what_was_read() -> None:
    canonical = '[Size "3"]\n\n1. c3 *\n'
    assert runner.invoke(app, ["fmt", "--check", "-"], input=canonical).exit_code == EXIT_OK
    assert runner.invoke(app, ["fmt", "--check", "-"], input='[Size "3"] 1. c3 *').exit_code == EXIT_FAILED
    refused = runner.invoke(app, ["fmt", "--in-place", "-"], input=canonical)
    assert refused.exit_code == EXIT_USAGE
    assert "standard input cannot be rewritten in place" in refused.stderr


@pytest.mark.parametrize(
    "argv,phrase",
    [
        (["show", "records"], "is a directory"),
        (["generate", "--fill", "inf"], "--fill"),
        (["check", "--jobs", "0", "records/games"], "--jobs"),
    ],
)
def test_usage_errors_are_one_line(argv: list[str], phrase: str) -> None:
    cwd = os.getcwd()
    os.chdir(Path(__file__).resolve().parent.parent)
    try:
        result = runner.invoke(app, argv)
    finally:
        os.chdir(cwd)
    assert result.exit_code == EXIT_USAGE
    assert phrase in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.output


def test_a_closed_pipe_ends_quietly_with_its_own_code() -> None:
    proc = subprocess.run(
        f"{sys.executable} -m keilref generate --games 3000 --size 2 | head -c 1 >/dev/null; echo ${{PIPESTATUS[0]}}",
        shell=True,
        executable="/bin/bash",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.stdout.strip() == str(EXIT_BROKEN_PIPE)
    assert "Traceback" not in proc.stderr and "Exception" not in proc.stderr


def test_game_takes_its_rules_by_position_too() -> None:
    assert type(keilref.Game(13, 0, "yugo")).__name__ == "YugoGame"
    assert type(keilref.Game(9, 0, "dehil")).__name__ == "DehilGame"
    assert type(keilref.Game(7, 6)).__name__ == "KeilGame"


def test_piece_letters_are_the_rule_family_s_to_judge() -> None:
    # The grammar reads any upper-case piece prefix; each family says which exist.
    (yugo,) = verdicts_of('[Rules "yugo"]\n[Size "5"]\n1. Q@c3 *\n')
    (keil,) = verdicts_of('[Size "5"]\n1. K@c3 *\n')
    for v, hint in ((yugo, "K@d4 for a king"), (keil, "such as g7")):
        assert v["status"] == "error"
        error = v["error"]
        assert isinstance(error, dict) and hint in error["message"]
        assert (error["line"], error["column"]) in ((3, 4), (2, 4))


def test_a_walk_skips_hidden_directories_but_reads_one_given_by_name(tmp_path: Path) -> None:
    from keilref.records.sources import expand_paths

    game = '[Rules "keil"] [Size "3"] [Komi "2"] [Button "yes"]\n1. e3 a1 B+R\n'
    for folder in ("a", ".git", ".hidden/deep", "b/.cache"):
        (tmp_path / folder).mkdir(parents=True)
        (tmp_path / folder / "g.keil").write_text(game, encoding="utf-8")
    found = [os.path.relpath(s.name, tmp_path) for s in expand_paths([str(tmp_path)])]
    assert found == ["a/g.keil"]
    named = [os.path.relpath(s.name, tmp_path) for s in expand_paths([str(tmp_path / ".hidden")])]
    assert named == [".hidden/deep/g.keil"]


def test_exclude_and_extend_exclude_as_linters_take_them(tmp_path: Path) -> None:
    from cli_support import run

    game = '[Rules "keil"] [Size "3"] [Komi "2"] [Button "yes"]\n1. e3 a1 B+R\n'
    for folder in ("a", "a/old", "b", ".hidden"):
        (tmp_path / folder).mkdir(parents=True, exist_ok=True)
        (tmp_path / folder / "g.keil").write_text(game, encoding="utf-8")
    (tmp_path / "b" / "draft.keil").write_text(game, encoding="utf-8")

    def checked(*options: str) -> list[str]:
        r = run("check", "--format", "jsonl", *options, str(tmp_path))
        assert r.exit_code == 0, r.output
        return sorted(os.path.relpath(json.loads(line)["file"], tmp_path) for line in r.stdout.splitlines())

    assert checked() == ["a/g.keil", "a/old/g.keil", "b/draft.keil", "b/g.keil"]
    assert checked("--extend-exclude", "old", "--extend-exclude", "draft*") == ["a/g.keil", "b/g.keil"]
    assert checked("--extend-exclude", "a/*") == ["b/draft.keil", "b/g.keil"]  # a path below the directory
    # --exclude replaces the default: hidden directories are searched again.
    assert checked("--exclude", "b") == [".hidden/g.keil", "a/g.keil", "a/old/g.keil"]
    # A file given by name is read, whatever the patterns say.
    r = run("check", "--exclude", "*.keil", str(tmp_path / "b" / "g.keil"))
    assert r.exit_code == 0 and "1 game: 1 ok" in r.stdout
    for command in (["fmt", "--check"], ["stats"], ["filter"]):
        assert run(*command, "--extend-exclude", "a", "--extend-exclude", "b", str(tmp_path)).exit_code == 2  # nothing left
