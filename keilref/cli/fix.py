"""``--fix`` and ``--diff`` of ``keilref check``: the safe fixes, written or shown.

The fixes are :func:`keilref.referee.fixes.fix_text`'s, the editor's quick
fixes that have one right answer; a file is rewritten the way ``fmt -i``
rewrites one (atomically, and only if it did not change since it was read).
"""

from __future__ import annotations

import codecs
import difflib
import os
from collections.abc import Sequence

import typer

from keilref import wording
from keilref.escaping import shown_name
from keilref.records.compression import compression_of
from keilref.records.remote import is_url
from keilref.records.inplace import FileState, ReplaceError, replace_file
from keilref.records.sniffing import is_match
from keilref.records.positions import split_lines
from keilref.records.sources import Source, decoding_fault
from keilref.referee.fixes import fix_text

__all__ = ["fix_sources"]


def fix_sources(sources: Sequence[Source], *, rules: str | None, diff: bool) -> tuple[bool, bool]:
    """Fix each file (with ``diff``, print what would change instead).

    Returns whether any file changed (or would), and whether any could not be fixed.
    """
    changed = failed = False
    for source in sources:
        try:
            did = _fix_one(source, rules, diff=diff)
        except _NotFixed as e:
            typer.echo(f"keilref: {wording.fix_not_applied(shown_name(source.name), str(e))}", err=True)
            failed = True
            continue
        changed = changed or did
    return changed, failed


class _NotFixed(Exception):
    """Why a file is left as it is."""


def _fix_one(source: Source, rules: str | None, *, diff: bool) -> bool:
    if source.is_stdin:
        raise _NotFixed("standard input cannot be rewritten")
    if compression_of(source.name) is not None:
        raise _NotFixed("a compressed file is not rewritten in place")
    if is_url(source.where):
        raise _NotFixed(wording.URL_NOT_REWRITTEN)
    encoding = codecs.lookup(source.encoding).name if source.encoding is not None else "utf-8"
    try:
        with open(source.name, "rb") as stream:
            state = FileState.of(os.fstat(stream.fileno()))
            original = stream.read()
    except OSError as e:
        raise _NotFixed(f"cannot read: {e.strerror or e}") from None
    if is_match(original, source.name):
        return False  # a match is checked as it is: it has no text of its own to fix
    try:
        # UTF-8's bytes that are not text are kept as they are (their games are errors, and left alone).
        text = original.decode(encoding, "surrogateescape" if encoding == "utf-8" else "strict")
    except UnicodeError as e:
        raise _NotFixed(decoding_fault(encoding, e, original)) from None
    fixed = fix_text(text, source.name, rules if rules is not None else source.rules)
    if not fixed.changed(text):
        return False
    errors = "surrogateescape" if encoding == "utf-8" else "strict"
    data = fixed.text.encode(encoding, errors)
    if diff:
        # In the file's encoding, its bytes that are not text as they are: what patch applies to it.
        typer.echo(_diff(source.name, text, fixed.text).encode(encoding, errors), nl=False)
        return True
    try:
        replace_file(source.name, data, state)
    except ReplaceError as e:
        raise _NotFixed(str(e)) from None
    typer.echo(wording.fixed_file(shown_name(source.name), len(fixed.applied)), err=True)
    return True


def _diff(name: str, old: str, new: str) -> str:
    shown = shown_name(name)
    out = []
    for line in difflib.unified_diff(
        split_lines(old), split_lines(new), f"{shown}\t(original)", f"{shown}\t(fixed)", lineterm="\n"
    ):
        out.append(line)
        if not line.endswith("\n"):
            out.append("\n\\ No newline at end of file\n")
    return "".join(out)
