"""``keilref check``'s counts: each verdict counted and handed to the chosen
format's writer, then the summary, which the writer's ``close`` gets."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable

from keilref.formats import FORMATS, CheckOptions, Judged, Summary, Writer, judge
from keilref.referee.verdict import Verdict


class Tally:
    """Counts the verdicts by status as they come and hands each to the writer
    of ``options.format`` (one of :data:`~keilref.formats.FORMATS`)."""

    def __init__(self, write: Callable[[str], object], options: CheckOptions) -> None:
        if options.format not in FORMATS:
            raise ValueError(f"unknown format {options.format!r}")
        self.writer: Writer = FORMATS[options.format].make_writer(write, options)
        self._options = options
        self._started = time.perf_counter()
        self.counts: Counter[str] = Counter()
        """Games by status."""
        self.warned = 0
        """Games with at least one warning."""
        self.failed = False
        """Whether any game failed so far."""

    def in_worker(self) -> Callable[[Verdict], Judged]:
        """What a worker process makes of each verdict it judged, for this writer
        (picklable), and of each game the native path judged (see :mod:`keilref.formats.templates`)."""
        from keilref.formats.templates import LineRendering

        return LineRendering(type(self.writer), self._options.for_workers())

    def add(self, v: Verdict) -> None:
        """Count a verdict judged here (or on a cluster) and write it."""
        self.take(judge(v, type(self.writer), self._options))

    def take(self, judged: Judged) -> None:
        """Count a verdict as a worker made it (see :meth:`in_worker`) and write it."""
        self.counts[judged.status] += 1
        self.warned += judged.warned
        self.failed |= judged.fails
        self.writer.take(judged)

    def take_all(self, items: list[Judged]) -> None:
        """:meth:`take` each of a batch's verdicts, the writer given them at once."""
        counts = self.counts
        for judged in items:
            counts[judged.status] += 1
            self.warned += judged.warned
            self.failed |= judged.fails
        self.writer.take_all(items)

    def summary(self, *, interrupted: bool = False) -> Summary:
        """How the check went, over the games counted so far."""
        return Summary(Counter(self.counts), self.warned, time.perf_counter() - self._started, interrupted)

    def close(self, *, interrupted: bool = False) -> Summary:
        """Finish the output (a document's end, the text summary); return the summary."""
        summary = self.summary(interrupted=interrupted)
        self.writer.close(summary)
        return summary
