"""JUnit XML for ``keilref check --format junit``: one testsuite per file and
one testcase per game, for CI systems that show test reports.

Its own module, like every document format, so that the XML machinery is
loaded only when this format is asked for.
"""

from __future__ import annotations

import re
import shutil
import tempfile
import time
from collections.abc import Callable, Iterable
from typing import IO
from xml.sax.saxutils import escape, quoteattr

from keilref.escaping import one_line, shown_name
from keilref.formats.text import text_line, warning_lines
from keilref.formats import CheckOptions, Causes, Summary, Writer
from keilref.referee.verdict import Status, Verdict


class JUnitWriter(Writer):
    """JUnit XML, one testsuite per file and one testcase per game, streamed.

    The counts belong in the opening tags, before the testcases, so the
    body is spooled (in memory, then on disk when large) and the header is
    written once everything is counted: memory stays flat on any archive.
    """

    spells = "first"

    def __init__(self, write: Callable[[str], object], options: CheckOptions = CheckOptions()) -> None:
        super().__init__(write, options)
        self._write = write
        self._strict = options.strict
        self._body = tempfile.SpooledTemporaryFile(max_size=16 << 20, mode="w+", encoding="utf-8")
        self._suite: list[str] = []
        self._suite_spool: IO[str] | None = None
        self._file: str | None = None
        self._tests = self._failures = 0
        self._suite_tests = self._suite_failures = 0
        # A testcase's time is the time from the verdict before it to its own: what
        # the check spent on it, spread over the workers when there are several.
        self._started = self._last = time.perf_counter()
        self._suite_time = 0.0

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
        now = time.perf_counter()
        spent, self._last = now - self._last, now
        self._suite_time += spent
        self._suite.append(
            f"    <testcase classname={_xml_attr(class_name(v.file))} name={name} time=\"{spent:.3f}\">"
        )
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
            f"failures=\"{self._suite_failures}\" time=\"{self._suite_time:.3f}\">\n"
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
        self._suite_time = 0.0
        self._file = None

    @classmethod
    def read_back(cls, text: str) -> Causes:
        import xml.etree.ElementTree as ET

        failing: Causes = {}
        for suite in ET.fromstring(text).iter("testsuite"):
            for case in suite.iter("testcase"):
                failure = case.find("failure")
                game = re.match(r"game (\d+)", case.get("name", ""))
                if failure is not None and game is not None:
                    kind, reason = failure.get("type", ""), failure.get("message", "")
                    # One failure per test case: the first cause. The suite is the file.
                    rule = f"{kind}/{reason}" if kind == "illegal" else kind
                    failing.setdefault((suite.get("name", ""), int(game.group(1))), []).append(rule)
        return failing

    def close(self, summary: Summary | None = None) -> None:
        self._end_suite()
        self._write('<?xml version="1.0" encoding="UTF-8"?>\n')
        spent = time.perf_counter() - self._started
        self._write(
            f'<testsuites name="keilref" tests="{self._tests}" failures="{self._failures}" time="{spent:.3f}">\n'
        )
        self._body.seek(0)
        while chunk := self._body.read(1 << 16):
            self._write(chunk)
        self._body.close()
        self._write("</testsuites>\n")


def junit_xml(verdicts: Iterable[Verdict], *, strict: bool = False) -> str:
    """The whole JUnit document as a string (see :class:`JUnitWriter`)."""
    parts: list[str] = []
    writer = JUnitWriter(parts.append, CheckOptions(strict=strict))
    for v in verdicts:
        writer.add(v)
    writer.close()
    return "".join(parts)


_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


_RECORD_SUFFIX = re.compile(r"\.(?:keil|json)(?:\.(?:gz|bz2|xz|zst))?\Z")


def class_name(file: str) -> str:
    """A file as a JUnit class: ``records.faults.illegal-superko`` for
    ``records/faults/illegal-superko.keil``. Jenkins splits a class name at
    its dots into package and class, so the directories become packages, the
    suffix goes, and any other dot is written ``_``."""
    name = _RECORD_SUFFIX.sub("", shown_name(file)).strip("/") or shown_name(file)
    parts = [p.replace(".", "_") for p in name.split("/") if p not in ("", ".")]
    return ".".join(parts) or "_"


def _xml_text(text: str) -> str:
    """Escaped for XML, line by line: line breaks stay real ones, other
    control characters (which XML 1.0 cannot hold) and undecodable bytes of
    file names are written as escapes."""
    return "\n".join(escape(_NOT_XML.sub("\ufffd", one_line(line))) for line in text.split("\n"))


def _xml_attr(text: str) -> str:
    return quoteattr(_NOT_XML.sub("\ufffd", one_line(text)))


