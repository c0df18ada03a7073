"""Records where they are: paths that are fsspec URLs (``memory://``, and
``http://``/``https://`` from a real server on loopback), decompressed and
capped as local files are, and every failure to reach one located in its file."""

from __future__ import annotations

import contextlib
import functools
import gzip
import http.server
import json
import os
import socket
import ssl
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from keilref import wording
from keilref.cli import app
from keilref.cli.app import EXIT_FAILED

from cli_support import ROOT
from remote_support import GAMES
from remote_support import closed_port as _closed_port
from remote_support import verdicts as _verdicts
from remote_support import without_file as _without_file

fsspec = pytest.importorskip("fsspec")
pytest.importorskip("aiohttp")

runner = CliRunner()


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@contextlib.contextmanager
def _serving(folder: Path, tls: ssl.SSLContext | None = None) -> Iterator[str]:
    handler = functools.partial(_Quiet, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    if tls is not None:
        server.socket = tls.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"{'https' if tls else 'http'}://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture()
def archive(tmp_path: Path) -> Path:
    """A folder holding one .keil.gz archive of every size-4 game."""
    folder = tmp_path / "served"
    folder.mkdir()
    text = b"\n".join(g.read_bytes() for g in GAMES)
    (folder / "archive.keil.gz").write_bytes(gzip.compress(text))
    (folder / "archive.keil").write_bytes(text)
    return folder


def test_http_archive_is_read_as_the_local_file(archive: Path) -> None:
    with _serving(archive) as base:
        code, remote, _ = _verdicts(f"{base}/archive.keil.gz", f"{base}/archive.keil")
    _, local, _ = _verdicts(str(archive / "archive.keil"))
    assert code == 0
    assert [v["file"] for v in remote] == [f"{base}/archive.keil.gz"] * len(GAMES) + [f"{base}/archive.keil"] * len(GAMES)
    assert _without_file(remote) == _without_file(local) * 2


def test_unreachable_and_missing_urls_are_located_while_the_others_are_checked(archive: Path) -> None:
    port = _closed_port()
    with _serving(archive) as base:
        code, verdicts, output = _verdicts(
            f"http://127.0.0.1:{port}/archive.keil.gz", f"{base}/missing.keil", f"{base}/archive.keil.gz"
        )
    assert code == EXIT_FAILED
    assert "Traceback" not in output
    unreachable, missing, *rest = verdicts
    assert unreachable["file"] == f"http://127.0.0.1:{port}/archive.keil.gz" and unreachable["status"] == "error"
    assert unreachable["error"]["message"].startswith("cannot read file: cannot reach it (")  # type: ignore[index]
    assert missing["file"] == f"{base}/missing.keil"
    assert missing["error"] == {"message": "cannot read file: " + wording.REMOTE_NO_OBJECT, "line": 1, "column": 1}
    assert [v["status"] for v in rest] == ["ok"] * len(GAMES)


def test_the_decompression_cap_holds_for_a_remote_bomb(tmp_path: Path) -> None:
    folder = tmp_path / "served"
    folder.mkdir()
    unit = gzip.compress(b" " * (16 << 20), compresslevel=9)  # about 1,030 times: past the cap of 1,000
    (folder / "bomb.keil.gz").write_bytes(gzip.compress(GAMES[0].read_bytes()) + unit * 2)
    with _serving(folder) as base:
        code, verdicts, _ = _verdicts(f"{base}/bomb.keil.gz")
    assert code == EXIT_FAILED
    assert len(verdicts) == 1  # refused whole, before its first game, as a local file is
    error = verdicts[0]["error"]
    assert error["line"] == 1 and "a compression bomb?" in error["message"]  # type: ignore[index]


def test_memory_urls_and_a_prefix_searched_as_a_directory() -> None:
    fs = fsspec.filesystem("memory")
    try:
        for game in GAMES:
            fs.pipe(f"/keilref-test/games/{game.name}", game.read_bytes())
        fs.pipe("/keilref-test/games/packed/one.keil.xz", __import__("lzma").compress(GAMES[0].read_bytes()))
        fs.pipe("/keilref-test/games/.hidden/skip.keil", b"not read")
        fs.pipe("/keilref-test/games/notes.txt", b"not a record")
        code, verdicts, _ = _verdicts("memory://keilref-test/games", "memory://keilref-test/none.keil")
    finally:
        fs.rm("/keilref-test", recursive=True)
    names = ["memory://keilref-test/games/packed/one.keil.xz"] + [f"memory://keilref-test/games/{g.name}" for g in GAMES]
    assert [v["file"] for v in verdicts[:-1]] == names
    assert [v["status"] for v in verdicts[:-1]] == ["ok"] * len(names)
    assert verdicts[-1]["file"] == "memory://keilref-test/none.keil"
    assert verdicts[-1]["error"]["message"] == "cannot read file: " + wording.REMOTE_NO_OBJECT  # type: ignore[index]
    assert code == EXIT_FAILED


def test_a_url_without_fsspec_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "fsspec", None)  # an import of it now fails
    code, verdicts, _ = _verdicts("s3://bucket/archive.keil.gz", str(GAMES[0]))
    assert code == EXIT_FAILED
    assert verdicts[0]["error"]["message"] == "cannot read file: " + wording.REMOTE_NEEDS_EXTRA  # type: ignore[index]
    assert verdicts[1]["status"] == "ok"


def test_a_column_source_at_a_url(archive: Path) -> None:
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    pq.write_table(pa.table({"record": [g.read_text(encoding="utf-8") for g in GAMES]}), archive / "t.parquet")
    (archive / "t.jsonl").write_text(
        "".join(json.dumps({"record": g.read_text(encoding="utf-8")}) + "\n" for g in GAMES), encoding="utf-8"
    )
    with _serving(archive) as base:
        code, verdicts, _ = _verdicts("--column", "record", f"{base}/t.parquet", f"{base}/t.jsonl")
    assert code == 0
    assert [v["file"] for v in verdicts] == [wording.in_row(f"{base}/t.parquet", n) for n in range(1, len(GAMES) + 1)] + [
        wording.in_row(f"{base}/t.jsonl", n) for n in range(1, len(GAMES) + 1)
    ]


def test_check_bag_workers_read_the_url(archive: Path) -> None:
    pytest.importorskip("dask.bag")
    from dataclasses import replace

    from keilref import check_file
    from keilref.dask import check_bag

    with _serving(archive) as base:
        verdicts = check_bag([f"{base}/archive.keil.gz"]).compute(scheduler="sync")
    local = check_file(archive / "archive.keil.gz")
    assert verdicts == [replace(v, file=f"{base}/archive.keil.gz") for v in local]
    assert len(verdicts) == len(GAMES)


def test_https_with_a_certificate_the_user_trusts(archive: Path, tmp_path: Path) -> None:
    """A self-signed certificate, trusted the way OpenSSL lets a user trust
    a CA of their own (``SSL_CERT_FILE``); without it the URL is a located error."""
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    made = subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
         "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
        capture_output=True,
    ) if _has_openssl() else None
    if made is None or made.returncode != 0:
        pytest.skip("no openssl command to make a certificate")
    tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    tls.load_cert_chain(cert, key)
    with _serving(archive, tls) as base:
        url = f"{base}/archive.keil.gz"
        command = [sys.executable, "-m", "keilref", "check", "--format", "jsonl", url]
        env = {k: v for k, v in os.environ.items() if k != "SSL_CERT_FILE"}
        trusted = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, env={**env, "SSL_CERT_FILE": str(cert)})
        untrusted = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, env=env)
    assert trusted.returncode == 0, trusted.stderr
    assert [json.loads(line)["status"] for line in trusted.stdout.splitlines()] == ["ok"] * len(GAMES)
    assert untrusted.returncode == EXIT_FAILED and "Traceback" not in untrusted.stderr
    (refused,) = [json.loads(line) for line in untrusted.stdout.splitlines()]
    assert refused["file"] == url and "certificate" in refused["error"]["message"].lower()


def _has_openssl() -> bool:
    import shutil

    return shutil.which("openssl") is not None


def test_a_url_is_read_but_never_rewritten(archive: Path) -> None:
    with _serving(archive) as base:
        url = f"{base}/archive.keil"
        fmt = runner.invoke(app, ["fmt", "--in-place", url])
        fixed = runner.invoke(app, ["check", "--fix", url])
        checked = runner.invoke(app, ["fmt", "--check", url])
    assert fmt.exit_code == 1 and f"{url}: {wording.URL_NOT_REWRITTEN}" in fmt.output
    assert f"{url}: not fixed: {wording.URL_NOT_REWRITTEN}" in fixed.output
    assert "Traceback" not in fmt.output + fixed.output + checked.output
    assert (archive / "archive.keil").read_bytes() == b"\n".join(g.read_bytes() for g in GAMES)


def test_column_with_fix_is_a_usage_error(tmp_path: Path) -> None:
    result = runner.invoke(app, ["check", "--column", "record", "--fix", str(GAMES[0])])
    assert result.exit_code == 2
    assert wording.COLUMN_NOT_FIXED in result.output


def test_a_server_that_never_answers_is_a_located_error_not_a_hang(
    archive: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import time

    from keilref.records import remote

    monkeypatch.setattr(remote, "TIMEOUT_SECONDS", 1.0)
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(8)  # connections are accepted by the kernel, and never answered
    port = silent.getsockname()[1]
    try:
        with _serving(archive) as base:
            started = time.monotonic()
            code, verdicts, output = _verdicts(f"http://127.0.0.1:{port}/archive.keil", f"{base}/archive.keil")
            took = time.monotonic() - started
    finally:
        silent.close()
    assert took < 20
    assert code == EXIT_FAILED and "Traceback" not in output
    assert verdicts[0]["file"] == f"http://127.0.0.1:{port}/archive.keil"
    assert verdicts[0]["error"]["message"].startswith("cannot read file: cannot reach it (")  # type: ignore[index]
    assert [v["status"] for v in verdicts[1:]] == ["ok"] * len(GAMES)


def test_which_names_are_urls() -> None:
    from keilref.records.remote import is_url

    for name in ("s3://bucket/games/", "gs://b/x.keil", "https://h/x.keil.gz", "memory://x", "http://127.0.0.1:1/"):
        assert is_url(name), name
    for name in ("records/games", "C://games/x.keil", "-", "archive.keil", "/tmp/x://y", "s3:/bucket"):
        assert not is_url(name), name
