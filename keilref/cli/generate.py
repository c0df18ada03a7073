"""``keilref generate``: random legal games, for tests and benchmarks."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Optional

import typer

from keilref.errors import ConfigError
from keilref.engine.rules import find_rules

if TYPE_CHECKING:
    pass

from keilref.cli.output_file import OutputFileOption, output_to
from keilref.cli.app import (
    _check_rules,
    complete_rules,
    fail,
    app,
)


@app.command()
def generate(
    games: Annotated[int, typer.Option("--games", "-n", min=1, metavar="N", help="How many games.")] = 10,
    seed: Annotated[int, typer.Option("--seed", metavar="N", help="Same seed, same games.")] = 0,
    size: Annotated[
        Optional[list[int]], typer.Option("--size", metavar="N", help="Board size; repeat to cycle.")
    ] = None,
    rules: Annotated[
        Optional[list[str]], typer.Option(
            "--rules", metavar="RULES", autocompletion=complete_rules, help="Rule set; repeat to cycle."
        ),
    ] = None,
    fill: Annotated[
        float,
        typer.Option("--fill", min=0.0, max=10.0, metavar="X", help="Turns before passing, per board point."),
    ] = 1.3,
    output: OutputFileOption = None,
) -> None:
    """Write seeded random legal games, ended by two passes, as records."""
    from keilref.engine.generate import random_games, to_record
    from keilref.records.writer import write_record

    rule_names = tuple(_check_rules(name) or name for name in rules or ["keil"])
    sizes = tuple(size or [7])
    for name in rule_names:
        for s in sizes:
            try:
                find_rules(name).check_size(s)
            except ConfigError as e:
                fail(str(e))
    with output_to(output):
        for i, g in enumerate(random_games(seed, games, rules=rule_names, sizes=sizes, fill=fill), 1):
            if i > 1:
                typer.echo()
            typer.echo(write_record(to_record(g, event=f"keilref generate --seed {seed}, game {i}")), nl=False)
