"""Smoke test of the platform load test: seed a scratch database with a few short real
games reused by more matches, serve it with gunicorn, run the locust users for 5 s with
2 users, and expect every request to have succeeded. Not a measurement: nothing here is timed.
"""

from __future__ import annotations

import csv
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HERE = ROOT / "loadtests" / "platform"
ADMIN_URL = os.environ.get(
    "HEIGHTS_TEST_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/heights"
)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _env(database_url: str) -> dict[str, str]:
    paths = [str(ROOT / "platform"), os.environ.get("PYTHONPATH", "")]
    return dict(
        os.environ,
        PYTHONPATH=":".join(p for p in paths if p),
        DATABASE_URL=database_url,
        DJANGO_SETTINGS_MODULE="heights_platform.settings",
        HEIGHTS_PLATFORM_DEBUG="0",
        HEIGHTS_PLATFORM_THROTTLE_ANON="1000000/min",
        HEIGHTS_PLATFORM_THROTTLE_USER="1000000/min",
        HEIGHTS_PLATFORM_LOG_LEVEL="WARNING",
    )


@pytest.fixture
def database_url() -> Iterator[str]:
    """A scratch database on the test server, dropped afterwards."""
    base = ADMIN_URL.rsplit("/", 1)[0]
    url = f"{base}/heights_loadtest_{uuid.uuid4().hex[:8]}"
    yield url
    subprocess.run(
        [sys.executable, "-c", "import sys, seed; seed.database_drop(sys.argv[1])", url],
        cwd=HERE,
        check=True,
    )


def _wait_ready(url: str, server: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 30
    while True:
        try:
            with urllib.request.urlopen(f"{url}/healthz", timeout=2) as reply:
                if reply.status == 200:
                    return
        except OSError:
            pass
        assert server.poll() is None, "gunicorn exited"
        assert time.monotonic() < deadline, "the platform did not start"
        time.sleep(0.2)


def test_seed_then_locust_without_failures(database_url: str, tmp_path: Path) -> None:
    env = _env(database_url)
    manifest = tmp_path / "manifest.json"
    seed = [sys.executable, str(HERE / "seed.py"), "--create", "--manifest", str(manifest)]
    seed += ["--bots", "5", "--matches", "12", "--replays", "4", "--games", "3", "--round-cap", "2"]
    subprocess.run(seed, env=env, cwd=ROOT, check=True, timeout=120)
    found = json.loads(manifest.read_text())
    assert len(found["replays"]) == 4
    assert all(steps > 0 for _, steps in found["replays"])
    assert len(found["bots"]) == 5

    url = f"http://127.0.0.1:{_free_port()}"
    serve = [sys.executable, "-m", "heights_cli.main", "platform", "serve"]
    serve += ["--bind", url.removeprefix("http://"), "--workers", "1"]
    env["GUNICORN_CMD_ARGS"] = "--threads 2 --keep-alive 30"
    server = subprocess.Popen(
        serve, env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        _wait_ready(url, server)
        # The worker's first API and page requests import and compile what they use: on
        # a busy machine that alone could fill the few seconds locust runs.
        for path in (
            f"/api/v1/ladders/{found['ladder']}/leaderboard/",
            f"/bots/{found['bots'][0]}/",
        ):
            with urllib.request.urlopen(f"{url}{path}", timeout=60) as reply:
                assert reply.status == 200
        locust = [sys.executable, "-m", "locust", "-f", str(HERE / "locustfile.py")]
        # Four users: each request kind is drawn at random (the rarest a tenth of them),
        # and on a busy machine two users' few dozen requests could miss one.
        locust += ["--headless", "--only-summary", "--loglevel", "WARNING", "-u", "4", "-r", "4"]
        locust += ["-t", "5s", "--stop-timeout", "0", "--host", url]
        locust += ["--csv", str(tmp_path / "smoke")]
        env_locust = dict(os.environ, LOADTEST_PLATFORM_MANIFEST=str(manifest))
        env_locust["LOADTEST_WAIT"] = "0.05,0.1"
        done = subprocess.run(locust, env=env_locust, cwd=ROOT, timeout=60, check=False)
    finally:
        server.terminate()
        server.wait(timeout=30)
    with (tmp_path / "smoke_stats.csv").open() as f:
        rows = {row["Name"]: row for row in csv.DictReader(f)}
    assert int(rows["Aggregated"]["Request Count"]) > 0
    assert int(rows["Aggregated"]["Failure Count"]) == 0
    names = {"leaderboard", "bot", "bot page", "matches by bot", "replay list", "replay step"}
    assert names <= set(rows)
    assert done.returncode == 0
