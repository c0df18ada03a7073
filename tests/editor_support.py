"""What the tests of docs/editors.md's recipes share: the recipe as the page
prints it, and an environment in which a real editor starts this checkout's
``keilref`` and reads nothing of the user's own configuration."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
EDITORS = ROOT / "docs" / "editors.md"

# A record of one game whose fourth turn plays on a taken point, with a clock
# in a comment: one diagnostic, and tokens of several kinds, the illegal
# modifier among them.
OCCUPIED = (
    '[Event "Club night"]\n'
    '[Rules "keil"]\n'
    '[Size "5"]\n'
    '[Komi "3"]\n'
    '[Button "yes"]\n'
    "\n"
    "1. c3 {[%clk 0:04:58]} d4 2. b2 c3 *\n"
)
# Where keilref check places its fault (0-based line, column, as the editors count).
OCCUPIED_LINE = 6
OCCUPIED_COLUMN = 32
OCCUPIED_MESSAGE = "game 1: illegal: move 2 (White) c3, turn 4: occupied"


def recipe(heading: str, language: str) -> str:
    """The first ``language`` block under ``heading`` (a line of the page,
    ``## ...`` or ``### ...``), up to the next heading of any level."""
    text = EDITORS.read_text(encoding="utf-8")
    marker = f"\n{heading}\n"
    assert marker in text, f"docs/editors.md has no heading {heading!r}"
    section = re.split(r"\n#{1,6} ", text.split(marker, 1)[1], maxsplit=1)[0]
    found = re.search(rf"```{re.escape(language)}\n(.*?)```", section, re.DOTALL)
    assert found is not None, f"docs/editors.md: {heading!r} has no {language} block"
    return found.group(1)


def editor_env(tmp_path: Path) -> dict[str, str]:
    """An environment whose ``keilref`` is this checkout's, run by this
    Python, and whose home and XDG folders are empty ones under ``tmp_path``."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    launcher = bin_dir / "keilref"
    launcher.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m keilref "$@"\n', encoding="utf-8")
    launcher.chmod(0o755)
    home = tmp_path / "home"
    home.mkdir()
    return {
        **os.environ,
        "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / "config"),
        "XDG_DATA_HOME": str(home / "data"),
        "XDG_STATE_HOME": str(home / "state"),
        "XDG_CACHE_HOME": str(home / "cache"),
    }


def run_neovim_probe(program: str, tmp_path: Path, record: Path, cwd: Path, env: dict[str, str]) -> dict[str, Any]:
    """Headless Neovim with ``tmp_path``'s ``init.lua`` (a recipe) opening
    ``record``, then ``probe.lua``, which writes what it saw as JSON to
    ``KEILREF_PROBE_OUT``; what it saw, once it says nothing went wrong."""
    results = tmp_path / "results.json"
    done = subprocess.run(
        [program, "--headless", "-u", str(tmp_path / "init.lua"), "-c", f"luafile {tmp_path / 'probe.lua'}", str(record)],
        cwd=cwd,
        env={**env, "KEILREF_PROBE_OUT": str(results)},
        capture_output=True,
        text=True,
        timeout=180,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    assert results.exists(), (done.returncode, done.stdout, done.stderr)
    out: dict[str, Any] = json.loads(results.read_text(encoding="utf-8"))
    assert "error" not in out, out["error"]
    return out
