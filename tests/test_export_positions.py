"""``keilref export`` refuses a game that starts from a position.

The abstract_games server's games start from the empty board, so a record
with a tag of version 3 has no move list there. The refusal is one located
line naming the file, the tag and the game; the other games are exported,
and the exit code is the one of any refused game. ``import`` reads the
server's matches as before: none of them has a position.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from cli_support import ROOT, run
from keilref.cli import EXIT_FAILED, EXIT_OK
from keilref.errors import TagError
from keilref.records.parser import parse_record
from keilref.records.tags import POSITION_TAGS
from keilref.referee.matches import export_moves

POSITION = """[Event "Finished position"]
[Rules "keil"]
[Size "3"]
[Komi "0"]
[Button "yes"]
[ToMove "White"]
[Setup "B: a1 b1 c1 W: c3 d4 e5"]
[ButtonTaken "Black"]

1... pass 2. pass B+0.5
"""

ONLY_TO_MOVE = """[Event "White to play"]
[Rules "keil"]
[Size "3"]
[ToMove "White"]

1... b2 *
"""

WHOLE_GAME = """[Event "From the empty board"]
[Rules "keil"]
[Size "3"]
[Komi "0"]
[Button "yes"]

1. b2 *
"""

OTHER_RULES = """[Event "Under keil-2019"]
[Rules "keil-2019"]
[Size "3"]

1. b2 *
"""

SAMPLES = Path(os.environ.get("KEILREF_SHARED") or ROOT.parent / "shared") / "interop-samples" / "abstract_games"


def test_export_refuses_a_game_from_a_position_and_exports_the_others(tmp_path: Path) -> None:
    path = tmp_path / "mixed.keil"
    path.write_text("\n".join([POSITION, WHOLE_GAME, ONLY_TO_MOVE]), encoding="utf-8")
    result = run("export", "--to", "abstract-games", str(path))
    assert result.exit_code == EXIT_FAILED
    (line,) = result.stdout.splitlines()
    assert [m["move"] for m in json.loads(line)["moves"]] == ["komi=0", "white", "-1,1"]  # b2 as the server writes it
    why = "and the abstract_games server has no setups: its games start from the empty board"
    assert result.stderr == (
        # At the Setup tag when there is one, else at the first tag of a position.
        f"keilref: {path}:7:1: game 1: cannot export: the game starts from a position (its Setup tag), {why}\n"
        f"keilref: {path}:23:1: game 3: cannot export: the game starts from a position (its ToMove tag), {why}\n"
        "keilref: 1 game exported to standard output\n"
    )


def test_the_exit_code_is_that_of_any_refused_game(tmp_path: Path) -> None:
    codes = []
    for name, game in (("position.keil", POSITION), ("rules.keil", OTHER_RULES)):
        path = tmp_path / name
        path.write_text(game + "\n" + WHOLE_GAME, encoding="utf-8")
        codes.append(run("export", "--to", "abstract-games", str(path)).exit_code)
    assert codes == [EXIT_FAILED, EXIT_FAILED]
    whole = tmp_path / "whole.keil"
    whole.write_text(WHOLE_GAME, encoding="utf-8")
    assert run("export", "--to", "abstract-games", str(whole)).exit_code == EXIT_OK


@pytest.mark.parametrize("name", POSITION_TAGS)
def test_the_library_refuses_each_tag_of_a_position_at_the_tag(name: str) -> None:
    value = {"Setup": "B: a1 W:", "ToMove": "Black", "ButtonTaken": "no", "FirstPass": "no"}[name]
    record = parse_record(f'[Rules "keil"]\n[Size "3"]\n[{name} "{value}"]\n\n1. b2 *\n')
    with pytest.raises(TagError) as raised:
        export_moves(record)
    assert (raised.value.line, raised.value.column) == (3, 1)
    assert f"(its {name} tag)" in raised.value.message


@pytest.mark.skipif(not SAMPLES.is_dir(), reason=f"the server's samples are not at {SAMPLES}")
def test_import_is_unaffected_and_its_records_export_again(tmp_path: Path) -> None:
    out = tmp_path / "imported.keil"
    matches = sorted(str(p) for p in SAMPLES.glob("*.match.json"))
    assert run("import", *matches, "-o", str(out)).exit_code == EXIT_OK
    text = out.read_text(encoding="utf-8")
    assert not any(f"[{name} " in text for name in POSITION_TAGS)
    exported = run("export", "--to", "abstract-games", str(out))
    assert exported.exit_code == EXIT_OK
    assert len(exported.stdout.splitlines()) == len(matches)
