"""SVG boards: every picture parses, and what it draws is the game's state.

The pictures are read back with ElementTree and their marks counted by
class against the game itself, for every rule set and board size.
"""

from __future__ import annotations

import random
import sys
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

import pytest
from syrupy.assertion import SnapshotAssertion

from cli_support import ROOT, run
from keilref import Color, Game
from keilref.formats import svg
from keilref.engine.game import new_game
from keilref.engine.generate import random_game
from keilref.records.parser import parse_record
from keilref.referee.replay import IllegalTurn, replay

NS = "{http://www.w3.org/2000/svg}"
RULES = ("keil", "keil-2019", "dehil", "yugo")


def classes(root: ET.Element) -> Counter[str]:
    """How many elements carry each class list (``stone black king``, ``last``...)."""
    return Counter(el.get("class", "") for el in root.iter() if el.get("class"))


def parse(text: str) -> ET.Element:
    root = ET.fromstring(text)
    assert root.tag == f"{NS}svg"
    assert len(root.get("viewBox", "").split()) == 4
    return root


def kings(game: Game, color: Color) -> int:
    return sum(1 for p in game.stones(color) if getattr(game, "is_king")(p)) if game.rules.family == "yugo" else 0


def assert_state(game: Game, text: str, *, territory: bool) -> None:
    root = parse(text)
    seen = classes(root)
    for color, word in ((Color.BLACK, "black"), (Color.WHITE, "white")):
        stones = len(game.stones(color))
        k = kings(game, color)
        assert seen[f"stone {word}"] == stones - k, (word, game.moves)
        assert seen[f"stone {word} king"] == k
        owned = sum(len(t.points) for t in game.territories() if t.owner is color) if territory else 0
        assert seen[f"territory {word}"] == owned
    assert seen["crown"] == kings(game, Color.BLACK) + kings(game, Color.WHITE)
    assert sum(seen[f"captured {w}"] for w in ("black", "white")) == len(game.last_captured)
    last = game.moves[-1].rpartition("@")[2] if game.moves else None
    placed = last is not None and last in game.points() and game.stone_at(last) is not None
    assert seen["last"] == (1 if placed else 0)
    # The grid: every point of the board lies on the drawn lines' ends or between them,
    # and the text diagram rides along in <desc>.
    desc = root.find(f"{NS}desc")
    assert desc is not None and desc.text is not None
    assert desc.text.strip("\n") == game.diagram(territory=territory).strip("\n")


@pytest.mark.parametrize("rules", RULES)
@pytest.mark.parametrize("size", range(2, 14))
def test_every_rule_set_and_size_draws_the_state(rules: str, size: int) -> None:
    rng = random.Random(f"{rules}-{size}")
    generated = random_game(rng, rules=rules, size=size, fill=1.2)
    game = new_game(rules, size, generated.komi, None if rules == "dehil" else generated.button)
    stops = {0, len(generated.moves)} | {rng.randrange(len(generated.moves) + 1) for _ in range(4)}
    for i, move in enumerate(generated.moves + ("",)):
        if i in stops:
            assert_state(game, svg.board(game), territory=False)
            assert_state(game, svg.board(game, territory=True), territory=True)
        if move:
            game.play(move)


def test_captures_are_drawn_faintly_in_the_colour_they_had() -> None:
    """In Yugo a king can take pawns of its own side: the faint stones say whose they were."""
    path = ROOT / "records/games/yugo/size6-kings-surrounded-own-pawns-stripped.keil"
    record = parse_record(path.read_text(encoding="utf-8"))
    game = None
    for stop in range(len(record.turns) + 1):
        g = replay(record, stop=stop).game
        if len(g.last_captured) > 0:
            game = g
            before = svg.before_last_turn(g)
            seen = classes(parse(svg.board(g)))
            for color, word in ((Color.BLACK, "black"), (Color.WHITE, "white")):
                assert seen[f"captured {word}"] == sum(1 for p in g.last_captured if before.stone_at(p) is color)
    assert game is not None, "the record captures nothing: pick another"


def test_the_same_position_gives_the_same_bytes() -> None:
    a = new_game("keil", 5, 3)
    b = new_game("keil", 5, 3)
    for g in (a, b):
        g.play_all(["c3", "d4", "button", "e5"])
    assert svg.board(a) == svg.board(b)
    assert a._repr_svg_() == svg.board(b)


def test_size_sets_the_width_in_pixels_and_keeps_the_shape() -> None:
    root = parse(svg.board(new_game("dehil", 4, 0), size=300))
    _, _, w, h = (float(v) for v in root.get("viewBox", "").split())
    assert root.get("width") == "300"
    assert root.get("height") == str(round(300 * h / w))


def test_the_illegal_point_is_crossed_and_named() -> None:
    game = new_game("keil", 3, 0)
    game.play("c3")
    text = svg.board(game, illegal=IllegalTurn(2, "c3", "occupied", 7, 5))
    root = parse(text)
    assert classes(root)["illegal"] == 1
    assert "illegal: move 1 (White) c3, turn 2: occupied" in text
    # Off the board, nothing can be crossed; the caption still says it.
    off = svg.board(game, illegal=IllegalTurn(2, "z9", "off-board", 7, 5))
    assert classes(parse(off))["illegal"] == 0
    assert "illegal: move 1 (White) z9, turn 2: off-board" in off


def test_coordinates_are_the_record_notation() -> None:
    """Row numbers 1..2n-1 and column letters a..(2n-1)th, each once."""
    root = parse(svg.board(new_game("keil", 4, 0)))
    coords = root.find(f"{NS}g[@class='coordinates']")
    assert coords is not None
    texts = sorted(t.text or "" for t in coords)
    assert texts == sorted([str(r) for r in range(1, 8)] + list("abcdefg"))


def test_the_hexagon_has_its_triangular_grid() -> None:
    """Three families of lines, 2n-1 each: on a hexagon of side n every point lies on three."""
    for n in (2, 5, 9):
        root = parse(svg.board(new_game("keil", n, 0), caption=False))
        grid = root.find(f"{NS}g[@class='grid']")
        assert grid is not None
        assert len(grid) == 3 * (2 * n - 1)


# --- snapshots: read each in a browser before accepting it ------------------------

SNAPSHOTS = {
    "keil_size5_corner_ko_turn30": ("show", "records/games/size5-keil-corner-ko.keil", "--turn", "30"),
    "keil_size6_score_territory": ("score", "records/games/size6-keil-rule-sensitive.keil"),
    "keil_illegal_superko": ("show", "records/faults/illegal-superko.keil"),
    "yugo_size6_kings": ("show", "records/games/yugo/size6-kings-surrounded-own-pawns-stripped.keil"),
    "dehil_size7_triangles": ("show", "records/games/dehil/size7-triangles-lone-and-hourglass-support.keil"),
}


@pytest.mark.parametrize("name", sorted(SNAPSHOTS))
def test_svg_snapshots(name: str, snapshot_svg: SnapshotAssertion, at_the_root: None) -> None:
    command, *args = SNAPSHOTS[name]
    result = run(command, *args, "--format", "svg")
    parse(result.stdout)
    assert result.stdout == snapshot_svg


def test_png_without_the_extra_says_how_to_get_it(monkeypatch: pytest.MonkeyPatch, at_the_root: None) -> None:
    monkeypatch.setitem(sys.modules, "resvg_py", None)  # as if it were not installed
    result = run("show", "records/games/size5-keil-corner-ko.keil", "--format", "png")
    assert result.exit_code == 2
    assert result.stderr.strip() == (
        "keilref: PNG output needs the optional renderer: pip install 'keilref[png]' (it installs resvg-py)"
    )


def test_png_with_the_extra(tmp_path: Path, at_the_root: None) -> None:
    pytest.importorskip("resvg_py")
    out = tmp_path / "board.png"
    result = run("score", "records/games/size5-keil-corner-ko.keil", "--format", "png", "-o", str(out))
    assert result.exit_code == 0, result.stderr
    data = out.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width = int.from_bytes(data[16:20], "big")
    assert width > 100


def test_unknown_picture_format_is_a_usage_error(at_the_root: None) -> None:
    result = run("show", "records/games/size5-keil-corner-ko.keil", "--format", "gif")
    assert result.exit_code == 2
    assert "unknown value 'gif' (expected text, svg, png)" in result.stderr


def test_captures_in_a_game_set_up_from_a_diagram() -> None:
    """No history to replay: the captured stones are the other side's, as in every Keil capture."""
    from keilref import KeilGame

    rng = random.Random(7)
    for _ in range(200):
        generated = random_game(rng, rules="keil", size=4)
        game = new_game("keil", 4, generated.komi, True)
        for move in generated.moves:
            before = game.copy()
            game.play(move)
            if game.last_captured:
                break
        if game.last_captured:
            break
    else:
        pytest.fail("no capture in 200 random games")
    captured_side = before.to_move.other
    start = KeilGame.from_diagram(before.diagram(), to_move=before.to_move)
    start.play(game.moves[-1])
    assert start.last_captured == game.last_captured
    seen = classes(parse(svg.board(start)))
    word = "black" if captured_side is Color.BLACK else "white"
    assert seen[f"captured {word}"] == len(game.last_captured)
    assert svg.captured_colours(start) == svg.captured_colours(game)


def test_svg_to_a_file(tmp_path: Path, at_the_root: None) -> None:
    out = tmp_path / "board.svg"
    result = run("show", "records/faults/illegal-superko.keil", "--format", "svg", "-o", str(out))
    # A faulty record fails as in text form, and its picture marks the fault.
    assert result.exit_code == 1
    assert result.stdout == ""
    root = parse(out.read_text(encoding="utf-8"))
    assert classes(root)["illegal"] == 1
