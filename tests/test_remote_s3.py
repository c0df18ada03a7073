"""``s3://`` through a real S3 protocol server on loopback (moto's), read by
s3fs as from any bucket. Skipped unless moto (with its server's Flask) and
s3fs are installed, unless ``KEILREF_REQUIRE_OBJECT_STORES=1`` (CI sets it,
having installed them): a test-only server belongs to no extra."""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator

import pytest
from typer.testing import CliRunner

from keilref import wording
from keilref.cli import app
from keilref.cli.app import EXIT_FAILED

from remote_support import GAMES, need

need("moto.server", "s3fs")

import moto.server as moto_server  # noqa: E402


@pytest.fixture()
def bucket(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    server = moto_server.ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    endpoint = f"http://{host}:{port}"
    for name, value in {
        "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_ENDPOINT_URL": endpoint, "AWS_ENDPOINT_URL_S3": endpoint,
    }.items():
        monkeypatch.setenv(name, value)
    import s3fs

    s3fs.S3FileSystem.clear_instance_cache()
    fs = s3fs.S3FileSystem(client_kwargs={"endpoint_url": endpoint})
    fs.mkdir("games")
    for game in GAMES:
        fs.pipe(f"games/2026/{game.name}", game.read_bytes())
    fs.pipe("games/2026/packed.keil.gz", gzip.compress(GAMES[0].read_bytes()))
    try:
        yield "s3://games"
    finally:
        s3fs.S3FileSystem.clear_instance_cache()
        server.stop()


def test_an_s3_prefix_is_searched_and_read(bucket: str) -> None:
    result = CliRunner().invoke(app, ["check", "--format", "jsonl", f"{bucket}/2026/", f"{bucket}/2026/none.keil"])
    verdicts = [json.loads(line) for line in result.stdout.splitlines()]
    names = [f"{bucket}/2026/packed.keil.gz"] + [f"{bucket}/2026/{g.name}" for g in GAMES]
    assert [v["file"] for v in verdicts[:-1]] == names
    assert all(v["status"] == "ok" for v in verdicts[:-1])
    assert verdicts[-1]["error"]["message"] == "cannot read file: " + wording.REMOTE_NO_OBJECT
    assert result.exit_code == EXIT_FAILED
