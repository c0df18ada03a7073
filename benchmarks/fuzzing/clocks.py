"""The clocks surface: malformed ``[%clk]`` commands and ``TimeControl`` tags.

Each case is a game of the pool given clocks after some of its turns, most
of them malformed (out-of-range fields, signs, digits of other scripts,
thousands of digits, a missing ``]``, two in one comment, one inside
another), a ``TimeControl`` tag as odd, and sometimes a time result. The
properties:

* ``check``, ``stats`` (text and JSON), ``show`` at a turn and the HTML
  report raise nothing;
* every error is located, and every clock warning points at a place;
* ``fmt`` keeps every verdict and is idempotent (the records surface's
  checks), and standard input, a file and the same file gzip-compressed
  give the same verdicts.
"""

from __future__ import annotations

import gzip
import json
import random
import re

from keilref import check_file, check_text

from fuzzing.common import Case, Surface, cli, essence_of, located
from fuzzing.records import check_one

_MOVE = re.compile(r"(?<=\s)([a-m][0-9]{1,2}|pass|button)(?=\s)")
DIGITS = "9" * 4301
CLOCKS = [
    "0:05:00", "0:04:59.9", "1:00:00", "0:60:00", "0:00:60", "0:99:99", "-0:00:03", "--0:00:01", "+0:01:00", "0:1:00",
    "1:2:3", "0:01", "1", "", " ", "0:01:00 ", " 0:01:00", "٠:٠١:٠٠", "０:０１:００", "0:00:00.55", "0:00:00.",
    "0:00:00.5.5", "1e3", "0x10:00:00", "99999999999999999999:00:00", f"{DIGITS}:00:00", f"0:00:{DIGITS}",
    f"0:00:00.{DIGITS}", "0:00:00\u2028", "0:0\x000:00", "∞", "nan", "0:-1:00", "23:59:59.9", "9999999:59:59",
]
COMMENTS = ["{[%clk CLOCK]}", "{[%clk CLOCK}", "{[%clk CLOCK] [%clk 0:01:00]}", "{x [%clk [%clk CLOCK]]}",
            "{[%clkCLOCK]}", "{[%CLK CLOCK]}", "{[%clk\nCLOCK]}", "{[%clk CLOCK]} {[%clk 0:00:01]}", "{[%clk CLOCK]]}",
            "{[%emt CLOCK] [%clk CLOCK]}"]
CONTROLS = ["300+5", "300", "-", "?", "0", "0+0", "300+", "+5", "1e9", "٣٠٠", "５", "300+5+5", "-5", f"{DIGITS}",
            f"300+{DIGITS}", "99999999999999999999+1", "600 + 5", "", "5 min", "3000000+3000000", "10000000"]


class Clocks(Surface):
    name = "clocks"
    weight = 1.0

    def case(self, rng: random.Random) -> Case:
        text = rng.choice(self.pool).decode("utf-8", "replace")
        moves = list(_MOVE.finditer(text))
        chosen = sorted(rng.sample(moves, min(len(moves), rng.randint(1, 12))), key=lambda m: m.start(), reverse=True)
        for m in chosen:
            clock = rng.choice(CLOCKS) if rng.random() < 0.6 else f"0:{rng.randrange(60):02d}:{rng.randrange(60):02d}"
            comment = rng.choice(COMMENTS).replace("CLOCK", clock)
            text = text[: m.end()] + " " + comment + text[m.end() :]
        if rng.random() < 0.8:
            tag = f'[TimeControl "{rng.choice(CONTROLS)}"]\n'
            text = re.sub(r"^\[", lambda _: tag + "[", text, count=1, flags=re.MULTILINE)
        if rng.random() < 0.3:
            text = re.sub(r"(B|W)\+[0-9.R]*\s*$", lambda m: rng.choice(["W+T", "B+T"]) + "\n", text.rstrip() + "\n")
        return Case(text.encode("utf-8", "surrogatepass"), ".keil", "clocks and a time control")

    def check(self, case: Case, rng: random.Random) -> None:
        verdicts = check_text(case.data, filename="-")
        for v in verdicts:
            located(v)
            assert len(v.warnings_at) in (0, len(v.warnings)), f"warnings and their places disagree: {v.warnings}"
            for line, column in v.warnings_at:
                assert (line, column) == (0, 0) or (line >= 1 and column >= 1), f"a warning at {line}:{column}"
        check_one(case.data, rng)
        path = self.work / "clocks.keil"
        path.write_bytes(case.data)
        expected = [essence_of(v) for v in verdicts]
        assert [essence_of(v) for v in check_file(path)] == expected, "a file is judged otherwise than standard input"
        if rng.random() < 0.2:
            packed = self.work / "clocks.keil.gz"
            packed.write_bytes(gzip.compress(case.data))
            assert [essence_of(v) for v in check_file(packed)] == expected, "gzip-compressed otherwise than plain"
        run = rng.randrange(4)
        if run == 0:
            result = cli(["stats", "-j", "1", "-f", "json", str(path)])
            if result.exit_code == 0:
                json.loads(result.stdout)
        elif run == 1:
            cli(["stats", "-j", "1", str(path)])
        elif run == 2:
            turns = max((v.turns for v in verdicts), default=0)
            cli(["show", "--turn", str(rng.randint(0, turns + 1)), str(path)])
        else:
            cli(["check", "-j", "1", "-f", "html", str(path)])
