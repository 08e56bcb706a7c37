"""Smoke test of `make loadtest`: loadtests/run.py for 2 s a phase with a few users, on
one in-memory replica and on two replicas sharing the test Redis, each routing.

Not a measurement (nothing here is timed): it checks that the servers start and stop,
that every locust call succeeds, that the summary holds what loadtests/README.md says,
and that the run leaves no keys in Redis.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import redis

ROOT = Path(__file__).resolve().parents[2]
REDIS_URL = "redis://127.0.0.1:6379/0"


def _two_free_ports() -> int:
    """A port p such that p and p + 1 are free now (replica i listens on p + i)."""
    for _ in range(50):
        with socket.socket() as first:
            first.bind(("127.0.0.1", 0))
            port: int = first.getsockname()[1]
            with socket.socket() as second:
                try:
                    second.bind(("127.0.0.1", port + 1))
                except OSError:
                    continue
                return port
    raise AssertionError("no two consecutive free ports")


def _run(tmp_path: Path, **settings: str) -> tuple[subprocess.CompletedProcess[str], int]:
    """run.py's outcome, and its process id (its Redis keys are heights:loadtest:<pid>:*)."""
    env = dict(
        os.environ,
        LOADTEST_SECONDS="2",
        LOADTEST_USERS="4",
        LOADTEST_BASE_PORT=str(_two_free_ports()),
        LOADTEST_RESULTS=str(tmp_path / "results"),
        LOADTEST_REDIS_URL=REDIS_URL,
        **settings,
    )
    if os.environ.get("PYTHONPATH"):  # the servers run the code under test
        env["LOADTEST_SERVER_PYTHONPATH"] = os.environ["PYTHONPATH"]
    command = [sys.executable, str(ROOT / "loadtests" / "run.py")]
    with subprocess.Popen(
        command, env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    ) as run:
        try:
            out, err = run.communicate(timeout=180)
        except subprocess.TimeoutExpired:
            run.kill()
            raise
    return subprocess.CompletedProcess(command, run.returncode, out, err), run.pid


def _loadtest_keys(pid: int) -> list[bytes]:
    client = redis.Redis.from_url(REDIS_URL)
    try:
        return list(client.scan_iter(match=f"heights:loadtest:{pid}:*", count=1000))
    finally:
        client.close()


@pytest.mark.parametrize("routing", ["call", "game"])
def test_run_writes_a_summary_without_failures(tmp_path: Path, routing: str) -> None:
    done, pid = _run(tmp_path, LOADTEST_CONFIGS="memory-1,redis-2", LOADTEST_ROUTING=routing)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]

    summary: dict[str, Any] = json.loads((tmp_path / "results" / "summary.json").read_text())
    assert summary["routing"] == routing
    assert summary["users"] == 4
    assert summary["seconds_per_phase"] == 2
    assert [r["config"] for r in summary["results"]] == ["memory-1", "redis-2"]
    for result in summary["results"]:
        assert result["failures"] == 0
        assert result["empty_phase"]["Check"]["requests"] > 0
        game = result["game_phase"]
        assert game["ApplyAction"]["requests"] > 0
        assert game["CreateGame"]["failures"] == 0
        ratio = game["ApplyAction"]["rps"] / result["empty_phase"]["Check"]["rps"]
        assert result["apply_over_empty_ratio"] == pytest.approx(ratio, abs=0.001)
        for phase in ("empty", "game"):
            cpu = result["cpu"][phase]
            assert cpu["server_cores"] > 0
            assert cpu["locust_cores"] > 0
            assert cpu["server_ms_per_request"] > 0
    assert "ApplyAction/Check" in done.stdout
    # Both replicas served, and each logged its Redis round trips when it stopped.
    for replica in (0, 1):
        log = (tmp_path / "results" / f"redis-2-server{replica}.log").read_text()
        assert "Redis:" in log
        assert "round trips" in log
    assert _loadtest_keys(pid) == []  # only this run's: another may be going on beside it


def test_unknown_routing_is_refused_before_anything_starts(tmp_path: Path) -> None:
    done, _ = _run(tmp_path, LOADTEST_CONFIGS="memory-1", LOADTEST_ROUTING="random")
    assert done.returncode != 0
    assert "LOADTEST_ROUTING must be call or game" in done.stderr
    assert not (tmp_path / "results").exists()
