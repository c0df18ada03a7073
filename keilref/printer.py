"""``keilref check``'s output: verdicts in the chosen format as they arrive, then the summary."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from typing import Protocol

from keilref import report
from keilref.verdict import Verdict


class DocumentWriter(Protocol):
    """A format written as one document (or held back in part) rather than a line per game."""

    def add(self, v: Verdict) -> None: ...
    def close(self) -> None: ...


def document_writer(
    format: str,
    write: Callable[[str], object],
    *,
    strict: bool = False,
    summary_path: str | None = None,
    warn: Callable[[str], object] | None = None,
) -> DocumentWriter | None:
    """The writer of a document format; ``None`` for the line formats (text, jsonl).

    Each format's module is loaded only when that format is asked for.
    """
    if format == "junit":
        from keilref.junit import JUnitWriter

        return JUnitWriter(write, strict=strict)
    if format == "sarif":
        from keilref.sarif import SarifWriter

        return SarifWriter(write, strict=strict)
    if format == "gitlab":
        from keilref.gitlab import GitLabWriter

        return GitLabWriter(write, strict=strict)
    if format == "github":
        from keilref.github import GitHubWriter

        return GitHubWriter(write, strict=strict, summary_path=summary_path, warn=warn)
    return None


class VerdictPrinter:
    """Writes each verdict in one of :data:`~keilref.report.FORMATS`, keeping the counts.

    ``quiet`` leaves out the games that pass (JUnit keeps them: a test report
    lists every test). ``strict`` fails unfinished games and games with a
    warning.
    """

    def __init__(
        self,
        write: Callable[[str], object],
        format: str,
        *,
        strict: bool = False,
        quiet: bool = False,
        summary_path: str | None = None,
        warn: Callable[[str], object] | None = None,
    ) -> None:
        if format not in report.FORMATS:
            raise ValueError(f"unknown format {format!r}")
        self._write = write
        self._format = format
        self._strict = strict
        self._quiet = quiet
        # Document formats decide themselves what they list (JUnit: every game).
        self._document = document_writer(format, write, strict=strict, summary_path=summary_path, warn=warn)
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
        if self._quiet and not fails and self._format != "junit":  # a test report lists every test
            return
        if self._document is not None:
            self._document.add(v)
            return
        lines = [report.text_line(v), *report.warning_lines(v)] if self._format == "text" else [report.json_line(v)]
        for line in lines:
            self._write(line + "\n")

    def close(self, *, interrupted: bool = False) -> str:
        """Finish the output (the text summary, a document's end); return the summary line."""
        if self._document is not None:
            self._document.close()
        summary = report.summary_line(
            self.counts, time.perf_counter() - self._started, warned=self.warned, interrupted=interrupted
        )
        if self._format == "text":
            self._write(summary + "\n")
        return summary
