"""Checkstyle XML: the report Jenkins Warnings NG, reviewdog and many CI tools read.

One ``<file>`` per file with a failing game, one ``<error>`` per fault (see
:meth:`~keilref.referee.verdict.Verdict.faults`), at the fault's line and
column, its ``source`` ``keilref.<rule>``. Checkstyle's severities say how
much a fault weighs: ``error`` for a game that fails as it is, ``warning``
for what fails only by ``--strict`` (an unfinished game, a warning).
Streamed: a file's element is opened when its first fault comes.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from xml.sax.saxutils import quoteattr

import keilref
from keilref.escaping import one_line, shown_name
from keilref.formats import CheckOptions, Causes, Places, Summary, Writer
from keilref.formats.findings import Finding, Level, Weight, findings, game_of
from keilref.referee.verdict import Verdict

_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _attr(text: str) -> str:
    # XML 1.0 cannot hold most control characters, even escaped.
    return quoteattr(_NOT_XML.sub("\ufffd", one_line(text)))


SEVERITIES = {Weight.FAILS: "error", Weight.STRICT: "warning", Weight.INFORMS: "warning"}
"""Checkstyle's words for how much a finding weighs."""


def severity(f: Finding) -> str:
    return SEVERITIES[f.weight]


class CheckstyleWriter(Writer):
    """``<checkstyle>``, then a ``<file>`` per file with faults, in the order the games come."""

    def __init__(self, write: Callable[[str], object], options: CheckOptions = CheckOptions()) -> None:
        super().__init__(write, options)
        self._write = write
        self._file: str | None = None
        self._write('<?xml version="1.0" encoding="UTF-8"?>\n')
        self._write(f"<checkstyle version={_attr(keilref.__version__)}>\n")

    def add(self, v: Verdict) -> None:
        for f in findings(v, self.options):
            if f.level is not Level.ERROR:
                continue
            if v.file != self._file:
                self._end_file()
                self._file = v.file
                self._write(f"  <file name={_attr(shown_name(v.file))}>\n")
            self._write(
                f'    <error line="{f.line}" column="{f.column}" severity="{severity(f)}"'
                f" message={_attr(f.message)} source={_attr('keilref.' + f.rule)}/>\n"
            )

    def _end_file(self) -> None:
        if self._file is not None:
            self._write("  </file>\n")
        self._file = None

    def close(self, summary: Summary | None = None) -> None:
        self._end_file()
        self._write("</checkstyle>\n")

    @classmethod
    def read_back(cls, text: str) -> Causes:
        import xml.etree.ElementTree as ET

        failing: Causes = {}
        for file in ET.fromstring(text):
            for error in file:
                key = (file.get("name", ""), game_of(error.get("message", "")))
                failing.setdefault(key, []).append(error.get("source", "").removeprefix("keilref."))
        return failing

    @classmethod
    def read_places(cls, text: str) -> Places:
        import xml.etree.ElementTree as ET

        places: Places = {}
        for file in ET.fromstring(text):
            for error in file:
                key = (file.get("name", ""), game_of(error.get("message", "")))
                kind = error.get("source", "").removeprefix("keilref.").partition("/")[0]
                places.setdefault(key, []).append((kind, int(error.get("line", "0")), int(error.get("column", "0"))))
        return places


def checkstyle_xml(verdicts: Iterable[Verdict], *, strict: bool = False) -> str:
    """The whole report as a string (see :class:`CheckstyleWriter`)."""
    parts: list[str] = []
    writer = CheckstyleWriter(parts.append, CheckOptions(strict=strict))
    for v in verdicts:
        writer.add(v)
    writer.close()
    return "".join(parts)
