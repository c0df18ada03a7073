"""A game of many variations costs memory in proportion to what its record
holds: measured as the peak resident memory of a process that reads it, at
two sizes, so that what every process costs anyway cancels out.

The grammar's reading once cost about 1.5 KB a variation (600,000
variations in a 4.8 MB game took 993 MB); the record itself holds about
330 bytes a variation."""

from __future__ import annotations

import subprocess
import sys

import pytest

from cli_support import ROOT

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="resource.getrusage")

READ = """
import resource, sys
from keilref.records.parser import parse_games
n, tail = int(sys.argv[1]), sys.argv[2]
text = '[Event "v"]\\n[Size "7"]\\n1. a1 ' + "(1. b1) " * n + tail
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
(game,) = parse_games(text)
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(type(game).__name__, after - before)
"""


def grown_kb(n: int, tail: str) -> tuple[str, int]:
    """What reading a game of ``n`` variations added to the process's peak (KB)."""
    proc = subprocess.run([sys.executable, "-c", READ, str(n), tail], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    kind, grown = proc.stdout.split()
    return kind, int(grown)


def test_a_well_formed_game_of_variations_costs_what_its_record_holds() -> None:
    small, large = 10_000, 60_000
    kind, low = grown_kb(small, "*")
    assert kind == "Record"
    _, high = grown_kb(large, "*")
    per_variation = (high - low) * 1024 / (large - small)
    assert per_variation < 500, f"{per_variation:.0f} bytes a variation"


def test_a_broken_game_of_variations_costs_less_than_before() -> None:
    """A fault at the end: the grammar reads it all to find it, and keeps no token."""
    small, large = 5_000, 30_000
    kind, low = grown_kb(small, "(")
    assert kind == "RecordSyntaxError"
    _, high = grown_kb(large, "(")
    per_variation = (high - low) * 1024 / (large - small)
    assert per_variation < 900, f"{per_variation:.0f} bytes a variation"


def test_a_long_broken_game_of_variations_is_worded_in_the_memory_of_a_few() -> None:
    """Past ``CHECK_FIRST_CHARS`` the grammar finds the fault building nothing:
    the variations cost no memory at all (the record parser's reading of the
    same games once cost about 590 bytes a variation)."""
    small, large = 130_000, 400_000  # 1.0 MB and 3.2 MB, both checked first
    kind, low = grown_kb(small, "zz")
    assert kind == "RecordSyntaxError"
    _, high = grown_kb(large, "zz")
    per_variation = (high - low) * 1024 / (large - small)
    assert per_variation < 40, f"{per_variation:.0f} bytes a variation"
