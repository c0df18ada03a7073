"""A worker process that dies (a crash in native code, the memory killer)
costs no game: the batches it had in flight are checked again in the main
process by the Python referee, the check goes on with new workers, and the
user is told which games those were."""

from __future__ import annotations

import multiprocessing
import os
import re
import signal
from pathlib import Path

import pytest

from keilref.engine.generate import random_games, to_record
from keilref.records.sources import Source
from keilref.records.writer import write_record
from keilref.referee import batches
from keilref.referee.verdict import Verdict

pytestmark = pytest.mark.skipif(
    multiprocessing.get_start_method() != "fork", reason="the workers must inherit the test's stand-in"
)

_PARENT = os.getpid()
_ORIGINAL = batches._judged


def _dies_on(marker: bytes):  # type: ignore[no-untyped-def]
    def judged(batch, rules, of_facts, of_verdict):  # type: ignore[no-untyped-def]
        if os.getpid() != _PARENT and any(marker in piece.data for piece in batch.pieces()):
            os.kill(os.getpid(), signal.SIGSEGV)
        return _ORIGINAL(batch, rules, of_facts, of_verdict)

    return judged


def _line(v: Verdict) -> str:
    return f"{v.file} {v.game} {v.status.value} {v.computed} {v.turns}"


def _archive(path: Path, games: int) -> None:
    texts = [
        write_record(to_record(g, event="crash here" if i % 700 == 350 else f"game {i}"))
        for i, g in enumerate(random_games(3, games, sizes=(3,), rules=("keil", "keil-2019")))
    ]
    path.write_text("\n".join(texts), encoding="utf-8")


@pytest.mark.parametrize("marker", [b"crash here", b"[Rules"])
def test_a_worker_that_dies_costs_no_game_and_is_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, marker: bytes
) -> None:
    archive = tmp_path / "a.keil"
    _archive(archive, 2100)
    sources = [Source(str(archive))]
    expected = list(batches.judged_sources(sources, _line, jobs=1))
    assert len(expected) == 2100
    monkeypatch.setattr(batches, "_judged", _dies_on(marker))
    said: list[str] = []
    got = [
        line
        for items in batches.judged_batches(sources, _line, jobs=2, parallel_threshold=0, on_crash=said.append)
        for line in items
    ]
    assert got == expected
    assert said, "the crash was not reported"
    # Every batch that held a marked game was checked again and named.
    marked = {i + 1 for i in range(2100) if marker == b"[Rules" or i % 700 == 350}
    named: set[int] = set()
    for s in said:
        m = re.fullmatch(
            rf"a worker process ended abruptly while {re.escape(str(archive))} "
            r"(?:game (\d+) was|games (\d+) to (\d+) were) being checked: "
            r"(?:it was|they were) checked again by the Python referee, and the verdicts are its own",
            s,
        )
        assert m is not None, s
        first = int(m.group(1) or m.group(2))
        named |= set(range(first, int(m.group(3) or first) + 1))
    assert marked <= named
