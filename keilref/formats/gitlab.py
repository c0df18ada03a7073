"""GitLab Code Quality: the JSON array a merge request's code-quality widget reads.

One issue per fault of a failing game, with the keys GitLab documents: ``description``,
``check_name``, ``fingerprint``, ``severity`` and ``location.path`` /
``location.lines.begin``. The fingerprint is stable across runs (see
:func:`keilref.formats.findings.fingerprint`), which is how GitLab tells a new
finding from one the target branch already had. Streamed, like SARIF.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any

from keilref.escaping import json_text, shown_name
from keilref.formats.findings import Finding, Level, Weight, findings, game_of
from keilref.formats import CheckOptions, Causes, Summary, Writer
from keilref.referee.verdict import Verdict

SEVERITIES = ("info", "minor", "major", "critical", "blocker")
"""GitLab's severities, least to most severe."""


_SEVERITY = {Weight.FAILS: "major", Weight.STRICT: "minor", Weight.INFORMS: "minor"}


def severity(f: Finding) -> str:
    """``major`` for a failing game, ``minor`` for what fails only by ``--strict``
    (an unfinished game, a warning)."""
    return _SEVERITY[f.weight]


def issue(f: Finding) -> dict[str, Any]:
    """One Code Quality issue for a finding."""
    return {
        "description": f.message,
        "check_name": f"keilref/{f.rule}",
        "fingerprint": f.fingerprint,
        "severity": severity(f),
        "location": {"path": shown_name(f.verdict.file), "lines": {"begin": f.line}},
    }


class GitLabWriter(Writer):
    """The Code Quality report, streamed as a JSON array, one issue per line."""

    def __init__(self, write: Callable[[str], object], options: CheckOptions = CheckOptions()) -> None:
        super().__init__(write, options)
        self._write = write
        self._issues = 0
        self._write("[")

    def add(self, v: Verdict) -> None:
        for f in findings(v, self.options):
            if f.level is not Level.ERROR:
                continue
            self._write(("," if self._issues else "") + "\n" + json_text(issue(f)))
            self._issues += 1

    def close(self, summary: Summary | None = None) -> None:
        self._write("\n]\n" if self._issues else "]\n")

    @classmethod
    def read_back(cls, text: str) -> Causes:
        failing: Causes = {}
        for issue in json.loads(text):
            key = (issue["location"]["path"], game_of(issue["description"]))
            failing.setdefault(key, []).append(issue["check_name"].removeprefix("keilref/"))
        return failing


def code_quality(verdicts: Iterable[Verdict], *, strict: bool = False) -> list[dict[str, Any]]:
    """The whole report as a JSON value (see :class:`GitLabWriter`)."""
    parts: list[str] = []
    writer = GitLabWriter(parts.append, CheckOptions(strict=strict))
    for v in verdicts:
        writer.add(v)
    writer.close()
    value: list[dict[str, Any]] = json.loads("".join(parts))
    return value
