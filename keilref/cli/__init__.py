"""The ``keilref`` command: a thin layer over the library, one module per command.

Errors go to stderr as one line; results go to stdout. Exit codes are the
named constants of :mod:`keilref.cli.app`. Each command module registers
its command on the one :data:`~keilref.cli.app.app`.
"""

from __future__ import annotations

import gc
import sys

# Importing a command module registers its command; `keilref --help` lists
# the commands in this order.
from keilref.cli import check, position_commands, fmt, generate, stats, filter, interop, rules, completion, lsp  # noqa: F401  # isort: skip
from keilref.cli.app import EXIT_BROKEN_PIPE, EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE, app
from keilref.cli.terminal import ascii_fallback
from keilref.referee.batches import abandon_workers

def main() -> None:
    """Entry point for the console script and ``python -m keilref``."""
    # What the imports made lives as long as the command: kept out of the
    # collector's sight, it is not scanned again and again while the games
    # come (a tenth of a plain check's time).
    gc.freeze()
    ascii_fallback(sys.stdout, sys.stderr)
    try:
        app(prog_name="keilref")
    except KeyboardInterrupt:
        pass
    except SystemExit as e:
        if e.code != EXIT_INTERRUPTED:
            raise
    abandon_workers(EXIT_INTERRUPTED, sys.stdout, sys.stderr)


__all__ = ["EXIT_BROKEN_PIPE", "EXIT_FAILED", "EXIT_INTERRUPTED", "EXIT_OK", "EXIT_USAGE", "app", "main"]
