"""Every output: verdicts and positions as text, JSON, CI reports, pictures and pages.

The fourth stage. Formats read verdicts and never decide one; the wording a
user reads about a verdict is written once and shared by every format.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, Protocol

if TYPE_CHECKING:
    from keilref.records.sources import Source
    from keilref.referee.verdict import Verdict


class DocumentWriter(Protocol):
    """What a document format's writer does: take the verdicts as they come,
    then finish the document. Made as ``Writer(write, options)``."""

    def add(self, v: Verdict) -> None: ...
    def close(self) -> None: ...


@dataclass(frozen=True)
class WriterOptions:
    """What ``check`` tells every document writer; each reads what it needs."""

    strict: bool = False
    rules: str | None = None
    summary_path: str | None = None
    """GitHub's job summary (``$GITHUB_STEP_SUMMARY``)."""
    warn: Callable[[str], object] | None = None
    """Where a writer says what went wrong beside the output (a summary it could not write)."""
    sources: Mapping[str, Source] = field(default_factory=dict)
    """The sources checked, by the name their verdicts carry: a writer that
    reads the games again (the HTML report) reads them as the check did."""


@dataclass(frozen=True)
class OutputFormat:
    """One ``check --format``: how it is written, and where its writer lives."""

    name: str
    kind: Literal["line", "document"]
    """``line``: each verdict's lines on their own, printed in the worker that
    judged it; ``document``: one document, written by a writer in the main process."""
    extension: str
    """What a file of it is called (``-o report.sarif``)."""
    lists_passing: bool
    """Whether it lists the games that pass even with ``--quiet`` (a test report lists every test)."""
    writer: str | None = None
    """``module:Class`` of a document format's writer, imported only when the
    format is chosen (a plain check loads no XML machinery)."""
    help: str = ""
    rereads: bool = False
    """Whether its writer reads the games again after the check (the HTML
    report's boards): standard input is then kept for it."""
    runner_commands: bool = False
    """Whether its lines are a CI runner's workflow commands by design (GitHub
    annotations, each part escaped): the one output that may start a line with
    ``::``, and only with the commands it builds."""

    def make_writer(self, write: Callable[[str], object], options: WriterOptions) -> DocumentWriter:
        """The writer of a document format, its module imported now."""
        if self.writer is None:
            raise ValueError(f"{self.name} is a line format")
        module, _, name = self.writer.partition(":")
        cls = getattr(importlib.import_module(module), name)
        made: DocumentWriter = cls(write, options)
        return made


FORMATS: dict[str, OutputFormat] = {
    f.name: f
    for f in (
        OutputFormat("text", "line", ".txt", False, help="a line per game, then the summary"),
        OutputFormat("jsonl", "line", ".jsonl", False, help="a JSON object per game"),
        OutputFormat("junit", "document", ".xml", True, "keilref.formats.junit:JUnitWriter", "JUnit XML"),
        OutputFormat(
            "github", "document", ".txt", False, "keilref.formats.github:GitHubWriter", "GitHub annotations",
            runner_commands=True,
        ),
        OutputFormat("sarif", "document", ".sarif", False, "keilref.formats.sarif:SarifWriter", "SARIF 2.1.0"),
        OutputFormat("gitlab", "document", ".json", False, "keilref.formats.gitlab:GitLabWriter", "GitLab Code Quality"),
        OutputFormat(
            "html", "document", ".html", True, "keilref.formats.html:HtmlWriter", "a self-contained page", rereads=True
        ),
        OutputFormat(
            "checkstyle", "document", ".xml", False, "keilref.formats.checkstyle:CheckstyleWriter", "Checkstyle XML"
        ),
    )
}
"""Every output format of ``check``, in the order ``--help`` lists them: the
option's choices, ``-o`` and the printer read this, nothing else."""

LINE_FORMATS = tuple(name for name, f in FORMATS.items() if f.kind == "line")
"""The formats written a verdict at a time, each verdict's lines on their own."""
