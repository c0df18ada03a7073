"""``gs://`` through a real GCS JSON API server on loopback (the
gcp-storage-emulator package's), read by gcsfs as from any bucket: a prefix
searched as a directory, single objects, a compressed object under the
decompression caps, and every failure to reach one located in its file.
Skipped without gcsfs and the emulator, unless ``KEILREF_REQUIRE_OBJECT_STORES=1``
(CI sets it, having installed them)."""

from __future__ import annotations

import gzip
import logging
import os
import socket
import time
import types
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from keilref import wording
from keilref.cli.app import EXIT_FAILED

from remote_support import GAMES, closed_port, need, verdicts, without_file

# gcsfs asks Google's gRPC control plane for each bucket's layout unless told
# not to, and an emulator has none (a minute's wait per bucket); read when
# gcsfs is imported, so set before it is.
os.environ["GCSFS_EXPERIMENTAL_ZB_HNS_SUPPORT"] = "false"
need("fsspec", "gcsfs", "gcp_storage_emulator.server")

import fsspec  # noqa: E402
import gcsfs  # noqa: E402
from gcp_storage_emulator.server import create_server  # noqa: E402

BUCKET = "gs://games"
BOMB_UNIT = gzip.compress(b" " * (16 << 20), compresslevel=9)
"""About 1,030 times smaller than what it holds: past the cap of 1,000."""
PACKED = b"\n".join(g.read_bytes() for g in GAMES)
"""Every game in one archive, stored gzipped."""


def _stored() -> dict[str, bytes]:
    objects = {f"games/2026/{g.name}": g.read_bytes() for g in GAMES}
    objects["games/2026/packed.keil.gz"] = gzip.compress(PACKED)
    objects["games/2026/.hidden/skip.keil"] = b"not read"
    objects["games/2026/notes.txt"] = b"not a record"
    objects["games/bomb/bomb.keil.gz"] = gzip.compress(GAMES[0].read_bytes()) + BOMB_UNIT * 2
    return objects


@pytest.fixture(scope="module")
def emulator() -> Iterator[str]:
    """The emulator's address, as ``STORAGE_EMULATOR_HOST`` (gcsfs's own
    setting) names it for the module's tests, with the games stored."""
    server = create_server("127.0.0.1", 0, in_memory=True, default_bucket="games")
    server.start()
    # The emulator takes port 0 as asked and keeps the port it was given on its HTTP server.
    endpoint = f"http://127.0.0.1:{server._api._httpd.server_address[1]}"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("STORAGE_EMULATOR_HOST", endpoint)
        # Anonymous, as a public bucket is read: no credentials are looked
        # for, so nothing but the emulator is ever asked.
        patch.setitem(fsspec.config.conf, "gs", {"token": "anon"})
        patch.setenv("NO_GCE_CHECK", "true")
        gcsfs.GCSFileSystem.clear_instance_cache()
        fs = fsspec.filesystem("gs")
        for name, data in _stored().items():
            fs.pipe(name, data)
        try:
            yield endpoint
        finally:
            gcsfs.GCSFileSystem.clear_instance_cache()
            server.stop()


def test_a_gs_prefix_is_searched_as_a_directory_and_read_as_local_files(emulator: str, tmp_path: Path) -> None:
    (tmp_path / "packed.keil.gz").write_bytes(gzip.compress(PACKED))
    one = f"{BUCKET}/2026/{GAMES[1].name}"
    code, found, output = verdicts(f"{BUCKET}/2026/", one, f"{BUCKET}/2026/none.keil")
    _, local, _ = verdicts(str(tmp_path / "packed.keil.gz"), *(str(g) for g in GAMES), str(GAMES[1]))
    names = [str(v["file"]).replace(str(tmp_path), f"{BUCKET}/2026") for v in local]
    names = [name.replace(str(GAMES[0].parent), f"{BUCKET}/2026") for name in names]
    assert [v["file"] for v in found[:-1]] == names
    assert without_file(found[:-1]) == without_file(local)
    assert found[-1]["file"] == f"{BUCKET}/2026/none.keil"
    assert found[-1]["error"] == {"message": "cannot read file: " + wording.REMOTE_NO_OBJECT, "line": 1, "column": 1}
    assert code == EXIT_FAILED and "Traceback" not in output


def test_the_decompression_cap_holds_for_a_gs_bomb(emulator: str) -> None:
    code, found, _ = verdicts(f"{BUCKET}/bomb/bomb.keil.gz", str(GAMES[0]))
    assert code == EXIT_FAILED
    bomb, other = found  # refused whole, before its first game, as a local file is
    assert bomb["file"] == f"{BUCKET}/bomb/bomb.keil.gz"
    assert bomb["error"]["line"] == 1 and "a compression bomb?" in bomb["error"]["message"]  # type: ignore[index]
    assert other["status"] == "ok"


@pytest.fixture()
def quick_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    """gcsfs's five waits between its six tries (about 31 s), cut to nothing:
    what is tested is that the last failure is the file's verdict."""

    async def no_wait(seconds: float) -> None:
        return None

    monkeypatch.setattr(gcsfs.retry, "asyncio", types.SimpleNamespace(sleep=no_wait))


def test_an_unreachable_gs_host_is_located_while_the_others_are_checked(
    emulator: str, quick_retries: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("STORAGE_EMULATOR_HOST", f"http://127.0.0.1:{closed_port()}")
    # No handler of the user's (pytest's own taken away): what logging would print, the output shows.
    monkeypatch.setattr(logging.root, "handlers", [])
    started = time.monotonic()
    code, found, output = verdicts(f"{BUCKET}/2026/{GAMES[0].name}", str(GAMES[0]))
    assert time.monotonic() - started < 20
    assert code == EXIT_FAILED and "Traceback" not in output
    refused, other = found
    assert refused["file"] == f"{BUCKET}/2026/{GAMES[0].name}"
    assert refused["error"]["message"].startswith("cannot read file: cannot reach it (")  # type: ignore[index]
    assert other["status"] == "ok"


def test_a_gs_host_that_never_answers_is_a_located_error_not_a_hang(
    emulator: str, quick_retries: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    from keilref.records import remote

    monkeypatch.setattr(remote, "TIMEOUT_SECONDS", 0.5)
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)  # connections are accepted by the kernel, and never answered
        monkeypatch.setenv("STORAGE_EMULATOR_HOST", f"http://127.0.0.1:{silent.getsockname()[1]}")
        started = time.monotonic()
        code, found, output = verdicts(f"{BUCKET}/2026/{GAMES[0].name}", str(GAMES[0]))
        took = time.monotonic() - started
    assert took < 20  # six tries of half a second each, not gcsfs's own five minutes a try
    assert code == EXIT_FAILED and "Traceback" not in output
    assert found[0]["error"]["message"].startswith("cannot read file: cannot reach it (")  # type: ignore[index]
    assert found[1]["status"] == "ok"


def _dask() -> Any:
    pytest.importorskip("dask.bag")
    pytest.importorskip("pyarrow")
    import keilref.dask

    return keilref.dask


def test_check_bag_reads_gs_urls(emulator: str, tmp_path: Path) -> None:
    from keilref import check_file

    (tmp_path / "packed.keil").write_bytes(PACKED)
    url = f"{BUCKET}/2026/packed.keil.gz"
    checked = _dask().check_bag([url, f"{BUCKET}/2026/none.keil"]).compute(scheduler="sync")
    local = [replace(v, file=url) for v in check_file(tmp_path / "packed.keil")]
    assert checked[:-1] == local
    missing = checked[-1]
    assert missing.status.value == "error" and missing.file == f"{BUCKET}/2026/none.keil"
    assert missing.error is not None and missing.error.message == "cannot read file: " + wording.REMOTE_NO_OBJECT


def test_check_dataframe_reads_a_gs_prefix(emulator: str) -> None:
    frame = _dask().check_dataframe(f"{BUCKET}/2026/").compute(scheduler="sync")
    _, found, _ = verdicts(f"{BUCKET}/2026/")
    assert list(frame["file"]) == [v["file"] for v in found]
    assert list(frame["game"]) == [v["game"] for v in found]
    assert list(frame["status"]) == ["ok"] * len(found) and len(found) > len(GAMES)
