"""``keilref completion SHELL``: the shell's completion script for keilref."""

from __future__ import annotations

from typing import Annotated

import typer

from keilref.cli.app import _choose, app, completes, fail

SHELLS = ("bash", "zsh", "fish", "powershell")


@app.command()
def completion(
    shell: Annotated[str, typer.Argument(
            metavar="SHELL", autocompletion=completes(lambda: SHELLS), help=f"One of {', '.join(SHELLS)}."
        ),],
) -> None:
    """Print the completion script for SHELL: `keilref completion bash >> ~/.bashrc`, or
    `keilref completion fish > ~/.config/fish/completions/keilref.fish`."""
    # Typer writes the scripts its --install-completion installs; this prints
    # the same script without touching the user's files.
    chosen = _choose(shell, SHELLS, "SHELL")
    try:
        from typer._completion_shared import get_completion_script
    except ImportError:  # a Typer that moved it: its own option still works
        fail(f"this Typer cannot print the script here; run: keilref --show-completion {chosen}")
    typer.echo(get_completion_script(prog_name="keilref", complete_var="_KEILREF_COMPLETE", shell=chosen))
