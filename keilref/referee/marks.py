"""Where the referee marks a game's text: the turns it refuses.

A highlighter colours a record by its words (:mod:`keilref.records.highlight`);
which of its turns cannot be played is the verdict's to say, and this is
the one place that reads it for that.
"""

from __future__ import annotations

from keilref.referee.verdict import Verdict

__all__ = ["illegal_places"]


def illegal_places(verdict: Verdict) -> tuple[tuple[int, int], ...]:
    """Line and column of each illegal turn of the game: the main line's
    first, and each variation's first."""
    places = [] if verdict.illegal is None else [(verdict.illegal.line, verdict.illegal.column)]
    places.extend((fault.line, fault.column) for fault in verdict.variation_illegal)
    return tuple(places)
