"""Every output: verdicts and positions as text, JSON, CI reports, pictures and pages.

The fourth stage. Formats read verdicts and never decide one; the wording a
user reads about a verdict is written once and shared by every format.
"""

from __future__ import annotations

import dataclasses
import importlib
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, BinaryIO, ClassVar, Literal, NamedTuple

if TYPE_CHECKING:
    from keilref.records.sources import Source
    from keilref.referee.verdict import Verdict


@dataclass(frozen=True)
class CheckOptions:
    """Everything ``keilref check`` was asked, as one value: the command
    builds it once and hands it whole to the writer, the worker processes and
    :func:`~keilref.formats.findings.findings`; each reads what it needs."""

    format: str = "text"
    strict: bool = False
    """Fail unfinished games and games with a warning too."""
    quiet: bool = False
    """Leave out the games that pass (in a format that does not list every game)."""
    rules: str | None = None
    """``--rules``: every game replayed under this rule set."""
    jobs: int | None = None
    """Worker processes asked for (``None``: every core)."""
    encoding: str | None = None
    exclude: tuple[str, ...] = ()
    """The patterns of paths left out of a directory search."""
    scheduler: str | None = None
    """A Dask scheduler's address to check on."""
    show_settings: bool = False
    exit_zero: bool = False
    summary_path: str | None = None
    """GitHub's job summary (``$GITHUB_STEP_SUMMARY``)."""
    warn: Callable[[str], object] | None = None
    """Where a writer says what went wrong beside the output (a summary it could not write)."""
    sources: Mapping[str, Source] = field(default_factory=dict)
    """The sources checked, by the name their verdicts carry: a writer that
    reads the games again (the HTML report) reads them as the check did."""
    binary_output: BinaryIO | None = None
    """Where a binary format (:attr:`OutputFormat.binary`) writes its bytes: the ``-o`` file."""

    def for_workers(self) -> CheckOptions:
        """These options as a worker process needs them: without the sources
        (sent with every batch, they would cost more than the games), the
        main process's ``warn`` and its output file."""
        return dataclasses.replace(self, sources={}, warn=None, binary_output=None)


@dataclass(frozen=True)
class Summary:
    """How a check went, as the writers' ``close`` gets it."""

    counts: Counter[str]
    """Games by status."""
    warned: int
    """Games with at least one warning."""
    seconds: float
    interrupted: bool = False

    @property
    def games(self) -> int:
        return sum(self.counts.values())

    @property
    def line(self) -> str:
        """``12 games: 10 ok, 2 illegal in 0.31 s (39 games/s)``."""
        from keilref.formats.text import summary_line

        return summary_line(self.counts, self.seconds, warned=self.warned, interrupted=self.interrupted)


Causes = dict[tuple[str, int], list[str]]
"""Failing games, by file and index, and the rules each fails by."""

Place = tuple[str, int, int]
"""One fault as a format places it: its kind (``illegal``, ``mismatch``,
``error``, ``unfinished`` or ``warning``), its line and its column."""

Places = dict[tuple[str, int], list[Place]]
"""Games, by file and index, and where each of their faults is, in order."""


class Writer:
    """What every format's writer is: made as ``Writer(write, options)``, it
    takes the verdicts in input order, then ``close`` gets the summary.

    Options every format respects are handled here once: ``--quiet`` (the
    options a writer gets say whether it applies to this format) and where
    the output goes (``write``). A line format only says, in :meth:`lines`,
    what one verdict prints: that runs in the worker that judged the game,
    so only finished text crosses between processes. A document format
    overrides :meth:`add` and :meth:`close`.
    """

    spells: ClassVar[Literal["whole", "kind", "first", "listed"]] = "whole"
    """How much of each failing game's rules its output says (:meth:`read_back`):
    each rule ``whole`` (``illegal/superko``), only its ``kind``
    (``illegal``), only the ``first`` fault's, or none (``listed``: the games
    it lists with ``--quiet`` are the failing ones)."""

    writes_summary: ClassVar[bool] = False
    """Whether its output ends with the summary line (then it is not said
    again beside the output)."""

    def __init__(self, write: Callable[[str], object], options: CheckOptions = CheckOptions()) -> None:
        self.write = write
        self.options = options

    @classmethod
    def lines(cls, v: Verdict, options: CheckOptions) -> str | None:
        """What this format writes for one verdict, each line with its end;
        ``None`` for a format that needs the verdict itself (:meth:`add`).
        Runs in a worker process: it reads only its arguments."""
        return None

    @classmethod
    def of_batch(cls, items: list[Judged], options: CheckOptions) -> list[Judged]:
        """What a worker hands on of a batch's judged verdicts, in order, once
        each is judged. A format that writes a batch as one piece (a table's
        rows) makes that piece here, in the worker, as :attr:`Judged.part` of
        the batch's first item, so the verdicts need not cross to the main
        process; the piece holds only what ``--quiet`` keeps. Runs in a
        worker process: it reads only its arguments."""
        return items

    def take(self, judged: Judged) -> None:
        """A verdict as it came from the worker that judged it, written unless quiet leaves it out."""
        if judged.part is not None:
            self.add_part(judged.part)
        if self.options.quiet and not judged.fails:
            return
        if judged.text is not None:
            self.write_lines(judged.text)
        elif judged.verdict is not None:
            self.add(judged.verdict)

    def take_all(self, items: list[Judged]) -> None:
        """:meth:`take` each of a batch's verdicts in order; a line format that
        writes its lines as they are (no :meth:`write_lines` of its own) writes
        the batch's lines in one piece."""
        if type(self).write_lines is not Writer.write_lines or any(j.text is None for j in items):
            for judged in items:
                self.take(judged)
            return
        quiet = self.options.quiet
        text = "".join(j.text for j in items if j.text and (j.fails or not quiet))
        if text:
            self.write(text)

    def write_lines(self, text: str) -> None:
        """Write what :meth:`lines` made of a verdict."""
        self.write(text)

    def add_part(self, part: object) -> None:
        """Write a batch's piece as :meth:`of_batch` made it in the worker."""
        raise NotImplementedError(f"{type(self).__name__} makes no piece of a batch")

    def add(self, v: Verdict) -> None:
        """Write one verdict (quiet is the caller's, see :meth:`take`)."""
        text = self.lines(v, self.options)
        if text is not None:
            self.write_lines(text)

    def close(self, summary: Summary | None = None) -> None:
        """Finish the output, once every verdict is in."""

    @classmethod
    def read_back(cls, text: str) -> Causes:
        """The failing games and their rules as this format's output tells them.

        Only tests read output back; every registered format must say how, so
        that it is held to the same truth as the others."""
        raise NotImplementedError(f"{cls.__name__} cannot read its output back")

    @classmethod
    def unavailable(cls) -> str | None:
        """Why this format cannot be written here (an optional extra not
        installed), said before the check starts; ``None`` when it can."""
        return None

    @classmethod
    def read_bytes(cls, data: bytes) -> Causes:
        """:meth:`read_back` for a binary format's output (only tests read it)."""
        return cls.read_back(data.decode("utf-8"))

    @classmethod
    def read_places(cls, text: str) -> Places | None:
        """Where this format's output places each listed game's faults, as
        :meth:`read_back` reads the games; ``None`` for a format that names
        no line and column (only tests read it, holding every format that
        places a fault to the same place)."""
        return None


class Judged(NamedTuple):
    """A verdict as a worker hands it to the writer: a few words and the
    finished text (a line format), or the verdict itself (a document). A
    tuple, so that little more than the text crosses between processes."""

    status: str
    """The status's value (``ok``, ``illegal``, ...)."""
    warned: bool
    """Whether the verdict has a warning."""
    fails: bool
    """Whether the game fails the check, as strict as the check was asked to be."""
    text: str | None
    """What the format's :meth:`Writer.lines` made of it, or ``None``."""
    verdict: Verdict | None
    """The verdict, for a format that writes it itself (``None`` with ``text``,
    and once :meth:`Writer.of_batch` has made it into its batch's piece)."""
    part: object = None
    """A batch's piece as :meth:`Writer.of_batch` made it, on the batch's
    first item: written whatever ``--quiet`` says of that item's game."""


def judge(v: Verdict, writer: type[Writer], options: CheckOptions) -> Judged:
    """A verdict as ``writer`` takes it; runs where the game was judged."""
    text = writer.lines(v, options)
    return Judged(v.status.value, bool(v.warnings), v.fails(strict=options.strict), text, v if text is None else None)


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
    writer: str
    """``module:Class`` of its :class:`Writer`, imported only when the format
    is chosen (a plain check loads no XML machinery)."""
    help: str = ""
    rereads: bool = False
    """Whether its writer reads the games again after the check (the HTML
    report's boards): standard input is then kept for it."""
    runner_commands: bool = False
    """Whether its lines are a CI runner's workflow commands by design (GitHub
    annotations, each part escaped): the one output that may start a line with
    ``::``, and only with the commands it builds."""
    binary: bool = False
    """Whether it is bytes, not text (a Parquet table): written only to a file
    given with ``-o``, never to a terminal or a pipe of text."""

    def writer_class(self) -> type[Writer]:
        """Its writer's class, its module imported now."""
        module, _, name = self.writer.partition(":")
        cls: type[Writer] = getattr(importlib.import_module(module), name)
        return cls

    def make_writer(self, write: Callable[[str], object], options: CheckOptions) -> Writer:
        """Its writer, told whether ``--quiet`` applies to it."""
        quiet = options.quiet and not self.lists_passing
        return self.writer_class()(write, dataclasses.replace(options, format=self.name, quiet=quiet))


FORMATS: dict[str, OutputFormat] = {
    f.name: f
    for f in (
        OutputFormat("text", "line", ".txt", False, "keilref.formats.text:TextWriter", "a line per game, then the summary"),
        OutputFormat("jsonl", "line", ".jsonl", False, "keilref.formats.jsonl:JsonLinesWriter", "a JSON object per game"),
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
        OutputFormat("tap", "line", ".tap", True, "keilref.formats.tap:TapWriter", "TAP 14, a test point per game"),
        OutputFormat(
            "parquet", "document", ".parquet", True, "keilref.formats.parquet:ParquetWriter",
            "the verdict table as Parquet (needs -o and the arrow extra)", binary=True,
        ),
    )
}
"""Every output format of ``check``, in the order ``--help`` lists them: the
option's choices, ``-o`` and the writer read this, nothing else."""

LINE_FORMATS = tuple(name for name, f in FORMATS.items() if f.kind == "line")
"""The formats written a verdict at a time, each verdict's lines on their own."""
