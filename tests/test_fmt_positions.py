"""``keilref fmt`` on games that start from a position (format version 3).

The canonical layout writes a ``Setup`` as ``B:`` then ``W:``, each list
sorted by letter then number, kings kept; puts a position's tags right after
the standard ones, in the tag table's order; numbers a White-first record
from ``1...``; and leaves a ``Setup`` it cannot read exactly as written.
Every verdict is the same before and after, and what fmt writes passes
``check --strict`` wherever the game did.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import keilref
from cli_support import run
from keilref import StartPosition
from keilref.cli import EXIT_OK
from keilref.records.setup import canonical_setup

KEIL = """[ToMove "White"]
[Komi "0"]
[Setup "B:  C1 b1 a1  W: e5 c3 d4"]
[Rules "keil"]
[Event "Finished position"]
[Size "3"]
[Button "yes"]
[ButtonTaken "Black"]
[Result "B+0.5"]
1... pass 2. pass B+0.5
"""

KEIL_CANONICAL = """[Event "Finished position"]
[Rules "keil"]
[Size "3"]
[Komi "0"]
[Button "yes"]
[Result "B+0.5"]
[Setup "B: a1 b1 c1 W: c3 d4 e5"]
[ToMove "White"]
[ButtonTaken "Black"]

1... pass 2. pass B+0.5
"""

YUGO = """[Setup "B: K@c3 b2 a1 W: d4 K@e5 b4"]
[Event "Yugo position"]
[Rules "yugo"]
[Size "5"]
[Komi "0"]
[Button "yes"]
[ButtonTaken "White"]
[Result "W+0.5"]

1. d2 c4 2. pass pass W+0.5
"""

YUGO_CANONICAL = """[Event "Yugo position"]
[Rules "yugo"]
[Size "5"]
[Komi "0"]
[Button "yes"]
[Result "W+0.5"]
[Setup "B: a1 b2 K@c3 W: b4 d4 K@e5"]
[ButtonTaken "White"]

1. d2 c4 2. pass pass W+0.5
"""

DEHIL = """[Event "Dehil position"]
[FirstPass "White"]
[Rules "dehil"]
[Size "3"]
[Komi "0"]
[Setup "B: c2 a1 W: e4 c4"]
[ToMove "White"]
[Result "W+0.5"]

1... b2 {the only move} c1 2... pass pass W+0.5
"""

DEHIL_CANONICAL = """[Event "Dehil position"]
[Rules "dehil"]
[Size "3"]
[Komi "0"]
[Result "W+0.5"]
[Setup "B: a1 c2 W: c4 e4"]
[ToMove "White"]
[FirstPass "White"]

1... b2 {the only move} 2. c1 pass 3. pass W+0.5
"""

# White plays first, with variations of both players' turns: every number
# stays White's or Black's as it was, and each variation's first turn is numbered.
VARIATIONS = """[Rules "keil"]
[Size "3"]
[Komi "0"]
[Button "yes"]
[ToMove "White"]
[Setup "B: b1 a1 W: c3"]
[Result "W+3.5"]
1... b2 ( 1... a2 b2 2... c1) a2 (c1 2... b3) 2... c1 3. button pass 4. pass W+3.5
"""

VARIATIONS_CANONICAL = """[Rules "keil"]
[Size "3"]
[Komi "0"]
[Button "yes"]
[Result "W+3.5"]
[Setup "B: a1 b1 W: c3"]
[ToMove "White"]

1... b2 (1... a2 2. b2 c1) 2. a2 (2. c1 b3) 2... c1 3. button pass 4. pass W+3.5
"""

CASES = {
    "keil": (KEIL, KEIL_CANONICAL),
    "yugo": (YUGO, YUGO_CANONICAL),
    "dehil": (DEHIL, DEHIL_CANONICAL),
    "variations": (VARIATIONS, VARIATIONS_CANONICAL),
}

# A Setup that does not read (lists out of order; a word that is not a
# point) stays exactly as written, as does a ToMove that is not a player:
# the referee still says what is wrong, at the same place in the tag.
UNREADABLE = {
    "labels out of order": ('[Setup "W: c3  B: b1 a1"]', '[Setup "W: c3  B: b1 a1"]'),
    "not a point": ('[Setup "B: b1 a1 W: c3 x-1"]', '[Setup "B: b1 a1 W: c3 x-1"]'),
    "no W:": ('[Setup "B: b1 a1"]', '[Setup "B: b1 a1"]'),
}

# A Setup that reads but does not fit the board or the rules is spelt
# canonically: the same points, so the same fault.
MISFIT = {
    "off the board": ('[Setup "B: z9 a1 W: c3"]', '[Setup "B: a1 z9 W: c3"]'),
    "a king under keil": ('[Setup "B: b1 K@a1 W: c3"]', '[Setup "B: K@a1 b1 W: c3"]'),
    "a group without a liberty": ('[Setup "B:  a1 W: b1 a2 b2"]', '[Setup "B: a1 W: a2 b1 b2"]'),
    "a point twice": ('[Setup "B: c1 a1 W: A1"]', '[Setup "B: a1 c1 W: a1"]'),
}


def _game(setup: str, to_move: str = "White") -> str:
    return f'[Rules "keil"]\n[Size "3"]\n[Komi "0"]\n[Button "yes"]\n[Result "*"]\n{setup}\n[ToMove "{to_move}"]\n\n1... b2 *\n'


def _fmt(tmp_path: Path, text: str, name: str = "game.keil") -> tuple[Path, str]:
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8"))
    result = run("fmt", str(path))
    assert result.exit_code == EXIT_OK, result.output
    return path, result.stdout


def _verdicts(path: Path, *extra: str) -> tuple[int, list[dict[str, Any]]]:
    """The exit code, and each game's verdict without what says where it stands in its file."""
    result = run("check", "--format", "jsonl", *extra, str(path))
    out = []
    for line in result.stdout.splitlines():
        v = json.loads(line)
        for key in ("file", "line", "warning_places", "mismatch"):
            v.pop(key)
        for part in (v["illegal"], v["error"]):
            if part is not None:
                part.pop("line")
                part.pop("column")
        out.append(v)
    return result.exit_code, out


@pytest.mark.parametrize("name", CASES)
def test_fmt_writes_a_position_canonically(tmp_path: Path, name: str) -> None:
    given, canonical = CASES[name]
    source, out = _fmt(tmp_path, given)
    assert out == canonical
    written = tmp_path / "canonical.keil"
    written.write_text(out, encoding="utf-8")
    # Idempotent: the canonical text is its own canonical text.
    assert _fmt(tmp_path, out, "again.keil")[1] == canonical
    # Every verdict kept, and --strict passes on what fmt wrote as on what it read.
    assert _verdicts(written) == _verdicts(source)
    code, verdicts = _verdicts(written, "--strict")
    assert code == EXIT_OK
    assert verdicts[0]["status"] == "ok" and verdicts[0]["warnings"] == []


def test_the_finished_positions_check_ok_as_written() -> None:
    """The cases above are the games they say: finished positions scored ok."""
    for name in CASES:
        (verdict,) = keilref.check_text(CASES[name][1])
        assert verdict.status is keilref.Status.OK
        assert verdict.computed == verdict.declared


@pytest.mark.parametrize("name", UNREADABLE)
def test_fmt_leaves_a_setup_it_cannot_read_as_written(tmp_path: Path, name: str) -> None:
    given, kept = UNREADABLE[name]
    source, out = _fmt(tmp_path, _game(given))
    assert out == _game(kept)
    written = tmp_path / "canonical.keil"
    written.write_text(out, encoding="utf-8")
    before, after = _verdicts(source), _verdicts(written)
    assert after == before
    assert before[1][0]["status"] == "error"
    # The same message, at the same place in the tag.
    assert run("check", str(written)).stdout.splitlines()[0] == run("check", str(source)).stdout.splitlines()[0].replace(
        str(source), str(written)
    )


@pytest.mark.parametrize("name", MISFIT)
def test_fmt_spells_a_setup_that_reads_canonically_and_keeps_its_fault(tmp_path: Path, name: str) -> None:
    given, canonical = MISFIT[name]
    source, out = _fmt(tmp_path, _game(given))
    assert out == _game(canonical)
    written = tmp_path / "canonical.keil"
    written.write_text(out, encoding="utf-8")
    before, after = _verdicts(source), _verdicts(written)
    assert after == before
    assert before[1][0]["status"] == "error"


def test_a_to_move_that_is_not_a_player_is_kept_and_numbers_as_black_first(tmp_path: Path) -> None:
    """Only ``ToMove "White"`` numbers from 1...: with any other value the
    readers number as Black first, and so does the writer."""
    given = '[Rules "keil"]\n[Size "3"]\n[Komi "0"]\n[Result "*"]\n[Setup "B: W: c3"]\n[ToMove "white"]\n\n1. b2 a2 2. c1 *\n'
    source, out = _fmt(tmp_path, given)
    assert out == given
    written = tmp_path / "canonical.keil"
    written.write_text(out, encoding="utf-8")
    assert _verdicts(written) == _verdicts(source)
    assert _verdicts(source)[1][0]["status"] == "error"


def test_the_library_writes_what_fmt_writes() -> None:
    for given, canonical in CASES.values():
        record = keilref.read_game(given)
        assert keilref.write_record(record) == canonical
        again = keilref.read_game(canonical)
        # Read back, the canonical text is the same position, in its canonical order.
        assert keilref.write_record(again) == canonical
        assert again.setup is not None and record.setup is not None
        assert again.setup.tags() == record.setup.tags()
        assert set(again.setup.stones()) == set(record.setup.stones())


_TOKENS = st.tuples(
    st.sampled_from(["", "K@", "P@"]),
    st.sampled_from("abcdeABCDE"),
    st.integers(1, 12),
)


@given(
    black=st.lists(_TOKENS, max_size=6),
    white=st.lists(_TOKENS, max_size=6),
    space=st.sampled_from([" ", "  ", " \t", "\t"]),
)
@settings(max_examples=200, deadline=None)
def test_a_setup_that_reads_is_spelt_once_and_means_the_same(
    black: list[tuple[str, str, int]], white: list[tuple[str, str, int]], space: str
) -> None:
    """Any spelling of a position (case, order, spaces, ``P@`` for a pawn)
    gives one canonical spelling, which is its own, of the same stones."""
    words = lambda tokens: [f"{prefix}{letter}{number}" for prefix, letter, number in tokens]  # noqa: E731
    value = space.join(["B:", *words(black), "W:", *words(white)])
    canonical = canonical_setup(value)
    assert canonical_setup(canonical) == canonical
    stones = lambda text: sorted((c, p.point, p.king) for c, p in StartPosition.parse(text).stones())  # noqa: E731
    assert stones(canonical) == stones(value)
    assert canonical.startswith("B:") and " W:" in canonical and "  " not in canonical and canonical == canonical.strip()


@given(st.text(alphabet="BW: @Kab12\t-", max_size=30))
@settings(max_examples=300, deadline=None)
def test_a_setup_that_does_not_read_is_kept_as_written(value: str) -> None:
    try:
        StartPosition.parse(value)
    except keilref.TagError:
        assert canonical_setup(value) == value
    else:
        assert canonical_setup(canonical_setup(value)) == canonical_setup(value)
