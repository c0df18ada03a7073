"""A project's settings: ``[tool.keilref]`` in the nearest ``pyproject.toml``, or ``keilref.toml``.

Found as ruff finds its own: from a record's folder up, the first
``keilref.toml``, or ``pyproject.toml`` with a ``[tool.keilref]`` table,
wins (in one directory, ``keilref.toml`` first), so that the closest
settings file governs each record wherever the command runs. What a caller
is given (the command line, an editor) overrides every setting. An unknown
key or a value of the wrong kind is a :class:`ProjectError` naming the
file, the line and, for a near miss, the key meant.

The commands that read records (``check``, ``fmt``, ``filter``, ``stats``)
and the language server share it: :func:`find_sources` finds a command's
records, each under its own project's encoding, excludes and per-path rules
(:meth:`Project.sources_for`), and :class:`Projects` which project governs
a path.
"""

from __future__ import annotations

import dataclasses
import difflib
import fnmatch
import os
import re
import tomllib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from keilref.engine.rules import all_rules
from keilref.errors import KeilrefError
from keilref.formats import FORMATS
from keilref.records.remote import is_url
from keilref.records.sources import DEFAULT_EXCLUDE, STDIN, PathError, Source, check_encoding, expand_paths

__all__ = ["Found", "Project", "ProjectError", "Projects", "Sources", "find_project", "find_sources"]

_KEYS = ("rules", "per-path-rules", "strict", "jobs", "format", "exclude", "extend-exclude", "encoding")


class ProjectError(KeilrefError):
    """A settings file keilref cannot use: the message names the file and line."""


@dataclass(frozen=True)
class Sources:
    """The records a command reads, and how they were found."""

    sources: list[Source]
    """In the order given, each with the rule set the project gives its path (none when the caller gives one)."""
    encoding: str | None
    """The encoding they are read in (``None``: UTF-8)."""
    exclude: tuple[str, ...]
    """The glob patterns a directory search left out."""
    excluded: tuple[str, ...] = ()
    """The paths given by name that ``force_exclude`` left out, as given."""


@dataclass(frozen=True)
class Project:
    """What a project's settings file says; ``None`` where it says nothing."""

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
        return (*self.base_exclude(exclude), *self.extend_exclude, *(extend_exclude or ()))

    def base_exclude(self, exclude: list[str] | None) -> tuple[str, ...]:
        """What ``extend-exclude`` adds to: ``--exclude`` (``exclude``), else the
        project's ``exclude``, else the default (hidden files and directories)."""
        if exclude is not None:
            return tuple(exclude)
        return self.exclude if self.exclude is not None else DEFAULT_EXCLUDE

    def sources_for(
        self,
        paths: Sequence[str],
        *,
        encoding: str | None = None,
        exclude: list[str] | None = None,
        extend_exclude: list[str] | None = None,
        stdin_filename: str | None = None,
        rules: str | None = None,
        compressed: bool = False,
        matches: bool = True,
        force_exclude: bool = False,
        on_error: Callable[[PathError], None] | None = None,
        on_note: Callable[[str], None] | None = None,
    ) -> Sources:
        """The records ``paths`` name, found and read as this project says.

        What the caller is given wins over the project's settings: ``encoding``
        (the codec ``--encoding`` names), ``exclude`` and ``extend_exclude``
        (see :meth:`search_patterns`), and ``rules`` (``--rules``: the caller
        replays every record under it, so no source is given the project's;
        see :meth:`with_rules`). ``stdin_filename`` is the name
        standard input is read under, and given its settings under. With
        ``force_exclude``, a path given by name (standard input's name too)
        that the patterns exclude is left out, as ruff's ``--force-exclude``
        does (see :meth:`excludes`); without it, a path given by name is
        read whatever they say. The rest is
        :func:`~keilref.records.sources.expand_paths`'s, which raises
        :class:`~keilref.records.sources.PathError` unless ``on_error`` is given.
        """
        chosen = self.encoding_for(encoding)
        patterns = self.search_patterns(exclude, extend_exclude)
        left_out: tuple[str, ...] = ()
        if force_exclude:
            named = [stdin_filename if p == STDIN and stdin_filename is not None else p for p in paths]
            left_out = tuple(p for p, name in zip(paths, named) if self.excludes(name, patterns))
            paths = [p for p in paths if p not in left_out]
        found = expand_paths(
            paths,
            compressed=compressed,
            matches=matches,
            on_error=on_error,
            on_note=on_note,
            encoding=chosen,
            exclude=patterns,
            stdin_filename=stdin_filename,
        )
        shown = tuple(stdin_filename if p == STDIN and stdin_filename is not None else p for p in left_out)
        return Sources(self.with_rules(found, rules), chosen, patterns, shown)

    def excludes(self, path: str, patterns: Sequence[str]) -> bool:
        """Whether ``patterns`` leave out ``path`` when it is given by name
        (``--force-exclude``), as a directory search from :attr:`root` would:
        the file's name, or any folder's on the way down to it, or its path
        below the root, or a folder's, matches one. A path outside the root
        is matched as written, without its ``.`` and ``..`` parts."""
        if os.path.isdir(path) or path == STDIN:
            return False  # a directory given by name is searched, and its search excludes
        below = self._below_root(path)
        parts = (below if below is not None else Path(path).as_posix()).split("/")
        parts = [part for part in parts if part not in ("", ".", "..")]
        for i, name in enumerate(parts):
            relative = "/".join(parts[: i + 1])
            if any(fnmatch.fnmatchcase(name, p) or fnmatch.fnmatchcase(relative, p) for p in patterns):
                return True
        return False

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
        """The rules a record file is replayed under, and why (``per-path-rules "2019/*"``).

        A pattern is matched against the file's path below :attr:`root`: a
        file outside it (``../g.keil``) matches none, whatever the pattern."""
        relative = self._below_root(file) if self.per_path_rules else None
        for pattern, rules in self.per_path_rules:
            if relative is not None and fnmatch.fnmatchcase(relative, pattern):
                return rules, f'per-path-rules "{pattern}"'
        if self.rules is not None:
            return self.rules, "rules"
        return None, "the record's Rules tag"

    def _below_root(self, file: str) -> str | None:
        """``file``'s path below :attr:`root`, with ``/`` between its parts; ``None`` outside it.

        The root is found resolved; the file is tried as written and then
        resolved, so that a path through a link to the project is still below it."""
        try:
            root = Path(os.path.realpath(self.root))
            paths = (Path(os.path.abspath(file)), Path(os.path.realpath(file)))
        except (OSError, ValueError):
            return None  # no working directory, or a name no file can have
        for path in paths:
            try:
                return path.relative_to(root).as_posix()
            except ValueError:
                continue
        return None


def find_project(start: Path | None = None) -> Project:
    """The settings that apply in ``start`` (the working directory by default).

    Raises :class:`ProjectError`, and nothing else, for a settings file that
    cannot be used, whatever it holds."""
    return Projects().in_folder(start)


class Projects:
    """The settings that govern each path, each folder looked up once.

    A record is governed by the settings nearest its own folder (a
    directory's, by its own); standard input by those of its
    ``--stdin-filename``'s folder, else the working directory's."""

    def __init__(self) -> None:
        self._folders: dict[Path, Project] = {}
        self._named: dict[str, Project] = {}
        """By the folder's name as given: a search's records share a few folders."""

    def in_folder(self, start: Path | str | None = None) -> Project:
        """The settings found from ``start`` (the working directory by default) upward."""
        if start is None or not str(start):
            return self._resolved(None)
        named = os.fspath(start)
        if named not in self._named:
            self._named[named] = self._resolved(named)
        return self._named[named]

    def _resolved(self, start: str | None) -> Project:
        try:
            # realpath, not Path.resolve: a loop of links is a folder that holds nothing here, not an error.
            here = Path(os.path.realpath(start if start is not None else os.getcwd()))
        except (OSError, ValueError) as e:
            raise ProjectError(f"{start or 'the working directory'}: cannot look for settings: {_why(e)}") from None
        passed: list[Path] = []
        found = Project()
        for folder in (here, *here.parents):
            if folder in self._folders:
                found = self._folders[folder]
                break
            passed.append(folder)
            own = _settings_in(folder)
            if own is not None:
                found = own
                break
        for folder in passed:
            self._folders[folder] = found
        return found

    def of(self, path: str, stdin_filename: str | None = None) -> Project:
        """The settings that govern ``path`` as a command names it."""
        if path == STDIN:
            if stdin_filename is None:
                return self.in_folder()
            path = stdin_filename
        if "\0" in path or is_url(path):
            # A name no file can have (reading it will say so), or a URL: the working directory's settings.
            return self.in_folder()
        folder = path if os.path.isdir(path) else os.path.dirname(path)
        return self.in_folder(folder or None)

    def for_run(self, paths: Sequence[str], stdin_filename: str | None = None) -> Project:
        """Where a run's own settings (``format``, ``strict``, ``jobs``) come
        from: the working directory's, as ruff takes its global ones, else,
        when none is found there, the first path's."""
        here = self.in_folder()
        if here.path is not None or not paths:
            return here
        return self.of(paths[0], stdin_filename)


def _settings_in(folder: Path) -> Project | None:
    """The settings a file in ``folder`` itself sets, if any."""
    own = folder / "keilref.toml"
    if _is_file(own):
        return _load(own, _read(own))
    project = folder / "pyproject.toml"
    if _is_file(project):
        document = _read(project)
        tool = document.get("tool", {})
        if not isinstance(tool, dict):
            # PEP 518 makes ``tool`` a table; a project whose ``tool`` is not one is malformed.
            raise _fault(project, "tool", f"tool must be a table (such as [tool.keilref]), not {_shown(tool)}")
        table = tool.get("keilref")
        if table is not None:
            return _load(project, table, prefix="tool.keilref")
    return None


@dataclass(frozen=True)
class Found:
    """A command's records, each found and read as its own project says."""

    sources: list[Source]
    """In the order given."""
    governed: list[tuple[Project, Sources]]
    """Each project that governs a path given, in the order of its first
    path, with the records it governs."""

    @property
    def excluded(self) -> list[str]:
        """The paths given by name that ``force_exclude`` left out."""
        return [name for _, found in self.governed for name in found.excluded]


def find_sources(
    paths: Sequence[str],
    *,
    projects: Projects | None = None,
    encoding: str | None = None,
    exclude: list[str] | None = None,
    extend_exclude: list[str] | None = None,
    stdin_filename: str | None = None,
    rules: str | None = None,
    compressed: bool = False,
    matches: bool = True,
    force_exclude: bool = False,
    on_error: Callable[[PathError], None] | None = None,
    on_note: Callable[[str], None] | None = None,
) -> Found:
    """The records ``paths`` name, each under the settings nearest it.

    Each path is found by :meth:`Project.sources_for` of the project that
    governs it (:meth:`Projects.of`), with what the caller is given winning
    over each project's settings. A record that a directory search finds
    under settings of its own (a project inside the directory searched) is
    read under those: left out if they exclude it, in their encoding and
    under their rules. Raises :class:`ProjectError` for settings that cannot
    be used, and, unless ``on_error`` is given, ``PathError``."""
    projects = projects if projects is not None else Projects()
    governed: dict[Project, tuple[Sources, list[Source], list[str]]] = {}
    ordered: list[Source] = []

    def add(project: Project, found: Sources, sources: list[Source]) -> None:
        _, kept, left_out = governed.setdefault(project, (found, [], []))
        kept.extend(sources)
        left_out.extend(found.excluded)
        ordered.extend(sources)

    for path in paths:
        project = projects.of(path, stdin_filename)
        found = project.sources_for(
            [path], encoding=encoding, exclude=exclude, extend_exclude=extend_exclude, stdin_filename=stdin_filename,
            rules=rules, compressed=compressed, matches=matches, force_exclude=force_exclude, on_error=on_error,
            on_note=on_note,
        )
        if path == STDIN or not os.path.isdir(path):
            add(project, found, found.sources)
            continue
        for source in found.sources:
            own = projects.in_folder(os.path.dirname(source.name) or None)
            if own == project:
                add(project, found, [source])
                continue
            # A project inside the directory searched: its records are its own.
            own_found = own.sources_for([], encoding=encoding, exclude=exclude, extend_exclude=extend_exclude)
            if source.unreadable is None and own.excludes(source.name, own_found.exclude):
                continue
            moved = dataclasses.replace(source, encoding=own_found.encoding)
            add(own, own_found, own.with_rules([moved], rules))
    parts = [
        (project, dataclasses.replace(found, sources=kept, excluded=tuple(left_out)))
        for project, (found, kept, left_out) in governed.items()
    ]
    return Found(ordered, parts)


def _is_file(path: Path) -> bool:
    try:
        return path.is_file()
    except (OSError, ValueError) as e:
        raise ProjectError(f"{path}: cannot look for settings: {_why(e)}") from None


def _why(e: Exception) -> str:
    return (e.strerror if isinstance(e, OSError) else None) or str(e)


def _read(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as f:
            return tomllib.load(f)
    except tomllib.TOMLDecodeError as e:
        raise ProjectError(f"{path}: not valid TOML: {e}") from None
    except UnicodeDecodeError as e:
        raise ProjectError(f"{path}: not valid TOML: not UTF-8 text at byte {e.start:,}") from None
    except OSError as e:
        raise ProjectError(f"{path}: cannot read: {_why(e)}") from None


def _shown(value: Any) -> str:
    """A value as a message shows it: as Python writes it, cut short when long."""
    text = repr(value)
    return text if len(text) <= 60 else f"{text[:57]}..."


def _line_of(path: Path, key: str, table: str = "") -> int:
    """The line where ``key`` of ``table`` (``tool.keilref``; ``""``: the file's
    top level) is set, or where its own table opens, for messages; 1 if not found.

    Looked for after where the table starts, when that is found, so that a
    key of the same name in another tool's table is not the one named. A key
    may be written bare or quoted (with escapes), dotted (``tool.keilref =
    1``), in an inline table, or as a table of its own (``[tool.keilref.strict]``)."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return 1
    at = _offset_of(text, key, table)
    return text.count("\n", 0, at) + 1 if at is not None else 1


def _offset_of(text: str, key: str, table: str) -> int | None:
    parts = table.split(".") if table else []
    start = _table_start(text, parts)
    prefix = "".join(rf"{_key_pattern(part)}[ \t]*\.[ \t]*" for part in parts)
    name = _key_pattern(key)
    assignment = rf"(?:^[ \t]*|[{{,][ \t]*|\.[ \t]*){name}[ \t]*="
    own_table = rf"^[ \t]*\[\[?[ \t]*{prefix}{name}[ \t]*\]"
    pattern = re.compile(f"{assignment}|{own_table}", re.M)
    m = pattern.search(text, start) or pattern.search(text)
    return m.start() if m else None


def _table_start(text: str, parts: list[str]) -> int:
    """Where the table named by ``parts`` opens: after its header, or where
    it is set as a key of the table above it (inline); 0 if not found."""
    if not parts:
        return 0
    dotted = r"[ \t]*\.[ \t]*".join(_key_pattern(part) for part in parts)
    header = re.compile(rf"^[ \t]*\[[ \t]*{dotted}[ \t]*\]", re.M).search(text)
    if header:
        return header.end()
    return _offset_of(text, parts[-1], ".".join(parts[:-1])) or 0


_SHORT_ESCAPES = {"\b": "b", "\t": "t", "\n": "n", "\f": "f", "\r": "r", '"': '"', "\\": "\\"}


def _key_pattern(key: str) -> str:
    """A TOML key as it may be written: bare, in single quotes, or in double quotes with escapes."""
    literal = re.escape(key)
    basic = "".join(_basic_char(c) for c in key)
    return rf"""(?:"{basic}"|'{literal}'|{literal})"""


def _basic_char(c: str) -> str:
    forms = [rf"\\U(?i:{ord(c):08x})"]
    if ord(c) <= 0xFFFF:
        forms.append(rf"\\u(?i:{ord(c):04x})")
    if c in _SHORT_ESCAPES:
        forms.append(re.escape("\\" + _SHORT_ESCAPES[c]))
    if c not in '"\\' and (c == "\t" or (ord(c) >= 0x20 and c != "\x7f")):
        forms.append(re.escape(c))
    return f"(?:{'|'.join(forms)})"


def _shown_key(key: str) -> str:
    """A key as a message names it: as written, unless quoting shows it better."""
    return key if key and key.isprintable() and key.strip() == key else repr(key)


def _fault(path: Path, key: str, message: str, table: str = "") -> ProjectError:
    return ProjectError(f"{path}:{_line_of(path, key, table)}: {message}")


def _load(path: Path, table: Any, prefix: str = "") -> Project:
    where = f" in [{prefix}]" if prefix else ""
    if not isinstance(table, dict):
        raise _fault(path, "keilref", f"{prefix} must be a table (such as [{prefix}]), not {_shown(table)}", "tool")

    def fault(key: str, message: str, within: str = prefix) -> ProjectError:
        return _fault(path, key, message, within)

    for key in table:
        if key not in _KEYS:
            near = difflib.get_close_matches(key, _KEYS, n=1, cutoff=0.6)
            hint = f"; did you mean {near[0]!r}?" if near else f" (known: {', '.join(_KEYS)})"
            raise fault(key, f"unknown setting {_shown(key)}{where}{hint}")
    known_rules = [r.name for r in all_rules()]
    per_path_table = f"{prefix}.per-path-rules" if prefix else "per-path-rules"

    def rules_value(key: str, value: Any, within: str = prefix) -> str:
        if not isinstance(value, str) or value not in known_rules:
            raise fault(key, f"{_shown_key(key)}: {_shown(value)} is not a rule set (known: {', '.join(known_rules)})", within)
        return value

    def patterns(key: str) -> tuple[str, ...] | None:
        value = table.get(key)
        if value is None:
            return None
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise fault(key, f"{key} must be a list of glob patterns, such as [\"drafts\", \"2019/*\"], not {_shown(value)}")
        return tuple(value)

    rules = rules_value("rules", table["rules"]) if "rules" in table else None
    per_path = table.get("per-path-rules", {})
    if not isinstance(per_path, dict):
        raise fault(
            "per-path-rules",
            f'per-path-rules must be a table of glob = rules, such as "2019/*" = "keil-2019", not {_shown(per_path)}',
        )
    per_path_rules = tuple((glob, rules_value(glob, value, per_path_table)) for glob, value in per_path.items())
    strict = table.get("strict")
    if strict is not None and not isinstance(strict, bool):
        raise fault("strict", f"strict must be true or false, not {_shown(strict)}")
    jobs = table.get("jobs")
    if jobs is not None and (not isinstance(jobs, int) or isinstance(jobs, bool) or not 1 <= jobs <= 1024):
        raise fault("jobs", f"jobs must be a whole number from 1 to 1,024, not {_shown(jobs)}")
    fmt = table.get("format")
    if fmt is not None and (not isinstance(fmt, str) or fmt not in FORMATS):
        raise fault("format", f"format: {_shown(fmt)} is not one of {', '.join(FORMATS)}")
    encoding = table.get("encoding")
    if encoding is not None:
        if not isinstance(encoding, str):
            raise fault("encoding", f'encoding must be a codec name, such as "cp1252", not {_shown(encoding)}')
        try:
            encoding = check_encoding(encoding)
        except ValueError as e:
            raise fault("encoding", f"encoding: {e}") from None
    return Project(
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
