"""Tag validation: from a record's tags to the game settings, per rule set."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

import pytest

from keilref.engine import rules as rules_module
from keilref.errors import ConfigError, TagError
from keilref.engine.keil import KEIL, KeilGame
from keilref.records.parser import parse_record
from keilref.engine.rules import ButtonRule, find_rules, register
from keilref.referee.settings import GameSetup, read_setup

# Rule sets shaped like the families still to come, so that these tests do
# not depend on them: one with no button (like dehil), one square board
# with a larger range (like yugo).
NO_BUTTON = dataclasses.replace(
    KEIL, name="test-nobutton", default_size=9, button=ButtonRule.ABSENT, game_class=KeilGame
)
SQUARE = dataclasses.replace(KEIL, name="test-square", max_size=25, default_size=13, game_class=KeilGame)


@pytest.fixture(autouse=True)
def test_rule_sets() -> Iterator[None]:
    added = [register(rs) for rs in (NO_BUTTON, SQUARE) if rs.name not in rules_module._REGISTRY]
    yield
    for rs in added:
        del rules_module._REGISTRY[rs.name]


def setup_of(tags: str, moves: str = "", **kw: str) -> GameSetup:
    return read_setup(parse_record(tags + "\n\n" + moves), **kw)


def tag_error(tags: str, moves: str = "", **kw: str) -> TagError:
    with pytest.raises(TagError) as info:
        setup_of(tags, moves, **kw)
    return info.value


def test_all_defaults_with_a_warning_each() -> None:
    s = setup_of('[Event "x"]')
    assert (s.rules, s.size, s.komi, s.button, s.declared) == ("keil", 7, 0.0, True, None)
    assert s.warnings == (
        "no Rules tag: using keil",
        "no Size tag: using 7",
        "no Komi tag: using 0",
        "no Button tag: using yes",
    )


def test_every_setting_given() -> None:
    s = setup_of('[Rules "keil-2019"]\n[Size "5"]\n[Komi "-3.5"]\n[Button "no"]\n[Result "W+2"]')
    assert (s.rules, s.size, s.komi, s.button, s.declared) == ("keil-2019", 5, -3.5, False, "W+2")
    assert s.warnings == ()


def test_default_size_comes_from_the_rule_set() -> None:
    assert setup_of('[Rules "test-square"]').size == 13
    assert "no Size tag: using 13" in setup_of('[Rules "test-square"]').warnings
    assert setup_of('[Rules "test-square"] [Size "25"]').size == 25


def test_unknown_rules_name_the_known_ones() -> None:
    err = tag_error('[Event "x"]\n[Rules "keil-2030"]')
    assert err.message.startswith('Rules "keil-2030" is not a known rule set (known: ')
    assert "keil, keil-2019" in err.message and "test-square" in err.message
    assert (err.line, err.column) == (2, 1)


def test_size_not_a_number() -> None:
    err = tag_error('[Event "x"]\n  [Size "seven"]')
    assert err.message == 'Size "seven" is not a whole number'
    assert (err.line, err.column) == (2, 3)


def test_size_out_of_range_for_the_rule_set() -> None:
    err = tag_error('[Size "14"]')
    assert err.message == "Size \"14\" is not allowed under rules 'keil': it must be 2..13"
    assert (err.line, err.column) == (1, 1)
    assert setup_of('[Rules "test-square"] [Size "14"]').size == 14


def test_half_komi_is_refused_under_keil() -> None:
    err = tag_error('[Rules "keil"]\n[Komi "6.5"]')
    assert err.message == "Komi \"6.5\" is not allowed under rules 'keil': it must be a whole number"
    assert (err.line, err.column) == (2, 1)


def test_half_komi_is_allowed_under_keil_2019_but_not_a_quarter() -> None:
    assert setup_of('[Rules "keil-2019"] [Komi "6.5"]').komi == 6.5
    err = tag_error('[Rules "keil-2019"] [Komi "6.25"]')
    assert err.message == (
        "Komi \"6.25\" is not allowed under rules 'keil-2019': it must be a whole number or a half (such as 6.5)"
    )
    assert (err.line, err.column) == (1, 21)


def test_komi_not_a_number() -> None:
    err = tag_error('[Komi "six"]')
    assert err.message == 'Komi "six" is not a number such as 6, -3 or 6.5'
    assert (err.line, err.column) == (1, 1)


def test_negative_whole_komi() -> None:
    assert setup_of('[Komi "-4"]').komi == -4.0


def test_button_no_is_refused_where_the_button_is_required() -> None:
    err = tag_error('[Rules "keil"] [Button "no"]')
    assert err.message == "Button \"no\" is not allowed under rules 'keil': they require the button"
    assert (err.line, err.column) == (1, 16)
    assert setup_of('[Rules "keil"] [Button "yes"]').button is True


def test_button_value_must_be_yes_or_no() -> None:
    err = tag_error('[Rules "keil-2019"] [Button "maybe"]')
    assert err.message == 'Button "maybe" is not yes or no'
    assert (err.line, err.column) == (1, 21)


def test_no_button_rules_refuse_a_button_tag_and_do_not_warn_about_it() -> None:
    err = tag_error('[Rules "test-nobutton"]\n[Button "yes"]')
    assert err.message == "a Button tag is not allowed under rules 'test-nobutton': they have no button"
    assert (err.line, err.column) == (2, 1)
    s = setup_of('[Rules "test-nobutton"]')
    assert (s.button, s.size) == (False, 9)
    assert not any("Button" in w for w in s.warnings)


def test_dehil_refuses_a_button_tag_when_registered() -> None:
    pytest.importorskip("keilref.engine.dehil")  # registers "dehil" when imported
    ruleset = find_rules("dehil")
    assert ruleset.button is ButtonRule.ABSENT
    err = tag_error('[Rules "dehil"] [Button "no"]')
    assert (err.line, err.column) == (1, 17) and "no button" in err.message


def test_result_tag_must_be_a_result() -> None:
    err = tag_error('[Event "x"]\n[Result "B+3.x"]')
    assert err.message.startswith('Result "B+3.x" is not a result (expected B+<margin>')
    assert (err.line, err.column) == (2, 1)
    zero = tag_error('[Result "W+0"]')
    assert zero.message == 'Result "W+0" is not a result: a margin of 0 is written Draw'


def test_result_tag_disagreeing_with_the_token_is_reported_at_the_tag() -> None:
    err = tag_error('[Event "x"]\n[Result "B+0.5"]', "1. g7 f6 W+0.5")
    assert err.message == 'Result "B+0.5" disagrees with the result W+0.5 at the end of the moves (line 4)'
    assert (err.line, err.column) == (2, 1)


def test_result_tag_agreeing_with_the_token_in_another_spelling() -> None:
    s = setup_of('[Result "B+0.50"]', "g7 B+0.5")
    assert s.declared == "B+0.5"


def test_declared_is_the_token_else_the_tag_else_none() -> None:
    assert setup_of('[Result "B+R"]', "g7 B+R").declared == "B+R"
    assert setup_of('[Result "W+T"]', "g7").declared == "W+T"
    assert setup_of('[Event "x"]', "g7 *").declared == "*"
    assert setup_of('[Event "x"]', "g7").declared is None


def test_rules_argument_overrides_the_tag() -> None:
    s = setup_of('[Rules "keil"] [Komi "6.5"]', rules="keil-2019")
    assert (s.rules, s.komi) == ("keil-2019", 6.5)
    assert s.warnings[0] == 'Rules tag "keil" overridden: using keil-2019'
    quiet = setup_of('[Event "x"]', rules="keil")
    assert not any("Rules" in w for w in quiet.warnings)
    ignored = setup_of('[Rules "no-such-rules"]', rules="keil")
    assert ignored.rules == "keil"


def test_unknown_rules_argument_is_a_config_error() -> None:
    with pytest.raises(ConfigError) as info:
        setup_of('[Event "x"]', rules="nope")
    assert not isinstance(info.value, TagError)
    assert "nope" in str(info.value)


def test_the_first_bad_tag_in_the_file_is_reported() -> None:
    err = tag_error('[Komi "x"]\n[Size "99"]')
    assert (err.line, err.message) == (1, 'Komi "x" is not a number such as 6, -3 or 6.5')
    err = tag_error('[Size "99"]\n[Komi "x"]')
    assert err.line == 1 and err.message.startswith('Size "99"')


def test_rules_are_judged_before_the_tags_that_depend_on_them() -> None:
    err = tag_error('[Size "5"]\n[Rules "nope"]')
    assert err.line == 2 and err.message.startswith('Rules "nope"')
