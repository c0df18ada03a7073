"""``keilref lsp``: the Language Server for editors, over stdio (the optional ``keilref[lsp]``)."""

from __future__ import annotations

import typer

from keilref.cli.app import EXIT_USAGE, app


@app.command()
def lsp() -> None:
    """Run the Language Server on stdin and stdout, for an editor to start: diagnostics, hover,
    formatting and quick fixes for .keil files."""
    try:
        import pygls.lsp.server  # noqa: F401  (pygls 2's; pygls 1 has none)
    except ImportError:
        typer.echo("keilref: the language server needs pygls 2: pip install 'keilref[lsp]'", err=True)
        raise typer.Exit(EXIT_USAGE) from None
    # Imported here: pygls is optional, and every other command starts without it.
    from keilref.lsp import serve

    serve()
