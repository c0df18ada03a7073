"""The ``keilref`` command: a thin layer over the library, one module per command.

Errors go to stderr as one line; results go to stdout. Exit codes are the
named constants of :mod:`keilref.cli.app`. Each command module registers
its command on the one :data:`~keilref.cli.app.app`.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import sys

# Importing a command module registers its command; `keilref --help` lists
# the commands in this order.
from keilref.cli import check, position, fmt, generate, stats, filter, interop, rules  # noqa: F401  # isort: skip
from keilref.cli.app import EXIT_BROKEN_PIPE, EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE, app
from keilref.cli.terminal import ascii_fallback

def main() -> None:
    """Entry point for the console script and ``python -m keilref``."""
    ascii_fallback(sys.stdout, sys.stderr)
    try:
        app(prog_name="keilref")
    except KeyboardInterrupt:
        pass
    except SystemExit as e:
        if e.code != EXIT_INTERRUPTED:
            raise
    # Interrupted. Worker processes stopped mid-batch leave the pool's threads
    # unjoinable, and a normal exit would wait for them for ever; workers still
    # waiting for a batch would outlive this process and hold its output open.
    for child in multiprocessing.active_children():
        child.kill()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(EXIT_INTERRUPTED)


__all__ = ["EXIT_BROKEN_PIPE", "EXIT_FAILED", "EXIT_INTERRUPTED", "EXIT_OK", "EXIT_USAGE", "app", "main"]
