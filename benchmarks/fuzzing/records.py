"""The records surface: the reader, the referee and the canonical writer.

Inputs are seeded from ``records/`` and from ``keilref generate``, then
mutated five ways (see :mod:`fuzzing.mutate`). Every input must hold these
properties:

* reading and checking raise no exception, and take less than ``--slow``
  seconds (reading is linear: no input here needs more than a fraction of it);
* every ``error`` has a line and a column (both at least 1);
* the games cut from the input are the same at several read sizes;
* standard input, a file and the file gzip-compressed give the same
  verdicts (a few inputs in a hundred);
* when every game reads, ``fmt`` writes them, the result reads back to the
  same records, formatting it again changes nothing, and checking it gives
  the same verdicts, warnings included.

Each run also checks a fixed set of compression bombs, one per format,
each behind a game of the pool: every one is one ``error`` at 1:1 saying
it is a compression bomb, refused without memory growing with it; and
inputs of the pool, compressed, read as they do plain.
"""

from __future__ import annotations

import dataclasses
import io
import random
import re
from pathlib import Path

from keilref.errors import RecordError
from keilref.records.parser import iter_games, split_games
from keilref.records.record import Record, Tag
from keilref.records.setup import SETUP_TAG, canonical_setup
from keilref.referee.verdict import Verdict, adjudicate
from keilref.records.writer import canonical_tags, write_records

from fuzzing.common import Case, Surface
from fuzzing.mutate import mutate_annotations, mutate_bytes, mutate_long, mutate_tokens, mutate_unseen


def cuts(data: bytes, chunk: int) -> list[tuple[bytes, int, int, int]]:
    return [(g.data, g.piece.line, g.column_offset, g.first_line) for g in split_games(io.BytesIO(data), chunk_size=chunk)]


_OPENED = re.compile(r"variation at \d+:\d+")


def essence(v: Verdict) -> tuple[object, ...]:
    illegal = None if v.illegal is None else (v.illegal.turn, v.illegal.reason)
    # A variation is named by where its "(" stands, which fmt moves.
    warnings = tuple(_OPENED.sub("variation", w) for w in v.warnings)
    return (v.status, v.computed, v.declared, v.turns, illegal, v.error is None, warnings)


def _laid_out(tags: tuple[Tag, ...]) -> tuple[Tag, ...]:
    """The tags as fmt lays them out: in the canonical order, a ``Setup`` in
    its canonical form (record-format.md, "Positions")."""
    return tuple(
        dataclasses.replace(t, value=canonical_setup(t.value)) if t.name == SETUP_TAG else t for t in canonical_tags(tags)
    )


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
    ordered = [dataclasses.replace(r, tags=_laid_out(r.tags)) for r in records]
    assert again == ordered, "fmt changed what the records say (beyond the tags' order and a setup's layout)"
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




class Records(Surface):
    """The reader, the referee and ``fmt``, on mutated records."""

    name = "records"
    weight = 3.0

    def start(self, rng: random.Random) -> None:
        check_compression(rng, self.pool)

    def case(self, rng: random.Random) -> Case:
        return Case(mutated(rng, self.pool))

    def check(self, case: Case, rng: random.Random) -> None:
        check_one(case.data, rng)
        if rng.random() < 0.03:
            same_everywhere(case.data, self.work)
        if len(case.data) < 4000 and rng.random() < 0.05:
            self.pool.append(case.data)


def mutated(rng: random.Random, pool: list[bytes]) -> bytes:
    """A record of the pool, mutated one of the five ways, and sometimes bytewise after."""
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
    return data


def same_everywhere(data: bytes, work: Path) -> None:
    """Standard input, a file and the file gzip-compressed give the same verdicts."""
    import gzip

    from keilref import check_file, check_text

    from fuzzing.common import essence_of

    expected = [essence_of(v) for v in check_text(data)]
    plain, packed = work / "input.keil", work / "input.keil.gz"
    plain.write_bytes(data)
    packed.write_bytes(gzip.compress(data))
    assert [essence_of(v) for v in check_file(plain)] == expected, "a file is judged otherwise than standard input"
    assert [essence_of(v) for v in check_file(packed)] == expected, "gzip-compressed otherwise than plain"
