"""The summary line reaches the terminal for every format, and only the terminal."""

from __future__ import annotations

import os
import pty
import subprocess
import sys

from cli_support import ROOT


def _check(fmt: str) -> tuple[bytes, bytes]:
    """Run a check with standard error on a pseudo-terminal, standard output on a pipe."""
    main, terminal = pty.openpty()
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "keilref", "check", "-j", "1", "-f", fmt, "records/faults"],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=terminal,
            timeout=120,
            check=False,
        )
        os.close(terminal)
        seen = b""
        while True:
            try:
                chunk = os.read(main, 4096)
            except OSError:  # the terminal closed
                break
            if not chunk:
                break
            seen += chunk
    finally:
        os.close(main)
    assert proc.returncode == 1
    return proc.stdout, seen


def test_a_document_on_stdout_leaves_the_summary_on_the_terminal() -> None:
    stdout, terminal = _check("sarif")
    assert b"49 games: 2 ok, 9 mismatch, 20 illegal, 18 error; 2 with warnings in " in terminal
    assert b"games:" not in stdout  # the SARIF document alone
    assert stdout.lstrip().startswith(b"{")
