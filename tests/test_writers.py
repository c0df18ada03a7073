"""Every format is a writer in the registry, handed the check's options whole;
how much a finding weighs is decided once."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from cli_support import ROOT
from keilref import check_file
from keilref.formats import FORMATS, CheckOptions, Writer, judge
from keilref.formats.findings import RULES, Weight, findings
from keilref.formats.tally import Tally
from keilref.records.sources import Source

SUPERKO = ROOT / "records/faults/illegal-superko.keil"
UNFINISHED = ROOT / "records/games/size9-keil-unfinished.keil"


@pytest.mark.parametrize("name", list(FORMATS))
def test_every_registered_format_is_a_writer_that_reads_its_own_output_back(name: str) -> None:
    cls = FORMATS[name].writer_class()
    assert issubclass(cls, Writer)
    # Without its own reader a format is not held to the one truth (tests/test_one_truth.py).
    if FORMATS[name].binary:  # bytes, read back as such
        assert cls.read_bytes.__func__ is not Writer.read_bytes.__func__  # type: ignore[attr-defined]
    else:
        assert cls.read_back.__func__ is not Writer.read_back.__func__  # type: ignore[attr-defined]


def test_a_format_without_a_reader_cannot_be_read_back() -> None:
    class Unread(Writer):
        pass

    with pytest.raises(NotImplementedError):
        Unread.read_back("")


@pytest.mark.parametrize("name", list(FORMATS))
def test_what_a_worker_makes_of_a_verdict_crosses_between_processes(name: str) -> None:
    options = CheckOptions(format=name, strict=True, warn=print, sources={"x": Source("x")})
    tally = Tally([].append, options)
    each = pickle.loads(pickle.dumps(tally.in_worker()))
    (v,) = check_file(SUPERKO)
    judged = pickle.loads(pickle.dumps(each(v)))
    assert (judged.status, judged.fails) == ("illegal", True)
    # A line format's text is made in the worker; a document gets the verdict itself.
    assert (judged.text is None) == (judged.verdict == v)
    assert judged.text == FORMATS[name].writer_class().lines(v, options)


def test_the_workers_options_leave_out_what_only_the_main_process_uses() -> None:
    options = CheckOptions(strict=True, rules="keil", warn=print, sources={"x": Source("x")})
    sent = options.for_workers()
    assert (sent.strict, sent.rules, sent.warn, dict(sent.sources)) == (True, "keil", None, {})
    with pytest.raises(AttributeError):
        options.strict = False  # type: ignore[misc]


class _Lines(Writer):
    @classmethod
    def lines(cls, v: object, options: CheckOptions) -> str:
        return "line\n"


def test_quiet_is_handled_once_for_every_writer_and_only_where_the_format_does_not_list_every_game() -> None:
    (bad,) = check_file(SUPERKO)
    (unfinished,) = check_file(UNFINISHED)
    out: list[str] = []
    writer = _Lines(out.append, CheckOptions(quiet=True))
    for v in (bad, unfinished):
        writer.take(judge(v, _Lines, writer.options))
    assert out == ["line\n"]
    for name, f in FORMATS.items():
        made = f.make_writer([].append, CheckOptions(quiet=True))
        assert made.options.quiet is not f.lists_passing, name
        assert made.options.format == name


def test_each_rule_weighs_once_and_every_format_words_every_weight() -> None:
    weights = {r.id: r.weight for r in RULES}
    assert weights["unfinished"] is Weight.INFORMS and weights["warning"] is Weight.STRICT
    assert {w for rule, w in weights.items() if rule not in ("unfinished", "warning")} == {Weight.FAILS}
    from keilref.formats import checkstyle, gitlab, sarif, tap

    for vocabulary in (checkstyle.SEVERITIES, gitlab._SEVERITY, sarif._DEFAULT_LEVEL, tap.SEVERITIES):
        assert set(vocabulary) == set(Weight)
    (v,) = check_file(UNFINISHED)
    (note,) = findings(v)
    (fault, *_) = findings(v, CheckOptions(strict=True))
    assert note.weight is fault.weight is Weight.INFORMS
    assert (checkstyle.severity(fault), gitlab.severity(fault)) == ("warning", "minor")


def test_the_check_names_no_format() -> None:
    # The command reads what it needs from the registry and the writer, never a format's name.
    source = (ROOT / "keilref/cli/check.py").read_text(encoding="utf-8")
    for name in FORMATS:
        assert f'"{name}"' not in source.replace('or "text"', ""), name
