"""What an annotated, timed game costs against the same game plain.

Plays a seeded set of legal Keil games and writes each three ways:

- *plain*: the moves only (the baseline; the scanner reads these);
- *timed*: a ``[%clk]`` comment after every turn, under a ``TimeControl``;
- *annotated*: timed, plus a glyph on every fifth turn and, every tenth
  turn, a variation of three turns that replays the main line's own turns
  (so it is legal, and the referee replays it from its branch).

Then times ``check`` of each archive in one process, round after round,
and prints games/s, the ratio to the plain archive of the same round, and
the cost per turn (per turn of the main line, variations counted in the
cost, not in the turns). Every verdict must be ``ok``.

    python benchmarks/bench_annotated.py [--games 2000] [--rounds 3] [--seed 2026]

It measures the keilref installed in the interpreter that runs it, and its
first line says which (version, engine kernel, package).
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from pathlib import Path

from measured import measuring

from keilref.engine.generate import random_game, to_record
from keilref.records.record import Clock, Comment, Record, Tag, Turn, Variation
from keilref.records.sources import expand_paths
from keilref.records.writer import canonical_tags, write_records
from keilref.referee.batches import check_sources
from keilref.referee.verdict import Status

BASE, INCREMENT = 600, 5


def _timed(turns: tuple[Turn, ...], rng: random.Random) -> list[Turn]:
    left = [BASE * 10, BASE * 10]
    out = []
    for index, turn in enumerate(turns):
        player = index % 2
        left[player] = max(0, left[player] - rng.randint(0, 80)) + INCREMENT * 10
        clock = Comment(f"[%clk {Clock(left[player])}]")
        out.append(Turn(turn.move, turn.kind, turn.point, turn.piece, (clock,)))
    return out


def _annotated(turns: list[Turn]) -> list[Turn]:
    out = []
    for index, turn in enumerate(turns):
        glyphs = ("!?",) if index % 5 == 4 else ()
        variations = ()
        if index % 10 == 9 and index + 3 <= len(turns):
            line = tuple(Turn(t.move, t.kind, t.point, t.piece) for t in turns[index : index + 3])
            variations = (Variation(line),)
        out.append(Turn(turn.move, turn.kind, turn.point, turn.piece, turn.comments, glyphs=glyphs, variations=variations))
    return out


def build(games: int, seed: int, folder: Path) -> tuple[dict[str, Path], int]:
    rng = random.Random(seed)
    archives: dict[str, list[Record]] = {"plain": [], "timed": [], "annotated": []}
    turns = 0
    for i in range(games):
        game = random_game(rng, size=(5, 6, 7)[i % 3], komi=float(rng.randint(0, 12)), fill=0.8)
        record = to_record(game, event="bench")
        turns += len(record.turns)
        timed = _timed(record.turns, rng)
        tags = canonical_tags((*record.tags, Tag("TimeControl", f"{BASE}+{INCREMENT}")))
        archives["plain"].append(record)
        archives["timed"].append(Record(tags, tuple(timed), record.result))
        archives["annotated"].append(Record(tags, tuple(_annotated(timed)), record.result))
    paths = {}
    for name, records in archives.items():
        paths[name] = folder / f"{name}.keil"
        paths[name].write_text(write_records(records), encoding="utf-8")
    return paths, turns


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    print(measuring())
    with tempfile.TemporaryDirectory(prefix="keilref-bench-") as tmp:
        paths, turns = build(args.games, args.seed, Path(tmp))
        print(f"{args.games} games, {turns:,} turns of main line")
        ratios: dict[str, list[float]] = {"timed": [], "annotated": []}
        best: dict[str, float] = {}
        for round_ in range(1, args.rounds + 1):
            times = {}
            for name, path in paths.items():
                start = time.perf_counter()
                verdicts = list(check_sources(expand_paths([str(path)]), jobs=1))
                times[name] = time.perf_counter() - start
                bad = [v for v in verdicts if v.status is not Status.OK or v.warnings]
                assert len(verdicts) == args.games and not bad, (name, bad[:1])
                best[name] = min(best.get(name, times[name]), times[name])
            for name in ratios:
                ratios[name].append(times[name] / times["plain"])
            print(
                f"round {round_}: plain {times['plain']:.2f} s, timed {times['timed']:.2f} s "
                f"({ratios['timed'][-1]:.2f}x), annotated {times['annotated']:.2f} s ({ratios['annotated'][-1]:.2f}x)"
            )
        for name, seconds in best.items():
            print(f"{name:>9}: best {seconds:.2f} s, {args.games / seconds:,.0f} games/s, {seconds / turns * 1e6:.1f} us/turn")
        for name, values in ratios.items():
            extra = (best[name] - best["plain"]) / turns * 1e6
            print(f"{name} / plain: median {statistics.median(values):.2f}x; {extra:.1f} us more per turn")


if __name__ == "__main__":
    main()
