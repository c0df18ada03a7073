"""``keilref generate``: random legal games, for tests and benchmarks, or a test event."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from keilref.errors import ConfigError
from keilref.engine.rules import find_rules

from keilref.cli.output_file import OutputFileOption, output_to
from keilref.cli.app import (
    _check_rules,
    complete_rules,
    fail,
    app,
)


@app.command()
def generate(
    games: Annotated[
        Optional[int],
        typer.Option(
            "--games",
            "-n",
            min=1,
            metavar="N",
            help="How many games (default 10); with --players, how many round robins (default 1).",
            show_default=False,
        ),
    ] = None,
    seed: Annotated[int, typer.Option("--seed", metavar="N", help="Same seed, same games.")] = 0,
    size: Annotated[
        Optional[list[int]], typer.Option("--size", metavar="N", help="Board size; repeat to cycle.")
    ] = None,
    rules: Annotated[
        Optional[list[str]],
        typer.Option("--rules", metavar="RULES", autocompletion=complete_rules, help="Rule set; repeat to cycle."),
    ] = None,
    komi: Annotated[
        Optional[str],
        typer.Option("--komi", metavar="K", help="The komi of every game (default: a random one each)."),
    ] = None,
    event: Annotated[
        Optional[str], typer.Option("--event", metavar="NAME", help="The Event tag of every game.")
    ] = None,
    players: Annotated[
        Optional[list[str]],
        typer.Option(
            "--players",
            metavar="NAME",
            help="A player of a round robin; repeat for each (two or more). Adds Round, Black and White tags.",
        ),
    ] = None,
    fill: Annotated[
        float,
        typer.Option("--fill", min=0.0, max=10.0, metavar="X", help="Turns before passing, per board point."),
    ] = 1.3,
    output: OutputFileOption = None,
) -> None:
    """Write seeded random legal games, ended by two passes, as records; with
    --players, a round-robin event: every pair plays once a cycle."""
    from keilref.engine.generate import Pairing, random_games, round_robin, to_record
    from keilref.records.writer import write_record

    rule_names = tuple(_check_rules(name) or name for name in rules or ["keil"])
    sizes = tuple(size or [7])
    komis: dict[str, float] = {}
    for name in rule_names:
        try:
            for s in sizes:
                find_rules(name).check_size(s)
            if komi is not None:
                komis[name] = find_rules(name).check_komi(komi)
        except ConfigError as e:
            fail(str(e))
    pairings: list[Pairing] | None = None
    if players is not None:
        pairings = round_robin(_players(players), games or 1)
        count = len(pairings)
    else:
        count = games or 10
    name = event if event is not None else f"keilref generate --seed {seed}"
    fixed = next(iter(komis.values()), None)
    with output_to(output):
        made = random_games(seed, count, rules=rule_names, sizes=sizes, fill=fill, komi=fixed)
        for i, g in enumerate(made, 1):
            if i > 1:
                typer.echo()
            if pairings is not None:
                p = pairings[i - 1]
                record = to_record(g, event=name, tags={"Round": str(p.round), "Black": p.black, "White": p.white})
            else:
                record = to_record(g, event=event if event is not None else f"{name}, game {i}")
            typer.echo(write_record(record), nl=False)


def _players(names: list[str]) -> list[str]:
    """The names given, each once; a usage error for fewer than two, an empty one, or one given twice."""
    stripped = [n.strip() for n in names]
    if any(not n for n in stripped):
        fail("--players: a player's name is empty")
    twice = sorted({n for n in stripped if stripped.count(n) > 1})
    if twice:
        fail(f"--players: {twice[0]!r} is given twice")
    if len(stripped) < 2:
        fail("--players: a round robin takes two players or more")
    return stripped
