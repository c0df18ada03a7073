"""keilref stats: every statistic on hand-made archives with known counts,
the fair komi on synthetic archives with a known answer, and the plot."""

from __future__ import annotations

import json
import math
import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cli_support import ROOT, run
from keilref.records.sources import expand_paths
from keilref.cli import EXIT_OK, EXIT_USAGE
from keilref.values import Result, format_number
from keilref.engine.generate import GeneratedGame, random_games, to_record
from keilref.formats.plot import render
from keilref.referee.stats import (
    FAIR_KOMI_MIN_GAMES,
    ArchiveStats,
    GroupStats,
    Histogram,
    Proportion,
    Quartiles,
    archive_stats,
    median_interval_ranks,
)
from keilref.formats.stats_report import to_text
from keilref.records.writer import write_record

# Four size-3 Keil games at komi 1, written out so that what the statistics
# must say can be read off them: the result, the turns (A, B and C: 21; D:
# 31) and who took the button (the turn after "3. d5" is White's, and so on).
A = """[Event "A"]
[Rules "keil"]
[Size "3"]
[Komi "1"]
[Result "B+17.5"]

1. e4 b4 2. d3 a2 3. d5 button 4. c5 a1 5. c4 c1 6. b3 c2 7. a3 b1 8. c3 b2
9. d2 c2 10. b1 pass 11. pass B+17.5
"""
B = """[Event "B"]
[Rules "keil"]
[Size "3"]
[Komi "1"]
[Result "W+0.5"]

1. a3 c2 2. b1 d5 3. d4 button 4. d2 b4 5. a1 d3 6. e5 c4 7. c3 e4 8. b3 e3
9. d2 e5 10. a2 pass 11. pass W+0.5
"""
C = """[Event "C"]
[Rules "keil"]
[Size "3"]
[Komi "1"]
[Result "B+4.5"]

1. c1 button 2. c2 a3 3. d4 d3 4. e4 a1 5. d2 c4 6. b3 d5 7. d3 a2 8. c5 b2
9. e5 c4 10. e3 pass 11. pass B+4.5
"""
D = """[Event "D"]
[Rules "keil"]
[Size "3"]
[Komi "1"]
[Result "B+7.5"]

1. a3 c5 2. button b3 3. c3 c2 4. a2 e5 5. d3 d2 6. e3 e4 7. d4 a1 8. c4 c1
9. b2 a3 10. e3 b4 11. d5 a1 12. c5 b1 13. a2 b4 14. b3 pass 15. e5 pass
16. pass B+7.5
"""

RECORDS = [
    "records/games/size7-keil-white-resigns.keil",  # keil 7/6: Black wins by resignation, 41 turns, no button
    "records/games/size4-keil2019-draw-no-button.keil",  # keil-2019 4/3: a draw, 24 turns, no button
    "records/games/size9-keil-unfinished.keil",  # keil 9/8: unfinished
    "records/games/size6-keil-rule-sensitive.keil",  # keil 6/7: B+1.5, 42 turns, Black's button, rule-sensitive
    "records/faults/illegal-superko.keil",  # keil 5/3: illegal
    "records/faults/error-bad-token.keil",  # cannot be read
]


@pytest.fixture
def hand_made(tmp_path: Path) -> Path:
    archive = tmp_path / "hand.keil"
    archive.write_text("\n".join([A, A, B, C, D, D]), encoding="utf-8")
    return archive


def _stats(*paths: str | Path) -> ArchiveStats:
    return archive_stats(expand_paths([str(p) for p in paths]))


def _group(stats: ArchiveStats, rules: str | None, size: int | None, komi: float | None) -> GroupStats:
    (g,) = [g for g in stats.groups if (g.rules, g.size, g.komi) == (rules, size, komi)]
    return g


def test_every_statistic_of_a_hand_made_archive(hand_made: Path) -> None:
    stats = _stats(hand_made, *(ROOT / r for r in RECORDS))
    assert stats.games == 12
    assert dict(stats.statuses) == {"ok": 9, "unfinished": 1, "illegal": 1, "error": 1}

    g = _group(stats, "keil", 3, 1.0)
    assert (g.games, g.finished, g.scored, g.draws) == (6, 6, 6, 0)
    assert dict(g.statuses) == {"ok": 6}
    assert (g.black.count, g.black.total, g.white.count) == (5, 6, 1)
    assert g.mean_margin == pytest.approx((17.5 + 17.5 - 0.5 + 4.5 + 7.5 + 7.5) / 6)
    # Turns 21 21 21 21 31 31: each quartile is a game's own length, the
    # third the 5th of the 6 (the first at or past three quarters of them).
    assert g.length is not None
    assert (g.length.q1, g.length.median, g.length.q3) == (21, 21, 31)
    assert g.lengths == ((21, 4), (31, 2))
    # The button: White in A, A, B and C (won only B), Black in D, D (won both).
    assert (g.button_holder_won.count, g.button_holder_won.total) == (3, 6)
    assert (g.rule_sensitive.count, g.rule_sensitive.total) == (0, 6)

    resigned = _group(stats, "keil", 7, 6.0)
    assert (resigned.finished, resigned.scored, resigned.black.count) == (1, 0, 1)
    assert resigned.mean_margin is None  # a resignation has no margin
    assert resigned.length is not None and resigned.length.median == 41
    assert resigned.button_holder_won.total == 0  # nobody took the button
    assert resigned.rule_sensitive.total == 0

    draw = _group(stats, "keil-2019", 4, 3.0)
    assert (draw.finished, draw.draws, draw.black.count, draw.white.count) == (1, 1, 0, 0)
    assert draw.mean_margin == 0
    assert draw.button_holder_won.total == 0  # Button "no"

    sensitive = _group(stats, "keil", 6, 7.0)
    assert (sensitive.rule_sensitive.count, sensitive.rule_sensitive.total) == (1, 1)
    assert (sensitive.button_holder_won.count, sensitive.button_holder_won.total) == (1, 1)
    assert sensitive.mean_margin == 1.5

    unfinished = _group(stats, "keil", 9, 8.0)
    assert (unfinished.games, unfinished.finished, dict(unfinished.statuses)) == (1, 0, {"unfinished": 1})
    assert unfinished.length is None and unfinished.black.rate is None
    illegal = _group(stats, "keil", 5, 3.0)
    assert (illegal.finished, dict(illegal.statuses)) == (0, {"illegal": 1})
    unread = _group(stats, None, None, None)
    assert dict(unread.statuses) == {"error": 1}
    assert stats.groups[-1] is unread, "games that cannot be read come last"


def test_the_wilson_intervals_are_the_published_ones() -> None:
    # Wilson (1927) at 95%, as tabulated by Newcombe (1998) and others.
    assert Proportion(5, 10).interval == pytest.approx((0.2366, 0.7634), abs=1e-4)
    assert Proportion(0, 10).interval == pytest.approx((0.0, 0.2775), abs=1e-4)
    assert Proportion(4, 5).interval == pytest.approx((0.3755, 0.9638), abs=1e-4)
    assert Proportion(1, 5).interval == pytest.approx((0.0362, 0.6245), abs=1e-4)
    assert Proportion(0, 0).interval is None and Proportion(0, 0).rate is None


def test_the_hand_made_groups_carry_their_wilson_intervals(hand_made: Path) -> None:
    g = _group(_stats(hand_made), "keil", 3, 1.0)
    assert g.black.interval == pytest.approx((0.4365, 0.9699), abs=1e-4)  # 5 of 6
    assert g.white.interval == pytest.approx((0.0301, 0.5635), abs=1e-4)  # 1 of 6


@pytest.mark.parametrize("n", [*range(1, 80), 100, 101, 250, 1000])
def test_the_median_interval_ranks_agree_with_the_exact_binomial(n: int) -> None:
    def cdf(k: int) -> float:  # P(Bin(n, 1/2) <= k), exactly
        return sum(math.comb(n, i) for i in range(k + 1)) / 2**n

    ranks = median_interval_ranks(n)
    if n < 6:
        assert ranks is None
        return
    assert ranks is not None
    k, upper = ranks
    assert upper == n - k + 1
    assert 2 * cdf(k - 1) <= 0.05 < 2 * cdf(k)


def test_the_median_interval_for_a_hundred_is_the_textbook_one() -> None:
    assert median_interval_ranks(100) == (40, 61)


def test_inclusive_quantiles_from_a_histogram() -> None:
    h = Histogram()
    for v in (1, 2, 3, 4):
        h.add(v)
    assert h.quartiles() is not None
    assert (h.quantile(0.25), h.quantile(0.5), h.quantile(0.75)) == (1.75, 2.5, 3.25)
    assert h.order_statistic(4) == 4 and h.above(2) == 2 and h.below(2) == 1


def test_length_quartiles_are_whole_and_lengths_games_had() -> None:
    h = Histogram()
    for v in (10, 11, 12, 13):
        h.add(v)
    assert h.rank_quartiles() == Quartiles(10, 11, 12)  # an even count's median is the lower middle one
    assert Histogram().rank_quartiles() is None


@given(st.lists(st.integers(0, 400), min_size=1, max_size=60))
def test_length_quartiles_against_the_definition(values: list[int]) -> None:
    """The smallest value with at least a quarter (a half, three quarters) of
    the values at or below it, found by counting."""
    h = Histogram()
    for v in values:
        h.add(v)
    got = h.rank_quartiles()
    assert got is not None
    for share, q in ((1, got.q1), (2, got.median), (3, got.q3)):
        reaching = [v for v in sorted(set(values)) if 4 * sum(x <= v for x in values) >= share * len(values)]
        assert q == reaching[0] and isinstance(q, int)


# --- fair komi -------------------------------------------------------------


def _margin_at_zero(g: GeneratedGame) -> float:
    """From the declared result and the komi alone, not from the statistics."""
    r = Result.parse(g.result)
    signed = 0.0 if r.margin is None else (r.margin if g.result.startswith("B") else -r.margin)
    return signed + g.komi


def _at_komi(g: GeneratedGame, komi: float) -> GeneratedGame:
    """The same game played under another komi: only the result moves."""
    margin = _margin_at_zero(g) - komi
    result = "Draw" if margin == 0 else f"{'B' if margin > 0 else 'W'}+{format_number(abs(margin))}"
    return replace(g, komi=komi, result=result)


def _three_margins(rules: str) -> list[GeneratedGame]:
    """Three size-3 games whose margins at komi 0 differ, smallest first."""
    by_margin: dict[float, GeneratedGame] = {}
    for g in random_games(4, 60, rules=(rules,), sizes=(3,)):
        if rules == "keil-2019" and not g.button:
            continue
        by_margin.setdefault(_margin_at_zero(g), g)
    low, mid, high = sorted(by_margin)[:3]
    return [by_margin[low], by_margin[mid], by_margin[high]]


def _write(path: Path, games: list[GeneratedGame]) -> Path:
    path.write_text("\n".join(write_record(to_record(g, event=f"g{i}")) for i, g in enumerate(games)), encoding="utf-8")
    return path


def test_fair_komi_on_a_synthetic_archive_with_a_known_answer(tmp_path: Path) -> None:
    a, b, c = _three_margins("keil")
    ma, mb, mc = (_margin_at_zero(g) for g in (a, b, c))
    assert ma < mb < mc and mb % 1 == 0.5  # Keil: the button's half point
    # 40 games of margin ma, 20 of mb, 40 of mc, under komis 0..3 in turn: the
    # median is mb, and the 95% interval runs from the 40th to the 61st
    # smallest margin, that is from ma to mc.
    games = [a] * 40 + [b] * 20 + [c] * 40
    played = [_at_komi(g, float(i % 4)) for i, g in enumerate(games)]
    stats = _stats(_write(tmp_path / "synthetic.keil", played))
    assert dict(stats.statuses) == {"ok": 100}, "every declared result matches its komi"
    (fair,) = stats.fair_komi
    assert (fair.rules, fair.size, fair.games) == ("keil", 3, 100)
    assert (fair.balance, fair.low, fair.high) == (mb, ma, mc)
    # Keil's komi is whole, and mb is not: the whole komis on either side.
    below, above = fair.komis
    assert (below.komi, above.komi) == (mb - 0.5, mb + 0.5)
    assert (below.black.count, below.white.count, below.draws.count) == (60, 40, 0)
    assert (above.black.count, above.white.count, above.draws.count) == (40, 60, 0)


def test_fair_komi_under_half_komi_rules_can_be_the_balance_itself(tmp_path: Path) -> None:
    a, b, c = _three_margins("keil-2019")
    ma, mb, mc = (_margin_at_zero(g) for g in (a, b, c))
    assert mb % 1 == 0.5  # the button in play: half points
    games = [a] * 30 + [b] * 11 + [c] * 30
    stats = _stats(_write(tmp_path / "half.keil", [_at_komi(g, 2.5) for g in games]))
    (fair,) = stats.fair_komi
    assert fair.balance == mb
    # keil-2019 allows a half komi: mb itself, where b's 11 games are draws.
    (only,) = fair.komis
    assert only.komi == mb
    assert (only.black.count, only.white.count, only.draws.count) == (30, 30, 11)


def test_fair_komi_says_too_few_games(tmp_path: Path) -> None:
    a, b, c = _three_margins("keil")
    games = [a, b, c] * 3
    assert len(games) == FAIR_KOMI_MIN_GAMES - 1
    stats = _stats(_write(tmp_path / "few.keil", games))
    (fair,) = stats.fair_komi
    assert fair.too_few and fair.games == 9 and fair.balance is None and fair.komis == ()
    assert "too few games" in to_text(stats)
    assert json.loads(run("stats", "--format", "json", str(tmp_path / "few.keil")).stdout)["fair_komi"][0][
        "too_few_games"
    ]


# --- the command -----------------------------------------------------------


def test_stats_text_table(hand_made: Path) -> None:
    result = run("stats", str(hand_made))
    assert result.exit_code == EXIT_OK
    lines = result.stdout.splitlines()
    assert lines[0] == "6 games: 6 ok"
    header = lines[2].split("  ")
    assert header[0] == "rules" and "Black wins [95%]" in lines[2]
    row = lines[3].split()
    # rules size komi games finished; Black 5 of 6; White 1 of 6; draws; mean; turns
    assert row[:5] == ["keil", "3", "1", "6", "6"]
    assert row[5:8] == ["5", "83.3%", "[43.6-97.0]"]
    assert row[8:11] == ["1", "16.7%", "[3.0-56.4]"]
    assert row[11:16] == ["0", "+9.0", "21", "21", "31"]
    assert row[16:19] == ["3", "50.0%", "[18.8-81.2]"]
    assert row[19:] == ["0", "0.0%"]


def test_stats_json_is_the_library_statistics(hand_made: Path) -> None:
    result = run("stats", "--format", "json", str(hand_made), "--jobs", "2")
    assert result.exit_code == EXIT_OK
    data = json.loads(result.stdout)
    assert data == json.loads(json.dumps(_stats(hand_made).to_json()))
    (g,) = data["groups"]
    assert g["black_wins"]["count"] == 5 and g["black_wins"]["of"] == 6
    assert g["length"] == {"q1": 21, "median": 21, "q3": 31}


def test_stats_is_the_same_in_parallel(tmp_path: Path) -> None:
    archive = tmp_path / "many.keil"
    archive.write_text(
        "\n".join(write_record(to_record(g, event="x")) for g in random_games(9, 120, sizes=(3, 4))),
        encoding="utf-8",
    )
    sources = expand_paths([str(archive)])
    from keilref.referee.stats import collect
    from keilref.referee.batches import check_sources

    serial = collect(check_sources(sources, jobs=1))
    parallel = collect(check_sources(sources, jobs=2, parallel_threshold=0))
    assert serial == parallel
    assert serial.games == 120


def test_stats_usage_errors() -> None:
    assert run("stats", "--format", "xml", "records/games").exit_code == EXIT_USAGE
    assert run("stats", "no/such/place").exit_code == EXIT_USAGE


# --- the plot --------------------------------------------------------------

SVG = "{http://www.w3.org/2000/svg}"


def test_the_plot_draws_every_win_rate_and_length(hand_made: Path, tmp_path: Path) -> None:
    stats = _stats(hand_made, ROOT / RECORDS[3])
    picture = render(stats)
    assert picture == render(stats), "the same statistics, the same bytes"
    root = ET.fromstring(picture)
    groups = root.findall(f"{SVG}g")
    # Two boards with finished games (keil 3 and keil 6): two panels each.
    assert len(groups) == 4
    titles = [g.find(f"{SVG}text").text for g in groups]  # type: ignore[union-attr]
    assert titles[0] == "keil, size 3: wins by komi (6 finished games)"
    assert titles[1] == "keil, size 3: game length (6 finished games)"
    # Black's bar (5 of 6) and White's (1 of 6), as heights of the 220-point panel.
    heights = [float(r.get("height", "")) for r in groups[0].findall(f"{SVG}rect")]
    assert heights == [pytest.approx(220 * 5 / 6, abs=0.05), pytest.approx(220 / 6, abs=0.05)]
    # Lengths: 4 games of 21 turns and 2 of 31, one turn per bar, on a scale
    # up to 4 (grid lines at 0, 1, 2, 3, 4).
    heights = [float(r.get("height", "")) for r in groups[1].findall(f"{SVG}rect")]
    assert sorted(h for h in heights if h > 0) == [220 * 2 / 4, 220]
    assert len(heights) == 20

    out = tmp_path / "plot.svg"
    result = run("stats", "--plot", str(out), str(hand_made), str(ROOT / RECORDS[3]))
    assert result.exit_code == EXIT_OK
    assert out.read_bytes() == picture


def test_the_readme_example_archive_and_plot_are_what_keilref_makes() -> None:
    """docs/stats-example.keil is `keilref generate --games 400 --seed 1 --size 3
    --size 4`, as the README says, and its plot is the one committed."""
    archive = ROOT / "docs" / "stats-example.keil"
    generated = run("generate", "--games", "400", "--seed", "1", "--size", "3", "--size", "4")
    assert archive.read_text(encoding="utf-8") == generated.stdout
    assert (ROOT / "docs" / "stats-example.svg").read_bytes() == render(_stats(archive))
    assert "--games 400 --seed 1 --size 3 --size 4" in (ROOT / "README.md").read_text(encoding="utf-8")
