"""What the tests of paths that are URLs share: the games they store, the
command they run, a port nothing listens on, and the rule that an object
store's packages missing is a skip here and a failure in CI."""

from __future__ import annotations

import importlib
import json
import os
import socket

import pytest
from typer.testing import CliRunner

from keilref.cli import app

from cli_support import ROOT

GAMES = sorted((ROOT / "records/games").glob("size4-*.keil"))
"""The games every remote test stores, in the order a directory search finds them."""

REQUIRE = "KEILREF_REQUIRE_OBJECT_STORES"
"""Set to 1 (as CI sets it, having installed them) an object store's test packages missing is a failure."""


def need(*modules: str) -> None:
    """Skips the calling test module unless every one of ``modules`` imports;
    with :data:`REQUIRE` set to 1, fails it instead."""
    missing = []
    for name in modules:
        try:
            importlib.import_module(name)
        except ImportError:
            missing.append(name)
    if not missing:
        return
    why = f"needs {', '.join(missing)}"
    if os.environ.get(REQUIRE) == "1":
        pytest.fail(f"{why}, and {REQUIRE}=1 requires it", pytrace=False)
    pytest.skip(f"{why} ({REQUIRE}=1 makes this a failure)", allow_module_level=True)


def verdicts(*args: str) -> tuple[int, list[dict[str, object]], str]:
    """``keilref check --format jsonl ARGS``: its exit code, verdicts and whole output."""
    result = CliRunner().invoke(app, ["check", "--format", "jsonl", *args])
    lines = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    return result.exit_code, lines, result.output


def without_file(found: list[dict[str, object]]) -> list[dict[str, object]]:
    """Verdicts less their ``file``, to hold a remote copy's to the local file's."""
    return [{k: v for k, v in verdict.items() if k != "file"} for verdict in found]


def closed_port() -> int:
    """A loopback port that nothing listens on (a refused connection)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])
