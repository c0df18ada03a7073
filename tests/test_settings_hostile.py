"""A settings file of any shape is used, or is one located usage error: never a traceback.

Whatever a ``keilref.toml`` or a ``pyproject.toml`` holds (a ``tool`` that is
not a table, a ``[tool.keilref]`` that is a number, any TOML value for any
key), every command that reads settings either runs or stops with exit code 2
and one line naming the file, the line and the key; and the language server
still checks the document, without the settings, and says why in its log.
"""

from __future__ import annotations

import asyncio
import datetime
import math
import tempfile
import tomllib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from cli_support import ROOT, run
from keilref.project import _KEYS, ProjectError, find_project
from keilref.records.sources import Source

GAME = ROOT / "records/games/size4-keil-no-result-claimed.keil"
COMMANDS = [["check"], ["fmt", "--check"], ["stats"], ["filter", "--status", "ok"], ["show"], ["score"], ["legal"]]


def _string(text: str) -> str:
    """``text`` as a TOML basic string."""
    out = []
    for c in text:
        if c in '"\\':
            out.append("\\" + c)
        elif ord(c) < 0x20 or ord(c) == 0x7F:
            out.append(f"\\u{ord(c):04x}")
        else:
            out.append(c)
    return '"' + "".join(out) + '"'


def toml_value(v: Any) -> str:
    """``v`` written as a TOML value (inline)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return repr(v)
    if isinstance(v, str):
        return _string(v)
    if isinstance(v, (datetime.datetime, datetime.date, datetime.time)):
        return v.isoformat()
    if isinstance(v, list):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    assert isinstance(v, dict)
    return "{" + ", ".join(f"{_string(k)} = {toml_value(x)}" for k, x in v.items()) + "}"


TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)
# Strings a setting might hold, right or nearly: rule sets, formats, codecs (text and not), patterns.
WORDS = st.sampled_from(
    ["keil", "keil-2019", "yugo", "go", "text", "jsonl", "sarif", "xml", "cp1252", "utf-8", "utf-16",
     "hex", "rot13", "zlib", "", "*", "2019/*", "../*", ".*", "[", "tool", "keilref", "strict"]
)
SCALARS = st.one_of(
    st.booleans(),
    st.integers(),
    st.integers(-2, 1100),
    st.floats(),
    TEXT,
    WORDS,
    st.datetimes(timezones=st.sampled_from([None, datetime.timezone.utc])),
    st.dates(),
    st.times(),
)
KEYS = st.one_of(st.sampled_from(_KEYS), WORDS, TEXT)
VALUES = st.recursive(
    SCALARS, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(KEYS, inner, max_size=3), max_leaves=8
)

# Where a value goes, as (file, template): {key} and {value} are filled in; the value is on the last line.
LAYOUTS = [
    ("keilref.toml", "{key} = {value}\n"),
    ("keilref.toml", "strict = true\n[per-path-rules]\n{key} = {value}\n"),
    ("pyproject.toml", "[project]\nname = \"x\"\n\n[tool.keilref]\n{key} = {value}\n"),
    ("pyproject.toml", "[tool.keilref.per-path-rules]\n{key} = {value}\n"),
    ("pyproject.toml", "[tool.ruff]\nexclude = []\n[tool]\nkeilref = {value}\n"),
    ("pyproject.toml", "[project]\nname = \"x\"\ntool = {value}\n"),
    ("pyproject.toml", "tool.keilref = {value}\n"),
]


def _write(folder: Path, layout: int, key: str, value: Any) -> tuple[Path, int]:
    name, template = LAYOUTS[layout]
    text = template.format(key=_string(key), value=toml_value(value))
    tomllib.loads(text)  # the test writes valid TOML: what it tries is the settings, not the parser
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path, text.count("\n")


def _keys_in(value: Any) -> set[str]:
    if isinstance(value, dict):
        return set(value).union(*(_keys_in(v) for v in value.values()))
    if isinstance(value, list):
        return set().union(*(_keys_in(v) for v in value))
    return set()


def _judged(folder: Path, path: Path, line: int, key: str, value: Any, layout: int) -> None:
    """Settings are found, or a ProjectError names the file, the value's line and the key."""
    try:
        found = find_project(folder)
    except ProjectError as e:
        message = str(e)
        assert message.startswith(f"{path.resolve()}:{line}: "), message
        named = {"tool", "tool.keilref", *_keys_in(value)} if layout >= 4 else {key, *_keys_in(value)}
        assert any(n[:20] in message or repr(n)[1:20] in message for n in named), message
        return
    # What the commands ask of settings never fails either.
    found.search_patterns(None, None)
    found.with_rules([Source("a/b.keil"), Source("../c.keil")], None)
    found.rules_for(str(folder / "2019" / "g.keil"))
    found.encoding_for(None)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(layout=st.integers(0, len(LAYOUTS) - 1), key=KEYS, value=VALUES)
@example(layout=5, key="x", value=1)  # tool = 1
@example(layout=6, key="x", value=[1])  # tool.keilref = [1]
@example(layout=2, key="encoding", value="hex")
@example(layout=2, key="jobs", value=True)
@example(layout=2, key="exclude", value=[{"a": 1}])
@example(layout=3, key="per-path-rules", value=1)
def test_any_value_for_any_key_is_used_or_is_a_located_error(layout: int, key: str, value: Any) -> None:
    with tempfile.TemporaryDirectory() as top:
        folder = Path(top).resolve()
        path, line = _write(folder, layout, key, value)
        _judged(folder, path, line, key, value, layout)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(layout=st.integers(0, len(LAYOUTS) - 1), key=KEYS, value=VALUES)
def test_through_check_any_value_runs_or_exits_2_without_a_traceback(layout: int, key: str, value: Any) -> None:
    with tempfile.TemporaryDirectory() as top:
        folder = Path(top).resolve()
        _write(folder, layout, key, value)
        (folder / "g.keil").write_bytes(GAME.read_bytes())
        with pytest.MonkeyPatch.context() as mp:
            mp.chdir(folder)
            r = run("check", "--format", "text", "g.keil")  # run() fails on a traceback or an escaping exception
        assert r.exit_code in (0, 1, 2), r.output
        if r.exit_code == 2:
            assert r.stderr.startswith(f"keilref: {folder}/"), r.stderr
        else:
            assert "1 game: 1 ok" in r.stdout


HOSTILE = [
    ("pyproject.toml", "tool = 1\n", "pyproject.toml:1: tool must be a table (such as [tool.keilref]), not 1"),
    ("pyproject.toml", '# the project\n\ntool = "x"\n[project]\nname = "x"\n', "pyproject.toml:3: tool must be a table"),
    ("pyproject.toml", "tool.keilref = 1\n", "pyproject.toml:1: tool.keilref must be a table (such as [tool.keilref]), not 1"),
    ("pyproject.toml", "[tool]\nruff = {}\nkeilref = []\n", "pyproject.toml:3: tool.keilref must be a table"),
    ("pyproject.toml", "[[tool.keilref]]\nstrict = true\n", "pyproject.toml:1: tool.keilref must be a table"),
    ("pyproject.toml", "[tool.keilref]\nrules = 1\n", "pyproject.toml:2: rules: 1 is not a rule set"),
    ("pyproject.toml", "[tool.keilref]\nper-path-rules = []\n", "pyproject.toml:2: per-path-rules must be a table"),
    ("pyproject.toml", "[tool.keilref.per-path-rules]\n'*' = ['keil']\n", "pyproject.toml:2: *: ['keil'] is not a rule set"),
    ("pyproject.toml", "[tool.keilref]\nstrict = 'yes'\n", "pyproject.toml:2: strict must be true or false, not 'yes'"),
    ("pyproject.toml", "[tool.keilref]\njobs = 2.0\n", "pyproject.toml:2: jobs must be a whole number"),
    ("pyproject.toml", "[tool.keilref]\nformat = ['text']\n", "pyproject.toml:2: format: ['text'] is not one of"),
    ("pyproject.toml", "[tool.keilref]\nexclude = 'drafts'\n", "pyproject.toml:2: exclude must be a list of glob patterns"),
    ("pyproject.toml", "[tool.keilref]\nextend-exclude = [1]\n", "pyproject.toml:2: extend-exclude must be a list"),
    ("pyproject.toml", "[tool.keilref]\nencoding = 1252\n", "pyproject.toml:2: encoding must be a codec name"),
    ("pyproject.toml", "[tool.keilref]\nencoding = 'rot13'\n", "pyproject.toml:2: encoding: 'rot13' is not a text encoding"),
    ("pyproject.toml", "[tool.keilref.strict]\nx = 1\n", "pyproject.toml:1: strict must be true or false"),
    ("pyproject.toml", "[tool.ruff]\nexclude = 1\n[tool.keilref]\nexclude = 2\n", "pyproject.toml:4: exclude must be"),
    ("keilref.toml", "[[exclude]]\n", "keilref.toml:1: exclude must be a list of glob patterns"),
    ("keilref.toml", "strict = 2026-11-26\n", "keilref.toml:1: strict must be true or false, not datetime.date(2026, 11, 26)"),
    ("keilref.toml", "jobs = nan\n", "keilref.toml:1: jobs must be a whole number from 1 to 1,024, not nan"),
    ("pyproject.toml", b"[tool.keilref]\nstrict = '\xff'\n", "pyproject.toml: not valid TOML"),
]


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
@pytest.mark.parametrize(("name", "text", "says"), HOSTILE, ids=[repr(h[1])[:40] for h in HOSTILE])
def test_every_command_stops_at_a_malformed_settings_file_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: list[str], name: str, text: str | bytes, says: str
) -> None:
    (tmp_path / name).write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "g.keil").write_bytes(GAME.read_bytes())
    monkeypatch.chdir(tmp_path / "sub")  # found from below, as from anywhere in the project
    r = run(*command, "g.keil")
    assert r.exit_code == 2, r.output
    assert r.stderr.startswith(f"keilref: {tmp_path.resolve()}/{says}"), r.stderr
    assert r.stderr.count("\n") == 1 and r.stdout == ""
    assert (tmp_path / "sub" / "g.keil").read_bytes() == GAME.read_bytes()


def test_a_folder_that_cannot_be_looked_into_is_a_settings_error_not_a_traceback() -> None:
    with pytest.raises(ProjectError, match="cannot look for settings"):
        find_project(Path("/tmp/a\x00b"))


def test_the_language_server_checks_without_malformed_settings_and_says_why(tmp_path: Path) -> None:
    pytest.importorskip("pygls")
    from lsp_support import Client

    (tmp_path / "pyproject.toml").write_text('# the project\n\ntool = 1\n[project]\nname = "x"\n', encoding="utf-8")
    good = (tmp_path / "good.keil").as_uri()
    bad = (tmp_path / "bad.keil").as_uri()
    text = GAME.read_text(encoding="utf-8")

    async def session() -> None:
        client = Client()
        await client.start()
        try:
            assert await client.open(good, text) == []
            half_komi = '[Size "3"] [Komi "2.5"] [Button "yes"]\n1. c3 d4 2. c2 d3 *\n'  # keil-2019 only
            assert [d.code for d in await client.open(bad, half_komi)] == ["error"]
            said = f"keilref: {tmp_path.resolve()}/pyproject.toml:3: tool must be a table (such as [tool.keilref]), not 1"
            assert {m for m in client.logs if m.startswith(said)} == {f"{said}; checking without the project's settings"}
        finally:
            await client.finish()

    asyncio.run(asyncio.wait_for(session(), 60))
