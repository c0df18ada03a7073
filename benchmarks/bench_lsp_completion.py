"""How soon completion answers in a large archive, through ``keilref lsp``.

Generates a seeded archive (``keilref generate -n 10000 --seed 1 --size 5``),
opens it through a real client over stdio and waits for every game to be
checked. Then, in the game in the middle of the archive, it asks for
completion at the end of the moves (the legal turns: the game is cut from
the document and its line replayed), in its ``Result`` value (the game read
and replayed whole) and after a ``[`` typed on a line of its own (the tag
names); and the legal turns again right after each of a series of edits,
before the check of the edit has begun (the document is cut again where it
changed), and for comparison a hover right after the same edits. Each
request is timed from being sent to its answer.

    python benchmarks/bench_lsp_completion.py [--games 10000] [--times 20]

The server is this checkout's keilref (``python -m keilref lsp``, as the
tests start it).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import time

from lsprotocol import types as lsp

from measured import KEILREF, ROOT, measuring, use_test_references

use_test_references()
from lsp_support import Client, replacing  # noqa: E402


def archive(games: int) -> str:
    done = subprocess.run(
        [*KEILREF, "generate", "-n", str(games), "--seed", "1", "--size", "5"],
        cwd=ROOT, capture_output=True, text=True, check=True,
    )
    return done.stdout


async def timed(client: Client, uri: str, line: int, character: int) -> tuple[float, int]:
    params = lsp.CompletionParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), position=lsp.Position(line=line, character=character)
    )
    sent = time.perf_counter()
    answer = await client.text_document_completion_async(params)
    took = time.perf_counter() - sent
    items = [] if answer is None else answer.items if isinstance(answer, lsp.CompletionList) else answer
    return took, len(items)


async def measure(games: int, times: int) -> None:
    text = archive(games)
    lines = text.split("\n")
    event = lines.index(f'[Event "keilref generate --seed 1, game {games // 2 + 1}"]')
    result_tag = next(i for i in range(event, len(lines)) if lines[i].startswith("[Result "))
    last = next(i for i in range(result_tag, len(lines)) if lines[i] == "") + 1
    while lines[last] == "":
        last += 1
    moves_end = next(i for i in range(last, len(lines)) if lines[i] == "") - 1
    uri = (ROOT / "bench-lsp-completion.keil").as_uri()
    client = Client()
    await client.start()
    try:
        started = time.perf_counter()
        await client.open(uri, text, timeout=600)
        while "left to check" in client.logs[-1]:
            client.arrived[uri].clear()
            await client.wait(uri, timeout=600)
        print(f"open: {games:,} games, {len(text.encode()):,} bytes, checked in {time.perf_counter() - started:.2f} s")
        # Before the result token of the game's last line of moves.
        line = lines[moves_end]
        before_result = len(line) - len(line.split()[-1])
        turns = [await timed(client, uri, moves_end, before_result) for _ in range(times)]
        report("the computed result at the end of the middle game's moves", turns)
        turns = [await timed(client, uri, moves_end, 0) for _ in range(times)]
        report("legal turns before the middle game's last line of moves", turns)
        value = lines[result_tag].index('"') + 1
        results = [await timed(client, uri, result_tag, value) for _ in range(times)]
        report("Result values (the game replayed whole)", results)
        await client.change(uri, 2, [replacing(result_tag + 1, 0, 0, "[\n")])
        names = [await timed(client, uri, result_tag + 1, 1) for _ in range(times)]
        report("tag names after a [", names)
        await client.change(uri, 3, [replacing(result_tag + 1, 0, 2, "")])
        edited = []
        for version in range(4, 4 + times):
            # A space typed before the result and taken out again; completion asked at once.
            change = replacing(moves_end, before_result, before_result, " ") if version % 2 == 0 else (
                replacing(moves_end, before_result, before_result + 1, "")
            )
            client.text_document_did_change(
                lsp.DidChangeTextDocumentParams(
                    text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=version), content_changes=[change]
                )
            )
            edited.append(await timed(client, uri, moves_end, before_result))
        report("legal turns right after an edit (the document cut again where it changed)", edited)
        hovered = []
        for version in range(4 + times, 4 + 2 * times):
            change = replacing(moves_end, before_result, before_result, " ") if version % 2 == 0 else (
                replacing(moves_end, before_result, before_result + 1, "")
            )
            client.text_document_did_change(
                lsp.DidChangeTextDocumentParams(
                    text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=version), content_changes=[change]
                )
            )
            params = lsp.HoverParams(
                text_document=lsp.TextDocumentIdentifier(uri=uri), position=lsp.Position(line=moves_end, character=0)
            )
            sent = time.perf_counter()
            await client.text_document_hover_async(params)
            hovered.append((time.perf_counter() - sent, 1))
        report("for comparison, a hover right after the same edit", hovered)
    finally:
        await client.finish()


def report(what: str, answers: list[tuple[float, int]]) -> None:
    latencies = [took for took, _ in answers]
    items = sorted({n for _, n in answers})
    print(f"{what}: median {statistics.median(latencies) * 1000:.1f} ms "
          f"({min(latencies) * 1000:.1f}-{max(latencies) * 1000:.1f}), items {items}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--times", type=int, default=20)
    args = parser.parse_args()
    print(measuring())
    print(f"server: this checkout's, {ROOT}")
    asyncio.run(measure(args.games, args.times))


if __name__ == "__main__":
    main()
