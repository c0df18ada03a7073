"""Parse throughput of keilref's record reader against a bare Lark grammar.

Builds a seeded archive of size-7 Keil games (about 165 turns each: plausible
points, a ``button`` near turn 20, two passes at the end, a few comments;
no engine needed), then times

- the *bare* parse: a minimal Lark LALR grammar (tags, tokens, comments and
  nothing else) building a parse tree of the whole text: the floor any
  Lark-based reader pays;
- *ours*: :func:`keilref.records.parser.iter_games` over the archive's bytes, which
  splits, decodes, checks move numbers and builds typed records.

and prints both in games/s and their ratio. The target is ours <= 1.3x bare.

    python benchmarks/bench_parse.py [--games 1000] [--rounds 5] [--seed 2026]
"""

from __future__ import annotations

import argparse
import functools
import io
import random
import sys
import time
from collections.abc import Callable

from lark import Lark, Token, Tree

from measured import measuring

from keilref.errors import RecordError
from keilref.records.grammar import grammar_path, record_parser
from keilref.records.parser import iter_games, split_games
from keilref.records.record import Comment, Record, Tag, Turn, TurnKind
from keilref.records.writer import write_records

TARGET = 1.3

BARE_GRAMMAR = r"""
start: game+
game: tag+ (WORD | COMMENT)*
tag: "[" NAME STRING "]"
NAME: /[A-Za-z]\w*/
STRING: /"(?:[^"\\\n]|\\.)*"/
WORD: /[^\s{};\[\]]+/
COMMENT: /\{[^}]*\}|;[^\n]*/
%ignore /\s+/
"""


@functools.cache
def _bare_parser() -> Lark:
    return Lark(BARE_GRAMMAR, parser="lalr", lexer="contextual")


def bare_parse(text: str) -> Tree[Token]:
    """Parse ``text`` with the minimal grammar, building a tree."""
    return _bare_parser().parse(text)


@functools.cache
def _grammar_tree_parser() -> Lark:
    """``grammar/record.lark`` as keilref loads it (LALR, contextual lexer,
    no positions kept, placeholders), but building a tree as the bare parse
    does, instead of records."""
    return Lark.open(
        str(grammar_path()), parser="lalr", lexer="contextual", propagate_positions=False, maybe_placeholders=True
    )


def cut_games(text: str) -> list[str]:
    """The games of an archive, cut as keilref cuts them: the project's grammar
    describes one game, and keilref parses a file game by game."""
    games = split_games(io.BytesIO(text.encode("utf-8")))
    return [game.data.decode("utf-8") for game in games if not game.piece.empty]


def grammar_parse(games: list[str]) -> int:
    """Parse each game with ``grammar/record.lark``, building a tree; return the number of games."""
    parser = _grammar_tree_parser()
    for game in games:
        parser.parse(game)
    return len(games)


def _points(size: int) -> list[str]:
    letters = "abcdefghijklmnopqrstuvwxyz"
    n = 2 * size - 1
    return [f"{letters[c]}{r + 1}" for c in range(n) for r in range(n) if abs(c - r) <= size - 1]


_REMARKS = ("the standard reply", "a slow move", "threatens the corner", "? better at d4", "resigns the edge")


def build_records(games: int, seed: int = 2026) -> list[Record]:
    """``games`` plausible size-7 records, the same for the same seed."""
    rng = random.Random(seed)
    points = _points(7)
    records = []
    for g in range(games):
        n = rng.randint(150, 180)
        moves = [rng.choice(points) for _ in range(n - 3)]
        moves.insert(rng.randint(16, 24), "button")
        moves += ["pass", "pass"]
        turns = []
        for move in moves:
            kind = TurnKind(move) if move in ("pass", "button") else TurnKind.PLACE
            comments: tuple[Comment, ...] = ()
            if rng.random() < 0.02:
                comments = (Comment(rng.choice(_REMARKS), brace=rng.random() < 0.8),)
            turns.append(Turn(move, kind, move if kind is TurnKind.PLACE else None, comments=comments))
        result = rng.choice(("B+0.5", "W+2.5", "B+4.5", "W+0.5"))
        tags = (
            Tag("Event", "Club ladder 2026"),
            Tag("Site", "Online"),
            Tag("Date", f"2026.{rng.randint(1, 12):02}.{rng.randint(1, 28):02}"),
            Tag("Round", str(g + 1)),
            Tag("Black", f"Player {rng.randint(1, 99)}"),
            Tag("White", f"Player {rng.randint(1, 99)}"),
            Tag("Rules", "keil"),
            Tag("Size", "7"),
            Tag("Komi", "6"),
            Tag("Result", result),
        )
        records.append(Record(tags, tuple(turns), result))
    return records


def build_archive(games: int = 1000, seed: int = 2026) -> str:
    """The archive text (canonical form, as ``keilref fmt`` writes it)."""
    return write_records(build_records(games, seed))


def ours(data: bytes) -> int:
    """Read the archive with :func:`iter_games`; return the number of games."""
    count = 0
    for item in iter_games(io.BytesIO(data), "bench.keil"):
        if isinstance(item, RecordError):
            raise SystemExit(f"benchmark archive does not parse: {item}")
        count += 1
    return count


def _race(a: Callable[[], object], b: Callable[[], object], rounds: int) -> tuple[float, float]:
    """Best time of each over ``rounds``, run alternately so that a slow
    spell of the machine hurts both alike."""
    best_a = best_b = float("inf")
    for _ in range(rounds):
        for fn, is_a in ((a, True), (b, False)):
            start = time.perf_counter()
            fn()
            elapsed = time.perf_counter() - start
            if is_a:
                best_a = min(best_a, elapsed)
            else:
                best_b = min(best_b, elapsed)
    return best_a, best_b


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--rounds", type=int, default=5, help="best of this many runs is reported")
    ap.add_argument("--seed", type=int, default=2026)
    args = ap.parse_args(argv)
    print(measuring())

    records = build_records(args.games, args.seed)
    text = write_records(records)
    data = text.encode("utf-8")
    turns = sum(len(r.turns) for r in records)
    _bare_parser(), record_parser()  # grammar loading is not what is measured
    if ours(data) != args.games or len(bare_parse(text).children) != args.games:
        raise SystemExit("the two parsers disagree on the number of games")

    bare, mine = _race(lambda: bare_parse(text), lambda: ours(data), args.rounds)
    n = args.games
    print(f"archive: {n} games, {len(data) / 1e6:.2f} MB, {turns / n:.0f} turns per game")
    print(f"bare Lark parse (tree):   {n / bare:>8,.0f} games/s  ({bare:.3f} s)")
    print(f"keilref iter_games:       {n / mine:>8,.0f} games/s  ({mine:.3f} s)")
    ratio = mine / bare
    verdict = "meets" if ratio <= TARGET else "MISSES"
    print(f"ratio: {ratio:.2f}x the bare parse (target <= {TARGET}x: {verdict})")
    return 0 if ratio <= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
