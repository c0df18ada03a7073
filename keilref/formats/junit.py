"""JUnit XML for ``keilref check --format junit``: one testsuite per file and
one testcase per game, for CI systems that show test reports.

Its own module, like every document format, so that the XML machinery is
loaded only when this format is asked for.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from collections.abc import Callable, Iterable
from typing import IO
from xml.sax.saxutils import escape, quoteattr

from keilref.escaping import one_line, shown_name
from keilref.formats.text import text_line, warning_lines
from keilref.formats import WriterOptions
from keilref.referee.verdict import Status, Verdict


class JUnitWriter:
    """JUnit XML, one testsuite per file and one testcase per game, streamed.

    The counts belong in the opening tags, before the testcases, so the
    body is spooled (in memory, then on disk when large) and the header is
    written once everything is counted: memory stays flat on any archive.
    """

    def __init__(self, write: Callable[[str], object], options: WriterOptions = WriterOptions()) -> None:
        self._write = write
        self._strict = options.strict
        self._body = tempfile.SpooledTemporaryFile(max_size=16 << 20, mode="w+", encoding="utf-8")
        self._suite: list[str] = []
        self._suite_spool: IO[str] | None = None
        self._file: str | None = None
        self._tests = self._failures = 0
        self._suite_tests = self._suite_failures = 0

    def add(self, v: Verdict) -> None:
        if v.file != self._file:
            self._end_suite()
            self._file = v.file
        faults = v.faults(strict=self._strict)
        fails = bool(faults)
        self._tests += 1
        self._suite_tests += 1
        self._failures += fails
        self._suite_failures += fails
        name = _xml_attr(f"game {v.game} (line {v.line})")
        self._suite.append(f"    <testcase classname={_xml_attr(shown_name(v.file))} name={name}>")
        tags = [(key, value) for key, value in (("event", v.event), ("black", v.black), ("white", v.white)) if value]
        if tags:
            self._suite.append("      <properties>")
            self._suite.extend(
                f"        <property name={_xml_attr(key)} value={_xml_attr(value)}/>" for key, value in tags
            )
            self._suite.append("      </properties>")
        if faults:
            # One failure, of the first fault (the status's, else the first warning); the body has them all.
            kind, _, reason = faults[0].rule.partition("/")
            reason = reason or kind
            body = "\n".join([text_line(v), *warning_lines(v)])
            self._suite.append(
                f"      <failure type={_xml_attr(kind)} message={_xml_attr(reason)}>{_xml_text(body)}</failure>"
            )
        elif v.status is Status.UNFINISHED or v.warnings:
            body = "\n".join([text_line(v), *warning_lines(v)])
            self._suite.append(f"      <system-out>{_xml_text(body)}</system-out>")
        self._suite.append("    </testcase>")
        if len(self._suite) > 3000:
            # A suite's header needs its counts: keep its testcases apart until it ends.
            self._spill_suite()

    def _spill_suite(self) -> None:
        if self._suite_spool is None:
            self._suite_spool = tempfile.SpooledTemporaryFile(max_size=16 << 20, mode="w+", encoding="utf-8")
        self._suite_spool.write("\n".join(self._suite) + "\n")
        self._suite = []

    def _end_suite(self) -> None:
        if self._file is None:
            return
        self._body.write(
            f"  <testsuite name={_xml_attr(shown_name(self._file))} tests=\"{self._suite_tests}\" "
            f"failures=\"{self._suite_failures}\">\n"
        )
        if self._suite_spool is not None:
            self._suite_spool.seek(0)
            shutil.copyfileobj(self._suite_spool, self._body)
            self._suite_spool.close()
            self._suite_spool = None
        if self._suite:
            self._body.write("\n".join(self._suite) + "\n")
        self._body.write("  </testsuite>\n")
        self._suite = []
        self._suite_tests = self._suite_failures = 0
        self._file = None

    def close(self) -> None:
        self._end_suite()
        self._write('<?xml version="1.0" encoding="UTF-8"?>\n')
        self._write(f'<testsuites name="keilref" tests="{self._tests}" failures="{self._failures}">\n')
        self._body.seek(0)
        while chunk := self._body.read(1 << 16):
            self._write(chunk)
        self._body.close()
        self._write("</testsuites>\n")


def junit_xml(verdicts: Iterable[Verdict], *, strict: bool = False) -> str:
    """The whole JUnit document as a string (see :class:`JUnitWriter`)."""
    parts: list[str] = []
    writer = JUnitWriter(parts.append, WriterOptions(strict=strict))
    for v in verdicts:
        writer.add(v)
    writer.close()
    return "".join(parts)


_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _xml_text(text: str) -> str:
    """Escaped for XML, with control characters (which XML 1.0 cannot hold)
    and undecodable bytes of file names written as escapes."""
    return escape(_NOT_XML.sub("\ufffd", one_line(text)))


def _xml_attr(text: str) -> str:
    return quoteattr(_NOT_XML.sub("\ufffd", one_line(text)))


