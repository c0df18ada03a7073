"""A label reworded in keilref/wording.py is reworded wherever a user reads it:
the board's caption, show's message, the editor's hover, the report's viewer,
the findings' note and the strict fault of an unfinished game."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from cli_support import ROOT, run
from keilref import check_text, wording
from keilref.formats import html, svg
from keilref.formats.findings import findings
from keilref.records.parser import parse_record
from keilref.referee.lines import find_line
from keilref.referee.replay import replay
from lines_support import ANNOTATED, ILLEGAL, write_annotated

SUPERKO = ROOT / "records" / "faults" / "illegal-superko.keil"
UNFINISHED = ROOT / "records" / "games" / "dehil" / "size11-unfinished.keil"
TURN = "move 16 (Black) e2, turn 31: superko (repeats turn 29)"


@pytest.fixture
def reworded(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(wording, "illegal_label", lambda what: f"BAD TURN >> {what}")
    html._script.cache_clear()
    yield
    html._script.cache_clear()


def test_the_caption_of_a_board(reworded: None) -> None:
    rep = replay(parse_record(SUPERKO.read_text(encoding="utf-8")))
    assert rep.illegal is not None
    assert svg.caption_lines(rep.game, rep.illegal)[-1] == f"BAD TURN >> {TURN}"


def test_show_on_the_main_line_and_on_a_variation(reworded: None, tmp_path: Path) -> None:
    result = run("show", str(SUPERKO))
    assert result.exit_code == 1
    assert result.stderr.splitlines()[0] == (
        f"keilref: {SUPERKO}:8:79: game 1: BAD TURN >> {TURN}; showing the position before it"
    )
    annotated = write_annotated(tmp_path)
    result = run("show", "--line", ILLEGAL, str(annotated))
    assert result.exit_code == 1
    assert result.stderr.splitlines()[0] == (
        f"keilref: {annotated}:10:62: game 1: BAD TURN >> variation at {ILLEGAL}: move 2 (White) c3, turn 4: occupied;"
        " showing the position before it"
    )


def test_the_viewer_of_the_report(reworded: None) -> None:
    assert html._script().count(json.dumps(" — next, BAD TURN >> ", ensure_ascii=False)) == 1
    assert "next, illegal" not in html._script()


def test_the_hover_of_the_editor(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("pygls")
    from keilref import lsp

    monkeypatch.setattr(wording, "illegal_hover", lambda what, before, state: f"HOVER {what} | {before} | {state}")
    node = find_line(parse_record(ANNOTATED).tree(), ILLEGAL)
    assert lsp._line_position_text(node, 0).startswith(
        f"HOVER variation at {ILLEGAL}: move 2 (White) c3, turn 4: occupied | after turn 3 | White to move\n"
    )


def test_an_unfinished_game_as_a_note_and_as_a_strict_fault(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(wording, "GAME_NOT_ENDED", "play goes on")
    (v,) = check_text(UNFINISHED.read_text(encoding="utf-8"))
    assert v.status.value == "unfinished"
    (note,) = findings(v)
    assert note.message.startswith("game 1: unfinished: play goes on")
    assert [f.message for f in v.faults(strict=True)][0] == "play goes on"
