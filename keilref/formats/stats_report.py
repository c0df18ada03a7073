"""Archive statistics as a text table and as JSON.

Fixed widths computed from the cells, never from the terminal: the same
bytes in a pipe, a file and a snapshot.
"""

from __future__ import annotations

from collections.abc import Sequence

from keilref import wording
from keilref.values import format_number
from keilref.referee.stats import FAIR_KOMI_MIN_GAMES, ArchiveStats, ClockStats, FairKomi, GroupStats, Proportion
from keilref.escaping import json_text

STATS_FORMATS = ("text", "json")


def to_json(stats: ArchiveStats) -> str:
    return json_text(stats.to_json(), indent=2) + "\n"


def _table(header: Sequence[str], rows: Sequence[Sequence[str]], left: Sequence[int] = (0,)) -> list[str]:
    """Columns padded to their widest cell; those in ``left`` aligned left, the rest right."""
    widths = [max(len(r[i]) for r in (header, *rows)) for i in range(len(header))]
    out = []
    for row in (header, *rows):
        cells = [c.ljust(w) if i in left else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))]
        out.append("  ".join(cells).rstrip())
    return out


def _pct(x: float) -> str:
    return f"{100 * x:.1f}"


def _share(p: Proportion) -> str:
    """``62 51.7% [42.8-60.4]``: count, rate and its 95% interval."""
    iv = p.interval
    if p.rate is None or iv is None:
        return "-"
    return f"{p.count} {_pct(p.rate)}% [{_pct(iv[0])}-{_pct(iv[1])}]"


def _brief(p: Proportion) -> str:
    """``3 2.5%``: count and rate, for shares without an interval."""
    return "-" if p.rate is None else f"{p.count} {_pct(p.rate)}%"


def _num(x: float | None) -> str:
    return "-" if x is None else format_number(round(x, 2))


def _signed(x: float | None) -> str:
    if x is None:
        return "-"
    text = f"{x:+.1f}"
    return "+0.0" if text == "-0.0" else text


def _group_row(g: GroupStats) -> list[str]:
    length = "-" if g.length is None else f"{_num(g.length.q1)} {_num(g.length.median)} {_num(g.length.q3)}"
    return [
        g.rules or "(unread)",
        "-" if g.size is None else str(g.size),
        _num(g.komi),
        str(g.games),
        str(g.finished),
        _share(g.black),
        _share(g.white),
        str(g.draws),
        _signed(g.mean_margin),
        length,
        _share(g.button_holder_won),
        _brief(g.rule_sensitive),
    ]


_GROUP_HEADER = (
    "rules",
    "size",
    "komi",
    "games",
    "finished",
    "Black wins [95%]",
    "White wins [95%]",
    "draws",
    "mean B-W",
    "turns q1 med q3",
    "button holder won",
    "rule-sensitive",
)


def _fair_row(f: FairKomi) -> list[str]:
    if f.too_few:
        return [f.rules, str(f.size), str(f.games), "-", "-", f"too few games (fewer than {FAIR_KOMI_MIN_GAMES} scored)"]
    at = "; ".join(
        f"komi {format_number(k.komi)}: Black {_pct(k.black.rate or 0)}%, White {_pct(k.white.rate or 0)}%"
        + (f", draws {_pct(k.draws.rate or 0)}%" if k.draws.count else "")
        for k in f.komis
    )
    return [f.rules, str(f.size), str(f.games), _num(f.balance), f"{_num(f.low)} .. {_num(f.high)}", at]


def _clock_lines(c: ClockStats) -> list[str]:
    lines = [
        f"clocks ({c.games} game{'' if c.games == 1 else 's'} with [%clk] on the main line; "
        "time used = base + increment x the player's turns - the player's last clock)"
    ]
    lines += _table(
        ("player", "games", "median time used (s)"),
        [[name, str(p.games), _num(p.median)] for name, p in (("Black", c.black), ("White", c.white))],
    )
    lines.append(f"decided on time (an accepted B+T or W+T): {_share(c.on_time)}")
    return lines


def to_text(stats: ArchiveStats) -> str:
    """The statistics as tables: results, statuses, fair komi, and clocks where games have them."""
    games = f"{stats.games:,} game{'' if stats.games == 1 else 's'}"
    lines = [f"{games}: " + ", ".join(f"{n:,} {s}" for s, n in stats.statuses)]
    if stats.from_position:
        # Only where there are some: an archive of games from the empty board reads as before.
        lines.append(wording.from_a_position(stats.from_position))
    lines.append("")
    lines += _table(_GROUP_HEADER, [_group_row(g) for g in stats.groups])
    names = [s for s, _ in stats.statuses]
    if names:
        lines.append("")
        lines.append("statuses")
        rows = [
            [g.rules or "(unread)", "-" if g.size is None else str(g.size), _num(g.komi)]
            + [str(dict(g.statuses).get(s, 0)) for s in names]
            for g in stats.groups
        ]
        lines += _table(("rules", "size", "komi", *names), rows)
    if stats.fair_komi:
        lines.append("")
        lines.append("fair komi (from the margins at komi 0: Black wins at komi k when the margin exceeds k)")
        lines += _table(
            ("rules", "size", "scored", "fair komi", "95% interval", "at the nearest komis allowed"),
            [_fair_row(f) for f in stats.fair_komi],
            left=(0, 5),
        )
    if stats.clocks is not None:
        lines.append("")
        lines += _clock_lines(stats.clocks)
    return "\n".join(lines) + "\n"
