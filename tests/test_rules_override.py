"""``--rules`` / ``rules=`` chooses a wording of the game's own family, never another family.

A Yugo game replayed on Keil's hexagon, or a Keil game on Yugo's square,
would judge a game that was never played. Every entry point (the commands,
the library, Dask) reaches the rule set through ``read_setup``; these tests
hold each of them to that, for every pair of a game's family and an override.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from cli_support import ROOT, run
from keilref import check_text, read_game
from keilref.referee.verdict import adjudicate
from keilref.engine.rules import all_rules, find_rules
from keilref.referee.settings import read_setup

KO = "records/games/size5-keil-corner-ko.keil"
# The corner-ko game under the earlier wording (whole komi, the button), so
# that either Keil rule set may judge it; written by the fixture below.
KO_2019 = Path(tempfile.mkdtemp(prefix="keilref-override-")) / "keil2019-corner-ko.keil"
GAMES = {
    # rule set: (a game whose Rules tag names it, that rule set)
    "keil": (KO, "keil"),
    "keil-2019": (str(KO_2019), "keil-2019"),
    "yugo": ("records/games/yugo/size5-king-strips-two-groups.keil", "yugo"),
    "dehil": ("records/games/dehil/size5-won-by-the-first-pass.keil", "dehil"),
}
RULE_SETS = sorted(r.name for r in all_rules())
PAIRS = [(game, override) for game in GAMES for override in RULE_SETS]


def _expected(game: str, override: str) -> tuple[str, str | None]:
    """The rule set the game is judged under, and the warning that says so."""
    own = GAMES[game][1]
    if find_rules(own).family != find_rules(override).family:
        return own, (
            f"rules {override} not applied: the Rules tag names a {find_rules(own).family} game, "
            f"judged under its own rules ({override} is a {find_rules(override).family} rule set)"
        )
    if override != own:
        return override, f'Rules tag "{own}" overridden: using {override}'
    return own, None


@pytest.fixture(autouse=True, scope="module")
def _keil_2019_game() -> Iterator[None]:
    text = (ROOT / KO).read_text()
    assert '[Rules "keil"]' in text
    KO_2019.write_text(text.replace('[Rules "keil"]', '[Rules "keil-2019"]'))
    yield
    shutil.rmtree(KO_2019.parent)


def test_every_family_and_every_rule_set_are_covered() -> None:
    assert {find_rules(r).family for r in RULE_SETS} == {"keil", "yugo", "dehil"}
    assert {find_rules(own).name for _, own in GAMES.values()} == set(RULE_SETS)


@pytest.mark.parametrize(("game", "override"), PAIRS)
def test_read_setup_keeps_the_family(game: str, override: str) -> None:
    record = read_game(ROOT / GAMES[game][0])
    setup = read_setup(record, rules=override)
    used, warning = _expected(game, override)
    assert setup.rules == used
    if warning is None:
        assert not any("Rules" in w or "not applied" in w for w in setup.warnings)
    else:
        assert warning in setup.warnings
        # The warning points at the Rules tag that decided.
        tag = record.tag("Rules")
        assert tag is not None
        assert setup.warnings_at[setup.warnings.index(warning)] == (tag.line, tag.column)


@pytest.mark.parametrize(("game", "override"), PAIRS)
def test_check_judges_under_the_games_own_family(game: str, override: str) -> None:
    path = GAMES[game][0]
    plain = json.loads(run("check", "--format", "jsonl", path).output.splitlines()[0])
    result = run("check", "--format", "jsonl", "--rules", override, path)
    verdict = json.loads(result.output.splitlines()[0])
    used, warning = _expected(game, override)
    assert verdict["rules"] == used
    if find_rules(used).family != find_rules(override).family or used == GAMES[game][1]:
        # Not applied (or naming the game's own rules): the verdict is the one without the option.
        assert (verdict["status"], verdict["turns"], verdict["illegal"], verdict["computed"]) == (
            plain["status"],
            plain["turns"],
            plain["illegal"],
            plain["computed"],
        )
    assert verdict["status"] != "illegal", "no override makes a well-played game illegal"
    if warning is not None:
        assert warning in verdict["warnings"]
    # The warning is worded once: the text format says the same.
    text = run("check", "--rules", override, path).output
    if warning is not None:
        assert warning in text
    assert result.exit_code == 0


@pytest.mark.parametrize(("game", "override"), [(g, o) for g, o in PAIRS if find_rules(GAMES[g][1]).family != find_rules(o).family])
@pytest.mark.parametrize("command", ["show", "score", "legal"])
def test_position_commands_keep_the_family(command: str, game: str, override: str) -> None:
    path = GAMES[game][0]
    assert run(command, "--rules", override, path).output == run(command, path).output


@pytest.mark.parametrize("override", RULE_SETS)
def test_stats_groups_each_game_under_its_own_family(override: str) -> None:
    paths = [GAMES[g][0] for g in GAMES]
    result = run("stats", "--format", "json", "--rules", override, *paths)
    assert result.exit_code == 0
    groups = json.loads(result.output)["groups"]
    used = sorted(_expected(game, override)[0] for game in GAMES)
    assert sorted(name for g in groups for name in [g["rules"]] * g["games"]) == used
    assert all(g["statuses"].get("illegal", 0) == 0 for g in groups)


@pytest.mark.parametrize("override", RULE_SETS)
def test_filter_selects_by_the_rules_each_game_was_judged_under(override: str) -> None:
    """filter's --rules selects; it never replays a game under another family."""
    paths = [GAMES[g][0] for g in GAMES]
    selected = run("filter", "--rules", override, *paths)
    assert selected.exit_code == 0
    own = [g for g in GAMES if GAMES[g][1] == override]
    written = "".join(ln for ln in selected.output.splitlines(keepends=True) if not ln.startswith("keilref: "))
    assert written == "".join((ROOT / GAMES[g][0]).read_text() for g in own)


@pytest.mark.parametrize(("game", "override"), PAIRS)
def test_library_keeps_the_family(game: str, override: str) -> None:
    record = read_game(ROOT / GAMES[game][0])
    used, _ = _expected(game, override)
    assert adjudicate(record, file="-", game=1, rules=override).rules == used
    assert record.replay(rules=override).rules.name == used
    text = (ROOT / GAMES[game][0]).read_text()
    assert [v.rules for v in check_text(text, rules=override)] == [used]


def test_a_game_without_a_rules_tag_takes_the_override(tmp_path: Path) -> None:
    """With no Rules tag the record names no family: the override is the user's word for it."""
    record = read_game(ROOT / GAMES["yugo"][0])
    text = (ROOT / GAMES["yugo"][0]).read_text().replace('[Rules "yugo"]\n', "")
    assert text != (ROOT / GAMES["yugo"][0]).read_text()
    path = tmp_path / "untagged.keil"
    path.write_text(text)
    verdict = json.loads(run("check", "--format", "jsonl", "--rules", "yugo", str(path)).output.splitlines()[0])
    assert (verdict["rules"], verdict["status"]) == ("yugo", adjudicate(record, file=str(path), game=1).status.value)
    assert not any("not applied" in w for w in verdict["warnings"])
