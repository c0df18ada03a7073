"""Seeded random legal games, for benchmarks, tests and bot authors.

Games are legal by construction: every turn is played through the engine.
They end by two passes, so every generated game is finished and scored.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass

from keilref.errors import IllegalMoveError
from keilref.engine.game import Game, new_game
from keilref.engine.recording import played_record, setting_tags
from keilref.records.record import Record
from keilref.engine.rules import ButtonRule, find_rules


@dataclass(frozen=True)
class GeneratedGame:
    """A finished random game and the settings it was played under."""

    rules: str
    size: int
    komi: float
    button: bool
    moves: tuple[str, ...]
    result: str


def random_game(
    rng: random.Random,
    *,
    rules: str = "keil",
    size: int = 7,
    komi: float | None = None,
    button: bool | None = None,
    fill: float = 1.0,
) -> GeneratedGame:
    """Play one random game to its end.

    ``fill`` scales its length: placements stop after about
    ``fill * points`` turns, then both players pass.
    """
    ruleset = find_rules(rules)
    if komi is None:
        komi = float(rng.randint(0, size))
        if ruleset.half_komi and rng.random() < 0.5:
            komi += 0.5
    if button is None:
        button = ruleset.button is ButtonRule.REQUIRED or (
            ruleset.button is ButtonRule.OPTIONAL and rng.random() < 0.8
        )
    game = new_game(rules, size, komi, button if ruleset.button is not ButtonRule.ABSENT else None)
    points = list(game.points())
    limit = max(2, int(fill * len(points)))
    button_turn = rng.randint(1, max(1, limit // 3)) if game.button_in_play else -1
    while not game.is_over:
        if game.turn == button_turn and game.button_holder is None:
            game.play("button")
            continue
        if game.turn >= limit:
            _finish(game)
            continue
        if len(game.piece_prefixes) > 1 and rng.random() < 0.1:
            # Other pieces (Yugo's kings) are rarely legal at random: look them up.
            special = [m for m in game.legal_moves() if "@" in m]
            if special:
                game.play(rng.choice(special))
                continue
        for _ in range(12):
            try:
                game.play(rng.choice(points))
                break
            except IllegalMoveError:
                continue
        else:
            # A crowded board: pick among the legal placements, if any is left.
            placements = [m for m in game.legal_moves() if m not in ("pass", "button")]
            if placements:
                game.play(rng.choice(placements))
            else:
                _finish(game)
    return GeneratedGame(
        rules=rules,
        size=size,
        komi=game.komi,
        button=game.button_in_play,
        moves=game.moves,
        result=str(game.score().result),
    )


def _finish(game: Game) -> None:
    """Pass (taking the button first when a pass is not yet allowed)."""
    if game.is_legal("pass"):
        game.play("pass")
    else:
        game.play("button")


def random_games(
    seed: int,
    count: int,
    *,
    rules: tuple[str, ...] = ("keil",),
    sizes: tuple[int, ...] = (7,),
    fill: float = 1.0,
) -> Iterator[GeneratedGame]:
    """``count`` games from one seed, cycling through ``rules`` and ``sizes``."""
    rng = random.Random(seed)
    for i in range(count):
        yield random_game(
            rng,
            rules=rules[i % len(rules)],
            size=sizes[(i // len(rules)) % len(sizes)],
            fill=fill,
        )


def to_record(game: GeneratedGame, *, event: str) -> Record:
    """The game as a typed record, ready for the canonical writer: made where
    :meth:`Game.to_record <keilref.Game.to_record>` makes its records, so a
    generated game states every setting (``Button`` too) as a played one does."""
    settings = setting_tags(find_rules(game.rules), game.size, game.komi, game.button)
    return played_record(settings, game.moves, game.result, {"Event": event, "Result": game.result})
