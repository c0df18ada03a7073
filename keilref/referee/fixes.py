"""The fixes of a game's faults that have one right answer, as text edits.

One implementation for the editor's quick fixes and ``keilref check --fix``
(and ``fmt --fix``): a fix is worked out from a game's verdict, its record
and the text of the lines it was read from, and is a list of edits placed in
the record format's lines and columns (:mod:`keilref.records.positions`),
where the verdict placed the game. A fix changes every place that states
what it fixes: a result declared both in the ``Result`` tag and after the
moves is declared again in both.

A result is never proposed while a setting tag is in doubt (``[KOMI "6"]``
sets nothing, and the computed result is then the one under komi 0): the
tag's name is fixed first, and the result only once the game is checked
again under it.

A misspelt position tag (``Setup``, ``ToMove``...) leaves the result in
doubt as a setting does: the game is replayed from another position.

Only the *safe* fixes are applied from the command line: a misspelt tag
name with a single candidate (and no tag of that name beside it), the
``Button`` tag the referee assumed, and the computed result declared in
every place that states one. Renumbering a turn is offered in the editor
only: a wrong move number may as well mean that turns were lost. So is the
name of a misspelt ``ToMove`` that gives White the first turn of a record
whose turns are numbered from Black's: the name alone would leave every
number wrong.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from keilref import wording
from keilref.records.cutting import cut
from keilref.records.positions import LineIndex
from keilref.records.record import Record, Tag
from keilref.records.setup import POSITION_TAGS, white_first
from keilref.records.tagnames import misspelt_tags
from keilref.records.tags import SETTING_TAGS
from keilref.referee.batches import Batch, checked_games
from keilref.referee.verdict import Status, Verdict, adjudicate

__all__ = ["Edit", "Fix", "FixedText", "apply_edits", "fix_text", "fix_utf8", "fixes"]

MAX_ROUNDS = 8
"""The most rounds of fixing one text: a fix may bring the next to light (a
renamed ``Komi`` tag changes the computed result), and each round checks the
text again."""

_WRONG_NUMBER = re.compile(r"wrong move number '(\d+\.+)'.*numbered '(\d+\.+)'")
_MISSING_BUTTON = wording.missing_tag("Button", "yes")
_BUTTON = '[Button "yes"]'
_IN_DOUBT = frozenset(SETTING_TAGS) | frozenset(POSITION_TAGS) | {"Result"}
"""The tags whose misspelling leaves the computed result, or the declared one, in doubt."""
_TAG_VALUE = re.compile(r'\[\s*([^\s"\]]+)\s*"((?:[^"\\]|\\.)*)"')


@dataclass(frozen=True)
class Edit:
    """Replace the text from ``line:column`` up to ``end_line:end_column`` (excluded) with ``text``."""

    line: int
    column: int
    end_line: int
    end_column: int
    text: str


@dataclass(frozen=True)
class Fix:
    """One fix of one fault: what it does, in words, and its edits."""

    title: str
    edits: tuple[Edit, ...]
    at: tuple[int, int]
    """Where the fault it fixes is placed (its diagnostic's line and column)."""
    safe: bool
    """Whether ``--fix`` applies it: it has one right answer, whatever else the record says."""


LineText = Callable[[int], str]
"""The text of a line of the file, as the verdict numbers lines (without its ending)."""


def fixes(verdict: Verdict, record: Record | None, line_text: LineText, rules: str | None = None) -> list[Fix]:
    """The fixes of the game's faults, in the order of the faults (``rules``:
    the rules the game was checked under where the command line chose them)."""
    out: list[Fix] = []
    in_doubt = False
    if record is not None:
        for typo in misspelt_tags(record):
            in_doubt = in_doubt or any(m in _IN_DOUBT for m in typo.meant)
            fix = _rename(record, typo.name, typo.meant, typo.line, typo.column, line_text)
            if fix is not None:
                out.append(fix)
        button = _add_button(verdict, record)
        if button is not None:
            out.append(button)
    renumber = _renumber(verdict, line_text)
    if renumber is not None:
        out.append(renumber)
    if not in_doubt and record is not None:
        declare = _declare(verdict, record, line_text, rules)
        if declare is not None:
            out.append(declare)
    return out


def _rename(
    record: Record, name: str, meant: tuple[str, ...], line: int, column: int, line_text: LineText
) -> Fix | None:
    # Two candidates have no one answer; a tag already named so would be a duplicate.
    if len(meant) != 1 or record.tag(meant[0]) is not None:
        return None
    at = line_text(line).find(name, max(column - 1, 0))
    if at < 0:
        return None
    edit = Edit(line, at + 1, line, at + 1 + len(name), meant[0])
    return Fix(wording.fix_rename_tag(name, meant[0]), (edit,), (line, column), not _renumbers(record, name, meant[0]))


def _renumbers(record: Record, name: str, meant: str) -> bool:
    """Whether naming the tag ``meant`` changes who plays the first turn of a
    record whose turns are numbered: its numbers, right now, would all be wrong."""
    if not any(turn.numbered for turn in record.turns):
        return False
    renamed = tuple(dataclasses.replace(t, name=meant) if t.name == name else t for t in record.tags)
    return white_first(dataclasses.replace(record, tags=renamed)) != white_first(record)


def _add_button(verdict: Verdict, record: Record) -> Fix | None:
    if _MISSING_BUTTON not in verdict.warnings or not record.tags:
        return None
    which = verdict.warnings.index(_MISSING_BUTTON)
    at = verdict.warnings_at[which] if which < len(verdict.warnings_at) else (record.line, 1)
    # Where `keilref fmt` would put it: before the Result tag, else after the last tag.
    later = [t.line for t in record.tags if t.name == "Result"]
    line = min(later) if later else max(t.line for t in record.tags) + 1
    return Fix(wording.fix_add_tag(_BUTTON), (Edit(line, 1, line, 1, _BUTTON + "\n"),), at, True)


def _renumber(verdict: Verdict, line_text: LineText) -> Fix | None:
    if verdict.error is None:
        return None
    wrong = _WRONG_NUMBER.search(verdict.error.message)
    if wrong is None:
        return None
    line, column = verdict.error.line, verdict.error.column
    at = line_text(line).find(wrong.group(1), max(column - 1, 0))
    if at < 0:
        return None
    edit = Edit(line, at + 1, line, at + 1 + len(wrong.group(1)), wrong.group(2))
    return Fix(wording.fix_renumber(wrong.group(1), wrong.group(2)), (edit,), (line, column), False)


def _declare(verdict: Verdict, record: Record, line_text: LineText, rules: str | None) -> Fix | None:
    """The computed result, declared wherever the record declares one."""
    if verdict.status is Status.MISMATCH and verdict.computed is not None:
        return _declare_result(verdict.computed, verdict.location, record, line_text)
    if verdict.error is not None:
        computed = _unstated_result(verdict, record, rules)
        if computed is not None:
            return _declare_result(computed, (verdict.error.line, verdict.error.column), record, line_text)
    return None


def _unstated_result(verdict: Verdict, record: Record, rules: str | None) -> str | None:
    """Where the only fault is a ``Result`` tag that disagrees with the result
    after the moves, the result the moves alone give, checked with neither
    stated; ``None`` for any other fault, or a game the moves do not finish."""
    tag = record.tag("Result")
    if verdict.status is not Status.ERROR or verdict.error is None or tag is None or record.result is None:
        return None
    if (verdict.error.line, verdict.error.column) != (tag.line, tag.column) or tag.value.strip() == record.result:
        return None  # a fault of the tag's own, such as its spelling
    tags = tuple(t for t in record.tags if t.name != "Result")
    unstated = dataclasses.replace(record, tags=tags, result=None)
    again = adjudicate(unstated, file=verdict.file, game=verdict.game, rules=rules, line=record.line or None)
    return again.computed if again.status is Status.OK else None


def _declare_result(computed: str, at: tuple[int, int], record: Record, line_text: LineText) -> Fix | None:
    """``computed`` declared in the ``Result`` tag and after the moves, wherever the record states one."""
    edits: list[Edit] = []
    tag = record.tag("Result")
    if tag is not None:
        edit = _tag_value_edit(tag, line_text, computed)
        if edit is None:
            return None  # a tag the fix cannot find would be left stating the old result
        edits.append(edit)
    if record.result is not None:
        line, column = record.result_line, record.result_column
        if line_text(line)[column - 1 : column - 1 + len(record.result)] != record.result:
            return None
        edits.append(Edit(line, column, line, column + len(record.result), computed))
    if not edits:
        return None
    return Fix(wording.fix_declare_result(computed), tuple(edits), at, True)


def _tag_value_edit(tag: Tag, line_text: LineText, value: str) -> Edit | None:
    """The edit that gives the tag ``value`` (a tag written on one line only)."""
    text = line_text(tag.line)
    found = _TAG_VALUE.match(text, max(tag.column - 1, 0))
    if found is None or found.group(1) != tag.name:
        return None
    return Edit(tag.line, found.start(2) + 1, tag.line, found.end(2) + 1, value)


def apply_edits(text: str, edits: Sequence[Edit]) -> str:
    """``text`` with the edits made (placed as :class:`~keilref.records.positions.LineIndex`
    places; an edit that overlaps one before it is left out). An inserted line
    ends as the file's lines do."""
    index = LineIndex(text)
    newline = "\r\n" if "\r\n" in text[: index.line_span(2)[0] + 1] else "\n"
    spans = sorted(
        (index.offset(e.line, e.column), index.offset(e.end_line, e.end_column), e.text) for e in edits
    )
    out: list[str] = []
    at = 0
    for start, end, new in spans:
        if start < at:
            continue
        out += [text[at:start], new.replace("\n", newline) if newline != "\n" else new]
        at = end
    out.append(text[at:])
    return "".join(out)


@dataclass(frozen=True)
class FixedText:
    """A text with its safe fixes applied, and what they were."""

    text: str
    applied: tuple[str, ...]
    """Each fix made, as ``LINE:COLUMN: title`` where its fault stood when it was made."""

    def changed(self, original: str) -> bool:
        return self.text != original


def fix_text(text: str, name: str, rules: str | None = None) -> FixedText:
    """``text`` (a file's records) with every safe fix applied, round after
    round until none is left: fixing the result again changes nothing."""
    applied: list[str] = []
    for _ in range(MAX_ROUNDS):
        found = list(_safe_fixes(text, name, rules))
        if not found:
            break
        applied += [f"{f.at[0]}:{f.at[1]}: {f.title}" for f in found]
        text = apply_edits(text, [e for f in found for e in f.edits])
    return FixedText(text, tuple(applied))


def _safe_fixes(text: str, name: str, rules: str | None) -> Iterator[Fix]:
    data = text.encode("utf-8", "surrogateescape")
    pieces = cut(data).games
    index = LineIndex(text)
    batch = Batch(name, 1, pieces, len(data), rules=rules)
    for _, record, verdict in checked_games(batch, None):
        yield from (f for f in fixes(verdict, record, index.line, rules) if f.safe)


def fix_utf8(data: bytes, name: str, rules: str | None = None) -> bytes:
    """:func:`fix_text` on a file's bytes in UTF-8 (bytes that are not text kept as they are)."""
    return fix_text(data.decode("utf-8", "surrogateescape"), name, rules).text.encode("utf-8", "surrogateescape")
