"""Tag names that are almost a known one: ``[KOMI "3"]``, ``[Komj "3"]``.

Unknown tags are allowed and kept, so a misspelt ``Komi`` would otherwise
pass silently while the game is replayed with komi 0. A name that differs
from a known tag only in case, or by one typo (a letter added, dropped,
changed, or two neighbours swapped), is most likely that tag.
"""

from __future__ import annotations

from dataclasses import dataclass

from keilref import wording
from keilref.records.record import Record
from keilref.records.tags import KNOWN_TAGS

__all__ = ["KNOWN_TAGS", "Misspelling", "misspelt_tags", "one_typo"]


@dataclass(frozen=True)
class Misspelling:
    """A tag whose name is probably meant to be a known one."""

    name: str
    meant: tuple[str, ...]
    """The known tags it is one typo (or only case) away from."""
    line: int
    column: int

    @property
    def message(self) -> str:
        return wording.misspelt_tag(self.name, self.meant)


def misspelt_tags(record: Record) -> list[Misspelling]:
    """The record's tags that are probably misspelt known tags, in file order."""
    out = []
    for tag in record.tags:
        if tag.name in KNOWN_TAGS:
            continue
        name = tag.name.lower()
        meant = tuple(k for k in KNOWN_TAGS if k.lower() == name) or tuple(
            k for k in KNOWN_TAGS if one_typo(name, k.lower())
        )
        if meant:
            out.append(Misspelling(tag.name, meant, tag.line, tag.column))
    return out


def one_typo(a: str, b: str) -> bool:
    """Whether ``a`` and ``b`` are equal, or one edit apart (a transposition counts as one)."""
    if a == b:
        return True
    if abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        if len(diff) == 1:
            return True
        return len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]] and a[diff[1]] == b[diff[0]]
    short, long = (a, b) if len(a) < len(b) else (b, a)
    return any(long[:i] + long[i + 1 :] == short for i in range(len(long)))
