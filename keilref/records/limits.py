"""The caps on what one game may hold, read by both read paths.

Read as ``limits.MAX_TURNS`` at run time, not copied into the readers, so
that a test may lower a cap for every reader at once.
"""

from __future__ import annotations

__all__ = ["MAX_GAME_BYTES", "MAX_NAG", "MAX_TURNS", "MAX_VARIATION_DEPTH"]

MAX_GAME_BYTES = 10_000_000
"""The most bytes one game may have (10 MB). A longer game is an ``error`` at
its first line, is never held in memory, and the games after it are read."""

MAX_TURNS = 1_000_000
"""The most turns one game may have. A longer game is an ``error`` at its
first line, so that memory stays bounded by this and the byte cap."""

MAX_VARIATION_DEPTH = 100
"""Variations inside one another, at most: every reader, writer and replay of
a variation tree may then recurse through it without nearing Python's limit."""

MAX_NAG = 255
"""The highest numeric glyph (``$255``), as in PGN."""
