"""Seeded random legal games, for benchmarks, tests and bot authors.

Games are legal by construction: every turn is played through the engine.
They end by two passes, so every generated game is finished and scored.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping, Sequence
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
    komi: float | None = None,
) -> Iterator[GeneratedGame]:
    """``count`` games from one seed, cycling through ``rules`` and ``sizes``;
    ``komi`` for every game, or a random one each (``None``)."""
    rng = random.Random(seed)
    for i in range(count):
        yield random_game(
            rng,
            rules=rules[i % len(rules)],
            size=sizes[(i // len(rules)) % len(sizes)],
            fill=fill,
            komi=komi,
        )


@dataclass(frozen=True)
class Pairing:
    """One game of a round robin: its round (from 1) and who plays which colour."""

    round: int
    black: str
    white: str


def round_robin(players: Sequence[str], cycles: int = 1) -> list[Pairing]:
    """Every pair of ``players`` meets once a cycle, by the circle method
    (Berger tables), round by round, rounds numbered on across cycles.

    With an odd number of players, each round one sits out and no game is written for them.
    Colours: of players ``i`` and ``j`` (their places in ``players``), the
    one listed first has Black when ``i + j`` is odd, the other when it is
    even; so over a cycle each player has Black and White equally often,
    or once more of one when the count of games is odd. A second cycle
    swaps every colour of the first (a double round robin: each pair plays
    once with each colour), a third repeats the first.
    """
    places = {name: i for i, name in enumerate(players)}
    seats: list[str | None] = list(players)
    if len(seats) % 2:
        seats.append(None)
    n = len(seats)
    out: list[Pairing] = []
    for cycle in range(cycles):
        ring = seats[1:]
        for r in range(n - 1):
            boards = [(seats[0], ring[0])] + [(ring[i], ring[n - 1 - i]) for i in range(1, n // 2)]
            for a, b in boards:
                if a is None or b is None:
                    continue
                first, second = sorted((a, b), key=places.__getitem__)
                black, white = (first, second) if (places[a] + places[b]) % 2 else (second, first)
                if cycle % 2:
                    black, white = white, black
                out.append(Pairing(cycle * (n - 1) + r + 1, black, white))
            ring = ring[-1:] + ring[:-1]
    return out


def to_record(game: GeneratedGame, *, event: str, tags: Mapping[str, str] | None = None) -> Record:
    """The game as a typed record, ready for the canonical writer: made where
    :meth:`Game.to_record <keilref.Game.to_record>` makes its records, so a
    generated game states every setting (``Button`` too) as a played one does.
    ``tags`` are more tags (``Round``, ``Black``, ``White``)."""
    settings = setting_tags(find_rules(game.rules), game.size, game.komi, game.button)
    return played_record(settings, game.moves, game.result, {"Event": event, **(tags or {}), "Result": game.result})
