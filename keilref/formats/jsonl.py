"""Rendering verdicts as JSON lines: ``--format jsonl``, a JSON object per game."""

from __future__ import annotations

import json
from typing import Any

from keilref.formats import Causes, CheckOptions, Places, Writer
from keilref.escaping import json_text, shown_name
from keilref.referee.verdict import Status, Verdict


def verdict_json(v: Verdict) -> dict[str, Any]:
    """The facts of a JSON line, as data: the verdict table reads its columns here too."""
    data = v.to_json()
    data["file"] = shown_name(v.file)  # a name that is not UTF-8 cannot be written as it is
    return data


def json_line(v: Verdict) -> str:
    return json_text(verdict_json(v))


class JsonLinesWriter(Writer):
    """``--format jsonl``: a JSON object per game (see :func:`json_line`)."""

    spells = "listed"

    @classmethod
    def lines(cls, v: Verdict, options: CheckOptions) -> str:
        return json_line(v) + "\n"

    @classmethod
    def read_back(cls, text: str) -> Causes:
        failing: Causes = {}
        for line in text.splitlines():
            v = json.loads(line)
            failing[(v["file"], v["game"])] = []
        return failing

    @classmethod
    def read_places(cls, text: str) -> Places:
        places: Places = {}
        for line in text.splitlines():
            v = json.loads(line)
            listed = places.setdefault((v["file"], v["game"]), [])
            at = v["illegal"] or v["error"] or v["mismatch"]
            if at is not None:
                listed.append((v["status"], at["line"], at["column"]))
            elif v["status"] == Status.UNFINISHED.value:
                listed.append((v["status"], v["line"], 1))  # the game's start, as the text line has it
            listed += [("warning", w["line"], w["column"]) for w in v["warning_places"]]
        return places
