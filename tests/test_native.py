"""The native path (the fast build) against the Python referee, its reference.

Every game the native path certifies must get from :func:`verdict_of` the
very verdict :func:`adjudicate` gives it, field for field; every line a
writer makes of it through a template must be the writer's own line; and a
check must print the same bytes in every format with the native path on
and off. The records are random: legal games of sizes 2 to 13 under both
wordings, then cut, re-spaced, re-tagged, given wrong results and random
moves that break every rule (superko above all, on the smallest boards).

In the pure build there is no native path and these tests skip, unless
``KEILREF_REQUIRE_COMPILED=1`` makes its absence a failure.
"""

from __future__ import annotations

import io
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from keilref.engine.generate import random_games, to_record
from keilref.formats import FORMATS, CheckOptions, judge
from keilref.formats.templates import LineRendering
from keilref.records.sniffing import read_piece_match, split_source
from keilref.records.writer import write_record
from keilref.referee import batches
from keilref.referee.native import facts_of, is_built, native_judge, verdict_of
from keilref.referee.verdict import Status, adjudicate

ROOT = Path(__file__).resolve().parent.parent

if not is_built():
    if os.environ.get("KEILREF_REQUIRE_COMPILED") == "1":
        pytest.fail("KEILREF_REQUIRE_COMPILED=1, but this keilref has no native path", pytrace=False)
    pytest.skip("the native path is only in the fast build (KEILREF_COMPILE=1)", allow_module_level=True)


def _game_text(rng: random.Random, size: int, rules: str) -> str:
    (g,) = random_games(rng.randrange(1 << 30), 1, rules=(rules,), sizes=(size,), fill=rng.choice((0.3, 1.0, 1.6)))
    tags = {}
    for name in ("Round", "Black", "White", "Site", "Date"):
        if rng.random() < 0.4:
            tags[name] = rng.choice(("1", "Ann", "Bo b", "x%y", "", "2026.01.02", "a\"b", "é"))
    return write_record(to_record(g, event=rng.choice(("e", "cup 3", "%s", "n\\")), tags=tags))


_MOVE_WORDS = ("pass", "button", "a1", "b2", "a2", "b1", "c3", "B+R", "W+0.5", "2.", "1...", "z9", "B+", "Draw")


def _mutated(rng: random.Random, text: str, size: int) -> str:
    """``text`` changed the way records go wrong (or stay right with another spelling)."""
    head, _, moves = text.partition("\n\n")
    words = moves.split()
    kind = rng.randrange(13)
    if kind == 0 and words:  # cut: unfinished, or a claimed result on an unended game
        words = words[: rng.randrange(len(words))]
        if rng.random() < 0.5:
            words.append(rng.choice(("B+R", "W+T", "B+3", "W+", "*")))
    elif kind == 1 and words:  # another result
        words[-1] = rng.choice(("B+0.5", "W+1", "B+R", "Draw", "W+12.50", "B+12", "W+T"))
    elif kind == 2:  # random moves where a legal one stood: occupied, superko, pass before the button
        for _ in range(rng.randrange(1, 4)):
            if words:
                i = rng.randrange(len(words))
                if not words[i][0].isdigit():
                    words[i] = rng.choice(_MOVE_WORDS)
    elif kind == 3:  # another spacing of the moves
        moves = "  ".join(words) if rng.random() < 0.5 else "\n".join(words)
        return head + "\n\n" + moves + "\n"
    elif kind == 4:  # a tag dropped or changed
        lines = head.split("\n")
        i = rng.randrange(len(lines))
        lines[i] = rng.choice(
            ("", '[Komi "6.5"]', '[Komi "-3"]', '[Komi "05"]', '[Button "no"]', '[Size "3"]', '[Rules "keil-2019"]',
             '[Rules "keil"]', '[Reslt "B+1"]', '[TimeControl "60"]', '[Event "x"]', '[Size  "7"]', '[size "7"]')
        )
        head = "\n".join(lines)
    elif kind == 5:  # a comment, a variation or a glyph
        i = rng.randrange(len(words) + 1)
        words.insert(i, rng.choice(("{note}", "(a1)", "!", "; x")))
    elif kind == 6:
        return text.replace("\n", "\r\n")
    elif kind == 7:
        return "\n\n" + text
    elif kind == 8 and words:  # a move number before the result, or before nothing
        number = f"{rng.randrange(1, 200)}." + rng.choice(("", ".."))
        words.insert(len(words) - rng.randrange(2), number)
    return head + "\n\n" + " ".join(words) + "\n"


def _superko_text(rng: random.Random, rules: str) -> str:
    """A random game on size 2 or 3, where positions repeat often: legal
    moves only, and now and then, where one exists, a placement that only
    superko forbids, which ends the record."""
    from keilref.engine.game import Game
    from keilref.errors import IllegalMoveError

    size = rng.choice((2, 2, 3))
    komi = rng.choice((0, 3, -2))
    game = Game(rules=rules, size=size, komi=komi)
    moves: list[str] = []
    for _ in range(rng.randrange(6, 200)):
        if game.is_over:
            break
        if rng.random() < 0.1:
            refused = []
            for point in game.geometry.names:
                try:
                    game.copy().play(point)
                except IllegalMoveError as e:
                    if e.reason.value == "superko":
                        refused.append(point)
            if refused:
                moves.append(rng.choice(refused))
                break
        legal = game.legal_moves()
        placements = [m for m in legal if m not in ("pass", "button")]
        move = rng.choice(placements) if placements and rng.random() < 0.9 else rng.choice(legal)
        game.play(move)
        moves.append(move)
    words = []
    for i, move in enumerate(moves):
        if i % 2 == 0:
            words.append(f"{i // 2 + 1}.")
        words.append(move)
    return f'[Rules "{rules}"]\n[Size "{size}"]\n[Komi "{komi}"]\n[Button "yes"]\n\n' + " ".join(words) + "\n"


def _archive(seed: int, count: int) -> str:
    rng = random.Random(seed)
    games = []
    for _ in range(count):
        rules = rng.choice(("keil", "keil-2019"))
        if rng.random() < 0.25:
            games.append(_superko_text(rng, rules))
            continue
        size = rng.choice((2, 3, 4, 5, 7, 9, 13)) if rng.random() < 0.7 else rng.randrange(2, 14)
        text = _game_text(rng, size, rules)
        games.append(_mutated(rng, text, size) if rng.random() < 0.6 else text)
    return "\n".join(games)


def _pieces(text: str):  # type: ignore[no-untyped-def]
    return [p for p in split_source(io.BytesIO(text.encode("utf-8")), "t.keil")]


def _compare(text: str) -> tuple[int, int]:
    """Each certified game's verdict equals the referee's; returns (games, certified)."""
    judge_ = native_judge(None)
    assert judge_ is not None
    games = certified = 0
    index = 0
    for piece in _pieces(text):
        item, _ = read_piece_match(piece, "t.keil")
        if item is None:
            continue
        index += 1
        games += 1
        reference = adjudicate(item, file="t.keil", game=index, line=piece.first_line)
        facts = facts_of(judge_, piece)
        if facts is None:
            continue
        certified += 1
        mine = verdict_of(facts, piece, file="t.keil", game=index)
        assert mine == reference, piece.data.decode()
        assert mine.status in (Status.OK, Status.UNFINISHED)
        for name in ("text", "jsonl", "tap"):
            for strict in (False, True):
                options = CheckOptions(format=name, strict=strict)
                rendering = LineRendering(FORMATS[name].writer_class(), options)
                twice = [rendering.of_facts(facts, piece, "t.keil", index) for _ in range(2)]
                assert twice[0] == twice[1] == judge(reference, rendering.writer, options)
    return games, certified


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**32))
def test_every_certified_game_gets_the_referees_verdict_and_line(seed: int) -> None:
    _compare(_archive(seed, 12))


def test_the_native_path_certifies_most_plain_games_and_declines_the_faulty_ones() -> None:
    rng = random.Random(5)
    texts = [_game_text(rng, rng.randrange(2, 14), rng.choice(("keil", "keil-2019"))) for _ in range(60)]
    # A generated game is plain unless a tag value needs escaping or is not ASCII.
    plain = [t for t in texts if t.isascii() and "\\" not in t]
    assert len(plain) >= 15
    assert _compare("\n".join(plain)) == (len(plain), len(plain))
    games, certified = _compare(_archive(11, 300))
    # A few mutations leave no game, or run two together.
    assert games >= 290 and 0 < certified < games


def test_superko_is_decided_in_full_as_the_referee_decides_it() -> None:
    rng = random.Random(3)
    refused = certified = 0
    judge_ = native_judge(None)
    assert judge_ is not None
    for _ in range(400):
        text = _superko_text(rng, rng.choice(("keil", "keil-2019")))
        (piece,) = _pieces(text)
        item, _ = read_piece_match(piece, "t.keil")
        reference = adjudicate(item, file="t.keil", game=1)  # type: ignore[arg-type]
        facts = facts_of(judge_, piece)
        if reference.illegal is not None and reference.illegal.reason == "superko":
            refused += 1
            assert facts is None
        if facts is not None:
            certified += 1
            assert verdict_of(facts, piece, file="t.keil", game=1) == reference
    assert refused >= 20 and certified >= 20


def test_a_long_game_keeps_its_superko_memory_small() -> None:
    """A game of tens of thousands of turns is judged with the snapshots and
    table the memory allows, and the same verdict as the referee's."""
    sys.path.append(str(Path(__file__).resolve().parent))
    from game_support import long_game

    g = long_game(13, 20_000)
    record = g.to_record()
    text = write_record(record)
    (piece,) = _pieces(text)
    item, _ = read_piece_match(piece, "t.keil")
    reference = adjudicate(item, file="t.keil", game=1)  # type: ignore[arg-type]
    facts = facts_of(native_judge(None), piece)
    assert facts is not None
    assert verdict_of(facts, piece, file="t.keil", game=1) == reference


def _check(env_native: str, *args: str) -> tuple[int, bytes, bytes]:
    env = {**os.environ, "KEILREF_NATIVE": env_native}
    done = subprocess.run([sys.executable, "-P", "-m", "keilref", "check", *args], capture_output=True, env=env)
    return done.returncode, done.stdout, done.stderr


def _normal(text: bytes) -> bytes:
    import re

    text = re.sub(rb"in [0-9.]+ s \([0-9,]+ games/s\)", b"in T", text)
    return re.sub(rb'(time|timestamp)="[^"]*"', b'\\1="T"', text)


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_a_check_prints_the_same_bytes_with_the_native_path_on_and_off(tmp_path: Path, fmt: str) -> None:
    archive = tmp_path / "mixed.keil"
    archive.write_text(_archive(21, 150), encoding="utf-8")
    if FORMATS[fmt].binary:  # a table: the same rows either way
        pq = pytest.importorskip("pyarrow.parquet", reason="the table needs the arrow extra")
        for strict in ((), ("--strict",)):
            tables = [tmp_path / f"{native}.parquet" for native in "10"]
            for native, table in zip("10", tables):
                assert _check(native, "-f", fmt, "-o", str(table), *strict, str(archive), str(ROOT / "records"))[0] == 1
            assert pq.read_table(tables[0]).equals(pq.read_table(tables[1]))
        return
    for strict in ((), ("--strict",)):
        on = _check("1", "-f", fmt, *strict, str(archive), str(ROOT / "records"))
        off = _check("0", "-f", fmt, *strict, str(archive), str(ROOT / "records"))
        assert on[0] == off[0] == 1
        assert _normal(on[1]) == _normal(off[1])
        assert _normal(on[2]) == _normal(off[2])


def test_the_version_says_the_native_path_runs() -> None:
    done = subprocess.run([sys.executable, "-P", "-m", "keilref", "--version"], capture_output=True, text=True)
    assert "native path: on" in done.stdout
    env = {**os.environ, "KEILREF_NATIVE": "0"}
    done = subprocess.run([sys.executable, "-P", "-m", "keilref", "--version"], capture_output=True, text=True, env=env)
    assert "native path: off" in done.stdout


def test_check_batch_uses_the_native_path_and_gives_the_referees_verdicts(monkeypatch: pytest.MonkeyPatch) -> None:
    text = _archive(8, 80)
    native = batches.check_text(text)
    monkeypatch.setattr(batches, "native_judge", lambda rules: None)
    assert native == batches.check_text(text)


def _cuts(pieces):  # type: ignore[no-untyped-def]
    return [(p.piece, p.column_offset) for p in pieces]


_NOISE = ("{c}", "; x\n", "é", "[Bad", '[T "a\\"b"]', "\r\n", "\n\n", "[E \"[\"]", "\ufeff", "x [Event \"q\"] y", "]", "\t")


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2**32), st.sampled_from((7, 64, 333, 4096, 1 << 20)), st.booleans())
def test_the_native_cut_cuts_every_file_as_the_python_cut_does(seed: int, chunk: int, noisy: bool) -> None:
    from keilref.records.native_cut import cut_games
    from keilref.records.parser import split_games

    rng = random.Random(seed)
    text = _archive(seed, rng.randrange(0, 6))
    if noisy:
        for _ in range(rng.randrange(1, 4)):
            at = rng.randrange(len(text) + 1)
            text = text[:at] + rng.choice(_NOISE) + text[at:]
    data = text.encode("utf-8")
    for cap in (1 << 20, 300):
        native = _cuts(cut_games(io.BytesIO(data), chunk_size=chunk, max_game_bytes=cap))
        python = _cuts(split_games(io.BytesIO(data), chunk_size=chunk, max_game_bytes=cap))
        assert native == python
    # Handed on as runs of games, and made into games again by a worker,
    # natively or (a worker's batch checked again after a crash) by Python.
    from keilref.records.native_cut import CutRun, native_off

    python = _cuts(split_games(io.BytesIO(data), chunk_size=chunk))
    pieces = list(cut_games(io.BytesIO(data), chunk_size=chunk, runs=True))
    assert _cuts(g for p in pieces for g in (p.pieces() if isinstance(p, CutRun) else [p])) == python
    with native_off():
        assert _cuts(g for p in pieces for g in (p.pieces() if isinstance(p, CutRun) else [p])) == python


def test_the_judge_gives_a_game_the_same_facts_however_many_it_judged_before() -> None:
    """A judge is reused from game to game: its search marks wrap every
    65,536 searches, and must never carry one game's marks into another's."""
    rng = random.Random(13)
    texts = []
    while len(texts) < 4:
        text = _game_text(rng, 7, "keil")
        if text.isascii() and "\\" not in text:
            texts.append(text)
    pieces = [_pieces(t)[0] for t in texts]
    judge_ = native_judge(None)
    first = [facts_of(judge_, p) for p in pieces]
    assert all(f is not None for f in first)
    for _ in range(1500):  # a few hundred thousand searches: the marks wrap several times
        assert [facts_of(judge_, p) for p in pieces] == first


_HEAD = '[Rules "keil"]\n[Size "3"]\n[Komi "6"]\n[Button "yes"]\n\n'


@pytest.mark.parametrize(
    "moves",
    [
        "1. a1 button 2. *",
        "1. a1 button 2. pass pass 3. B+12.5",
        "1. a1 button 2. pass pass 2... B+12.5",
        "1. a1 button 2. pass 2... pass B+12.5",
        "1. a1 button 2.",
        "1. a1 1... button 2. pass pass B+12.5",
    ],
)
def test_a_move_number_before_the_result_or_the_end_is_read_as_the_referee_reads_it(moves: str) -> None:
    games, _ = _compare(_HEAD + moves + "\n")
    assert games == 1


def test_a_game_past_the_turn_cap_is_left_to_the_referee(monkeypatch: pytest.MonkeyPatch) -> None:
    from keilref.records import limits

    rng = random.Random(17)
    text = _game_text(rng, 3, "keil")
    while not (text.isascii() and "\\" not in text):
        text = _game_text(rng, 3, "keil")
    (piece,) = _pieces(text)
    facts = facts_of(native_judge(None), piece)
    assert facts is not None
    turns = facts[4]
    monkeypatch.setattr(limits, "MAX_TURNS", turns - 1)
    assert facts_of(native_judge(None), piece) is None
    assert _compare(text) == (1, 0)  # the referee's error: too many turns
    monkeypatch.setattr(limits, "MAX_TURNS", turns)
    assert _compare(text) == (1, 1)
