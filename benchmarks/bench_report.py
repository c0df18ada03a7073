"""The HTML report on a big archive: what it costs beside the plain check, how
big the page is, and how soon a browser shows it and filters it.

Writes an archive with ``keilref generate`` (small boards, so a big archive
checks in reasonable time), gives its games a few events, rounds and players
(so the report has standings) and spoils some of them (a point played twice, a
Result tag that contradicts the record), then:

- times ``keilref check --format jsonl`` and ``--format html -o`` on it, a
  fresh process each, best of the rounds, and prints the ratio (the target:
  the report at most 1.3x the time of the JSON lines);
- prints the report's size;
- opens the report in headless Chromium (through WebDriver, as the tests do)
  and reads the first contentful paint from the performance API, and the time
  from choosing "failing" in the status filter to the table redrawn.

    python benchmarks/bench_report.py [--games 100000] [--rounds 2] [--no-browser]
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from measured import KEILREF, ROOT, measuring, use_test_references

PLAYERS = [f"Player {chr(65 + i // 26)}{chr(65 + i % 26)}" for i in range(60)]


def write_archive(path: Path, games: int, seed: int) -> tuple[int, int]:
    """The archive, with events and players; how many games were made illegal and given a contradicting result."""
    done = subprocess.run(
        [*KEILREF, "generate", "-n", str(games), "--seed", str(seed), "--size", "3", "--size", "4", "--fill", "0.8"],
        stdout=subprocess.PIPE, check=True, cwd=ROOT,
    )
    records = done.stdout.decode("utf-8").split("\n\n[Event")
    illegal = mismatch = 0
    with open(path, "w", encoding="utf-8") as f:
        for i, text in enumerate(records):
            if i:
                text = "[Event" + text
            black, white = PLAYERS[(i * 7) % len(PLAYERS)], PLAYERS[(i * 13 + 1) % len(PLAYERS)]
            if black == white:
                white = PLAYERS[(i * 13 + 2) % len(PLAYERS)]
            text = re.sub(
                r'^\[Event "[^"]*"\]',
                f'[Event "Bench open {i % 4 + 1}"]\n[Round "{i // 40 % 30 + 1}"]\n[Black "{black}"]\n[White "{white}"]',
                text, count=1,
            )
            if i % 500 == 7:
                text, n = re.subn(r"\n1\. (\S+) (\S+)", r"\n1. \1 \1", text, count=1)
                illegal += n
            elif i % 300 == 11:
                text, n = re.subn(r'\[Result "([BW])', lambda m: f'[Result "{"W" if m[1] == "B" else "B"}', text, count=1)
                mismatch += n
            f.write(text.rstrip("\n") + "\n\n")
    return illegal, mismatch


def timed(cmd: list[str]) -> float:
    start = time.perf_counter()
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
    elapsed = time.perf_counter() - start
    if proc.returncode not in (0, 1):
        sys.exit(f"{' '.join(cmd[3:])} failed ({proc.returncode}): {proc.stderr.decode()[:500]}")
    return elapsed


def in_browser(report: Path) -> tuple[float, float, str]:
    """First contentful paint and the time to filter the table, in milliseconds, and the count shown."""
    use_test_references()
    from browser_support import open_browser  # noqa: PLC0415

    driver = open_browser()
    try:
        driver.get(report.as_uri())
        paint = driver.execute_script(
            "var p = performance.getEntriesByType('paint').filter(function (e) {"
            " return e.name === 'first-contentful-paint'; });"
            "return p.length ? p[0].startTime : null;"
        )
        filtered = driver.execute_async_script(
            "var done = arguments[arguments.length - 1], s = document.querySelector('select[data-filter=status]');"
            "var t0 = performance.now(); s.value = 'failing'; s.dispatchEvent(new Event('change'));"
            "setTimeout(function () { requestAnimationFrame(function () {"
            " done([performance.now() - t0, document.querySelector('.table-count').textContent]); }); }, 0);"
        )
    finally:
        driver.quit()
    return float(paint or "nan"), float(filtered[0]), str(filtered[1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=100_000)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--no-browser", action="store_true", help="skip the browser's timings")
    args = ap.parse_args()
    print(measuring())
    with tempfile.TemporaryDirectory() as tmp:
        archive = Path(tmp) / "archive.keil"
        illegal, mismatch = write_archive(archive, args.games, args.seed)
        print(f"archive: {args.games} games ({illegal} made illegal, {mismatch} given a contradicting result), "
              f"{os.path.getsize(archive) / 1e6:.1f} MB")
        report = Path(tmp) / "report.html"
        jsonl, page = [], []
        for _ in range(args.rounds):
            jsonl.append(timed([*KEILREF, "check", "--format", "jsonl", str(archive)]))
            page.append(timed([*KEILREF, "check", "--format", "html", "-o", str(report), str(archive)]))
        ratio = min(page) / min(jsonl)
        print(f"check --format jsonl: {min(jsonl):.2f} s; --format html: {min(page):.2f} s; "
              f"ratio {ratio:.2f}x (target <= 1.3x)")
        print(f"report: {os.path.getsize(report) / 1e6:.1f} MB")
        if not args.no_browser:
            paint, filtering, count = in_browser(report)
            print(f"browser: first contentful paint {paint:.0f} ms; filter to failing games {filtering:.0f} ms ({count})")


if __name__ == "__main__":
    main()
