"""The scale surface: games heavy with variations, and variations nested to and past the limit.

Each case is a legal game of the pool given variations in one of three
shapes: wide (thousands to hundreds of thousands of variations, each the
turn it replaces played again, so every one is legal), long (a few
variations, each a long copy of the rest of the game), or deep (a chain of
variations nested 50 to 100,000 deep, closed or left open). Each is checked
in a child process, so that its time and peak memory are its own. The
properties:

* the check ends within ``--slow`` plus a time per MB of input, and grows
  memory by at most a multiple of the input's size (the record format
  promises a 10 MB game in well under 500 MB);
* variations do not change the main line's verdict;
* nesting up to 100 deep is read; past it, the game is one ``error`` at
  the 101st ``(``, saying it is nested too deep (open or closed).
"""

from __future__ import annotations

import os
import random
import re
import resource
import select
import signal
import time
from pathlib import Path

from keilref import Record, check_text, read_games
from keilref.records.limits import MAX_VARIATION_DEPTH

from fuzzing.common import Case, Surface, essence_of

SECONDS_PER_MB = 3.0
"""Time an input may take per MB of it, beyond ``--slow``: reading is linear,
at well under a second per MB of comments (docs/performance.md)."""
BYTES_PER_BYTE = 50
"""Memory an input may grow by, per byte of it: 500 MB for a 10 MB game."""
SLACK_MB = 64
_MOVE = re.compile(r"(?<=\s)([a-m][0-9]{1,2}|pass|button)(?=\s)")


def _rss_kb() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def _place(text: str, at: int) -> tuple[int, int]:
    line = text.count("\n", 0, at) + 1
    return line, at - (text.rfind("\n", 0, at) + 1) + 1


class Scale(Surface):
    name = "scale"
    weight = 1.0

    def __init__(self, rng: random.Random, pool: list[bytes], work: Path) -> None:
        super().__init__(rng, pool, work)
        # Games that read and end: variations are added to their main lines.
        self.games: list[str] = []
        for data in pool:
            text = data.decode("utf-8", "replace")
            records = [r for r in read_games(data) if isinstance(r, Record)]
            if len(records) == 1 and len(_MOVE.findall(text)) >= 6 and "(" not in text:
                self.games.append(text)

    def case(self, rng: random.Random) -> Case:
        text = rng.choice(self.games)
        moves = list(_MOVE.finditer(text))
        shape = rng.choice(["wide", "wide", "long", "deep", "deep"])
        extra: dict[str, object] = {"shape": shape, "base": text}
        if shape == "wide":
            count = int(10 ** rng.uniform(3, 5.3))
            per = max(1, count // len(moves))
            pieces, last = [], 0
            for m in moves:
                pieces.append(text[last : m.end()])
                pieces.append(f" ({m.group(1)})" * per)
                last = m.end()
            pieces.append(text[last:])
            data = "".join(pieces)
            how = f"{per * len(moves):,} variations"
        elif shape == "long":
            m = rng.choice(moves[: len(moves) // 2])
            rest = " ".join(x.group(1) for x in moves[moves.index(m) :])
            copies = rng.randint(1, 2000)
            data = text[: m.end()] + f" ({rest})" * copies + text[m.end() :]
            how = f"{copies:,} variations of {len(rest.split())} turns"
        else:
            depth = rng.choice([50, 99, 100, 101, 102, 150, 1000, 10_000, 100_000])
            closed = rng.random() < 0.5
            m = rng.choice(moves)
            opening = f" ({m.group(1)}" * depth
            data = text[: m.end()] + opening + (")" * depth if closed else "") + text[m.end() :]
            extra["depth"], extra["closed"] = depth, closed
            if depth > MAX_VARIATION_DEPTH:
                # Where the first "(" too many stands.
                extra["at"] = _place(data, m.end() + len(f" ({m.group(1)}") * MAX_VARIATION_DEPTH + 1)
            how = f"variations nested {depth:,} deep, {'closed' if closed else 'left open'}"
        raw = data.encode()
        mb = len(raw) / 1e6
        return Case(raw, ".keil", how, slow=1 + SECONDS_PER_MB * mb * 2, extra=extra)

    def check(self, case: Case, rng: random.Random) -> None:
        read, write = os.pipe()
        before = _rss_kb()
        started = time.perf_counter()
        pid = os.fork()
        if pid == 0:
            os.close(read)
            # A blow-up is a MemoryError here, not the machine's memory.
            limit_bytes = int((before / 1024 + 4 * (SLACK_MB + BYTES_PER_BYTE * len(case.data) / 1e6)) * 2**20)
            resource.setrlimit(resource.RLIMIT_AS, (limit_bytes + 2**31, limit_bytes + 2**31))
            try:
                message = _judge(case)
            except BaseException as e:  # noqa: BLE001
                message = f"{type(e).__name__}: {e}"
            os.write(write, message.encode()[:4000])
            os._exit(0)
        os.close(write)
        mb = len(case.data) / 1e6
        limit = 5 + SECONDS_PER_MB * mb
        answer = b""
        try:
            ready, _, _ = select.select([read], [], [], limit)
            if ready:
                while chunk := os.read(read, 4096):
                    answer += chunk
            else:
                os.kill(pid, signal.SIGKILL)
        finally:
            _, _, usage = os.wait4(pid, 0)
            os.close(read)
        seconds = time.perf_counter() - started
        grew = max(0, usage.ru_maxrss - before) / 1024
        what = f"{case.how}, {mb:.2f} MB"
        assert ready, f"took longer than the time bound: over {limit:.0f} s for {what}"
        assert not answer, f"{answer.decode(errors='replace')}; {what}"
        allowed = SLACK_MB + BYTES_PER_BYTE * mb
        assert grew <= allowed, f"memory grew past the bound: {grew:,.0f} MB for {what} (at most {allowed:,.0f})"
        del seconds


def _judge(case: Case) -> str:
    """What is wrong with the verdicts, or nothing."""
    verdicts = check_text(case.data, filename="scale.keil")
    shape = case.extra["shape"]
    errors = [v.error for v in verdicts if v.error is not None]
    if shape == "deep":
        depth = int(str(case.extra["depth"]))
        nested = [e for e in errors if "nested too deep" in e.message]
        if depth <= MAX_VARIATION_DEPTH:
            if nested:
                return f"nesting {depth} deep refused: {nested[0].message}"
            if not case.extra["closed"]:
                return ""
        else:
            if not nested:
                return f"nesting past the limit not refused as too deep: {[e.message for e in errors]}"
            at = case.extra["at"]
            if (nested[0].line, nested[0].column) != tuple(at):  # type: ignore[arg-type]
                return f"nesting past the limit refused at {nested[0].line}:{nested[0].column}, not at the 101st '(' {at}"
            return ""
    base = check_text(str(case.extra["base"]).encode(), filename="scale.keil")
    if shape == "deep" and not case.extra["closed"]:
        return ""
    main = [(e[0], e[1], e[2]) for e in map(essence_of, verdicts)]
    expected = [(e[0], e[1], e[2]) for e in map(essence_of, base)]
    if main != expected:
        return f"variations changed the main line's verdict: {main} != {expected}"
    return ""
