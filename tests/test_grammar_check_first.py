"""A long game the scanner declines is first read by the grammar's checker,
which builds nothing, and built only if the checker finds no fault. The two
readings must agree exactly: the same error (message, line, column, source
line) for every faulty game, the same record for every other.

Held here on seeded mutations of every record in ``records/`` and of
generated games given glyphs and variations (numbered right and wrong,
inside one another), with the checker's threshold lowered to nothing."""

from __future__ import annotations

import random
import re
import subprocess
import sys
from collections.abc import Iterator
import pytest

from cli_support import ROOT
from keilref.errors import RecordError, RecordSyntaxError
from keilref.records import grammar
from keilref.records.parser import parse_record
from keilref.records.record import Record
from keilref.records.scanner import number_text

CASES = 2_500

_MOVE = re.compile(r"(?:[A-Z]@)?[a-zA-Z][0-9]+|pass|button")
_NUMBER = re.compile(r"[0-9]+\.+")
_TOKENS = [
    "(", ")", "1.", "2.", "3...", "12.", "1..", "01.", "$300", "$14", "!", "?", "{x}", "; c\n", "a1",
    "pass", "zz", "B+R", "*", '[Event "x"]', "\n", " ", "((", "$", "0.", "1...", "4.", "a1!", "Draw",
]


def _games(text: str) -> list[str]:
    return [part for part in re.split(r"\n(?=\[Event )", text) if part.strip().startswith("[")]


def _records() -> list[str]:
    games: list[str] = []
    for path in sorted((ROOT / "records").rglob("*.keil")):
        try:
            games += _games(path.read_text(encoding="utf-8"))
        except UnicodeDecodeError:
            continue
    return games


def _annotated(game: str, rng: random.Random) -> str:
    """``game`` with glyphs, comments and variations after its turns."""
    head, _, body = game.partition("\n\n")
    out: list[str] = []
    index = 0
    for word in body.split():
        if not _MOVE.fullmatch(word):
            out.append(word)
            continue
        here = index
        index += 1
        out.append(word + (rng.choice(["!", "?!"]) if rng.random() < 0.15 else ""))
        if rng.random() < 0.2:
            out.append(rng.choice(["$1", "$14", "{c}"] * 8 + ["$256"]))
        if rng.random() < 0.3:
            numbered = rng.random() < 0.5
            variation = ["("]
            for j in range(rng.randint(1, 3)):
                if numbered or rng.random() < 0.2:
                    variation.append(number_text(here + j + (rng.random() < 0.1)))
                variation.append(rng.choice(["a1", "b2", "c3", "pass", "d4"]))
                if rng.random() < 0.2:
                    inner = rng.choice(["", number_text(here + j), "1."]) + " " + rng.choice(["e5", "a2"]) + " d4"
                    variation.append("(" + inner[: rng.choice([99, 99, 6])] + ")")
            variation.append(")")
            out += variation
    return head + "\n\n" + " ".join(out) + "\n"


def _generated() -> list[str]:
    command = [sys.executable, "-m", "keilref", "generate", "-n", "40", "--seed", "3", "--size", "5", "--size", "6"]
    proc = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=60, check=True)
    return _games(proc.stdout)


def _mutated(game: str, rng: random.Random) -> str:
    for _ in range(rng.randint(1, 3)):
        body = game.find("\n\n")
        low = body if 0 < body < len(game) and rng.random() < 0.85 else 0
        at = rng.randint(low, len(game))
        what = rng.random()
        if what < 0.45:
            game = game[:at] + " " + rng.choice(_TOKENS) + " " + game[at:]
        elif what < 0.6:
            game = game[:at] + rng.choice(_TOKENS) + game[at:]
        elif what < 0.75:
            game = game[:at] + game[at + rng.randint(1, 4) :]
        elif what < 0.9:
            game = game[:at] + chr(rng.choice([33, 40, 41, 46, 36, 48, 49, 97, 123, 125, 59, 11, 160])) + game[at + 1 :]
        elif numbers := list(_NUMBER.finditer(game)):
            m = rng.choice(numbers)
            game = game[: m.start()] + rng.choice(["1.", "2...", "7.", "3.", "1...."]) + game[m.end() :]
    return game


def cases() -> Iterator[str]:
    rng = random.Random(20261126)
    base = _records()
    base += [_annotated(game, rng) for game in base + _generated()]
    for _ in range(CASES):
        yield _mutated(rng.choice(base), rng)
    yield from base


def _outcome(text: str, first: int, monkeypatch: pytest.MonkeyPatch) -> Record | tuple[str, str, int, int]:
    monkeypatch.setattr(grammar, "CHECK_FIRST_CHARS", first)
    try:
        return parse_record(text, filename="game.keil", line_offset=3)
    except RecordError as error:
        return type(error).__name__, str(error), error.line, error.column


def test_the_checker_words_every_fault_as_the_record_parser_does(monkeypatch: pytest.MonkeyPatch) -> None:
    checker_reads: list[int] = []
    checking_parser = grammar._checking_parser
    monkeypatch.setattr(grammar, "_checking_parser", lambda: (checker_reads.append(1), checking_parser())[1])
    faulty = 0
    for text in cases():
        built = _outcome(text, 1 << 62, monkeypatch)
        checked = _outcome(text, 0, monkeypatch)
        assert checked == built, text
        faulty += not isinstance(built, Record)
    # Most mutations are faults, and the records of the others are held too;
    # every fault went through the checker.
    assert CASES // 2 < faulty <= len(checker_reads)
    assert len(checker_reads) >= 2_000


def test_only_a_long_game_is_checked_first(monkeypatch: pytest.MonkeyPatch) -> None:
    """A short game the scanner declines is read once, by the record parser."""
    read: list[str] = []
    checking_parser = grammar._checking_parser
    monkeypatch.setattr(grammar, "_checking_parser", lambda: (read.append("checked"), checking_parser())[1])
    with pytest.raises(RecordSyntaxError):
        parse_record('[Event "v"]\n[Size "7"]\n1. a1 (1. b1) zz\n')
    assert read == []
    monkeypatch.setattr(grammar, "CHECK_FIRST_CHARS", 10)
    with pytest.raises(RecordSyntaxError):
        parse_record('[Event "v"]\n[Size "7"]\n1. a1 (1. b1) zz\n')
    assert read == ["checked"]
