"""``--stdin-filename``: standard input read as the file it holds (an editor's
buffer, a pre-commit stage): reported under that name, given its settings."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from typer.testing import Result

from cli_support import ROOT, runner, untimed
from keilref.cli import EXIT_FAILED, EXIT_OK, EXIT_USAGE, app

SUPERKO = ROOT / "records/faults/illegal-superko.keil"
HALF_KOMI = '[Size "3"] [Komi "2.5"] [Button "yes"]\n1. c3 d4 2. c2 d3 *\n'  # half komi: keil-2019 only


def run(*args: str, input: bytes | None = None) -> Result:
    result = runner.invoke(app, list(args), input=input)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "2019").mkdir()
    (tmp_path / "keilref.toml").write_text('[per-path-rules]\n"2019/*" = "keil-2019"\n', encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("format", ["text", "jsonl", "github", "sarif", "gitlab", "checkstyle", "junit"])
def test_standard_input_reads_as_the_file_it_holds(format: str, project: Path) -> None:
    """The output is the output for the file itself, byte for byte: an editor's
    buffer is reported as its file would be."""
    data = SUPERKO.read_bytes()
    (project / "faults").mkdir()
    (project / "faults" / "superko.keil").write_bytes(data)
    by_name = run("check", "-f", format, "faults/superko.keil")
    piped = run("check", "-f", format, "--stdin-filename", "faults/superko.keil", "-", input=data)
    assert piped.exit_code == by_name.exit_code == EXIT_FAILED
    same = (lambda t: untimed(t)) if format == "text" else (lambda t: re.sub(r' time="[0-9.]+"', "", t))
    assert same(piped.stdout) == same(by_name.stdout)
    assert "faults/superko.keil" in piped.stdout


def test_without_a_path_standard_input_is_read_under_the_name(project: Path) -> None:
    piped = run("check", "-f", "jsonl", "--stdin-filename", "mine.keil", input=SUPERKO.read_bytes())
    assert piped.exit_code == EXIT_FAILED
    assert json.loads(piped.stdout)["file"] == "mine.keil"


def test_the_files_project_settings_apply(project: Path) -> None:
    under_2019 = run("check", "-f", "jsonl", "--stdin-filename", "2019/old.keil", "-", input=HALF_KOMI.encode())
    verdict = json.loads(under_2019.stdout)
    assert (verdict["file"], verdict["status"], verdict["rules"]) == ("2019/old.keil", "unfinished", "keil-2019")
    elsewhere = run("check", "-f", "jsonl", "--stdin-filename", "new/old.keil", "-", input=HALF_KOMI.encode())
    assert json.loads(elsewhere.stdout)["status"] == "error"  # half komi under keil: a tag error
    plain = run("check", "-f", "jsonl", "-", input=HALF_KOMI.encode())
    assert json.loads(plain.stdout)["file"] == "-"
    stats = run("stats", "-f", "json", "--stdin-filename", "2019/old.keil", "-", input=HALF_KOMI.encode())
    assert stats.exit_code == EXIT_OK
    assert "keil-2019" in stats.stdout and '"keil"' not in stats.stdout


def test_the_html_report_reads_the_buffer_again_not_the_file_on_disk(project: Path) -> None:
    """The report's boards come from standard input, kept; the file of that
    name, if any, may hold something else (the buffer is not saved)."""
    data = SUPERKO.read_bytes()
    (project / "superko.keil").write_text("not what the editor holds {", encoding="utf-8")
    piped = run("check", "-f", "html", "--stdin-filename", "superko.keil", "-", input=data)
    (project / "superko.keil").write_bytes(data)
    by_name = run("check", "-f", "html", "superko.keil")
    assert piped.exit_code == by_name.exit_code == EXIT_FAILED
    assert piped.stdout == by_name.stdout
    assert "keilref-board" in piped.stdout


def test_filter_reads_standard_input_twice_as_it_read_it_once(tmp_path: Path) -> None:
    """Repeats spool standard input to a file: read back with its encoding and name."""
    game = (ROOT / "records/games/size5-keil-corner-ko.keil").read_text(encoding="utf-8")
    assert '[Site "Lugo"]' in game
    game = game.replace('[Site "Lugo"]', '[Site "Logro\u00f1o"]')
    data = (game + "\n" + game).encode("cp1252")
    (tmp_path / "old.keil").write_bytes(data)
    by_name = run("filter", "--duplicates", "--encoding", "cp1252", str(tmp_path / "old.keil"))
    piped = run(
        "filter", "--duplicates", "--encoding", "cp1252", "--stdin-filename", str(tmp_path / "old.keil"), "-",
        input=data,
    )
    assert by_name.exit_code == piped.exit_code == EXIT_OK
    assert piped.stdout_bytes == by_name.stdout_bytes
    assert piped.stdout_bytes.count("Logro\u00f1o".encode()) == 1
    assert piped.stderr == by_name.stderr
    assert piped.stderr.endswith("keilref: 1 of 2 games written; 1 duplicate\n")


@pytest.mark.parametrize("command", ["check", "stats", "filter", "fmt"])
def test_a_name_for_standard_input_that_is_not_read_is_a_usage_error(command: str) -> None:
    result = run(command, "--stdin-filename", "x.keil", str(SUPERKO))
    assert result.exit_code == EXIT_USAGE
    assert result.stderr == "keilref: --stdin-filename names standard input, which is read only when - is a PATH\n"


def test_fmt_names_the_file_in_its_diff_and_errors(project: Path) -> None:
    messy = b'[Size "3"]   [Event "x"]\n1.c3 *\n'
    (project / "2019" / "b.keil").write_bytes(messy)
    by_name = run("fmt", "--diff", "2019/b.keil")
    piped = run("fmt", "--diff", "--stdin-filename", "2019/b.keil", "-", input=messy)
    assert piped.exit_code == by_name.exit_code == EXIT_FAILED
    assert piped.stdout == by_name.stdout and piped.stdout.startswith("--- 2019/b.keil\t(original)\n")
    broken = run("fmt", "--stdin-filename", "2019/b.keil", "-", input=b'[Size "3"]\n1. c3 @ *\n')
    assert broken.exit_code == EXIT_FAILED
    # The buffer's own line cannot be read again, and the file on disk holds another: no excerpt.
    assert broken.stderr.splitlines() == [
        "keilref: 2019/b.keil:2:7: found '@'; expected a move, a comment or a result (file left as it is)"
    ]


def test_the_editor_commands_in_the_docs(tmp_path: Path) -> None:
    import subprocess
    import sys

    text = (ROOT / "docs" / "editors.md").read_text(encoding="utf-8")
    (block,) = re.findall(r"## Without the language server.*?```sh\n(.*?)```", text, re.DOTALL)
    env = {**os.environ, "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])}
    formatted, checked = (
        subprocess.run(["bash", "-c", line], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
        for line in block.splitlines()
    )
    game = "records/games/size5-keil-corner-ko.keil"
    assert formatted.returncode == 0 and formatted.stdout == (ROOT / game).read_text(encoding="utf-8")
    assert checked.returncode == 0 and json.loads(checked.stdout)["file"] == game
