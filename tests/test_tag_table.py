"""The tag vocabulary is one table (``keilref/records/tags.py``), and every
module that treats a tag by its name reads it: the writer's standard order,
the known tags a misspelling is measured against, the settings the referee
judges and a record made from a game writes, the time control, the game id
and the komi pie of an import.

Each test asserts what a user meets (an order written, a warning and an exit
code, an error at a tag), so that a list drifting from the table fails here.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from cli_support import ROOT, runner
from keilref.cli import EXIT_FAILED, EXIT_OK, app
from keilref.engine import recording
from keilref.engine.generate import random_game, to_record
from keilref.engine.rules import find_rules
from keilref.errors import TagError
from keilref.records import tagnames, tags, writer
from keilref.records.abstract_games import dump_moves, read_match
from keilref.records.parser import parse_record
from keilref.records.record import Record, Tag
from keilref.records.tags import KNOWN_TAGS, TAGS, Role, names_with, the_tag
from keilref.referee import clocks, settings
from keilref.referee.matches import export_moves

_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*\Z")


# --------------------------------------------------------------------------
# The table against the format's documents


def _documented_tags(text: str) -> set[str]:
    """The tag names a document of the format names: every ``[Name "`` it
    writes, and every name in backquotes in the first column of a table whose
    header begins ``| tag |``."""
    names = set(re.findall(r'\[([A-Za-z][A-Za-z0-9_]*) "', text))
    in_tag_table = False
    for line in text.splitlines():
        if line.startswith("| tag |"):
            in_tag_table = True
        elif not line.startswith("|"):
            in_tag_table = False
        elif in_tag_table:
            first_cell = line.split("|")[1]
            names.update(re.findall(r"`([A-Za-z][A-Za-z0-9_]*)`", first_cell))
    # `[Name "value"]` is how the format writes a tag, not a tag.
    names.discard("Name")
    return names


def _misspelt_examples(text: str) -> set[str]:
    """The misspelt names the document shows in its warnings (``unknown tag 'KOMI'``)."""
    return set(re.findall(r"unknown tag '([A-Za-z][A-Za-z0-9_]*)'", text))


@pytest.mark.parametrize("doc", ["docs/record-format.md", "README.md"])
def test_every_tag_a_document_of_the_format_names_is_in_the_table(doc: str) -> None:
    text = (ROOT / doc).read_text(encoding="utf-8")
    named = _documented_tags(text) - _misspelt_examples(text)
    missing = sorted(named - set(KNOWN_TAGS))
    assert not missing, f"{doc} names tags the table does not hold: {missing}"


def test_the_format_page_names_the_tags_once_missing_from_the_known_ones() -> None:
    # Guards the parse above: if it found nothing, the test before would pass on anything.
    named = _documented_tags((ROOT / "docs/record-format.md").read_text(encoding="utf-8"))
    assert {"Rules", "Size", "Komi", "Button", "Removed", "Result", "Annotator"} <= named
    assert {"TimeControl", "KomiBy", "GameId", "Event", "Site", "Date", "Round", "Black", "White"} <= named


def test_the_table_holds_the_position_tags_of_the_format() -> None:
    assert names_with(Role.POSITION) == ("Setup", "ToMove", "ButtonTaken", "FirstPass")


def test_each_tag_is_named_once_with_a_valid_name_and_a_role() -> None:
    names = [spec.name for spec in TAGS]
    assert len(names) == len(set(names))
    assert len({n.lower() for n in names}) == len(names), "two tags differing only in case could not be told apart"
    for spec in TAGS:
        assert _NAME.match(spec.name), spec.name
        assert spec.roles, f"{spec.name} has no role"
        assert isinstance(spec.roles, frozenset)


def test_the_standard_tags_come_first_in_the_writers_order() -> None:
    standard = names_with(Role.STANDARD)
    assert tuple(spec.name for spec in TAGS[: len(standard)]) == standard
    assert standard == ("Event", "Site", "Date", "Round", "Black", "White", "Rules", "Size", "Komi", "Button", "Result")


def test_the_tag_of_a_role_is_the_one_tag_that_has_it() -> None:
    assert the_tag(Role.TIME_CONTROL) == "TimeControl"
    assert the_tag(Role.GAME_ID) == "GameId"
    assert the_tag(Role.KOMI_PIE) == "KomiBy"
    with pytest.raises(LookupError, match="5 tags have the role 'setting', not one"):
        the_tag(Role.SETTING)


def test_names_with_several_roles_keeps_the_tables_order() -> None:
    assert names_with(Role.RESULT, Role.TIME_CONTROL, Role.STANDARD) == (*names_with(Role.STANDARD), "TimeControl")
    assert names_with() == ()


# --------------------------------------------------------------------------
# Every reader's list is the table's


def test_each_module_reads_its_list_from_the_table() -> None:
    assert writer.STANDARD_TAGS == tags.STANDARD_TAGS == names_with(Role.STANDARD)
    assert tagnames.KNOWN_TAGS == KNOWN_TAGS == tuple(spec.name for spec in TAGS)
    assert recording.SETTING_TAGS == ("Rules", "Size", "Komi", "Button", "Removed") == names_with(Role.SETTING)
    assert set(settings.JUDGED_TAGS) == {"Size", "Komi", "Button", "Removed", "Result"}
    assert set(settings.JUDGED_TAGS) | {"Rules"} == set(names_with(Role.SETTING, Role.RESULT))
    assert tags.SITE_TAGS == ("Site", "KomiBy", "GameId")
    assert tags.TIME_CONTROL_TAG == "TimeControl"


def test_the_writer_puts_the_standard_tags_first_in_the_tables_order() -> None:
    given = [Tag(spec.name, "x") for spec in reversed(TAGS)] + [Tag("Note", "x")]
    written = [t.name for t in writer.canonical_tags(given)]
    standard = names_with(Role.STANDARD)
    position = names_with(Role.POSITION)
    assert position == ("Setup", "ToMove", "ButtonTaken", "FirstPass")
    others = [spec.name for spec in reversed(TAGS) if spec.name not in standard + position]
    assert written == [*standard, *position, *others, "Note"]


def test_a_record_made_from_a_game_states_every_setting_tag_in_the_tables_order() -> None:
    # Yugo has a button and an agreed removal, so every setting is stated.
    settings_written = recording.setting_tags(find_rules("yugo"), 5, 1.0, True, ["c3"])
    assert [name for name, _ in settings_written] == list(names_with(Role.SETTING))
    assert settings_written == [("Rules", "yugo"), ("Size", "5"), ("Komi", "1"), ("Button", "yes"), ("Removed", "c3")]
    record = to_record(random_game(random.Random(3), size=4, fill=0.5), event="e")
    assert [t.name for t in record.tags] == ["Event", "Rules", "Size", "Komi", "Button", "Result"]


# A value of each judged tag that its rule set refuses, and the error it gives.
_BAD_VALUES = {
    "Size": ('Size "seven"', 'Size "seven" is not a whole number'),
    "Komi": ('Komi "six"', 'Komi "six" is not a number such as 6, -3 or 6.5'),
    "Button": ('Button "maybe"', 'Button "maybe" is not yes or no'),
    "Removed": ('Removed "c3"', "a Removed tag is not allowed under rules 'keil': they have no agreed removal"),
    "Result": ('Result "B+x"', 'Result "B+x" is not a result'),
}


@pytest.mark.parametrize("name", settings.JUDGED_TAGS)
def test_each_judged_tag_is_judged_at_its_place(name: str) -> None:
    tag, message = _BAD_VALUES[name]  # a setting added to the table needs its check here and in read_setup
    record = parse_record(f'[Rules "keil"]\n[Event "x"]\n[{tag}]\n\n1. a1 *\n')
    with pytest.raises(TagError) as caught:
        settings.read_setup(record)
    assert str(caught.value.args[0]).startswith(message)
    assert (caught.value.line, caught.value.column) == (3, 1)


def test_the_clocks_read_the_time_control_tag_of_the_table() -> None:
    record = parse_record('[Rules "keil"]\n[TimeControl "600+5"]\n\n1. a1 *\n')
    control, warnings = clocks.time_control(record)
    assert (control, warnings) == (clocks.TimeControl(6000, 50), [])
    misspelt = parse_record('[Rules "keil"]\n[TimeControll "600+5"]\n\n1. a1 *\n')
    assert clocks.time_control(misspelt) == (None, [])


def test_an_import_writes_the_site_tags_of_the_table() -> None:
    record = to_record(random_game(random.Random(7), size=4, fill=0.5), event="e")
    record = Record(
        writer.canonical_tags((*record.tags, Tag("Black", "ana"), Tag("White", "ben"), Tag("KomiBy", "White"))),
        record.turns,
        record.result,
    )
    moves = export_moves(record)
    moves["id"] = "g-17"
    again = read_match(dump_moves(moves).encode("utf-8")).record
    names = [t.name for t in again.tags]
    assert set(names) <= set(KNOWN_TAGS)
    assert set(tags.SITE_TAGS) <= set(names)
    assert (again.tag_value("Site"), again.tag_value("GameId"), again.tag_value("KomiBy")) == (
        "abstract_games",
        "g-17",
        "White",
    )
    assert export_moves(again)["id"] == "g-17"


_READ_BY_NAME = (
    re.compile(r'\.tag(?:_value)?\(\s*"([A-Za-z][A-Za-z0-9_]*)"'),
    re.compile(r'_tag\(reader, "([A-Za-z][A-Za-z0-9_]*)"'),
    re.compile(r'missing_tag\("([A-Za-z][A-Za-z0-9_]*)"'),
    re.compile(r'tag\.name == "([A-Za-z][A-Za-z0-9_]*)"'),
)
# ``record.tag_value(name) for name in ("Event", "Black")``: each name of the tuple.
_READ_IN_TURN = re.compile(r"\.tag(?:_value)?\((\w+)\)\s+for\s+\1\s+in\s+\(([^)]*)\)")


def test_every_tag_the_package_reads_by_name_is_in_the_table() -> None:
    read: dict[str, str] = {}
    for path in sorted((ROOT / "keilref").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        for pattern in _READ_BY_NAME:
            for name in pattern.findall(text):
                read.setdefault(name, str(path.relative_to(ROOT)))
        for _, names in _READ_IN_TURN.findall(text):
            for name in re.findall(r'"([A-Za-z][A-Za-z0-9_]*)"', names):
                read.setdefault(name, str(path.relative_to(ROOT)))
    # The scan must see the tags read by name, or it would pass on nothing.
    assert {"Rules", "Size", "Komi", "Button", "Removed", "Result", "Site", "Black", "White", "Event", "Round"} <= set(read)
    unknown = {name: where for name, where in read.items() if name not in KNOWN_TAGS}
    assert not unknown, f"tags read by name but not in keilref/records/tags.py: {unknown}"


# --------------------------------------------------------------------------
# Every tag of the table is known: a misspelling of it is warned about


def _one_letter_doubled(name: str) -> str:
    return name + name[-1]


@pytest.mark.parametrize("name", KNOWN_TAGS)
def test_a_misspelling_of_any_tag_in_the_table_names_it(name: str) -> None:
    typo, wrong_case = _one_letter_doubled(name), name.upper()
    record = parse_record(f'[Rules "keil"]\n[{typo} "1"]\n[{wrong_case} "1"]\n\n1. a1 *\n')
    found = [(m.name, m.meant, m.line) for m in tagnames.misspelt_tags(record)]
    assert found == [(typo, (name,), 2), (wrong_case, (name,), 3)]


STRICT_GAME = (
    '[Rules "keil"]\n[Size "7"]\n[Komi "6"]\n[Button "yes"]\n[{name} "{value}"]\n[Result "W+4.5"]\n\n'
    "1. g7 f6 2. e5 e4 3. d4 button 4. f5 pass 5. pass W+4.5\n"
)


@pytest.mark.parametrize(
    ("name", "value", "meant"),
    [("TimeControll", "600", "TimeControl"), ("KomiBi", "White", "KomiBy"), ("GameID", "x1", "GameId")],
)
def test_check_strict_fails_a_misspelt_tag_of_the_format_and_names_it(
    tmp_path: Path, name: str, value: str, meant: str
) -> None:
    path = tmp_path / "game.keil"
    path.write_text(STRICT_GAME.format(name=name, value=value), encoding="utf-8")
    case = " (tag names are case-sensitive)" if name.lower() == meant.lower() else ""
    warning = f"{path}:5:1: game 1: warning: unknown tag {name!r} sets nothing: did you mean {meant!r}?{case}"
    for args, code in ((["check", "--strict"], EXIT_FAILED), (["check"], EXIT_OK)):
        result = runner.invoke(app, [*args, str(path)])
        assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
        lines = result.stdout.splitlines()
        assert lines[:2] == [f"{path}:1:1: game 1: ok: computed W+4.5, declared W+4.5", warning]
        assert result.exit_code == code, (args, result.output)


def test_the_spelt_right_tags_of_the_format_pass_check_strict(tmp_path: Path) -> None:
    path = tmp_path / "game.keil"
    path.write_text(
        STRICT_GAME.format(name="TimeControl", value="600").replace(
            '[Result "W+4.5"]', '[Result "W+4.5"]\n[KomiBy "White"]\n[GameId "x1"]'
        ),
        encoding="utf-8",
    )
    result = runner.invoke(app, ["check", "--strict", str(path)])
    assert result.stdout.splitlines()[0] == f"{path}:1:1: game 1: ok: computed W+4.5, declared W+4.5"
    assert "warning" not in result.stdout
    assert result.exit_code == EXIT_OK
