"""The JSON line places a mismatch and each warning where the text line does,
and says why a result mismatches as a code a script can test."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from cli_support import ROOT, run
from keilref.referee.verdict import MismatchReason

FAULTS = ROOT / "records" / "faults"
PLACED = sorted(
    str(p.relative_to(ROOT)) for p in FAULTS.rglob("*.keil") if p.name.startswith(("mismatch-", "warning-"))
)
_TEXT = re.compile(r"(.+?):(\d+):(\d+): game (\d+): (\w+): (.*)\Z")

REASONS = {
    "mismatch-wrong-winner.keil": "wrong-winner",
    "mismatch-wrong-margin.keil": "wrong-margin",
    "mismatch-resignation-after-passes.keil": "claimed-after-end",
    "mismatch-score-for-unfinished-game.keil": "claimed-unended",
    "mismatch-winner-only-for-unfinished-game.keil": "claimed-unended",
    "mismatch-time-loss-of-player-not-to-move.keil": "time-loss-not-to-move",
    "mismatch-time-loss-clock-not-running.keil": "time-loss-not-to-move",
    "mismatch-result-counted-before-removal.keil": "wrong-margin",
}


def _jsonl(*paths: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in run("check", "--format", "jsonl", *paths).stdout.splitlines()]


def _text(*paths: str) -> list[tuple[str, int, int, int, str, str]]:
    out = []
    for line in run("check", *paths).stdout.splitlines()[:-1]:  # the summary line has no place
        m = _TEXT.match(line)
        assert m is not None, line
        out.append((m.group(1), int(m.group(2)), int(m.group(3)), int(m.group(4)), m.group(5), m.group(6)))
    return out


@pytest.fixture(autouse=True)
def _at_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)


def test_every_mismatch_and_warning_fixture_is_placed() -> None:
    assert len(PLACED) >= 10
    assert {Path(p).name for p in PLACED if Path(p).name.startswith("mismatch-")} == set(REASONS)


@pytest.mark.parametrize("path", PLACED)
def test_the_json_line_places_each_fault_where_the_text_line_does(path: str) -> None:
    (v,) = _jsonl(path)
    status, *warnings = _text(path)
    assert status[:5] == (path, *status[1:3], 1, v["status"])
    mismatch = v["mismatch"]
    if v["status"] == "mismatch":
        assert isinstance(mismatch, dict)
        assert (mismatch["line"], mismatch["column"]) == status[1:3]
        assert status[5].endswith(mismatch["message"])
        assert mismatch["reason"] == REASONS[Path(path).name]
    else:
        assert mismatch is None
    places = v["warning_places"]
    assert isinstance(places, list)
    assert [(w["line"], w["column"], "warning", w["message"]) for w in places] == [w[1:3] + w[4:] for w in warnings]
    # The warnings stay the strings they always were, in the same order.
    assert v["warnings"] == [w["message"] for w in places]
    assert places or mismatch


def test_the_reason_of_a_mismatch_is_one_of_the_documented_codes() -> None:
    codes = {r.value for r in MismatchReason}
    assert codes == set(REASONS.values())
    documented = (ROOT / "docs" / "record-format.md").read_text(encoding="utf-8")
    for code in codes:
        assert f"`{code}`" in documented, code


_GAME = """[Event "e"]
[Rules "keil"]
[Size "3"]
[komi "0"]
{button}[Result "B+3.5"]

1. c5 d5 2. e5 button 3. a3 a1 4. c2 e4 5. c1 b4 6. d2 b2 7. e3 b3 8. c3 d3
9. d4 c5 10. e3 d3 11. e5 c4 12. e4 b1 13. pass pass B+3.5
"""


def test_a_mismatch_with_warnings_places_each_at_its_tag_and_the_declared_result(tmp_path: Path) -> None:
    # `komi` is misspelt: a warning at that tag, and one at the game's start
    # for the Komi tag it lacks; the second game lacks its Button tag too.
    path = tmp_path / "two.keil"
    path.write_text(_GAME.format(button='[Button "yes"]\n') + "\n" + _GAME.format(button=""), encoding="utf-8")
    first, second = _jsonl(str(path))
    assert first["mismatch"] == {"line": 9, "column": 54, "reason": "wrong-winner", "message": "wrong winner"}
    assert [(w["line"], w["column"]) for w in first["warning_places"]] == [(4, 1), (1, 1)]
    assert second["line"] == 11
    assert second["mismatch"] == {"line": 18, "column": 54, "reason": "wrong-winner", "message": "wrong winner"}
    assert [(w["line"], w["column"]) for w in second["warning_places"]] == [(14, 1), (11, 1), (11, 1)]
    assert second["warnings"] == [w["message"] for w in second["warning_places"]]
    assert second["warnings"][2] == "no Button tag: using yes"
    text = [(line, column, kind) for _, line, column, _, kind, _ in _text(str(path))]
    assert text == [
        *((9, 54, "mismatch"), (4, 1, "warning"), (1, 1, "warning")),
        *((18, 54, "mismatch"), (14, 1, "warning"), (11, 1, "warning"), (11, 1, "warning")),
    ]


def test_a_game_without_a_mismatch_or_a_warning_has_empty_places() -> None:
    (v,) = _jsonl("records/games/size7-keil-white-resigns.keil")
    assert (v["status"], v["mismatch"], v["warning_places"], v["warnings"]) == ("ok", None, [], [])


def test_the_library_gives_the_same_reason_and_places_as_the_json_line() -> None:
    import keilref

    (v,) = keilref.check_file("records/faults/mismatch-wrong-margin.keil")
    assert v.mismatch_reason is keilref.MismatchReason.WRONG_MARGIN
    assert v.to_json()["mismatch"] == {"line": 8, "column": 49, "reason": "wrong-margin", "message": "wrong margin"}
    (w,) = keilref.check_file("records/faults/warning-clock-rises-past-increment.keil")
    assert w.mismatch_reason is None and w.to_json()["mismatch"] is None
    assert [(line, column) for _, line, column in w.placed_warnings] == [(13, 2)]
