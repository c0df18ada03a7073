"""The native path hands every game that starts from a position to the Python referee.

The native judge reads only a plain game from the empty board: a record with
a ``Setup``, ``ToMove``, ``ButtonTaken`` or ``FirstPass`` tag is declined,
whatever it says, and judged by the referee, so a check gives the same
verdicts and prints the same bytes with the native path on and off. The
records are hand-made (the format document's example, faults of every kind,
finished positions, a recreated setup) and random: legal Keil games cut at a
random turn and given again from the position there.

In the pure build there is no native path and these tests skip, unless
``KEILREF_REQUIRE_COMPILED=1`` makes its absence a failure.
"""

from __future__ import annotations

import io
import os
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

from keilref.engine.game import Game
from keilref.engine.generate import random_games
from keilref.formats import FORMATS
from keilref.records.sniffing import split_source
from keilref.referee import batches
from keilref.referee.native import facts_of, is_built, native_judge
from keilref.values import Color

if not is_built():
    if os.environ.get("KEILREF_REQUIRE_COMPILED") == "1":
        pytest.fail("KEILREF_REQUIRE_COMPILED=1, but this keilref has no native path", pytrace=False)
    pytest.skip("the native path is only in the fast build (KEILREF_COMPILE=1)", allow_module_level=True)


def _head(rules: str = "keil", size: int = 3, button: bool = True) -> str:
    return f'[Event "p"]\n[Rules "{rules}"]\n[Size "{size}"]\n[Komi "0"]\n[Button "{"yes" if button else "no"}"]\n'


HAND_MADE = [
    # The format document's Problem 4: unfinished.
    _head() + '[Setup "B: a1 b1 W: c3"]\n[ToMove "White"]\n[Result "*"]\n\n1... b2 *\n',
    # A finished position, scored: ok, and a wrong claim: mismatch.
    _head() + '[Setup "B: a1 b1 W: c3"]\n[ButtonTaken "Black"]\n[Result "B+1.5"]\n\n1. pass pass B+1.5\n',
    _head() + '[Setup "B: a1 b1 W: c3"]\n[ButtonTaken "Black"]\n\n1. pass pass W+1\n',
    # A recreated setup: superko.
    _head() + '[Setup "B: d5 b4 W: d4"]\n[ToMove "White"]\n\n1... c5 2. d5 *\n',
    # Faults at the point and at the tag.
    _head() + '[Setup "B: a1 z9 W: c3"]\n\n*\n',
    _head() + '[Setup "B: a1 W: a2 b1"]\n\n*\n',
    _head() + '[ToMove "white"]\n\n*\n',
    _head() + '[FirstPass "no"]\n\n*\n',
    _head("keil-2019") + '[Setup "B: a1 W: c3"]\n[ToMove "Black"]\n\n1. b2 c1 *\n',
    # Every tag saying only its default: still a position, still the referee's.
    _head() + '[Setup "B: W:"]\n\n1. b2 c1 *\n',
    _head() + '[ToMove "Black"]\n\n1. b2 c1 *\n',
    _head() + '[ButtonTaken "no"]\n\n1. b2 c1 *\n',
    _head() + "\n1. b2 c1 *\n",  # the control: a plain game the native path takes
]


def _cut_game(rng: random.Random) -> str:
    """A legal Keil game, cut at a random turn and given from the position there."""
    rules = (rng.choice(("keil", "keil-2019")),)
    (whole,) = random_games(rng.randrange(1 << 30), 1, rules=rules, sizes=(rng.choice((3, 4, 5)),))
    moves = list(whole.moves)
    cut = rng.randrange(len(moves) + 1)
    rules, size = whole.rules, whole.size
    game = Game(rules=rules, size=size, komi=0, button=whole.button)
    game.play_all(moves[:cut])
    setup = "B: {} W: {}".format(*(" ".join(sorted(game.stones(c))) for c in (Color.BLACK, Color.WHITE)))
    tags = [f'[Setup "{setup.replace("  ", " ")}"]']
    if game.to_move is Color.WHITE:
        tags.append('[ToMove "White"]')
    if game.button_holder is not None:
        tags.append(f'[ButtonTaken "{game.button_holder.name.capitalize()}"]')
    rest = moves[cut:]
    if rest and rng.random() < 0.3:
        rest[rng.randrange(len(rest))] = rng.choice(("a1", "pass", "button", "c3"))
    end = rng.choice(("", "*", "B+R", "W+T", "B+3") if rest else ("*", "B+R"))
    return _head(rules, size, whole.button) + "\n".join(tags) + "\n\n" + " ".join(rest + [end]).strip() + "\n"


def _archive(seed: int, count: int) -> str:
    rng = random.Random(seed)
    return "\n".join(HAND_MADE + [_cut_game(rng) for _ in range(count)])


def _pieces(text: str):  # type: ignore[no-untyped-def]
    return list(split_source(io.BytesIO(text.encode("utf-8")), "t.keil"))


def test_the_native_judge_declines_every_game_with_a_position_tag() -> None:
    judge = native_judge(None)
    assert judge is not None
    pieces = _pieces(_archive(1, 60))
    assert len(pieces) == len(HAND_MADE) + 60
    taken = [p for p in pieces if facts_of(judge, p) is not None]
    assert [p.data.decode().strip() for p in taken] == [HAND_MADE[-1].strip()]


def test_a_check_gives_the_same_verdicts_with_the_native_path_on_and_off(monkeypatch: pytest.MonkeyPatch) -> None:
    text = _archive(2, 80)
    native = batches.check_text(text)
    monkeypatch.setattr(batches, "native_judge", lambda rules: None)
    assert native == batches.check_text(text)
    statuses = {v.status.value for v in native}
    assert statuses >= {"ok", "unfinished", "mismatch", "illegal", "error"}


def _check(env_native: str, *args: str) -> tuple[int, bytes, bytes]:
    env = {**os.environ, "KEILREF_NATIVE": env_native}
    done = subprocess.run([sys.executable, "-P", "-m", "keilref", "check", *args], capture_output=True, env=env)
    return done.returncode, done.stdout, done.stderr


def _normal(text: bytes) -> bytes:
    text = re.sub(rb"in [0-9.]+ s \([0-9,]+ games/s\)", b"in T", text)
    return re.sub(rb'(time|timestamp)="[^"]*"', b'\\1="T"', text)


@pytest.mark.parametrize("fmt", [f for f in FORMATS if f in ("text", "jsonl", "sarif", "checkstyle", "tap")])
def test_a_check_of_positions_prints_the_same_bytes_with_the_native_path_on_and_off(tmp_path: Path, fmt: str) -> None:
    archive = tmp_path / "positions.keil"
    archive.write_text(_archive(3, 60), encoding="utf-8")
    on = _check("1", "-f", fmt, str(archive))
    off = _check("0", "-f", fmt, str(archive))
    assert on[0] == off[0] == 1
    assert _normal(on[1]) == _normal(off[1])
    assert _normal(on[2]) == _normal(off[2])
