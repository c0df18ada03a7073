"""The settings and walking surface: random project settings, odd directory trees.

Each case builds a tree: a ``keilref.toml`` or ``pyproject.toml`` (or both,
or one in a directory above) with random contents, right and wrong (every
key, values of every type, names near the keys, ``tool`` that is not a
table, text that is not TOML or not UTF-8); and records in odd places (deep
directories, a link back to a directory above, a dangling link, a named
pipe, hidden files, a temporary's name, a directory named like a record,
names with line ends, leading dashes or bytes that are not UTF-8). Then
``check``, ``check --show-settings``, ``fmt --check``, ``stats`` and
``filter`` run from a directory of the tree. The properties:

* no exception and no traceback, within the time bound (a link that loops,
  a named pipe and a deep tree included);
* a setting keilref cannot use is a usage error (exit 2) that names its file;
* where the settings are good, each record found by the walk is judged as it
  is when given alone, and no temporary of keilref's is read as a record.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
from pathlib import Path
from typing import Any

from fuzzing.common import Case, Surface, cli, cwd

KEYS = ["rules", "per-path-rules", "strict", "jobs", "format", "exclude", "extend-exclude", "encoding"]
NEAR = ["strikt", "Rules", "rule", "job", "formats", "excludes", "per_path_rules", "tool", "keilref", ""]
VALUES: dict[str, list[Any]] = {
    "rules": ["keil", "keil-2019", "dehil", "yugo", "go", "", 5, True, ["keil"]],
    "strict": [True, False, "yes", 1, 0],
    "jobs": [1, 2, 0, -1, 1024, 1025, 10**30, "2", 1.5, True],
    "format": ["text", "jsonl", "html", "sarif", "github", "json", "", 3],
    "exclude": [[], ["*"], ["drafts"], [".*"], ["["], ["**/x"], "drafts", [1], [""], ["../*"]],
    "extend-exclude": [[], ["*"], ["d*"], ["["], "x", [None] if False else [2]],
    "encoding": ["utf-8", "latin-1", "cp1252", "utf-16", "utf-8-sig", "hex", "rot13", "base64", "zlib", "uu",
                 "bz2_codec", "idna", "punycode", "", "nope", 5],
}
PER_PATH: list[Any] = [{"*": "keil-2019"}, {"../*": "dehil"}, {"**": "keil"}, {"[": "keil"}, {"*.keil": "nope"},
                       {"*": 5}, {"d/*": "dehil", "*": "keil"}, {"": "keil"}, [], "x", {"*": {"a": 1}}]
BROKEN_TOML = [b"tool = 1\n", b"[tool]\nkeilref = 1\n", b"tool = [1]\n", b"[tool.keilref\n", b"strict = \n",
               b"\xff\xfe[tool.keilref]\n", b"\xef\xbb\xbf[tool.keilref]\nstrict = true\n", b"x = \"\\u0000\"\n",
               b"[tool.keilref]\n[tool.keilref]\n", b"[[tool.keilref]]\n", b'tool = "x"\n', b"[tool.keilref.per-path-rules]\n\"*\" = 1\n",
               b"a = 1\n" * 50_000]


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(k)} = {_toml_value(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, float):
        return repr(value)
    return json.dumps(value)


def settings_text(rng: random.Random, table: bool) -> bytes:
    if rng.random() < 0.15:
        return rng.choice(BROKEN_TOML)
    lines = ["[tool.keilref]"] if table else []
    for key in rng.sample(KEYS, rng.randint(0, 4)) + ([rng.choice(NEAR)] if rng.random() < 0.15 else []):
        if key == "per-path-rules":
            value = rng.choice(PER_PATH)
        else:
            value = rng.choice(VALUES.get(key, [1, "x", True]))
        if key:
            lines.append(f"{json.dumps(key)} = {_toml_value(value)}")
    if table and rng.random() < 0.2:
        lines.insert(0, rng.choice(["tool = 1", '[project]\nname = "x"', "[tool.other]\nx = 1"]))
    return ("\n".join(lines) + "\n").encode()


class SettingsAndWalking(Surface):
    name = "settings"
    weight = 1.0

    def case(self, rng: random.Random) -> Case:
        layout: dict[str, Any] = {"files": [], "settings": []}
        # Deep trees are rare: one a thousand deep costs as much as fifty shallow ones.
        depth = rng.choices([0, 1, 2, 3, 8, 40, 200, 1000], weights=[30, 20, 15, 10, 10, 8, 4, 3])[0]
        layout["depth"] = depth
        for where in rng.sample(["", "proj", "proj/d"], rng.randint(0, 2)):
            name = rng.choice(["keilref.toml", "pyproject.toml"])
            layout["settings"].append((where, name, settings_text(rng, name == "pyproject.toml").decode("utf-8", "surrogateescape")))
        names = ["g.keil", "d/g.keil", ".hidden.keil", ".keilref-a1b2c3d4.keil", ".keilref-a1b2c3d4", "-x.keil", "a\nb.keil",
                 "sub dir/g.keil", "\udcff.keil", "2019/old.keil", "x.keil.gz", "m.match.json", "e.keil"]
        for name in rng.sample(names, rng.randint(1, 6)):
            layout["files"].append((name, rng.randrange(len(self.pool))))
        layout["odd"] = rng.sample(["loop", "dangling", "fifo", "dir-named-keil", "unreadable", "empty"], rng.randint(0, 3))
        layout["from"] = rng.choice(["proj", "proj/d", "proj/d/e"])
        layout["run"] = rng.choice(["check", "show-settings", "fmt", "stats", "filter", "check-one"])
        return Case(json.dumps(layout).encode(), ".json", f"{layout['run']} in a tree {depth} deep, settings {[s[:2] for s in layout['settings']]}",
                    slow=2, extra=layout)

    def _build(self, top: Path, layout: dict[str, Any]) -> Path:
        if top.exists():
            # rm, not shutil.rmtree: a tree a thousand deep is past Python's recursion.
            subprocess.run(["chmod", "-R", "u+rwx", str(top)], check=False)
            subprocess.run(["rm", "-rf", str(top)], check=True)
        proj = top / "proj"
        (proj / "d" / "e").mkdir(parents=True)
        for where, name, text in layout["settings"]:
            (top / where / name).write_bytes(text.encode("utf-8", "surrogateescape"))
        for name, i in layout["files"]:
            path = proj / os.fsdecode(os.fsencode(name))
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(self.pool[i])
        deep = proj / "d"
        if layout["depth"]:
            # One os.mkdir a level, each relative to the last: no path grows past what the system allows.
            fd = os.open(deep, os.O_RDONLY)
            try:
                for _ in range(layout["depth"]):
                    os.mkdir("n", dir_fd=fd)
                    nxt = os.open("n", os.O_RDONLY, dir_fd=fd)
                    os.close(fd)
                    fd = nxt
                with open(os.open("deep.keil", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd), "wb") as f:
                    f.write(self.pool[0])
            finally:
                try:
                    os.close(fd)
                except OSError:
                    pass
        for odd in layout["odd"]:
            if odd == "loop":
                os.symlink("..", proj / "d" / "up")
            elif odd == "dangling":
                os.symlink("nowhere.keil", proj / "gone.keil")
            elif odd == "fifo":
                os.mkfifo(proj / "pipe.keil")
            elif odd == "dir-named-keil":
                (proj / "dir.keil").mkdir()
            elif odd == "unreadable":
                (proj / "locked").mkdir()
                (proj / "locked" / "g.keil").write_bytes(self.pool[1])
                os.chmod(proj / "locked", 0)
            elif odd == "empty":
                (proj / "empty.keil").write_bytes(b"")
        return proj

    def check(self, case: Case, rng: random.Random) -> None:
        layout = case.extra
        top = self.work / "tree"
        proj = self._build(top, layout)
        start = top / str(layout["from"])
        run = str(layout["run"])
        target = os.path.relpath(proj, start)
        args = {
            "check": ["check", "-j", "1", "-f", "jsonl", target],
            "show-settings": ["check", "--show-settings", target],
            "fmt": ["fmt", "--check", target],
            "stats": ["stats", "-j", "1", target],
            "filter": ["filter", "-j", "1", target],
            "check-one": ["check", "-j", "1", "-f", "jsonl", os.path.join(target, "g.keil")],
        }[run]
        with cwd(start):
            result = cli(args)
            if result.exit_code == 2:
                assert result.stderr.strip(), f"a usage error says nothing; keilref {' '.join(args)}"
                return
            if run != "check":
                return
            found: dict[str, list[str]] = {}
            for line in filter(None, result.stdout.split("\n")):
                v = json.loads(line)
                found.setdefault(v["file"], []).append(v["status"])
            for name in found:
                base = os.path.basename(name)
                assert not base.startswith(".keilref-"), f"a temporary of keilref's was read as a record: {name}"
            for name in rng.sample(sorted(found), min(3, len(found))):
                if name == "-" or not os.path.isfile(name):
                    continue
                alone = cli(["check", "-j", "1", "-f", "jsonl", name])
                statuses = [json.loads(line)["status"] for line in alone.stdout.split("\n") if line]
                assert statuses == found[name], f"a file is judged otherwise in a walk than alone: {name}: {found[name]} != {statuses}"
