"""Drill: PostgreSQL goes away from the platform, then comes back.

The platform (gunicorn, one worker) reaches PostgreSQL through a TCP proxy in this test.
Cutting the proxy drops the platform's open connection and refuses new ones: the API
answers 503 with the error shape `{"code": "unavailable", ...}` and /readyz says 503,
while /healthz (the process) stays 200. Restoring the proxy is all it takes: the next
request is answered from the database again. The shared PostgreSQL is never stopped.
"""

from __future__ import annotations

import json
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.db import connection
from tests.drills.drill_tools import wait_for
from tests.drills.tcp_proxy import TcpProxy

from heights_cli.stack import Stack, free_port

pytestmark = pytest.mark.drill

SERVE = [sys.executable, "-m", "heights_cli.main", "platform", "serve"]
METRICS_TOKEN = "drill-metrics-token"


def _get(url: str, headers: dict[str, str] | None = None) -> tuple[int, Any]:
    try:
        request = urllib.request.Request(url, headers=headers or {})
        with urllib.request.urlopen(request, timeout=10) as reply:
            status, body = reply.status, reply.read()
    except urllib.error.HTTPError as err:
        status, body = err.code, err.read()
    content = json.loads(body) if body.startswith((b"{", b"[")) else body.decode()
    return status, content


@pytest.fixture
def platform_behind_proxy(transactional_db: None, tmp_path: Path) -> Iterator[tuple[str, TcpProxy]]:

    db = connection.settings_dict  # the test database (transactional_db: committed rows)
    proxy = TcpProxy((str(db["HOST"]), int(db["PORT"])))
    port = free_port()
    stack = Stack(tmp_path / "var")
    try:
        stack.process(
            "platform-web",
            [*SERVE, "--bind", f"127.0.0.1:{port}", "--workers", "1"],
            ready_text="Booting worker",
            DJANGO_SETTINGS_MODULE="heights_platform.settings",
            DATABASE_URL=f"postgres://{db['USER']}@127.0.0.1:{proxy.port}/{db['NAME']}",
            HEIGHTS_PLATFORM_METRICS_TOKEN=METRICS_TOKEN,
        )
        base = f"http://127.0.0.1:{port}"
        wait_for("the platform is ready", lambda: _answers(base + "/readyz"), 30)
        yield base, proxy
    finally:
        stack.stop()
        proxy.stop()


def _answers(url: str) -> bool:
    try:
        return _get(url)[0] == 200
    except OSError:
        return False


def test_the_api_says_unavailable_and_recovers(platform_behind_proxy: tuple[str, TcpProxy]) -> None:
    base, proxy = platform_behind_proxy
    bots = base + "/api/v1/bots/"
    assert _get(bots)[0] == 200  # a persistent connection is open now (CONN_MAX_AGE)

    proxy.cut()
    for _ in range(2):  # the dropped connection, then a refused new one
        status, body = _get(bots)
        assert status == 503
        assert body["code"] == "unavailable"
        assert set(body) == {"code", "message", "details"}
    status, body = _get(base + "/readyz")
    assert (status, body["code"]) == (503, "unavailable")
    assert _get(base + "/healthz")[0] == 200  # alive: not restarted by an orchestrator

    proxy.restore()
    assert _get(bots)[0] == 200  # the very next request: no restart, no manual step
    assert _get(base + "/readyz") == (200, {"status": "ready"})
    metrics = _get(base + "/metrics", {"Authorization": f"Bearer {METRICS_TOKEN}"})[1]
    assert 'status="503"' in metrics  # the outage, as /metrics counted it
    assert "heights_platform_request_seconds_bucket" in metrics
