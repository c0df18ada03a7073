"""TAP 14 (the Test Anything Protocol): a test point per game, for ``prove``
and the CI plug-ins that read TAP.

``ok 1 - records/a.keil game 1`` for a game that passes; ``not ok 2 - ...``
for one that fails, with a YAML block of its faults (see
:func:`~keilref.formats.findings.findings`): the first fault's message,
severity, rule and place, then any warnings it fails by too. A warning that
does not fail the game, and the line of a game that passes without being
``ok`` (an unfinished game), are ``#`` comments under its point. The plan
(``1..N``) comes last, as a stream of points may end it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from keilref.escaping import one_line, shown_name
from keilref.formats import CheckOptions, Causes, Place, Places, Summary, Writer
from keilref.formats.findings import Finding, Level, Weight, findings
from keilref.formats.text import text_line, warning_lines
from keilref.referee.verdict import Status, Verdict

SEVERITIES = {Weight.FAILS: "error", Weight.STRICT: "warning", Weight.INFORMS: "warning"}
"""The YAML block's words for how much a fault weighs: ``warning`` for what
fails only by ``--strict``, as in Checkstyle."""


def description(v: Verdict) -> str:
    """``records/a.keil game 3``, with ``#`` and ``\\`` escaped as TAP 14 asks."""
    text = f"{shown_name(v.file)} game {v.game}"
    return text.replace("\\", "\\\\").replace("#", "\\#")


def _yaml(text: str) -> str:
    # A JSON string is a YAML double-quoted scalar; one_line leaves it nothing but \" and \\ to escape.
    return json.dumps(one_line(text), ensure_ascii=False)


def _fault(f: Finding, indent: str) -> list[str]:
    return [
        f"{indent}message: {_yaml(f.message)}",
        f"{indent}severity: {SEVERITIES[f.weight]}",
        f"{indent}rule: {f.rule}",
        f"{indent}at:",
        f"{indent}  file: {_yaml(shown_name(f.verdict.file))}",
        f"{indent}  line: {f.line}",
        f"{indent}  column: {f.column}",
    ]


class TapWriter(Writer):
    """``TAP version 14``, a point per game as the games come, then the plan."""

    def __init__(self, write: Callable[[str], object], options: CheckOptions = CheckOptions()) -> None:
        super().__init__(write, options)
        self._points = 0
        self.write("TAP version 14\n")

    @classmethod
    def lines(cls, v: Verdict, options: CheckOptions) -> str:
        # The point's number is given where the points are counted (write_lines).
        faults = [f for f in findings(v, options) if f.level is Level.ERROR]
        if not faults:
            comments = ([text_line(v)] if v.status is not Status.OK else []) + warning_lines(v)
            return "".join([f"ok - {description(v)}\n", *(f"# {c}\n" for c in comments)])
        first, *more = faults
        out = [f"not ok - {description(v)}", "  ---", *_fault(first, "  ")]
        if more:
            out.append("  warnings:")
            for f in more:
                block = _fault(f, "      ")
                out += ["    - " + block[0].lstrip(), *block[1:]]
        out.append("  ...")
        if not options.strict:
            out += [f"# {w}" for w in warning_lines(v)]
        return "".join(line + "\n" for line in out)

    def write_lines(self, text: str) -> None:
        self._points += 1
        result, _, rest = text.partition(" - ")
        self.write(f"{result} {self._points} - {rest}")

    def close(self, summary: Summary | None = None) -> None:
        self.write(f"1..{self._points}\n")

    @classmethod
    def read_back(cls, text: str) -> Causes:
        failing: Causes = {}
        rules: list[str] | None = None
        for line in text.splitlines():
            point = re.match(r"(not ok|ok) \d+ - (.*) game (\d+)\Z", line)
            if point is not None:
                name = re.sub(r"\\(.)", r"\1", point.group(2))
                rules = failing.setdefault((name, int(point.group(3))), []) if point.group(1) == "not ok" else None
                continue
            rule = re.match(r" +(?:- )?rule: (\S+)\Z", line)
            if rule is not None and rules is not None:
                rules.append(rule.group(1))
        return failing

    @classmethod
    def read_places(cls, text: str) -> Places:
        # Each fault's block says its rule, then where it is: line, then column.
        places: Places = {}
        listed: list[Place] | None = None
        kind, line = "", 0
        for row in text.splitlines():
            point = re.match(r"(not ok|ok) \d+ - (.*) game (\d+)\Z", row)
            if point is not None:
                name = re.sub(r"\\(.)", r"\1", point.group(2))
                listed = places.setdefault((name, int(point.group(3))), []) if point.group(1) == "not ok" else None
                continue
            field = re.match(r" +(?:- )?(rule|line|column): (\S+)\Z", row)
            if field is None or listed is None:
                continue
            if field.group(1) == "rule":
                kind = field.group(2).partition("/")[0]
            elif field.group(1) == "line":
                line = int(field.group(2))
            else:
                listed.append((kind, line, int(field.group(2))))
        return places
