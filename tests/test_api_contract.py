"""The library's contract: every public name, given hostile arguments, raises
only the errors its documentation names, each with a message, and nothing hangs.

:data:`CONTRACT` maps each name of ``keilref.__all__`` (and
``keilref.dask.check_bag``, ``keilref.dask.check_dataframe`` and ``keilref.svg.board``) to the exceptions it
documents, and to the ways the tests call it with an argument they choose.
A public name added without an entry here fails
:func:`test_the_contract_covers_every_public_name`.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import socket
import subprocess
import sys
import tempfile
import textwrap
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import keilref
import importlib.util
import keilref.svg
from keilref.records.sources import PathError

from cli_support import ROOT

CORNER_KO = ROOT / "records/games/size5-keil-corner-ko.keil"

Driver = Callable[[object], object]


@dataclass(frozen=True)
class Contract:
    """What a public name may raise, and how the tests call it with a chosen value."""

    raises: tuple[type[BaseException], ...]
    drivers: tuple[Driver, ...]


@contextlib.contextmanager
def in_empty_directory() -> Iterator[None]:
    """A glob such as ``**`` must search nothing large: run from an empty directory."""
    before = os.getcwd()
    with tempfile.TemporaryDirectory() as empty:
        os.chdir(empty)
        try:
            yield
        finally:
            os.chdir(before)


def first(iterator: object) -> object:
    assert isinstance(iterator, Iterator)
    return next(iterator, None)


def not_stdin(value: object) -> object:
    # "-" names standard input, as on the command line; it is covered by the CLI's tests.
    return "./-" if value == "-" else value


def game() -> keilref.Game:
    return keilref.Game(size=3, komi=0, rules="keil")


def record() -> keilref.Record:
    return keilref.read_game(CORNER_KO)


HAVE_DASK = all(importlib.util.find_spec(m) is not None for m in ("dask", "distributed"))
"""keilref.dask is the optional extra's: its contract is driven where it is installed."""


def check_bag(value: object, **kwargs: object) -> object:
    import keilref.dask

    with in_empty_directory():
        return call(keilref.dask.check_bag, value, **kwargs)


HAVE_ARROW = importlib.util.find_spec("pyarrow") is not None
"""keilref.arrow is the optional extra's: its contract is driven where it is installed."""


def RECORD_BATCH() -> object:  # noqa: N802 - read as the constant it stands for
    import pyarrow as pa

    return pa.record_batch({"record": [CORNER_KO.read_text(encoding="utf-8"), None], "id": ["a", "b"]})


def arrow_call(name: str, *args: object, **kwargs: object) -> object:
    import keilref.arrow

    return call(getattr(keilref.arrow, name), *args, **kwargs)


HAVE_FRAMES = HAVE_DASK and all(importlib.util.find_spec(m) is not None for m in ("pandas", "pyarrow", "keilref.arrow"))
"""check_dataframe needs the arrow extra too."""


def check_dataframe(value: object, **kwargs: object) -> object:
    import keilref.dask

    with in_empty_directory():
        return call(keilref.dask.check_dataframe, value, **kwargs)


def call(function: Callable[..., object], *args: object, **kwargs: object) -> object:
    """``function(*args, **kwargs)``, the arguments unchecked: hostile on purpose."""
    return function(*args, **kwargs)


def settings_drivers(cls: Callable[..., object]) -> tuple[Driver, ...]:
    """A game class called with the value as each of its settings."""
    return (
        lambda v: call(cls, size=v),
        lambda v: call(cls, komi=v),
        lambda v: call(cls, rules=v),
        lambda v: call(cls, button=v),
    )


def error_drivers(cls: Callable[..., object]) -> tuple[Driver, ...]:
    """A record error made with the value in each place, then printed."""
    return (
        lambda v: str(call(cls, v, 1, 1)),
        lambda v: str(call(cls, "message", v, 1, "line")),
        lambda v: str(call(cls, "message", 1, v, "line")),
        lambda v: str(call(cls, "message", 1, 1, v)),
        lambda v: str(call(cls, "message", 1, 1, None, v)),
    )


def rule_set_drivers(rules: keilref.RuleSet) -> tuple[Driver, ...]:
    return (
        lambda v: call(rules.check_size, v),
        lambda v: call(rules.parse_size, v),
        lambda v: call(rules.check_komi, v),
        lambda v: call(rules.check_button, v),
    )


def value_class(cls: Callable[..., object], *rest: object) -> tuple[Driver, ...]:
    """A plain value class: made with the value first, never checked on making."""
    return (lambda v: call(cls, v, *rest),)


def record_drivers() -> tuple[Driver, ...]:
    tag = keilref.Tag("Rules", "keil")
    return (
        lambda v: call(keilref.write_record, call(keilref.Record, tags=v)),
        lambda v: call(keilref.write_record, call(keilref.Record, tags=(call(keilref.Tag, v, "x"),))),
        lambda v: call(keilref.write_record, call(keilref.Record, tags=(call(keilref.Tag, "Event", v),))),
        lambda v: call(keilref.write_record, call(keilref.Record, tags=(tag,), turns=v)),
        lambda v: call(keilref.write_record, call(keilref.Record, tags=(tag,), result=v)),
        lambda v: call(keilref.write_record, call(keilref.Record, tags=(tag,), head_comments=v)),
        lambda v: call(record().replay, turn=v),
        lambda v: call(record().replay, rules=v),
        lambda v: call(record().tag_value, v),
        lambda v: call(keilref.write_record, call(keilref.Record, tags=(tag,), turns=(turn_with(variations=v),))),
        lambda v: call(keilref.write_record, call(keilref.Record, tags=(tag,), turns=(turn_with(glyphs=v),))),
        lambda v: call(
            keilref.write_record,
            call(keilref.Record, tags=(tag,), turns=(turn_with(variations=(call(keilref.Variation, v),)),)),
        ),
        lambda v: call(record().tree, rules=v),
    )


def turn_with(**fields: object) -> keilref.Turn:
    return keilref.Turn("g7", keilref.TurnKind.PLACE, "g7", **fields)  # type: ignore[arg-type]


VALUE_ERRORS = (TypeError, ValueError)
"""What a function checking its arguments raises: TypeError for the type,
ValueError (ConfigError, InvalidMoveError... are ValueErrors) for the value."""
ENUM = (ValueError,)
"""An enum looked up by a value that is none of its own: Python's ``ValueError``."""
NOTHING: tuple[type[BaseException], ...] = ()
"""A plain value (a dataclass, an exception): made from any values, never checked on making."""

GAME_RAISES = (TypeError, keilref.ConfigError, keilref.InvalidMoveError, keilref.IllegalMoveError, ValueError)
"""A setting or turn of the wrong type, a bad setting, a bad or illegal turn;
``to_record`` raises ``ValueError`` for a bad tag or result."""

CONTRACT: dict[str, Contract] = {
    # Values: enums, and classes that hold what they are given.
    "Color": Contract(ENUM, value_class(keilref.Color)),
    "Reason": Contract(ENUM, value_class(keilref.Reason)),
    "ResultKind": Contract(ENUM, value_class(keilref.ResultKind)),
    "TurnKind": Contract(ENUM, value_class(keilref.TurnKind)),
    "Status": Contract(ENUM, value_class(keilref.Status)),
    "MismatchReason": Contract(ENUM, value_class(keilref.MismatchReason)),
    "Result": Contract(
        VALUE_ERRORS,
        (
            *value_class(keilref.Result),
            lambda v: call(keilref.Result.parse, v),
            lambda v: call(keilref.Result.from_scores, v, 0),
        ),
    ),
    "Score": Contract(NOTHING, value_class(keilref.Score)),
    "ScoreRow": Contract(NOTHING, value_class(keilref.ScoreRow, 0, 0)),
    "Group": Contract(NOTHING, value_class(keilref.Group, frozenset(), frozenset())),
    "Territory": Contract(NOTHING, value_class(keilref.Territory, None)),
    "IllegalTurn": Contract(NOTHING, value_class(keilref.IllegalTurn, "g7", "occupied", 1, 1)),
    "ReadError": Contract(NOTHING, value_class(keilref.ReadError, 1, 1)),
    "Verdict": Contract(NOTHING, value_class(keilref.Verdict, 1, 1, keilref.Status.OK)),
    "Tag": Contract(NOTHING, value_class(keilref.Tag, "x")),
    "Variation": Contract(NOTHING, value_class(keilref.Variation)),
    "Clock": Contract(NOTHING, value_class(keilref.Clock)),
    "Placed": Contract(NOTHING, value_class(keilref.Placed)),
    "StartPosition": Contract(
        VALUE_ERRORS,
        (
            *value_class(keilref.StartPosition),
            lambda v: call(keilref.StartPosition.parse, v),
            lambda v: call(keilref.StartPosition.parse, "B: a1 W:", to_move=v),
            lambda v: call(keilref.StartPosition.parse, "B: a1 W:", button_taken=v),
            lambda v: call(keilref.StartPosition.parse, "B: a1 W:", first_pass=v),
        ),
    ),
    "Node": Contract((TypeError, keilref.ConfigError), (lambda v: call(record().tree, rules=v),)),
    "Turn": Contract(
        (TypeError,),
        (*value_class(keilref.Turn, keilref.TurnKind.PASS), lambda v: call(keilref.Turn.of, v)),
    ),
    "Record": Contract(VALUE_ERRORS, record_drivers()),
    "RecordSource": Contract(
        (TypeError, OSError),
        # A type, not a function: what read_games reads.
        (lambda v: first(call(keilref.read_games, v)),),
    ),
    # Errors: made by keilref, and by users' own code.
    "KeilrefError": Contract(NOTHING, (lambda v: str(keilref.KeilrefError(v)),)),
    "ConfigError": Contract(NOTHING, (lambda v: str(keilref.ConfigError(v)),)),
    "InvalidMoveError": Contract(NOTHING, (lambda v: str(keilref.InvalidMoveError(v)),)),
    "IllegalMoveError": Contract(
        (TypeError,),
        (
            lambda v: str(call(keilref.IllegalMoveError, v, keilref.Reason.OCCUPIED, 1)),
            lambda v: str(call(keilref.IllegalMoveError, "g7", v, 1)),
            lambda v: str(call(keilref.IllegalMoveError, "g7", keilref.Reason.SUPERKO, v)),
            lambda v: str(call(keilref.IllegalMoveError, "g7", keilref.Reason.SUPERKO, 3, v)),
        ),
    ),
    "RecordError": Contract((TypeError,), error_drivers(keilref.RecordError)),
    "RecordSyntaxError": Contract((TypeError,), error_drivers(keilref.RecordSyntaxError)),
    "TagError": Contract((TypeError,), error_drivers(keilref.TagError)),
    "PositionError": Contract(NOTHING, (lambda v: str(keilref.PositionError(v)),)),
    # Rule sets.
    "RuleSet": Contract(NOTHING, value_class(keilref.RuleSet, "f", "t", 2, 3, 2, False, None, None)),
    "KeilRules": Contract(NOTHING, value_class(keilref.KeilRules, "f", "t", 2, 3, 2, False, None, None, False)),
    "KEIL": Contract((TypeError, keilref.ConfigError), rule_set_drivers(keilref.KEIL)),
    "KEIL_2019": Contract((TypeError, keilref.ConfigError), rule_set_drivers(keilref.KEIL_2019)),
    "DEHIL": Contract((TypeError, keilref.ConfigError), rule_set_drivers(keilref.DEHIL)),
    "YUGO": Contract((TypeError, keilref.ConfigError), rule_set_drivers(keilref.YUGO)),
    "all_rules": Contract((TypeError,), (lambda v: call(keilref.all_rules, v),)),
    "find_rules": Contract((TypeError, keilref.ConfigError), (lambda v: call(keilref.find_rules, v),)),
    "register": Contract((TypeError, ValueError), (lambda v: call(keilref.register, v),)),
    # Games.
    "Game": Contract(
        GAME_RAISES,
        (
            *settings_drivers(keilref.Game),
            lambda v: call(game().play, v),
            lambda v: call(game().check, v),
            lambda v: call(game().is_legal, v),
            lambda v: call(game().stone_at, v),
            lambda v: call(game().to_record, v),
            lambda v: call(game().to_record, result=v),
            lambda v: call(keilref.Game.from_position, v, size=3),
            lambda v: call(keilref.Game.from_position, "B: a1 W: c3", size=v),
            lambda v: call(keilref.Game.from_position, "B: a1 W: c3", size=3, rules=v),
            lambda v: call(keilref.Game.from_position, "B: a1 W: c3", size=3, to_move=v),
            lambda v: call(keilref.Game.from_position, "B: a1 W: c3", size=3, button_taken=v),
            lambda v: call(keilref.Game.from_position, "B: a1 W: c3", rules="dehil", size=3, first_pass=v),
        ),
    ),
    "KeilGame": Contract(GAME_RAISES, settings_drivers(keilref.KeilGame)),
    "YugoGame": Contract(
        GAME_RAISES,
        (
            *settings_drivers(keilref.YugoGame),
            lambda v: call(keilref.YugoGame(size=3).play, v),
            lambda v: call(keilref.YugoGame(size=3).check, v),
        ),
    ),
    "DehilGame": Contract(
        GAME_RAISES,
        (
            *settings_drivers(keilref.DehilGame),
            lambda v: call(keilref.DehilGame(size=3).play, v),
            lambda v: call(keilref.DehilGame(size=3).check, v),
        ),
    ),
    # Reading, writing, checking.
    "read_games": Contract((TypeError, OSError), (lambda v: first(call(keilref.read_games, v)),)),
    "read_game": Contract((TypeError, OSError, keilref.RecordError), (lambda v: call(keilref.read_game, v),)),
    "write_record": Contract(VALUE_ERRORS, (lambda v: call(keilref.write_record, v),)),
    "write_records": Contract(
        VALUE_ERRORS,
        (lambda v: call(keilref.write_records, v), lambda v: call(keilref.write_records, [record(), v])),
    ),
    "check_file": Contract(
        (TypeError, keilref.ConfigError),
        (
            lambda v: call(keilref.check_file, not_stdin(v)),
            lambda v: call(keilref.check_file, CORNER_KO, rules=v),
        ),
    ),
    "check_text": Contract(
        (TypeError, keilref.ConfigError),
        (
            lambda v: call(keilref.check_text, v),
            lambda v: call(keilref.check_text, "", rules=v),
            lambda v: call(keilref.check_text, "", filename=v),
        ),
    ),
    "dask.check_bag": Contract(
        (TypeError, ValueError, PathError, keilref.ConfigError),
        (
            check_bag,
            lambda v: check_bag([CORNER_KO], rules=v),
            lambda v: check_bag([CORNER_KO], npartitions=v),
        ),
    ),
    "arrow.check_batch": Contract(
        (TypeError, KeyError, keilref.ConfigError),
        (
            lambda v: arrow_call("check_batch", v),
            lambda v: arrow_call("check_batch", RECORD_BATCH(), column=v),
            lambda v: arrow_call("check_batch", RECORD_BATCH(), rules=v),
            lambda v: arrow_call("check_batch", RECORD_BATCH(), file=v),
            lambda v: arrow_call("check_batch", RECORD_BATCH(), first_row=v),
            lambda v: arrow_call("check_batch", RECORD_BATCH(), name_column=v),
            lambda v: arrow_call("check_batch", RECORD_BATCH(), row_column=v),
        ),
    ),
    "arrow.verdict_batch": Contract(
        (TypeError,),
        (lambda v: arrow_call("verdict_batch", v),),
    ),
    "dask.check_dataframe": Contract(
        (TypeError, ValueError, PathError, keilref.ConfigError),
        (
            check_dataframe,
            lambda v: check_dataframe([CORNER_KO], rules=v),
            lambda v: check_dataframe([CORNER_KO], npartitions=v),
            lambda v: check_dataframe([CORNER_KO], column=v),
            lambda v: check_dataframe([CORNER_KO], file_column=v),
        ),
    ),
    "svg.board": Contract(
        (TypeError, ValueError),
        (
            lambda v: call(keilref.svg.board, v),
            lambda v: call(keilref.svg.board, game(), size=v),
            lambda v: call(keilref.svg.board, game(), illegal=v),
            lambda v: call(keilref.svg.board, game(), notes=v),
        ),
    ),
}

EXTRA = {"dask.check_bag", "dask.check_dataframe", "svg.board", "arrow.check_batch", "arrow.verdict_batch"}
"""Public functions outside ``keilref.__all__`` that the contract covers too."""


def test_the_contract_covers_every_public_name() -> None:
    assert set(CONTRACT) == set(keilref.__all__) | EXTRA


# --- hostile values ------------------------------------------------------------

ANY_TEXT = st.text(st.characters(exclude_categories=()), max_size=40)
"""Text of any code points: NUL, lone surrogates, line breaks, brackets."""

HOSTILE: st.SearchStrategy[object] = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.sampled_from([0, -1, 1, 7, 10**100, -(10**100), 2**63]),
    st.floats(),
    st.sampled_from([math.nan, math.inf, -math.inf, -0.0, 1e308]),
    ANY_TEXT,
    st.sampled_from(["", "a\x00b", "\ud800", "\udcff", "x" * 100_000, "[", "[Rules", "\n", ".", "/", "*", "keil"]),
    st.binary(max_size=40),
    st.binary(max_size=40).map(bytearray),
    st.binary(max_size=40).map(lambda b: memoryview(b)),
    st.lists(st.one_of(st.integers(), ANY_TEXT, st.none()), max_size=3),
    st.dictionaries(ANY_TEXT, st.one_of(st.integers(), ANY_TEXT), max_size=3),
    st.builds(object),
    st.sampled_from([Decimal("NaN"), Decimal("6.5"), Fraction(1, 3), complex(1, 1)]),
    st.sampled_from([keilref.Color.BLACK, keilref.Reason.OCCUPIED, keilref.Tag("Rules", "keil"), Path("/")]),
)


def assert_within_contract(name: str, value: object, contract: Contract | None = None) -> None:
    contract = CONTRACT[name] if contract is None else contract
    for drive in contract.drivers:
        try:
            drive(value)
        except contract.raises as e:
            assert str(e).strip(), f"{name}: {type(e).__name__} without a message for {value!r:.80}"
        except Exception as e:  # noqa: BLE001
            raise AssertionError(
                f"{name} raised {type(e).__name__}: {e} for {value!r:.80}; "
                f"documented: {', '.join(t.__name__ for t in contract.raises) or 'nothing'}"
            ) from e


@pytest.mark.parametrize("name", sorted(CONTRACT))
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(value=HOSTILE)
def test_a_public_name_raises_only_its_documented_errors(name: str, value: object) -> None:
    if name == "dask.check_bag" and not HAVE_DASK:
        pytest.skip("the dask extra is not installed")
    if name.startswith("arrow.") and not HAVE_ARROW:
        pytest.skip("the arrow extra is not installed")
    if name == "dask.check_dataframe" and not HAVE_FRAMES:
        pytest.skip("the dask and arrow extras are not installed")
    assert_within_contract(name, value)


def test_the_reported_faults_are_within_the_contract() -> None:
    """The faults first found by hand, each named."""
    with pytest.raises(OSError, match="NUL"):
        next(keilref.read_games("a\x00b"))
    with pytest.raises(TypeError, match="read_games reads .*memoryview.*, not NoneType"):
        call(keilref.read_games, None)
    with pytest.raises(TypeError, match=r"size must be a whole number \(int\), such as 7, not str"):
        call(keilref.Game, size="7")
    data = CORNER_KO.read_bytes()
    assert next(keilref.read_games(memoryview(data))) == next(keilref.read_games(data))
    assert keilref.check_text(memoryview(data)) == keilref.check_text(data)


def test_a_check_is_made_by_the_contract() -> None:
    """The contract test fails when a public name raises what it does not document."""
    deep = Contract((TypeError,), (lambda v: getattr(v, "nothing"),))
    with pytest.raises(AssertionError, match="raised AttributeError"):
        assert_within_contract("deep", None, deep)
    silent = Contract((TypeError,), (lambda v: _raise(TypeError()),))
    with pytest.raises(AssertionError, match="without a message"):
        assert_within_contract("silent", None, silent)


def _raise(e: BaseException) -> None:
    raise e


# --- files that must never be waited on -------------------------------------------

HAZARD_PROBE = textwrap.dedent(
    """
    import json, sys
    import keilref

    results = {}
    for kind, path in json.loads(sys.argv[1]).items():
        try:
            if sys.argv[2] == "read_games":
                next(keilref.read_games(path))
                results[kind] = ["returned", ""]
            elif sys.argv[2] == "read_game":
                keilref.read_game(path)
                results[kind] = ["returned", ""]
            else:
                verdicts = keilref.check_file(path)
                results[kind] = ["verdicts", [(v.status.value, v.error.message if v.error else "") for v in verdicts]]
        except Exception as e:
            results[kind] = [type(e).__name__, str(e), isinstance(e, OSError)]
    print(json.dumps(results))
    """
)


@pytest.fixture
def hazards(tmp_path: Path) -> Iterator[dict[str, str]]:
    """Paths that name no regular file: each would block, never end, or cannot be opened."""
    paths = {
        "directory": str(tmp_path),
        "missing": str(tmp_path / "missing.keil"),
        "NUL": "records\x00.keil",
        "surrogate": "records\udc00\ud800.keil",
    }
    if os.path.exists("/dev/zero"):
        paths["device"] = "/dev/zero"
    if hasattr(os, "mkfifo"):
        fifo = tmp_path / "pipe.keil"
        os.mkfifo(fifo)  # no writer: opening it for reading would wait for ever
        paths["named pipe"] = str(fifo)
    server = None
    if hasattr(socket, "AF_UNIX"):
        server = socket.socket(socket.AF_UNIX)
        # A socket's path must be short: make it where one fits.
        short = tempfile.mkdtemp(prefix="k")
        server.bind(os.path.join(short, "s.keil"))
        paths["socket"] = os.path.join(short, "s.keil")
    try:
        yield paths
    finally:
        if server is not None:
            server.close()
            os.unlink(paths["socket"])
            os.rmdir(os.path.dirname(paths["socket"]))


def probe(function: str, paths: dict[str, str]) -> dict[str, list[object]]:
    """What ``function`` does with each path, found in another process: one that waits is stopped."""
    run = subprocess.run(
        [sys.executable, "-c", HAZARD_PROBE, json.dumps(paths), function],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )
    assert run.returncode == 0, run.stderr
    results: dict[str, list[object]] = json.loads(run.stdout)
    return results


@pytest.mark.parametrize("function", ["read_games", "read_game"])
def test_a_path_that_is_not_a_regular_file_is_an_os_error_at_once(function: str, hazards: dict[str, str]) -> None:
    results = probe(function, hazards)
    assert set(results) == set(hazards)
    for kind, (error, message, *is_os_error) in results.items():
        assert is_os_error == [True], (kind, error, message)
        assert isinstance(message, str) and (hazards[kind] in message or repr(hazards[kind]) in message), (kind, message)
    expected_words = {
        "device": "device",
        "named pipe": "named pipe",
        "socket": "socket",
        "directory": "directory",
        "missing": "No such file",
        "NUL": "NUL",
        "surrogate": "encoded",
    }
    for kind, word in expected_words.items():
        if kind in results:
            assert word in str(results[kind][1]), (kind, results[kind])


def test_check_file_gives_a_path_that_is_not_a_regular_file_an_error_verdict(hazards: dict[str, str]) -> None:
    results = probe("check_file", hazards)
    assert set(results) == set(hazards)
    for kind, (what, verdicts) in results.items():
        assert what == "verdicts", (kind, verdicts)
        assert isinstance(verdicts, list) and len(verdicts) == 1, (kind, verdicts)
        status, message = verdicts[0]
        assert status == "error" and message.startswith("cannot read "), (kind, message)


def test_the_command_line_still_reads_a_named_pipe_it_is_given(tmp_path: Path) -> None:
    """The one decision, two callers: the library refuses a named pipe by path, the command line reads it."""
    if not hasattr(os, "mkfifo"):
        pytest.skip("needs named pipes")
    fifo = tmp_path / "pipe.keil"
    os.mkfifo(fifo)
    reader = subprocess.Popen(
        [sys.executable, "-m", "keilref", "check", "--format", "jsonl", str(fifo)],
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    with open(fifo, "wb") as pipe:
        pipe.write(CORNER_KO.read_bytes())
    out, _ = reader.communicate(timeout=60)
    assert [json.loads(line)["status"] for line in out.splitlines()] == ["ok"]
