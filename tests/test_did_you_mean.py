"""Results, turns and setting tags typed the way people type them: each
error says the form meant, and where the colour is not said, says so
instead of guessing it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_support import lines_of, run
from keilref.values import meant_result

TAGS = '[Rules "keil"] [Size "3"] [Komi "2"] [Button "yes"]'
FORMS = "results are B+<margin>, W+<margin>, B+R, W+R, B+T, W+T, B+F, W+F, B+, W+, Draw or *"
FOUND = "expected a move, a comment or a result"


def _error(tmp_path: Path, text: str) -> dict[str, object]:
    """The one verdict's error, after asserting the status and the exit code."""
    path = tmp_path / "typed.keil"
    path.write_text(text, encoding="utf-8")
    result = run("check", "--format", "jsonl", str(path))
    assert result.exit_code == 1
    (line,) = lines_of(result.stdout)
    verdict = json.loads(line)
    assert verdict["status"] == "error"
    error: dict[str, object] = verdict["error"]
    return error


@pytest.mark.parametrize(
    ("typed", "hint"),
    [
        ("Black+4.5", "did you mean 'B+4.5'?"),
        ("White+R", "did you mean 'W+R'?"),
        ("B+4,5", f"'B+4,5' is not a result; did you mean 'B+4.5'? {FORMS}"),
        ("b+4.5", f"'b+4.5' is not a result; did you mean 'B+4.5'? {FORMS}"),
        ("B+Resign", f"'B+Resign' is not a result; did you mean 'B+R'? {FORMS}"),
        ("W+time", f"'W+time' is not a result; did you mean 'W+T'? {FORMS}"),
        ("draw", f"'draw' is not a result; did you mean 'Draw'? {FORMS}"),
        ("1/2-1/2", "did you mean 'Draw'?"),
        ("resign", "did you mean 'B+R' or 'W+R'? a result names the winner's colour"),
        # Which colour "1" is would be a guess: the hint says what a result names.
        ("1-0", "'1-0' does not say which colour won: a result names the winner's colour, as in B+R or W+R"),
        ("0-1", "'0-1' does not say which colour won: a result names the winner's colour, as in B+R or W+R"),
        ("pas", "did you mean 'pass'?"),
        ("buton", "did you mean 'button'?"),
        ("Pass", "did you mean 'pass'? write 'pass' in lower case"),
        ("BUTTON", "did you mean 'button'? write 'button' in lower case"),
    ],
)
def test_a_word_typed_for_a_result_or_a_turn_gets_the_form_meant(tmp_path: Path, typed: str, hint: str) -> None:
    # The word stands after two turns, at line 2, column 10.
    error = _error(tmp_path, f"{TAGS}\n1. e3 a1 {typed}\n")
    assert error == {"message": f"found '{typed}'; {FOUND} ({hint})", "line": 2, "column": 10}


@pytest.mark.parametrize("typed", ["B + 4.5", "B +4.5", "Black + 4.5 {by counting}"])
def test_a_result_written_in_several_words_is_read_as_one(tmp_path: Path, typed: str) -> None:
    # The error is at the first word, which is what the grammar stops at.
    error = _error(tmp_path, f"{TAGS}\n1. e3 a1 {typed}\n")
    word = typed.split()[0]
    assert error == {"message": f"found '{word}'; {FOUND} (did you mean 'B+4.5'?)", "line": 2, "column": 10}


def test_a_word_like_nothing_gets_no_hint(tmp_path: Path) -> None:
    error = _error(tmp_path, f"{TAGS}\n1. e3 a1 hello\n")
    assert error["message"] == f"found 'hello'; {FOUND}"


@pytest.mark.parametrize(
    ("typed", "hint"),
    [
        ("Black+4.5", ": did you mean 'B+4.5'?"),
        ("B + 4.5", ": did you mean 'B+4.5'?"),
        ("b+r", ": did you mean 'B+R'?"),
        ("draw", ": did you mean 'Draw'?"),
        ("resign", ": did you mean 'B+R' or 'W+R'? a result names the winner's colour"),
        ("1-0", ": '1-0' does not say which colour won: a result names the winner's colour, as in B+R or W+R"),
        ("B+x", ""),
    ],
)
def test_the_result_tag_gets_the_same_hint(tmp_path: Path, typed: str, hint: str) -> None:
    error = _error(tmp_path, f'{TAGS} [Result "{typed}"]\n1. e3 a1\n')
    assert error == {
        "message": f'Result "{typed}" is not a result (expected B+<margin>, W+<margin>, B+R, W+R, B+T, W+T, '
        f"B+F, W+F, B+, W+, Draw or *){hint}",
        "line": 1,
        "column": len(TAGS) + 2,
    }


def test_a_result_already_right_or_unlike_one_means_nothing_else() -> None:
    for text in ("B+4.5", "W+R", "B+", "Draw", "*", "B+0", "hello", "Black wins", "B+4.5pts"):
        assert meant_result(text) is None, text


# --- misspelt settings -----------------------------------------------------------

BOARD = '[Rules "keil"] [Komi "0"] [Button "yes"]'
GAME = "1. e3 a1 B+R\n"


def _check(tmp_path: Path, tags: str, *args: str) -> tuple[int, list[str]]:
    path = tmp_path / "setting.keil"
    path.write_text(f"{tags}\n{GAME}", encoding="utf-8")
    result = run("check", *args, str(path))
    prefix = f"{path}:"
    return result.exit_code, [ln[len(prefix) :] for ln in lines_of(result.stdout)[:-1]]


@pytest.mark.parametrize(
    ("tags", "meant", "used"),
    [
        # No Size tag: size 7, not 4 (nor 9).
        ('[size "4"] [Rules "keil"] [Komi "0"] [Button "yes"]', "Size", "7"),
        ('[SIZE "9"] [Rules "keil"] [Komi "0"] [Button "yes"]', "Size", "7"),
        ('[KOMI "6"] [Rules "keil"] [Size "7"] [Button "yes"]', "Komi", "0"),
        ('[rules "yugo"] [Size "7"] [Komi "0"] [Button "yes"]', "Rules", "keil"),
        ('[button "no"] [Rules "keil"] [Size "7"] [Komi "0"]', "Button", "yes"),
        ('[removed "d4"] [Rules "keil"] [Size "7"] [Komi "0"] [Button "yes"]', "Removed", "none"),
    ],
)
def test_a_misspelt_setting_with_another_value_is_an_error_at_the_tag(
    tmp_path: Path, tags: str, meant: str, used: str
) -> None:
    # Replayed with the value in use, not the one written, it would be another game.
    code, lines = _check(tmp_path, tags)
    name, value = tags[1 : tags.index(" ")], tags.split('"')[1]
    assert code == 1
    assert lines == [
        f"1:1: game 1: error: unknown tag '{name}' sets nothing: did you mean '{meant}'? "
        f'(tag names are case-sensitive); the game would be replayed with {meant} {used}, not "{value}"'
    ]


@pytest.mark.parametrize("tag", ['[size "7"]', '[Sise "4"]'])
def test_a_misspelt_setting_with_the_value_in_use_or_maybe_another_tag_stays_a_warning(
    tmp_path: Path, tag: str
) -> None:
    # [size "7"]: the size in use. [Sise "4"] may be Site as well as Size.
    code, lines = _check(tmp_path, f"{tag} {BOARD}")
    assert code == 0
    assert lines[0] == "1:1: game 1: ok: computed -, declared B+R"
    assert lines[1].startswith(f"1:1: game 1: warning: unknown tag '{tag[1:5]}' sets nothing: did you mean ")
    strict, _ = _check(tmp_path, f"{tag} {BOARD}", "--strict")
    assert strict == 1


def test_a_misspelt_setting_beside_the_tag_it_means_is_judged_against_that_tags_value(tmp_path: Path) -> None:
    code, lines = _check(tmp_path, f'[Size "3"] [size "3"] {BOARD}')
    assert code == 0 and "warning: unknown tag 'size'" in lines[1]
    code, lines = _check(tmp_path, f'[Size "3"] [size "4"] {BOARD}')
    assert code == 1
    assert lines[0].endswith('the game would be replayed with Size 3, not "4"')
