"""A record replays itself and a record or game shows itself in a notebook,
though the records and the engine import neither the referee nor the formats.

``keilref.conveniences`` hands those stages the work of the ones above
them; these tests hold that the conveniences give exactly what the stages
above give, from whichever module a program imports first, and that
importing keilref still loads no format.
"""

from __future__ import annotations

import re
import subprocess
import sys

from cli_support import ROOT

import keilref
from keilref.formats.notebook import record_html
from keilref.formats.svg import board, game_html
from keilref.referee.lines import Node, tree
from keilref.referee.replay import replay_record

KO = ROOT / "records/games/size5-keil-corner-ko.keil"
LINES = ROOT / "records/games/size5-keil-teaching-nested-variations.keil"


def _without_id(page: str) -> str:
    # Each render has its own id (test_notebook.py); the rest is the page.
    return re.sub(r"keilref-record-[0-9a-f]{32}", "keilref-record-ID", page)


def _lines(node: Node) -> list[object]:
    return [(child.move, child.game().turn, _lines(child)) for child in node.variations]


def test_replay_is_the_referees_replay() -> None:
    record = keilref.read_game(KO)
    for turn in (0, 17, None):
        mine, theirs = record.replay(turn), replay_record(record, turn)
        assert (type(mine), mine.moves, mine.score()) == (type(theirs), theirs.moves, theirs.score())
    other = record.replay(rules="keil-2019")
    assert other.rules.name == replay_record(record, rules="keil-2019").rules.name == "keil-2019"


def test_tree_is_the_referees_tree_of_lines() -> None:
    record = keilref.read_game(LINES)
    mine, theirs = record.tree(), tree(record)
    assert isinstance(mine, Node)
    assert _lines(mine) == _lines(theirs)
    assert len(mine.variations) == 1 and len(mine.variations[0].variations) >= 1


def test_the_notebook_pictures_are_the_formats_pictures() -> None:
    record = keilref.read_game(KO)
    game = record.replay()
    assert _without_id(record._repr_html_()) == _without_id(record_html(record))
    assert game._repr_svg_() == board(game)
    assert game._repr_html_() == game_html(game)


def test_a_program_that_imports_only_the_parser_gets_every_convenience() -> None:
    # Python runs keilref/__init__.py, which connects the stages, before any
    # of its submodules; the formats load only once something is shown.
    code = (
        "import sys\n"
        "from keilref.records.parser import parse_record\n"
        f"record = parse_record(open({str(KO)!r}, encoding='utf-8').read())\n"
        "print(sorted(m for m in sys.modules if m.startswith('keilref.formats')))\n"
        "game = record.replay(30)\n"
        "print(repr(game))\n"
        "print(len(record.tree().variations))\n"
        "print(game._repr_svg_().startswith('<svg'))\n"
        "print(record._repr_html_().startswith('<div'))\n"
        "print('keilref.formats.notebook' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "[]",
        "<KeilGame keil, size 5, komi 3, turn 30, Black to move>",
        "1",
        "True",
        "True",
        "True",
    ]
