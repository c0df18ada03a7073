"""``keilref rules``: the rule sets keilref knows."""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer

from keilref.engine.rules import all_rules

if TYPE_CHECKING:
    pass

from keilref.cli.app import (
    app,
)


@app.command(name="rules")
def list_rules() -> None:
    """List the rule sets the referee knows."""
    for r in all_rules():
        typer.echo(f"{r.name:<10} {r.title} (sizes {r.min_size}..{r.max_size}, default {r.default_size})")
