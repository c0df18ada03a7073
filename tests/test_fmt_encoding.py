"""``keilref fmt --encoding``: an archive in Windows-1252 or Latin-1 is formatted, and stays in its encoding."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from cli_support import ROOT, run, runner

from keilref.cli import app
from keilref.records import tidy
from keilref.records.sources import Source

MESSY = '[Size "3"]   [Black "José"] [Rules "keil"] [Komi "2"] [Button "yes"]\n1.e3 {un café} a1 B+R\n'
CANONICAL = (
    '[Black "José"]\n[Rules "keil"]\n[Size "3"]\n[Komi "2"]\n[Button "yes"]\n\n1. e3 {un café} 1... a1 B+R\n'
)


@pytest.fixture
def messy(tmp_path: Path) -> Path:
    path = tmp_path / "old.keil"
    path.write_bytes(MESSY.encode("cp1252"))
    return path


@pytest.fixture
def canonical(tmp_path: Path) -> Path:
    path = tmp_path / "clean.keil"
    path.write_bytes(CANONICAL.encode("cp1252"))
    return path


def test_the_canonical_text_is_printed_in_the_files_encoding(messy: Path) -> None:
    r = run("fmt", "--encoding", "cp1252", str(messy))
    assert r.exit_code == 0, r.output
    assert r.stdout_bytes == CANONICAL.encode("cp1252")
    assert messy.read_bytes() == MESSY.encode("cp1252")


def test_check_says_would_reformat_only_when_the_bytes_would_change(messy: Path, canonical: Path) -> None:
    r = run("fmt", "--check", "--encoding", "cp1252", str(messy), str(canonical))
    assert (r.exit_code, r.stdout) == (1, f"would reformat {messy}\n")
    r = run("fmt", "--check", "--encoding", "cp1252", str(canonical))
    assert (r.exit_code, r.stdout, r.stderr) == (0, "", "")


def test_the_diff_is_in_the_files_encoding_and_applies_with_patch(messy: Path) -> None:
    r = run("fmt", "--diff", "--encoding", "cp1252", str(messy))
    assert r.exit_code == 1
    diff = r.stdout_bytes
    assert b'-[Size "3"]   [Black "Jos\xe9"]' in diff and b"+1. e3 {un caf\xe9} 1... a1 B+R\n" in diff
    assert "é".encode() not in diff
    assert messy.read_bytes() == MESSY.encode("cp1252")  # nothing written
    if shutil.which("patch") is None:
        pytest.skip("no patch program")
    subprocess.run(["patch", "-s", "-p0", str(messy)], input=diff, check=True, cwd=messy.parent)
    assert messy.read_bytes() == CANONICAL.encode("cp1252")


def test_a_diff_names_the_file_as_the_file_system_does_and_patch_finds_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The file names in a diff's header are UTF-8, its lines the file's bytes:
    ``patch`` finds the file by its name, then matches the lines."""
    if shutil.which("patch") is None:
        pytest.skip("no patch program")
    monkeypatch.chdir(tmp_path)
    Path("Zoë.keil").write_bytes(MESSY.encode("cp1252"))
    diff = run("fmt", "--diff", "--encoding", "cp1252", "Zoë.keil").stdout_bytes
    assert diff.startswith("--- Zoë.keil\t(original)\n+++ Zoë.keil\t(formatted)\n".encode())
    subprocess.run(["patch", "-s", "-p0"], input=diff, check=True, cwd=tmp_path)
    assert Path("Zoë.keil").read_bytes() == CANONICAL.encode("cp1252")


def test_in_place_keeps_the_encoding_and_the_result_passes_a_strict_check(messy: Path) -> None:
    r = run("fmt", "-i", "--encoding", "cp1252", str(messy))
    assert (r.exit_code, r.stderr) == (0, f"reformatted {messy}\n")
    assert messy.read_bytes() == CANONICAL.encode("cp1252")
    assert run("check", "--strict", "--encoding", "cp1252", str(messy)).exit_code == 0
    again = run("fmt", "--check", "--encoding", "cp1252", str(messy))
    assert (again.exit_code, again.stdout) == (0, "")


def test_standard_input_is_read_and_printed_in_the_encoding() -> None:
    r = runner.invoke(app, ["fmt", "--encoding", "cp1252", "-"], input=MESSY.encode("cp1252"))
    assert (r.exit_code, r.stdout_bytes) == (0, CANONICAL.encode("cp1252"))


def test_crlf_stays_crlf_and_no_byte_order_mark_is_added(tmp_path: Path) -> None:
    path = tmp_path / "windows.keil"
    path.write_bytes(MESSY.replace("\n", "\r\n").encode("cp1252"))
    assert run("fmt", "-i", "--encoding", "cp1252", str(path)).exit_code == 0
    assert path.read_bytes() == CANONICAL.replace("\n", "\r\n").encode("cp1252")


def test_without_the_encoding_it_is_the_utf8_error_check_gives_and_the_file_is_left(messy: Path) -> None:
    checked = run("check", str(messy)).stdout.splitlines()[0]
    # "FILE:1:12: game 1: error: the text is not valid UTF-8 here ...: re-save the file as UTF-8, or ... --encoding ..."
    where, message = checked.split(": game 1: error: ")
    assert "--encoding" in message
    for mode in ([], ["--check"], ["--diff"], ["-i"]):
        r = run("fmt", *mode, str(messy))
        assert r.exit_code == 1 and r.stdout == ""
        assert r.stderr.splitlines()[0] == f"keilref: {where}: {message} (file left as it is)"
        assert messy.read_bytes() == MESSY.encode("cp1252")


def test_a_byte_that_is_not_text_in_the_encoding_is_named_as_check_names_it(tmp_path: Path) -> None:
    path = tmp_path / "bad.keil"
    data = b'[Black "Jos\xe9 \x81"] [Rules "keil"]\n1. e3 *\n'
    path.write_bytes(data)
    checked = run("check", "--encoding", "cp1252", str(path)).stdout
    assert "cannot read file: not cp1252 text at byte 13 (0x81)" in checked
    for mode in ([], ["--check"], ["--diff"], ["-i"]):
        r = run("fmt", *mode, "--encoding", "cp1252", str(path))
        assert r.exit_code == 1 and r.stdout == ""
        assert r.stderr == f"keilref: {path}: not cp1252 text at byte 13 (0x81) (file left as it is)\n"
        assert path.read_bytes() == data


def test_a_character_the_encoding_cannot_write_leaves_the_file_as_it_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Everything written comes from the file, so this cannot happen today; should
    the writer ever add a character, a file in Latin-1 must not get UTF-8 bytes."""
    path = tmp_path / "latin.keil"
    path.write_bytes(MESSY.encode("latin-1"))
    monkeypatch.setattr(tidy, "_write", lambda records, name: CANONICAL.replace("café", "€"))
    with pytest.raises(tidy.FormatError) as caught:
        tidy.format_source(Source(str(path), encoding="latin-1"), write=True)
    assert str(caught.value) == (
        f"{path}: the canonical text holds '€' (U+20AC), which iso8859-1 cannot write (file left as it is)"
    )
    assert path.read_bytes() == MESSY.encode("latin-1")


def test_latin1_too(tmp_path: Path) -> None:
    path = tmp_path / "latin.keil"
    path.write_bytes(MESSY.replace("José", "Zoë Núñez").encode("latin-1"))
    r = run("fmt", "--encoding", "latin-1", str(path))
    assert r.exit_code == 0, r.output
    assert r.stdout_bytes == CANONICAL.replace("José", "Zoë Núñez").encode("latin-1")
    assert run("fmt", "-i", "--encoding", "iso-8859-1", str(path)).exit_code == 0
    assert path.read_bytes() == CANONICAL.replace("José", "Zoë Núñez").encode("latin-1")


def test_the_projects_encoding_applies_and_the_command_line_overrides_it(
    messy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = messy.parent
    (project / "keilref.toml").write_text('encoding = "cp1252"\n', encoding="utf-8")
    (project / "new.keil").write_bytes(MESSY.encode("utf-8"))
    monkeypatch.chdir(project)
    r = run("fmt", "old.keil")
    assert (r.exit_code, r.stdout_bytes) == (0, CANONICAL.encode("cp1252"))
    wrong = run("fmt", "--encoding", "utf-8", "old.keil")
    assert wrong.exit_code == 1 and "not valid UTF-8" in wrong.stderr
    right = run("fmt", "--encoding", "utf-8", "new.keil")
    assert (right.exit_code, right.stdout_bytes) == (0, CANONICAL.encode("utf-8"))
    assert run("fmt", "-i", "old.keil").exit_code == 0
    assert messy.read_bytes() == CANONICAL.encode("cp1252")


def test_a_line_a_ci_runner_would_run_is_still_held_back(tmp_path: Path) -> None:
    path = tmp_path / "hostile.keil"
    # The tags change; the comment's second line stays, so the diff would show it as it is.
    tags, turns = CANONICAL.split("\n\n")
    text = tags.replace("\n", " ") + "\n\n" + turns.replace("{un café}", "{un café\n::stop-commands::tok}")
    path.write_bytes(text.encode("cp1252"))
    printed = run("fmt", "--encoding", "cp1252", str(path))
    assert printed.exit_code == 1 and printed.stdout == ""
    assert f"keilref: {path}:4: its canonical text is not printed" in printed.stderr
    diff = run("fmt", "--diff", "--encoding", "cp1252", str(path))
    assert diff.exit_code == 1 and diff.stdout == ""
    assert f"keilref: {path}:4: its diff is not printed" in diff.stderr
    assert run("fmt", "-i", "--encoding", "cp1252", str(path)).exit_code == 0
    assert b"{un caf\xe9\n::stop-commands::tok}" in path.read_bytes()


RECORDS = sorted((ROOT / "records").rglob("*.keil"))


@pytest.mark.parametrize("mode", [[], ["--check"], ["--diff"]], ids=["print", "check", "diff"])
def test_utf8_records_format_as_they_did_with_or_without_encoding_utf8(mode: list[str]) -> None:
    assert len(RECORDS) > 50
    for path in RECORDS:
        plain = run("fmt", *mode, str(path))
        named = run("fmt", *mode, "--encoding", "utf-8", str(path))
        assert (named.exit_code, named.stdout_bytes, named.stderr_bytes) == (
            plain.exit_code,
            plain.stdout_bytes,
            plain.stderr_bytes,
        ), path
