"""SARIF 2.1.0: the format GitHub code scanning and other static-analysis viewers read.

One run, one result per fault of a failing game, located at the offending turn, the
faulty text or the declared result; the rule is the status or, for an
illegal turn, its reason (see :mod:`keilref.formats.findings`). Games that pass
give no result. Results are streamed, so memory stays flat on any archive;
the document is deterministic (no times, no absolute paths that were not
given).
"""

from __future__ import annotations

import json
import importlib.metadata
import os
from collections.abc import Callable, Iterable
from typing import Any
from urllib.parse import quote

import keilref
from keilref import wording
from keilref.formats.findings import RULE_INDEX, RULES, RULES_PAGE, Finding, Level, Weight, findings, rule_anchor
from keilref.formats import CheckOptions, Causes, Places, Summary, Writer
from keilref.referee.verdict import Verdict

SCHEMA_URI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
FINGERPRINT_KEY = "keilrefGame/v1"
"""The partial fingerprint's name: tools compare results across runs by it."""


def artifact_uri(path: str) -> str:
    """A file as SARIF names it: relative paths stay relative (to where keilref ran)."""
    if os.sep != "/":
        path = path.replace(os.sep, "/")
    if path.startswith("/"):
        return "file://" + quote(path, errors="surrogateescape")
    # A name that is not UTF-8 keeps its bytes, percent-encoded.
    return quote(path, errors="surrogateescape")


_DEFAULT_LEVEL = {Weight.FAILS: "error", Weight.STRICT: "warning", Weight.INFORMS: "note"}
"""What a rule is worth without ``--strict``, which makes each result an error."""


def documentation_url() -> str | None:
    """Where keilref's documentation is published: the ``Documentation`` URL
    of the installed package (``[project.urls]``), or ``None`` when it
    declares none. SARIF's ``helpUri`` must be an absolute URI, so without
    one the rules carry their help text alone."""
    try:
        declared: list[str] = importlib.metadata.metadata("keilref").get_all("Project-URL") or []
    except importlib.metadata.PackageNotFoundError:
        return None
    for entry in declared:
        label, _, url = entry.partition(",")
        if label.strip().lower() == "documentation" and url.strip().startswith(("https://", "http://")):
            return url.strip().rstrip("/")
    return None


def _tool() -> dict[str, Any]:
    docs = documentation_url()
    return {
        "driver": {
            "name": "keilref",
            "version": keilref.__version__,
            "semanticVersion": keilref.__version__,
            "rules": [
                {
                    "id": r.id,
                    "name": r.id.replace("/", "-"),
                    "shortDescription": {"text": r.description},
                    "help": {"text": wording.rule_help(r.id), "markdown": wording.rule_help(r.id)},
                    **({} if docs is None else {"helpUri": f"{docs}/{RULES_PAGE}#{rule_anchor(r.id)}"}),
                    "defaultConfiguration": {"level": _DEFAULT_LEVEL[r.weight]},
                }
                for r in RULES
            ],
        }
    }


def result(f: Finding) -> dict[str, Any]:
    """One SARIF result object for a finding."""
    v = f.verdict
    return {
        "ruleId": f.rule,
        "ruleIndex": RULE_INDEX[f.rule],
        "level": f.level.value,
        "message": {"text": f.message},
        "locations": [
            {
                "physicalLocation": {
                    "artifactLocation": {"uri": artifact_uri(v.file)},
                    "region": {"startLine": f.line, "startColumn": f.column},
                }
            }
        ],
        "partialFingerprints": {FINGERPRINT_KEY: f.fingerprint},
        "properties": {"game": v.game, "gameLine": v.line, "status": v.status.value},
    }


class SarifWriter(Writer):
    """A SARIF log, streamed: the run's head, then results as games come, then the tail."""

    def __init__(self, write: Callable[[str], object], options: CheckOptions = CheckOptions()) -> None:
        super().__init__(write, options)
        self._write = write
        self._results = 0
        head = {"$schema": SCHEMA_URI, "version": "2.1.0"}
        run = {"tool": _tool(), "columnKind": "unicodeCodePoints"}
        # The results array is left open at the end of the head and filled as verdicts arrive.
        self._write(json.dumps(head, ensure_ascii=False)[:-1] + ', "runs": [')
        self._write(json.dumps(run, ensure_ascii=False)[:-1] + ', "results": [\n')

    def add(self, v: Verdict) -> None:
        for f in findings(v, self.options):
            if f.level is not Level.ERROR:
                continue
            sep = ",\n" if self._results else ""
            self._write(sep + json.dumps(result(f), ensure_ascii=False))
            self._results += 1

    def close(self, summary: Summary | None = None) -> None:
        self._write("\n]}]}\n")

    @classmethod
    def read_back(cls, text: str) -> Causes:
        failing: Causes = {}
        for r in json.loads(text)["runs"][0]["results"]:
            key = (r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"], r["properties"]["game"])
            failing.setdefault(key, []).append(r["ruleId"])
        return failing

    @classmethod
    def read_places(cls, text: str) -> Places:
        places: Places = {}
        for r in json.loads(text)["runs"][0]["results"]:
            location = r["locations"][0]["physicalLocation"]
            region = location["region"]
            place = (r["ruleId"].partition("/")[0], region["startLine"], region["startColumn"])
            places.setdefault((location["artifactLocation"]["uri"], r["properties"]["game"]), []).append(place)
        return places


def sarif_log(verdicts: Iterable[Verdict], *, strict: bool = False) -> dict[str, Any]:
    """The whole SARIF log as a JSON value (see :class:`SarifWriter`)."""
    parts: list[str] = []
    writer = SarifWriter(parts.append, CheckOptions(strict=strict))
    for v in verdicts:
        writer.add(v)
    writer.close()
    value: dict[str, Any] = json.loads("".join(parts))
    return value
