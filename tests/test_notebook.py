"""The library where Python users work: names and shows as python-chess users guess them."""

from __future__ import annotations

import pytest
from cli_support import ROOT

import keilref

KO = ROOT / "records/games/size5-keil-corner-ko.keil"


def test_headers_are_the_tags_as_a_read_only_mapping_in_written_order() -> None:
    record = keilref.read_game(KO)
    assert list(record.headers) == [t.name for t in record.tags]
    assert record.headers["Black"] == "Uxia Rial" and record.headers.get("Annotator") is None
    with pytest.raises(TypeError):
        record.headers["Black"] = "someone else"  # type: ignore[index]


def test_str_draws_the_board_and_repr_stays_the_summary() -> None:
    game = keilref.read_game(KO).replay(turn=30)
    assert str(game) == game.diagram()
    assert "\n" in str(game) and " e1" not in repr(game)
    assert repr(game) == "<KeilGame keil, size 5, komi 3, turn 30, Black to move>"


def test_a_game_shows_its_board_and_score_in_a_notebook() -> None:
    game = keilref.read_game(KO).replay()
    page = game._repr_html_()
    assert page.startswith('<div class="keilref-game"><svg') and page.endswith("</p></div>")
    assert "&lt;KeilGame keil, size 5, komi 3, turn" in page
    assert f"(komi included): {game.score().result}" in page
