"""``keilref check``'s output: verdicts in the chosen format as they arrive, then the summary."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable

from keilref import report
from keilref.verdict import Verdict


class VerdictPrinter:
    """Writes each verdict in one of :data:`~keilref.report.FORMATS`, keeping the counts.

    ``quiet`` leaves out the games that pass (JUnit keeps them: a test report
    lists every test). ``strict`` fails unfinished games and games with a
    warning.
    """

    def __init__(self, write: Callable[[str], object], format: str, *, strict: bool = False, quiet: bool = False) -> None:
        if format not in report.FORMATS:
            raise ValueError(f"unknown format {format!r}")
        self._write = write
        self._format = format
        self._strict = strict
        self._quiet = quiet and format != "junit"
        self._junit = report.JUnitWriter(write, strict=strict) if format == "junit" else None
        self._started = time.perf_counter()
        self.counts: Counter[str] = Counter()
        """Games by status."""
        self.warned = 0
        """Games with at least one warning."""
        self.failed = False
        """Whether any game failed so far."""

    def count(self, v: Verdict) -> bool:
        """Count the verdict without writing it; whether the game fails."""
        self.counts[v.status.value] += 1
        self.warned += bool(v.warnings)
        fails = v.fails(strict=self._strict)
        self.failed |= fails
        return fails

    def add(self, v: Verdict) -> None:
        """Count the verdict and write it (unless quiet and it passes)."""
        fails = self.count(v)
        if self._quiet and not fails:
            return
        if self._junit is not None:
            self._junit.add(v)
            return
        lines: list[str] = []
        if self._format == "text":
            lines = [report.text_line(v), *report.warning_lines(v)]
        elif self._format == "jsonl":
            lines = [report.json_line(v)]
        else:
            annotation = report.github_line(v, strict=self._strict)
            lines = [] if annotation is None else [annotation]
        for line in lines:
            self._write(line + "\n")

    def close(self, *, interrupted: bool = False) -> str:
        """Finish the output (the text summary, the JUnit document); return the summary line."""
        if self._junit is not None:
            self._junit.close()
        summary = report.summary_line(
            self.counts, time.perf_counter() - self._started, warned=self.warned, interrupted=interrupted
        )
        if self._format == "text":
            self._write(summary + "\n")
        return summary
