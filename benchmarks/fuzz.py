"""Fuzzing the reader, the referee and the canonical writer.

Inputs are seeded from ``records/`` and from ``keilref generate``, then
mutated five ways: byte-level (flip, cut, splice, duplicate or delete a span);
token-level (replace, repeat, drop or swap the words of a record, with a
dictionary of the format's own tokens and its awkward cases, those of
version 2 included); annotations (a span of words made a variation, glyphs,
numeric glyphs, clocks, a time control among the tags); characters
that look like white space, or like nothing, and are not white space (a
form feed, U+001C..U+001F, a no-break space, U+2028, a zero width space,
NUL ...) in place of or beside white space; and long runs where a token
could stand (digits with no dot, a point's row, a margin, an unquoted tag
value) or thousands of comments after a turn, a tag or a move number.
Every input must hold these properties:

* reading and checking raise no exception, and take less than ``--slow``
  seconds (reading is linear: no input here needs more than a fraction of it);
* every ``error`` has a line and a column (both at least 1);
* the games cut from the input are the same at several read sizes;
* when every game reads, ``fmt`` writes them, the result reads back to the
  same records, formatting it again changes nothing, and checking it gives
  the same verdicts, warnings included.

Each run also checks a fixed set of compression bombs, one per format,
each behind a game of the pool: every one is one ``error`` at 1:1 saying
it is a compression bomb, refused without memory growing with it; and
inputs of the pool, compressed, read as they do plain.

Run ``python benchmarks/fuzz.py --seconds 20 --seed 1`` (CI) or longer,
e.g. ``--seconds 3600 --seed $RANDOM``; a failing input is written to
``--out`` and the run exits 1.
"""

from __future__ import annotations

import argparse
import dataclasses
import io
import random
import re
import sys
import time
import traceback
from pathlib import Path

from measured import ROOT, measuring

from keilref.errors import RecordError
from keilref.engine.generate import random_games, to_record
from keilref.records.parser import iter_games, split_games
from keilref.records.record import Record
from keilref.referee.verdict import Verdict, adjudicate
from keilref.records.writer import canonical_tags, write_record, write_records

WORDS = [
    "g7", "G7", "a1", "pass", "button", "K@d4", "P@a1", "1.", "2...", "12.", "B+R", "W+0.5", "B+3", "Draw", "*",
    "{", "}", "[", "]", '"', ";", "\n", "\r\n", "\r", " ", "\t", "\ufeff", "\x00", "\x1b", "\u2028", "é",
    '[Size "3"]', '[Size "2"]', '[Komi "2"]', '[Rules "keil-2019"]', '[Rules "yugo"]', '[Rules "dehil"]',
    '[Button "no"]', '[Result "B+R"]', '[Event "x]y"]', '[E "f]]["]', '[E "a\\"b"]', '[E "{;}"]',
    "{c}", "{\n[Event \"in a comment\"]\n}", "; note\n", "{unclosed\n", "\xff", "\xc2",
    # Version 2: variations, glyphs, clocks and time controls.
    "(", ")", "()", "(g7", "g7)", "(1... g7", "(2. g7 h8)", ")(", "((", "))",
    "!", "?", "!!", "??", "!?", "?!", "!!!", "g7!", "pass?!", "button!", "g7!?)",
    "$0", "$1", "$14", "$255", "$256", "$014", "$", "$x", "$99999999999", "B+T", "W+T", "B+T)",
    "{[%clk 0:09:58]}", "{[%clk 0:00:00.5]}", "{[%clk -0:00:03]}", "{[%clk 0:1:00]}", "{[%clk]}",
    "{[%clk 0:09:58}", "{x [%clk 9:59:59.9] y}", "{[%clkx 0:01:00]}",
    '[TimeControl "600+5"]', '[TimeControl "60"]', '[TimeControl "-"]', '[TimeControl "?"]', '[TimeControl "5 min"]',
]

GLYPH_WORDS = ["!", "?", "!!", "??", "!?", "?!"]
_NUMBER = re.compile(r"[0-9]+\.+")
_MOVE = re.compile(r"[a-m][0-9]{1,2}|pass|button")
_TURN_WORD = re.compile(r"[a-m][0-9]{1,2}|pass|button|[0-9]+\.+")


UNSEEN = ["\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x1f", "\x85", "\xa0", "\u2028", "\u2029", "\u3000", "\u200b", "\x00"]
"""Characters that are not white space, though ``str.isspace`` or the eye may say so."""


def seeds(rng: random.Random) -> list[bytes]:
    out = [p.read_bytes() for p in sorted((ROOT / "records").rglob("*.keil"))]
    for i, g in enumerate(random_games(rng.randrange(1 << 30), 30, rules=("keil", "keil-2019", "dehil"), sizes=(2, 3, 4))):
        out.append(write_record(to_record(g, event=f"seed {i}")).encode())
    return out


def mutate_bytes(data: bytes, rng: random.Random, pool: list[bytes]) -> bytes:
    b = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        n = len(b)
        op = rng.randrange(6)
        i, j = sorted((rng.randint(0, n), rng.randint(0, n)))
        if op == 0 and n:
            b[rng.randrange(n)] ^= 1 << rng.randrange(8)
        elif op == 1:
            del b[i:j]
        elif op == 2:
            b[i:i] = b[i:j]
        elif op == 3:
            other = rng.choice(pool)
            k, m = sorted((rng.randint(0, len(other)), rng.randint(0, len(other))))
            b[i:j] = other[k:m]
        elif op == 4:
            b[i:i] = rng.choice(WORDS).encode("utf-8", "surrogatepass") if rng.random() < 0.9 else b"\xff"
        else:
            del b[j:]
    return bytes(b)


def mutate_tokens(data: bytes, rng: random.Random) -> bytes:
    text = data.decode("utf-8", "replace")
    parts = text.split(" ")
    for _ in range(rng.randint(1, 3)):
        if not parts:
            parts = [""]
        k = rng.randrange(len(parts))
        op = rng.randrange(4)
        if op == 0:
            parts[k] = rng.choice(WORDS)
        elif op == 1:
            parts.insert(k, parts[k])
        elif op == 2:
            del parts[k]
        else:
            m = rng.randrange(len(parts))
            parts[k], parts[m] = parts[m], parts[k]
    return " ".join(parts).encode("utf-8", "surrogatepass")


def _blanks(text: str) -> list[int]:
    return [i for i, c in enumerate(text) if c in " \t\n\r"]


def mutate_unseen(data: bytes, rng: random.Random) -> bytes:
    """Characters that are not white space put in place of white space, or beside it."""
    text = data.decode("utf-8", "replace")
    for _ in range(rng.randint(1, 3)):
        blanks = _blanks(text)
        i = rng.choice(blanks) if blanks else rng.randint(0, len(text))
        text = text[:i] + rng.choice(UNSEEN) + text[i + rng.randint(0, 1) :]
    return text.encode("utf-8", "surrogatepass")


def _clock(rng: random.Random) -> str:
    tenths = rng.randrange(36000)
    text = f"{tenths // 36000}:{tenths // 600 % 60:02d}:{tenths // 10 % 60:02d}"
    return "{[%clk " + (text + f".{tenths % 10}" if rng.random() < 0.3 else text) + "]}"


def mutate_annotations(data: bytes, rng: random.Random) -> bytes:
    """What version 2 adds, put among the words of a record: turns copied into
    a variation (nested when it lands inside one), a glyph after a word, a
    numeric glyph, a clock after a word, a time control among the tags."""
    text = data.decode("utf-8", "replace")
    # Words and the blanks between them, which are kept as they were.
    for _ in range(rng.randint(1, 4)):
        # Cut again each time, so that a later mutation may land in a variation.
        parts = re.split(r"([ \n]+)", text)
        words = range(0, len(parts), 2)
        moves = [i for i in words if _MOVE.fullmatch(parts[i])]
        # Most land at a move, so that the game often reads and is judged.
        at_move = bool(moves) and rng.random() < 0.8
        k = rng.choice(moves) if at_move else rng.choice(words)
        op = rng.randrange(5)
        if op == 0:
            # The turn at k and a few after it, again as a variation of that
            # turn: the main line keeps its turns, and the copy may be changed
            # or nested by the mutations after this one.
            m = k
            while m + 2 < len(parts) and m < k + 12 and _TURN_WORD.fullmatch(parts[m + 2]):
                m += 2
            span = [parts[i] for i in range(k, m + 1, 2)]
            if rng.random() < 0.8:
                # The copy's turns stand where the main line's do, but a
                # number would have to be written for the first: leave them out.
                span = [w for w in span if not _NUMBER.fullmatch(w)] or span
            if rng.random() < 0.5:
                span[rng.randrange(len(span))] = rng.choice(["a1", "b2", "c3", "pass", "button", "g7"])
            parts[k] += " (" + " ".join(span) + ")"
        elif op == 1:
            parts[k] += rng.choice(GLYPH_WORDS)
        elif op == 2:
            parts[k] += f" ${rng.choice([0, 1, 14, 255, rng.randrange(300)])}"
        elif op == 3:
            parts[k] += " " + _clock(rng)
        else:
            first = next((i for i in words if parts[i].endswith("]")), None)
            if first is not None:
                parts[first] += rng.choice(['[TimeControl "600+5"]', '[TimeControl "60+1"]', '[TimeControl "-"]'])
        text = "".join(parts)
    return text.encode("utf-8", "surrogatepass")


def mutate_long(data: bytes, rng: random.Random) -> bytes:
    """A long run where a token could stand, or many comments, put at a blank."""
    text = data.decode("utf-8", "replace")
    blanks = _blanks(text)
    i = rng.choice(blanks) if blanks else len(text)
    n = rng.choice([1_000, 10_000, 50_000])
    digits = rng.choice("0123456789") * n
    run = rng.choice(
        [
            digits,  # no dot: no token at all
            digits + ".",  # a move number, a long one
            "a" + digits,  # a point with a long row
            "B+" + digits + rng.choice(["", "x", ".5"]),  # a long margin
            "[Date " + digits + "]",  # an unquoted tag value
            "{c}" * (n // 10),  # after whatever stands before
            ";c\n" * (n // 10),
            "1. " + "{c}" * (n // 10),  # after a move number
            '[Event "x"]' + "{c}" * (n // 10),  # after a tag
        ]
    )
    return (text[:i] + " " + run + " " + text[i:]).encode("utf-8", "surrogatepass")


def cuts(data: bytes, chunk: int) -> list[tuple[bytes, int, int, int]]:
    return [(g.data, g.piece.line, g.column_offset, g.first_line) for g in split_games(io.BytesIO(data), chunk_size=chunk)]


_OPENED = re.compile(r"variation at \d+:\d+")


def essence(v: Verdict) -> tuple[object, ...]:
    illegal = None if v.illegal is None else (v.illegal.turn, v.illegal.reason)
    # A variation is named by where its "(" stands, which fmt moves.
    warnings = tuple(_OPENED.sub("variation", w) for w in v.warnings)
    return (v.status, v.computed, v.declared, v.turns, illegal, v.error is None, warnings)


def check_one(data: bytes, rng: random.Random) -> None:
    items = list(iter_games(io.BytesIO(data), "fuzz.keil"))
    verdicts = []
    for n, item in enumerate(items, 1):
        v = adjudicate(item, file="fuzz.keil", game=n)
        if v.error is not None:
            assert v.error.line >= 1 and v.error.column >= 1, v
        verdicts.append(v)
    expected = cuts(data, 1 << 20)
    for chunk in (1, rng.randint(2, 8), rng.randint(9, 64)):
        assert cuts(data, chunk) == expected, f"chunk size {chunk} cuts differently"
    if any(isinstance(i, RecordError) for i in items):
        return
    records = [i for i in items if isinstance(i, Record)]
    text = write_records(records)
    again = [i for i in iter_games(io.BytesIO(text.encode()), "fuzz.keil")]
    ordered = [dataclasses.replace(r, tags=canonical_tags(r.tags)) for r in records]
    assert again == ordered, "fmt changed what the records say (beyond the order of the tags)"
    assert write_records([r for r in again if isinstance(r, Record)]) == text, "fmt is not idempotent"
    rechecked = [essence(adjudicate(r, file="fuzz.keil", game=n)) for n, r in enumerate(again, 1)]
    assert rechecked == [essence(v) for v in verdicts], "checking after fmt gives other verdicts"


BOMB_MIB = {".gz": 48, ".bz2": 256, ".xz": 256, ".zst": 256}
"""Spaces in each bomb: gzip cannot expand past about 1,030 times, so its
bomb is just past its cap; the others are far past it, and cost no more."""


def check_compression(rng: random.Random, pool: list[bytes]) -> None:
    import bz2
    import gzip
    import lzma
    import resource
    import tempfile

    import zstandard

    from keilref.referee.batches import check_file
    from keilref.records.compression import compression_of
    from keilref.referee.verdict import Status

    pack = {
        ".gz": lambda data: gzip.compress(data, compresslevel=9),
        ".bz2": bz2.compress,
        ".xz": lzma.compress,
        ".zst": lambda data: zstandard.ZstdCompressor().compress(data),
    }
    unit = b" " * (16 << 20)
    with tempfile.TemporaryDirectory(prefix="keilref-fuzz-") as work:
        for suffix, compress in pack.items():
            path = Path(work) / f"bomb.keil{suffix}"
            # Spaces compressed once, repeated as members, streams or frames.
            path.write_bytes(compress(rng.choice(pool) + b"\n") + compress(unit) * (BOMB_MIB[suffix] // 16))
            before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
            verdicts = check_file(path)
            grew_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
            assert [v.status for v in verdicts] == [Status.ERROR], f"{suffix} bomb: {verdicts}"
            error = verdicts[0].error
            assert error is not None and (error.line, error.column) == (1, 1), f"{suffix} bomb: {error}"
            assert error.message.endswith(": a compression bomb?"), f"{suffix} bomb: {error.message}"
            assert grew_mb < 64, f"{suffix} bomb: memory grew by {grew_mb:.0f} MB"
            data = rng.choice(pool)
            plain, packed = Path(work) / "input.keil", Path(work) / f"input.keil{suffix}"
            plain.write_bytes(data)
            packed.write_bytes(compress(data))
            assert compression_of(packed.name) is not None
            got = [(v.game, v.status, v.computed, v.error) for v in check_file(packed)]
            assert got == [(v.game, v.status, v.computed, v.error) for v in check_file(plain)], (
                f"{suffix}: the compressed input reads otherwise than the plain one"
            )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--inputs", type=int, default=0, help="stop after this many inputs (0: no limit)")
    ap.add_argument("--out", type=Path, default=Path("fuzz-failure.keil"))
    ap.add_argument("--slow", type=float, default=5.0, help="seconds an input may take at most")
    args = ap.parse_args()
    print(measuring())
    rng = random.Random(args.seed)
    pool = seeds(rng)
    started = time.perf_counter()
    try:
        check_compression(rng, pool)
    except Exception:  # noqa: BLE001
        traceback.print_exc()
        print(f"fuzz: compression bombs failed (seed {args.seed})", file=sys.stderr)
        return 1
    tried = 0
    while time.perf_counter() - started < args.seconds and (not args.inputs or tried < args.inputs):
        base = rng.choice(pool)
        way = rng.random()
        if way < 0.4:
            data = mutate_bytes(base, rng, pool)
        elif way < 0.65:
            data = mutate_tokens(base, rng)
        elif way < 0.8:
            data = mutate_annotations(base, rng)
        elif way < 0.9:
            data = mutate_unseen(base, rng)
        else:
            data = mutate_long(base, rng)
        if rng.random() < 0.3:
            data = mutate_bytes(data, rng, pool)
        tried += 1
        try:
            start = time.perf_counter()
            check_one(data, rng)
            seconds = time.perf_counter() - start
            assert seconds < args.slow, f"{len(data):,} bytes took {seconds:.1f} s: reading should be linear"
        except Exception:  # noqa: BLE001
            args.out.write_bytes(data)
            traceback.print_exc()
            print(f"fuzz: failure on input {tried} (seed {args.seed}), written to {args.out}", file=sys.stderr)
            return 1
        if len(data) < 4000 and rng.random() < 0.05:
            pool.append(data)
    elapsed = time.perf_counter() - started
    print(f"fuzz: {tried:,} inputs in {elapsed:.0f} s ({tried / elapsed:,.0f}/s), seed {args.seed}: no failure")
    return 0


if __name__ == "__main__":
    sys.exit(main())
