"""Smoke test of `make loadtest`: loadtests/run.py at one low arrival rate (100 calls a
second, steps of 1 s), on one in-memory replica and on two replicas sharing the test
Redis, each routing.

Not a measurement (nothing here is timed): it checks that the servers start and stop,
that every call succeeds, that the summary holds what loadtests/README.md says, and that
the run leaves no keys in Redis.
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
from tests.real_redis import TEST_REDIS_URL

ROOT = Path(__file__).resolve().parents[2]
REDIS_URL = TEST_REDIS_URL
RATE = 100  # calls a second: the first step's and the highest, so one step a phase


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
        LOADTEST_START_RATE=str(RATE),
        LOADTEST_MAX_RATE=str(RATE),
        LOADTEST_STEP_SECONDS="1",
        LOADTEST_WARMUP_SECONDS="0.2",
        LOADTEST_HALF_SECONDS="1",
        # a bound no loaded machine misses: "held" must mean no error, not fast enough
        LOADTEST_P99_MS="60000",
        LOADTEST_BASE_PORT=str(_two_free_ports()),
        LOADTEST_RESULTS=str(tmp_path / "results"),
        LOADTEST_REDIS_URL=REDIS_URL,
        **settings,
    )
    if os.environ.get("PYTHONPATH"):  # the servers run the code under test
        env["LOADTEST_SERVER_PYTHONPATH"] = os.environ["PYTHONPATH"]
    if len(os.sched_getaffinity(0)) < 2:  # nothing to pin apart
        env.update(LOADTEST_SERVER_CPUS="all", LOADTEST_CLIENT_CPUS="all")
    command = [sys.executable, "-m", "loadtests.run"]
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


@pytest.mark.parametrize(
    ("routing", "configs"), [("call", ["memory-1", "redis-2"]), ("game", ["redis-2"])]
)
def test_run_writes_a_summary_without_failures(
    tmp_path: Path, routing: str, configs: list[str]
) -> None:
    done, pid = _run(tmp_path, LOADTEST_CONFIGS=",".join(configs), LOADTEST_ROUTING=routing)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]

    summary: dict[str, Any] = json.loads((tmp_path / "results" / "summary.json").read_text())
    assert summary["routing"] == routing
    assert summary["method"].startswith("open loop")
    assert [r["config"] for r in summary["results"]] == configs
    for result in summary["results"]:
        # One step a phase, at RATE, which held (no error; the p99 bound is out of reach).
        for phase, rpc in (("empty_steps", "Check"), ("apply_steps", "ApplyAction")):
            [step] = result[phase]
            assert step["rate"] == RATE
            assert step["held"] is True
            assert step["dropped"] == 0
            assert all(row["errors"] == 0 for row in step["rpcs"].values())
            assert step["rpcs"][rpc]["calls"] > 0
        assert result["capacity_at_least"] == {"empty": True, "apply": True}
        assert result["empty_capacity"] == result["empty_steps"][0]["rpcs"]["Check"]["rate"]
        ratio = result["apply_capacity"] / result["empty_capacity"]
        assert result["capacity_ratio"] == pytest.approx(ratio, abs=0.001)
        # Half the empty capacity: both kinds of call, CPU per call of each from /proc.
        assert result["half_rate"] == pytest.approx(result["empty_capacity"] / 2, abs=0.1)
        assert result["game_at_half"]["rpcs"]["ApplyAction"]["calls"] > 0
        for half in ("empty_at_half", "game_at_half"):
            assert result[half]["cpu"]["server_cores"] > 0
            assert result[half]["cpu"]["server_ms_per_call"] > 0
        cpu_ratio = result["server_ms_per_game_call"] / result["server_ms_per_empty_call"]
        assert result["cpu_ratio"] == pytest.approx(cpu_ratio, abs=0.001)
    assert "CPU ratio" in done.stdout
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
