"""Project settings: ``[tool.keilref]`` in the nearest ``pyproject.toml``, or ``keilref.toml``.

Found as ruff finds its own: from the working directory up, the first
``keilref.toml``, or ``pyproject.toml`` with a ``[tool.keilref]`` table,
wins (in one directory, ``keilref.toml`` first). The command line overrides
every setting. An unknown key or a value of the wrong kind is a usage error
naming the file, the line and, for a near miss, the key meant.
"""

from __future__ import annotations

import dataclasses
import difflib
import fnmatch
import os
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from keilref.engine.rules import all_rules
from keilref.escaping import shown_name
from keilref.formats import FORMATS
from keilref.records.sources import DEFAULT_EXCLUDE, Source

__all__ = ["Settings", "SettingsError", "find_settings"]

_KEYS = ("rules", "per-path-rules", "strict", "jobs", "format", "exclude", "extend-exclude", "encoding")


class SettingsError(Exception):
    """A settings file keilref cannot use: the message names the file and line."""


@dataclass(frozen=True)
class Settings:
    """What a settings file says; ``None`` where it says nothing."""

    path: Path | None = None
    """The file, or ``None`` when there is none."""
    rules: str | None = None
    per_path_rules: tuple[tuple[str, str], ...] = ()
    """``(glob, rules)``, in the file's order; the first that matches a record's path wins."""
    strict: bool | None = None
    jobs: int | None = None
    format: str | None = None
    exclude: tuple[str, ...] | None = None
    extend_exclude: tuple[str, ...] = ()
    encoding: str | None = None
    given: frozenset[str] = field(default_factory=frozenset)
    """The keys the file sets."""

    @property
    def root(self) -> Path:
        """Where per-path patterns are matched from: the settings file's directory."""
        return self.path.parent if self.path is not None else Path.cwd()

    def search_patterns(self, exclude: list[str] | None, extend_exclude: list[str] | None) -> tuple[str, ...]:
        """The glob patterns a directory search leaves out: ``--exclude``, else the
        project's ``exclude``, else the default (hidden files and directories);
        then the project's ``extend-exclude`` and ``--extend-exclude``."""
        if exclude is None:
            exclude = list(self.exclude) if self.exclude is not None else list(DEFAULT_EXCLUDE)
        return (*exclude, *self.extend_exclude, *(extend_exclude or ()))

    def with_rules(self, sources: list[Source], rules: str | None) -> list[Source]:
        """Each source with the rule set the project gives its path, unless
        ``--rules`` (``rules``) names one for all."""
        if rules is not None or (self.rules is None and not self.per_path_rules):
            return sources
        return [dataclasses.replace(s, rules=self.rules_for(s.name)[0]) for s in sources]

    def encoding_for(self, given: str | None) -> str | None:
        """The encoding records are read in: ``--encoding`` (``given``, the codec
        it names), else the project's ``encoding``; ``None`` for UTF-8, which
        needs no decoding before the parser's own."""
        chosen = given if given is not None else self.encoding
        return None if chosen == "utf-8" else chosen

    def rules_for(self, file: str) -> tuple[str | None, str]:
        """The rules a record file is replayed under, and why (``per-path-rules "2019/*"``)."""
        try:
            relative = Path(os.path.abspath(file)).relative_to(self.root.resolve()).as_posix()
        except ValueError:
            relative = Path(file).as_posix()
        for pattern, rules in self.per_path_rules:
            if fnmatch.fnmatchcase(relative, pattern):
                return rules, f'per-path-rules "{pattern}"'
        if self.rules is not None:
            return self.rules, "rules"
        return None, "the record's Rules tag"


def find_settings(start: Path | None = None) -> Settings:
    """The settings that apply in ``start`` (the working directory by default)."""
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        own = folder / "keilref.toml"
        if own.is_file():
            return _load(own, _read(own))
        project = folder / "pyproject.toml"
        if project.is_file():
            table = _read(project).get("tool", {}).get("keilref")
            if table is not None:
                return _load(project, table, prefix="tool.keilref")
    return Settings()


def _read(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as f:
            return tomllib.load(f)
    except tomllib.TOMLDecodeError as e:
        raise SettingsError(f"{path}: not valid TOML: {e}") from None
    except OSError as e:
        raise SettingsError(f"{path}: cannot read: {e.strerror or e}") from None


def _line_of(path: Path, key: str) -> int:
    """The line where ``key`` is set (or where its table opens), for messages; 1 if not found."""
    text = path.read_text(encoding="utf-8", errors="replace")
    quoted = re.escape(key)
    pattern = re.compile(rf"""^[ \t]*(?:"{quoted}"|'{quoted}'|{quoted})[ \t]*=|^[ \t]*\[[^\]\n]*\b{quoted}\]""", re.M)
    m = pattern.search(text)
    return text.count("\n", 0, m.start()) + 1 if m else 1


def _load(path: Path, table: Any, prefix: str = "") -> Settings:
    where = f" in [{prefix}]" if prefix else ""
    if not isinstance(table, dict):
        raise SettingsError(f"{path}:1: [{prefix or 'keilref'}] must be a table")

    def fault(key: str, message: str) -> SettingsError:
        return SettingsError(f"{path}:{_line_of(path, key)}: {message}")

    for key in table:
        if key not in _KEYS:
            near = difflib.get_close_matches(key, _KEYS, n=1, cutoff=0.6)
            hint = f"; did you mean {near[0]!r}?" if near else f" (known: {', '.join(_KEYS)})"
            raise fault(key, f"unknown setting {key!r}{where}{hint}")
    known_rules = [r.name for r in all_rules()]

    def rules_value(key: str, value: Any) -> str:
        if not isinstance(value, str) or value not in known_rules:
            raise fault(key, f"{key}: {value!r} is not a rule set (known: {', '.join(known_rules)})")
        return value

    def patterns(key: str) -> tuple[str, ...] | None:
        value = table.get(key)
        if value is None:
            return None
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise fault(key, f"{key} must be a list of glob patterns, such as [\"drafts\", \"2019/*\"]")
        return tuple(value)

    rules = rules_value("rules", table["rules"]) if "rules" in table else None
    per_path = table.get("per-path-rules", {})
    if not isinstance(per_path, dict):
        raise fault("per-path-rules", 'per-path-rules must be a table of glob = rules, such as "2019/*" = "keil-2019"')
    per_path_rules = tuple((str(glob), rules_value(str(glob), value)) for glob, value in per_path.items())
    strict = table.get("strict")
    if strict is not None and not isinstance(strict, bool):
        raise fault("strict", f"strict must be true or false, not {strict!r}")
    jobs = table.get("jobs")
    if jobs is not None and (not isinstance(jobs, int) or isinstance(jobs, bool) or not 1 <= jobs <= 1024):
        raise fault("jobs", f"jobs must be a whole number from 1 to 1,024, not {jobs!r}")
    fmt = table.get("format")
    if fmt is not None and (not isinstance(fmt, str) or fmt not in FORMATS):
        raise fault("format", f"format: {fmt!r} is not one of {', '.join(FORMATS)}")
    encoding = table.get("encoding")
    if encoding is not None:
        from keilref.records.sources import check_encoding

        try:
            encoding = check_encoding(str(encoding)) if isinstance(encoding, str) else None
        except ValueError as e:
            raise fault("encoding", f"encoding: {e}") from None
        if not isinstance(table["encoding"], str):
            raise fault("encoding", "encoding must be a codec name, such as \"cp1252\"")
    return Settings(
        path=path,
        rules=rules,
        per_path_rules=per_path_rules,
        strict=strict,
        jobs=jobs,
        format=fmt,
        exclude=patterns("exclude"),
        extend_exclude=patterns("extend-exclude") or (),
        encoding=encoding,
        given=frozenset(table),
    )


def load_settings() -> Settings:
    """The project's settings, or a one-line usage error and exit 2."""
    from keilref.cli.app import fail

    try:
        return find_settings()
    except SettingsError as e:
        fail(str(e))


def print_settings(project: Settings, sources: list[Any], **effective: Any) -> None:
    """``check --show-settings``: each setting's value and where it comes from, then each file's rules."""
    import typer

    where = shown_name(str(project.path)) if project.path is not None else "none found (keilref defaults)"
    typer.echo(f"settings: {where}")
    for name, value in effective.items():
        if name == "rules":
            continue
        key = name.replace("_", "-")
        origin = "settings" if key in project.given else "command line or default"
        shown = list(value) if isinstance(value, tuple) else value
        typer.echo(f"{key} = {shown!r} ({origin})")
    for source in sources:
        if effective.get("rules") is not None:
            typer.echo(f"{shown_name(source.name)}: rules {effective['rules']} (--rules)")
            continue
        rules, why = project.rules_for(source.name)
        typer.echo(f"{shown_name(source.name)}: rules {rules or 'from each game'} ({why})")

