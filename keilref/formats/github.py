"""GitHub Actions: workflow annotations, and the job summary when they do not suffice.

GitHub shows at most 10 error annotations per step. The first nine are
written as the games come; from the tenth on they are held (on disk when
many) until the end, so that the tenth can say how many more failures
there are. With more than ten, a Markdown table of every failure is
appended to the job summary (the file ``$GITHUB_STEP_SUMMARY`` names).
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Callable

from keilref.formats.findings import Finding, Level, findings, game_of
from keilref.escaping import shown_name
from keilref.formats import CheckOptions, Causes, Places, Summary, Writer
from keilref.referee.verdict import Verdict

ANNOTATION_LIMIT = 10
"""Error annotations GitHub shows per step; the rest are dropped from the checks view."""
SUMMARY_LIMIT = 1000 * 1000
"""Bytes of table written to the job summary: GitHub refuses a summary over 1 MiB."""

# Inside a table cell only inline syntax applies: code spans, emphasis,
# links and images (an escaped "[" disarms "!" and "(" after it), HTML and
# autolinks, entities, GFM strikethrough and the cell separator. "-", "+",
# "#", "(" and the like mean something only at the start of a block line,
# which a cell never is, so they stay as written.
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]<>|~&])")

# GitHub also links what merely looks like an address: "www." and "scheme://"
# as it parses, an e-mail address ("a@b.co") after, and "@name" as a mention.
# A backslash disarms none of them (an escaped "@" is still linked), so a
# WORD JOINER (U+2060), which shows as nothing, is put in each: after "www",
# before "://", after "@".
_AUTOLINK = re.compile(r"(?i)(?<=www)(?=\.)|(?=://)|(?<=@)")
_JOINER = "\u2060"


def _cell(text: str) -> str:
    """Text that stays one table cell, shown as written (CommonMark escapes), linking nowhere."""
    return _AUTOLINK.sub(_JOINER, _MARKDOWN_SPECIAL.sub(r"\\\1", " ".join(text.split())))


def _kind(f: Finding) -> str:
    """``illegal`` for ``illegal/superko``: the status, or ``warning``."""
    return f.rule.partition("/")[0]


def annotation(f: Finding) -> str:
    """A workflow command at the fault: an error for a fault, a notice for a note."""
    level = "error" if f.level is Level.ERROR else "notice"
    where = f"file={_gh_prop(shown_name(f.verdict.file))},line={f.line},col={f.column}"
    return f"::{level} {where},title=keilref {_kind(f)}::{_gh_data(f.message)}"


def _gh_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _gh_prop(text: str) -> str:
    return _gh_data(text).replace(":", "%3A").replace(",", "%2C")


class GitHubWriter(Writer):
    """Annotations on stdout, and the summary table when failures outnumber annotations."""

    spells = "kind"

    def __init__(self, write: Callable[[str], object], options: CheckOptions = CheckOptions()) -> None:
        super().__init__(write, options)
        self._write = write
        self._warn = options.warn
        self._summary_path = options.summary_path
        self._errors = 0
        self._held = tempfile.SpooledTemporaryFile(max_size=4 << 20, mode="w+", encoding="utf-8")
        self._rows = tempfile.SpooledTemporaryFile(max_size=4 << 20, mode="w+", encoding="utf-8")

    def add(self, v: Verdict) -> None:
        for f in findings(v, self.options):
            line = annotation(f)
            if f.level is not Level.ERROR:
                self._write(line + "\n")
                continue
            self._errors += 1
            self._rows.write(
                f"| {_cell(shown_name(v.file))} | {f.line}:{f.column} | {v.game} | {_kind(f)} | {_cell(f.message)} |\n"
            )
            if self._errors < ANNOTATION_LIMIT:
                self._write(line + "\n")
            else:
                self._held.write(line + "\n")

    @classmethod
    def read_back(cls, text: str) -> Causes:
        failing: Causes = {}
        for line in text.splitlines():
            m = re.match(r"::error file=([^,]+),line=\d+,col=\d+,title=keilref (\S+)::(.*)", line)
            if m:
                failing.setdefault((m.group(1), game_of(m.group(3))), []).append(m.group(2))
        return failing

    @classmethod
    def read_places(cls, text: str) -> Places:
        places: Places = {}
        for line in text.splitlines():
            m = re.match(r"::error file=([^,]+),line=(\d+),col=(\d+),title=keilref (\S+)::(.*)", line)
            if m:
                place = (m.group(4), int(m.group(2)), int(m.group(3)))
                places.setdefault((m.group(1), game_of(m.group(5))), []).append(place)
        return places

    def close(self, summary: Summary | None = None) -> None:
        more = self._errors - ANNOTATION_LIMIT
        self._held.seek(0)
        first = True
        for line in self._held:
            if first and more > 0:
                # Said in the last annotation GitHub shows; the note has no character to escape.
                where = "the job summary" if self._summary_path else "the log"
                noun = "failure" if more == 1 else "failures"
                line = (
                    line.rstrip("\n")
                    + f" (and {more} more {noun}: GitHub shows {ANNOTATION_LIMIT} annotations per step;"
                    + f" all are listed in {where})\n"
                )
            first = False
            self._write(line)
        if more > 0 and self._summary_path:
            try:
                self._write_summary()
            except OSError as e:
                # The annotations are out and the exit code stands: a summary is an extra.
                if self._warn is not None:
                    self._warn(f"cannot write the job summary to {self._summary_path}: {e.strerror or e}")
        self._held.close()
        self._rows.close()

    def _write_summary(self) -> None:
        assert self._summary_path is not None
        head = (
            f"### keilref: {self._errors} failing games\n\n"
            "| file | line:column | game | status | what |\n"
            "|---|---|---|---|---|\n"
        )
        self._rows.seek(0)
        written = len(head)
        shown = 0
        # Appended, as GitHub expects: other steps' summaries share the file.
        with open(self._summary_path, "a", encoding="utf-8") as out:
            out.write(head)
            for row in self._rows:
                size = len(row.encode("utf-8"))
                if written + size > SUMMARY_LIMIT:
                    break
                out.write(row)
                written += size
                shown += 1
            if shown < self._errors:
                out.write(f"\n{self._errors - shown} more rows left out: a job summary holds at most 1 MiB.\n")
            out.write("\n")
