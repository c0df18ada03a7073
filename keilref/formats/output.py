"""``keilref check``'s output: verdicts in the chosen format as they arrive, then the summary."""

from __future__ import annotations

import functools
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from typing import NamedTuple

from keilref.formats import FORMATS, LINE_FORMATS, DocumentWriter, WriterOptions, text as report
from keilref.referee.batches import PARALLEL_THRESHOLD, Batch, check_batch, map_batches
from keilref.records.sources import Source
from keilref.referee.verdict import Verdict

def document_writer(
    format: str,
    write: Callable[[str], object],
    options: WriterOptions = WriterOptions(),
) -> DocumentWriter | None:
    """The writer of a document format; ``None`` for the line formats (text, jsonl).

    Each format's module is loaded only when that format is asked for.
    """
    chosen = FORMATS[format]
    return None if chosen.kind == "line" else chosen.make_writer(write, options)


def verdict_lines(v: Verdict, format: str) -> str:
    """What a line format writes for one verdict, each line with its end."""
    if format == "text":
        return "".join(line + "\n" for line in (report.text_line(v), *report.warning_lines(v)))
    if format == "jsonl":
        return report.json_line(v) + "\n"
    raise ValueError(f"{format!r} is not a line format")


class PrintedVerdict(NamedTuple):
    """A verdict as a line format counts and writes it.

    A parallel check makes these in the workers that judged the games, so
    that only a few words and the finished lines cross to the process that
    prints, rather than whole verdicts to be rebuilt and formatted there.
    """

    status: str
    """The status's value (``ok``, ``illegal``, ...)."""
    warned: bool
    """Whether the verdict has a warning."""
    fails: bool
    """Whether the game fails the check, as strict as the check was asked to be."""
    text: str
    """The lines to write."""


def printed(v: Verdict, format: str, *, strict: bool = False) -> PrintedVerdict:
    """The verdict as :class:`VerdictPrinter` counts and writes it in a line format."""
    return PrintedVerdict(v.status.value, bool(v.warnings), v.fails(strict=strict), verdict_lines(v, format))


def _print_batch(batch: Batch, *, rules: str | None, format: str, strict: bool) -> list[PrintedVerdict]:
    return [printed(v, format, strict=strict) for v in check_batch(batch, rules)]


def printed_checks(
    sources: Sequence[Source],
    format: str,
    *,
    strict: bool = False,
    rules: str | None = None,
    jobs: int = 1,
    on_progress: Callable[[int], None] | None = None,
    parallel_threshold: int = PARALLEL_THRESHOLD,
) -> Iterator[PrintedVerdict]:
    """:func:`~keilref.referee.batches.check_sources` for a line format: every game's
    verdict, in input order, printed where it was judged."""
    if format not in LINE_FORMATS:
        raise ValueError(f"{format!r} is not a line format")
    work = functools.partial(_print_batch, rules=rules, format=format, strict=strict)
    for _, items in map_batches(
        sources, work, jobs=jobs, on_progress=on_progress, parallel_threshold=parallel_threshold
    ):
        yield from items


class VerdictPrinter:
    """Writes each verdict in one of :data:`~keilref.formats.FORMATS`, keeping the counts.

    ``quiet`` leaves out the games that pass, in the formats that do not
    list every game (:attr:`~keilref.formats.OutputFormat.lists_passing`). ``strict`` fails unfinished games and games with a
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
        rules: str | None = None,
        sources: Sequence[Source] = (),
    ) -> None:
        if format not in FORMATS:
            raise ValueError(f"unknown format {format!r}")
        self._write = write
        self._format = FORMATS[format]
        self._strict = strict
        # A format that lists every game (JUnit's test report, the HTML table) keeps them when quiet.
        self._quiet = quiet and not self._format.lists_passing
        options = WriterOptions(
            strict=strict, rules=rules, summary_path=summary_path, warn=warn, sources={s.name: s for s in sources}
        )
        self._document = document_writer(format, write, options)
        self._started = time.perf_counter()
        self.counts: Counter[str] = Counter()
        """Games by status."""
        self.warned = 0
        """Games with at least one warning."""
        self.failed = False
        """Whether any game failed so far."""

    def count(self, v: Verdict) -> bool:
        """Count the verdict without writing it; whether the game fails."""
        return self._count(v.status.value, bool(v.warnings), v.fails(strict=self._strict))

    def _count(self, status: str, warned: bool, fails: bool) -> bool:
        self.counts[status] += 1
        self.warned += warned
        self.failed |= fails
        return fails

    def add(self, v: Verdict) -> None:
        """Count the verdict and write it (unless quiet and it passes)."""
        fails = self.count(v)
        if self._quiet and not fails:
            return
        if self._document is not None:
            self._document.add(v)
            return
        self._write(verdict_lines(v, self._format.name))

    def add_printed(self, p: PrintedVerdict) -> None:
        """:meth:`add` for a verdict a line format already printed (see :func:`printed_checks`)."""
        if self._document is not None:
            raise ValueError(f"{self._format.name} is not a line format")
        fails = self._count(p.status, p.warned, p.fails)
        if self._quiet and not fails:
            return
        self._write(p.text)

    def summary(self, *, interrupted: bool = False) -> str:
        """The summary line of the games counted so far."""
        return report.summary_line(
            self.counts, time.perf_counter() - self._started, warned=self.warned, interrupted=interrupted
        )

    def close(self, *, interrupted: bool = False) -> str:
        """Finish the output (the text summary, a document's end); return the summary line."""
        if self._document is not None:
            self._document.close()
        summary = self.summary(interrupted=interrupted)
        if self._format.name == "text":
            self._write(summary + "\n")
        return summary
