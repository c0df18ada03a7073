"""The file-writing surface: ``-o`` of every command that writes, at odd targets.

Each case builds a scratch tree: records and a match as inputs (two of them
named alike in two directories), a directory holding a hand-written file and
links planted to a victim outside it, a symbolic and a hard link to an
input, a hard link to the victim. A command that writes (``check`` as text
and HTML, ``show``, ``score``, ``legal``, ``stats`` and its ``--plot``,
``filter``, ``import``, ``export``, ``generate``) is run with ``-o`` at one
target of the tree: an input (also spelt otherwise, or through a link),
a directory, a new name, a file there already, a planted link, a name under
a file, a temporary-looking name. The properties, byte for byte:

* no exception and no traceback;
* no input of the command changes (``filter`` may write over the one its
  ``-o`` names);
* a directory target never follows a link out of itself, and overwrites
  none of the files it already holds without ``--force``;
* a hard link is never broken by a run that succeeds without ``--force``:
  it is refused, or written through;
* a usage error (exit 2) writes nothing at all;
* no temporary file is left behind.
"""

from __future__ import annotations

import os
import random
import shutil
import stat
from dataclasses import dataclass
from pathlib import Path

from fuzzing.common import Case, Surface, cli, cwd
from fuzzing.json_import import exported, samples


@dataclass(frozen=True)
class Entry:
    kind: str
    """``file``, ``dir``, ``link`` or ``other``."""
    data: bytes | str
    """A file's bytes, a link's target."""
    inode: int


def snapshot(top: Path) -> dict[str, Entry]:
    found: dict[str, Entry] = {}
    for folder, dirs, files in os.walk(top):
        for name in dirs + files:
            path = Path(folder) / name
            st = path.lstat()
            rel = str(path.relative_to(top))
            if stat.S_ISLNK(st.st_mode):
                found[rel] = Entry("link", os.readlink(path), st.st_ino)
            elif stat.S_ISDIR(st.st_mode):
                found[rel] = Entry("dir", "", st.st_ino)
            elif stat.S_ISREG(st.st_mode):
                found[rel] = Entry("file", path.read_bytes(), st.st_ino)
            else:
                found[rel] = Entry("other", "", st.st_ino)
    return found


COMMANDS: dict[str, tuple[str, ...]] = {
    # The command, and which inputs it takes: records, one record, matches, or none.
    "check": ("records",),
    "check -f html": ("records",),
    "check -f sarif": ("records",),
    "show": ("one",),
    "show -f svg": ("one",),
    "score": ("one",),
    "legal": ("one",),
    "stats": ("records",),
    "stats --plot": ("records",),
    "filter": ("records",),
    "import": ("matches",),
    "export --to abstract-games": ("records",),
    "generate -n 2 --seed 1 --size 3": ("none",),
}
RECORDS = ["in/a.keil", "in/b.keil", "in", "in/x/g.keil", "in/y/g.keil", "in/x", "in/y"]
TARGETS = [
    "SELF", "./SELF", "ABS-SELF", "ln.keil", "hl.keil", "hl2.keil", "out", "out/", "out/new.keil", "out/existing.keil",
    "out/planted.keil", "out/planted-dir/", "newdir/", "newdir/deeper/", "in/a.keil/x", "in", "in/", "dangling.keil",
    "out/.keilref-abcdefgh.keil", "outside/victim.keil", "-", "/dev/null", "in/x/g.keil", "in/m.match.json",
    "in/m.moves.json", "out/m.keil", "out/g.moves.json",
]


class Writes(Surface):
    name = "writes"
    weight = 1.0

    def __init__(self, rng: random.Random, pool: list[bytes], work: Path) -> None:
        super().__init__(rng, pool, work)
        shapes = samples()
        self.match = next((d for s, d in shapes if s == ".match.json"), None)
        self.moves = next((d for s, d in shapes if s == ".moves.json"), None) or exported(pool)[0][1]

    def case(self, rng: random.Random) -> Case:
        command = rng.choice(list(COMMANDS))
        takes = COMMANDS[command][0]
        if takes == "records":
            inputs = rng.sample(RECORDS, rng.randint(1, 3))
        elif takes == "one":
            inputs = [rng.choice(["in/a.keil", "in/b.keil", "in/x/g.keil"])]
        elif takes == "matches":
            inputs = rng.sample(["in/m.match.json", "in/m.moves.json", "in"], rng.randint(1, 2))
        else:
            inputs = []
        target = rng.choice(TARGETS)
        if "SELF" in target:
            files = [i for i in inputs if not i.endswith(("in", "/x", "/y"))] or ["in/a.keil"]
            target = target.replace("SELF", rng.choice(files))
        force = rng.random() < 0.1
        how = f"keilref {command} {' '.join(inputs)} -o {target}{' --force' if force else ''}"
        records = [rng.choice(self.pool) for _ in range(4)]
        return Case(
            b"\n".join([how.encode(), *records]),
            ".txt",
            how,
            extra={"command": command, "inputs": inputs, "target": target, "force": force, "records": records},
        )

    def _tree(self, top: Path, records: list[bytes]) -> None:
        if top.exists():
            shutil.rmtree(top)
        for d in ("in/x", "in/y", "out", "outside", "out/planted-dir-target"):
            (top / d).mkdir(parents=True, exist_ok=True)
        (top / "in/a.keil").write_bytes(records[0])
        (top / "in/b.keil").write_bytes(records[1])
        (top / "in/x/g.keil").write_bytes(records[2])
        (top / "in/y/g.keil").write_bytes(records[3])
        if self.match is not None:
            (top / "in/m.match.json").write_bytes(self.match)
        (top / "in/m.moves.json").write_bytes(self.moves)
        (top / "out/existing.keil").write_bytes(b"; written by hand\n")
        (top / "out/m.keil").write_bytes(b"; written by hand, named as an import's\n")
        (top / "out/a.keil").write_bytes(b"; written by hand, named as an input\n")
        (top / "outside/victim.keil").write_bytes(b"; not keilref's to write\n")
        (top / "outside/victim.json").write_bytes(b"{}\n")
        (top / "outside/victim2.keil").write_bytes(b"; hard-linked\n")
        os.symlink("../outside/victim.keil", top / "out/planted.keil")
        os.symlink("../outside/victim.json", top / "out/g.moves.json")
        os.symlink("../outside/victim.json", top / "out/a.moves.json")
        os.symlink("../outside", top / "out/planted-dir")
        os.symlink("in/a.keil", top / "ln.keil")
        os.symlink("nowhere/none.keil", top / "dangling.keil")
        os.link(top / "in/a.keil", top / "hl.keil")
        os.link(top / "outside/victim2.keil", top / "hl2.keil")

    def check(self, case: Case, rng: random.Random) -> None:
        command = str(case.extra["command"])
        inputs = list(case.extra["inputs"])  # type: ignore[call-overload]
        target = str(case.extra["target"])
        force = bool(case.extra["force"])
        records = list(case.extra["records"])  # type: ignore[call-overload]
        top = self.work / "tree"
        self._tree(top, records)
        target_arg = str(top / target[4:]) if target.startswith("ABS-") else target
        words = command.split()
        option = "--plot" if "--plot" in words else "-o"
        words = [w for w in words if w != "--plot"]
        args = [*words, *(["-j", "1"] if words[0] in ("check", "stats", "filter") else []), *inputs, option, target_arg]
        if force:
            args.append("--force")
        before = snapshot(top)
        protected_files = _files_of(top, inputs)
        if words[0] == "import":
            # A directory given to import is searched for matches alone.
            protected_files = [p for p in protected_files if p.name.endswith((".match.json", ".replay.json", ".moves.json"))]
        with cwd(top):
            result = cli(args)
        after = snapshot(top)
        changed = {k for k in before.keys() | after.keys() if before.get(k) != after.get(k)}
        what = f"{case.how}: exit {result.exit_code}"
        if result.exit_code == 2:
            assert not changed, f"a usage error wrote files: {sorted(changed)}; {what}"
            return
        protected = {before[str(p.relative_to(top))].inode for p in protected_files}
        for rel in sorted(changed):
            if before.get(rel) is None or before[rel].kind != "file":
                continue
            # filter alone may write over a file it reads (README.md): the one its -o names.
            if before[rel].inode in protected and not (words[0] == "filter" and _named(top, target_arg, rel)):
                alias = rel not in {str(p.relative_to(top)) for p in protected_files}
                raise AssertionError(f"an input{' (by another name)' if alias else ''} changed: {rel}; {what}")
            if rel.startswith("outside/") and not _named(top, target_arg, rel):
                raise AssertionError(f"a file outside the target changed: {rel}; {what}")
            if rel.startswith("out/") and _is_dir_target(top, target_arg) and not force:
                raise AssertionError(f"a file the target directory held was overwritten: {rel}; {what}")
        # --force may write a new file in the place of a hard link, as fmt --in-place --force does.
        if "hl2.keil" in before and "hl2.keil" in after and result.exit_code in (0, 1) and not force:
            assert after["hl2.keil"].inode == after["outside/victim2.keil"].inode, f"a hard link was broken; {what}"
        left = [k for k in after if os.path.basename(k).startswith(".keilref-") and k not in before and k != target]
        assert not left, f"temporaries left behind: {left}; {what}"


def _files_of(top: Path, inputs: list[str]) -> list[Path]:
    found: list[Path] = []
    for i in inputs:
        path = top / i
        if path.is_dir():
            found += [p for p in path.rglob("*") if p.is_file()]
        elif path.exists():
            found.append(path)
    return found


def _named(top: Path, target: str, rel: str) -> bool:
    """Whether the target names this file itself (through a link the user gave by name)."""
    if target.endswith("/"):
        return False
    try:
        return (top / target).resolve() == (top / rel).resolve()
    except OSError:
        return False


def _is_dir_target(top: Path, target: str) -> bool:
    return target.endswith("/") or (top / target).is_dir()
