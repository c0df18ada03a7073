"""Every wording a user reads about a verdict lives in keilref/wording.py.

The sentences below are the ones the issue tracker has seen drift when two
modules each said them; no module but the wording module may spell them.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from keilref import wording
from keilref.values import Color, ResultKind

PACKAGE = Path(wording.__file__).parent

# A fragment of each wording, as a module would have to spell it to repeat it.
FRAGMENTS = [
    r"is claimed, but",
    r"was to move when the record ends",
    r"wrong (winner|margin)",
    r"the declared result disagrees",
    r"tag: using",
    r"overridden: using",
    r"not applied: the Rules tag",
    r"sets nothing: did you mean",
    r"\} may resume",
    r"play stopped;",
    r"\(repeats turn",
    r"\(Black\)|\(White\)|\(\{colou?r\}\)",
    r"score so far",
    # An illegal turn's label, inside a string: the caption, show's message, the editor's hover, the report's script.
    r"(?i)[\"'][^\"'\n]*\billegal(\*\*)?: ",
    r"did not end",
    r"An illegal turn:",
    r"points scored against each opponent",
    # The status signs, as characters or as a script's escapes.
    r"[✓≠✗]|\\u2713|\\u2717|\\u2260",
]

# What a module ships to be read as it is (the report's style sheet and script) is held to the same fragments.
SOURCES = ("*.py", "*.js", "*.css")


def sources() -> list[Path]:
    found = sorted(path for pattern in SOURCES for path in PACKAGE.rglob(pattern))
    assert any(path.suffix == ".js" for path in found), "the report's script is among the files searched"
    return found


@pytest.mark.parametrize("fragment", FRAGMENTS)
def test_no_other_module_spells_a_wording(fragment: str) -> None:
    pattern = re.compile(fragment)
    spelt = []
    for path in sources():
        if path.name == "wording.py" and path.parent == PACKAGE:
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            # A '#' begins a comment in Python only (in a script it may stand in a string: "#game=").
            code = line.split("#", 1)[0] if path.suffix == ".py" else line
            stripped = code.strip()
            # Docstrings quote wordings as examples; only code that builds text counts.
            if stripped.startswith(("``", '"""')) or "``" in code:
                continue
            if pattern.search(code):
                spelt.append(f"{path.relative_to(PACKAGE.parent)}:{number}: {line.strip()}")
    assert spelt == []


def test_the_mismatch_details() -> None:
    assert wording.claimed_after_end(ResultKind.RESIGN) == "a resignation is claimed, but the game ended by two passes"
    assert wording.claimed_unended(ResultKind.WINNER) == "a winner-only result is claimed, but the game did not end"
    assert wording.claimed_unended(ResultKind.SCORE) == "a score is claimed, but the game did not end"
    assert wording.time_loss_not_to_move(Color.WHITE) == (
        "a loss on time is claimed for Black, but White was to move when the record ends"
    )


def test_the_warnings() -> None:
    assert wording.missing_tag("Komi", 0) == "no Komi tag: using 0"
    assert wording.misspelt_tag("komi", ("Komi",)) == (
        "unknown tag 'komi' sets nothing: did you mean 'Komi'? (tag names are case-sensitive)"
    )
    assert wording.misspelt_tag("Komj", ("Komi",)) == "unknown tag 'Komj' sets nothing: did you mean 'Komi'?"
    assert wording.rules_not_applied("yugo", "keil", "yugo") == (
        "rules yugo not applied: the Rules tag names a keil game, judged under its own rules (yugo is a yugo rule set)"
    )


def test_the_module_imports_no_stage_when_it_runs() -> None:
    source = (PACKAGE / "wording.py").read_text(encoding="utf-8")
    top = source.split("if TYPE_CHECKING:", 1)[0]
    assert re.findall(r"^from keilref\.(\w+)", top, re.MULTILINE) == ["values"]
