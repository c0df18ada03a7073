"""``keilref check --fix`` and ``fmt --fix``: the safe fixes from the command
line, written atomically or shown with ``--diff``, and a second run changes nothing."""

from __future__ import annotations

import os
from pathlib import Path

from cli_support import ROOT, run

from keilref.records.tidy import format_source
from keilref.records.sources import Source

BOTH = """[Event "both"]
[Rules "keil"]
[Size "2"]
[Komi "7"]
[Button "yes"]
[Result "B+0.5"]

1. b2 button 2. pass pass B+0.5
"""
FIXED = BOTH.replace("B+0.5", "W+0.5")
MISSPELT_KOMI = BOTH.replace('[Komi "7"]', '[KOMI "7"]')
NO_BUTTON = FIXED.replace('[Button "yes"]\n', "")


def written(tmp_path: Path, text: str | bytes, name: str = "game.keil") -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8") if isinstance(text, str) else text)
    return path


def test_check_fix_declares_the_result_everywhere_and_checks_the_fixed_file(tmp_path: Path) -> None:
    path = written(tmp_path, BOTH)
    done = run("check", "--strict", "--fix", str(path))
    assert done.exit_code == 0, done.output
    assert path.read_bytes() == FIXED.encode("utf-8")
    assert f"fixed {path} (1 fix)" in done.output
    assert "1 game: 1 ok" in done.output


def test_a_second_fix_changes_nothing(tmp_path: Path) -> None:
    path = written(tmp_path, MISSPELT_KOMI)
    first = run("check", "--fix", str(path))
    assert first.exit_code == 0, first.output
    # The tag is renamed, then the result declared under komi 7: one run reaches the end.
    assert path.read_bytes() == FIXED.encode("utf-8")
    assert "(2 fixes)" in first.output
    state = os.stat(path)
    second = run("check", "--fix", str(path))
    assert second.exit_code == 0
    assert "fixed" not in second.output
    assert path.read_bytes() == FIXED.encode("utf-8")
    after = os.stat(path)
    assert (after.st_ino, after.st_mtime_ns) == (state.st_ino, state.st_mtime_ns)


def test_diff_shows_the_fixes_and_writes_nothing(tmp_path: Path) -> None:
    path = written(tmp_path, BOTH)
    done = run("check", "--fix", "--diff", str(path))
    assert done.exit_code == 1
    assert path.read_bytes() == BOTH.encode("utf-8")
    assert done.stdout.splitlines() == [
        f"--- {path}\t(original)",
        f"+++ {path}\t(fixed)",
        "@@ -3,6 +3,6 @@",
        ' [Size "2"]',
        ' [Komi "7"]',
        ' [Button "yes"]',
        '-[Result "B+0.5"]',
        '+[Result "W+0.5"]',
        " ",
        "-1. b2 button 2. pass pass B+0.5",
        "+1. b2 button 2. pass pass W+0.5",
    ]
    clean = written(tmp_path, FIXED, "clean.keil")
    done = run("check", "--fix", "--diff", str(clean))
    assert done.exit_code == 0 and done.stdout == ""


def test_diff_without_fix_is_a_usage_error(tmp_path: Path) -> None:
    path = written(tmp_path, BOTH)
    done = run("check", "--diff", str(path))
    assert done.exit_code == 2
    assert "--diff only applies to --fix" in done.output
    assert path.read_bytes() == BOTH.encode("utf-8")


def test_an_added_line_ends_as_the_files_lines_do_and_a_byte_order_mark_stays(tmp_path: Path) -> None:
    crlf = written(tmp_path, NO_BUTTON.replace("\n", "\r\n"), "crlf.keil")
    bom = written(tmp_path, b"\xef\xbb\xbf" + BOTH.encode("utf-8"), "bom.keil")
    done = run("check", "--strict", "--fix", str(crlf), str(bom))
    assert done.exit_code == 0, done.output
    assert crlf.read_bytes() == FIXED.replace("\n", "\r\n").encode("utf-8")
    assert bom.read_bytes() == b"\xef\xbb\xbf" + FIXED.encode("utf-8")


def test_a_fix_with_more_than_one_answer_is_left_to_the_editor(tmp_path: Path) -> None:
    """A wrong move number may mean that turns were lost: --fix does not renumber it."""
    text = (ROOT / "records" / "faults" / "error-wrong-move-number.keil").read_bytes()
    path = written(tmp_path, text)
    done = run("check", "--fix", str(path))
    assert done.exit_code == 1
    assert path.read_bytes() == text
    assert "fixed" not in done.output


def test_a_file_keilref_cannot_read_is_left_untouched_with_its_error(tmp_path: Path) -> None:
    data = BOTH.replace("both", "Coruña").encode("cp1252")
    path = written(tmp_path, data)
    done = run("check", "--fix", "--encoding", "ascii", str(path))
    assert done.exit_code == 1
    assert path.read_bytes() == data
    assert f"keilref: {path}: not fixed: not ascii text at byte 12 (0xf1) (file left as it is)" in done.output
    other = written(tmp_path, BOTH, "other.keil")
    done = run("check", "--fix", "--encoding", "ascii", str(path), str(other))
    assert other.read_bytes() == FIXED.encode("utf-8")  # one file's fault does not stop the others


def test_a_file_in_its_own_encoding_is_fixed_in_it(tmp_path: Path) -> None:
    path = written(tmp_path, BOTH.replace("both", "Coruña").encode("cp1252"))
    done = run("check", "--fix", "--encoding", "cp1252", str(path))
    assert done.exit_code == 0, done.output
    assert path.read_bytes() == FIXED.replace("both", "Coruña").encode("cp1252")


def test_fmt_fix_applies_the_same_fixes_then_formats(tmp_path: Path) -> None:
    messy = MISSPELT_KOMI.replace("1. b2 button", "1.   b2    button")
    path = written(tmp_path, messy)
    canonical = format_source(Source(str(written(tmp_path, FIXED, "canonical.keil")))).text
    assert run("fmt", str(path)).stdout.count("B+0.5") == 2  # without --fix, fmt changes no result
    shown = run("fmt", "--fix", "--diff", str(path))
    assert shown.exit_code == 1 and "+[Komi \"7\"]" in shown.stdout
    assert path.read_text(encoding="utf-8") == messy
    done = run("fmt", "--fix", "-i", str(path))
    assert done.exit_code == 0, done.output
    assert path.read_text(encoding="utf-8") == canonical
    again = run("fmt", "--fix", "--check", str(path))
    assert again.exit_code == 0
    check = run("check", "--fix", "--diff", str(path))
    assert check.exit_code == 0 and check.stdout == ""


def test_bytes_that_are_not_text_stay_as_they_are_in_the_file_and_its_diff(tmp_path: Path) -> None:
    """A game that is not UTF-8 is an error, left alone; the other games of its file are fixed."""
    broken = (ROOT / "records" / "faults" / "error-invalid-utf8.keil").read_bytes()
    assert b"\xf1" in broken
    path = written(tmp_path, broken + b"\n" + BOTH.encode("utf-8"))
    shown = run("check", "--fix", "--diff", str(path))
    assert shown.exit_code == 1
    assert b'\n+[Result "W+0.5"]\n' in shown.stdout_bytes
    assert shown.stdout_bytes.endswith(b"\n+1. b2 button 2. pass pass W+0.5\n")
    done = run("check", "--fix", str(path))
    assert done.exit_code == 1  # the error stays
    assert path.read_bytes() == broken + b"\n" + FIXED.encode("utf-8")
