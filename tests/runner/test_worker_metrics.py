"""A runner worker's /metrics sums its child processes (Celery plays matches in forks)."""

from __future__ import annotations

import os
import signal
import time
import urllib.request
import uuid
from pathlib import Path

from prometheus_client.parser import text_string_to_metric_families
from tests.runner.worker_stack import RunnerStack, runner_stack, slow_bot

from heights_cli.stack import free_port
from heights_runner.contract import BotRef, MatchSpec, SeatSpec, TimeLimits

ROOMY = TimeLimits(move_ms=10_000, bank_ms=120_000, start_ms=60_000)


def _samples(port: int) -> dict[str, float]:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as reply:
        text = reply.read().decode()
    found: dict[str, float] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            labels = ",".join(f"{k}={v}" for k, v in sorted(sample.labels.items()))
            found[f"{sample.name}{{{labels}}}"] = sample.value
    return found


def _wait_for(port: int, key: str, value: float, timeout: float) -> dict[str, float]:
    deadline = time.monotonic() + timeout
    seen: dict[str, float] = {}
    while time.monotonic() < deadline:
        try:
            seen = _samples(port)
        except OSError:
            seen = {}
        if seen.get(key) == value:
            return seen
        time.sleep(0.2)
    raise AssertionError(f"{key} never became {value}; last scrape: {seen}")


def _slow_match_in_progress(rs: RunnerStack, port: int, seed: int) -> None:
    """Submit a match of a slow bot and wait until the worker reports it in progress."""
    slow = BotRef.from_bytes("py", "slow.py", slow_bot(0.02))
    seats = (SeatSpec("a", slow, trusted=False), SeatSpec("b", BotRef.builtin("greedy")))
    spec = MatchSpec(
        f"m-{uuid.uuid4().hex[:12]}", seed, seats, options={"round_cap": 3}, limits=ROOMY
    )
    rs.submit(spec)
    _wait_for(port, "heights_runner_matches_in_progress{}", 1.0, timeout=60)


def test_matches_counted_in_the_children_show_on_the_workers_metrics(tmp_path: Path) -> None:
    port = free_port()
    with runner_stack(tmp_path) as rs:
        worker = rs.worker(HEIGHTS_RUNNER_METRICS_PORT=str(port))
        _slow_match_in_progress(rs, port, seed=7)  # what the autoscaler counts
        assert len(rs.results(1, timeout=90)) == 1
        after = _wait_for(port, "heights_runner_matches_total{status=finished}", 1.0, timeout=30)
        assert after["heights_runner_matches_in_progress{}"] == 0.0
        assert after["heights_runner_seat_think_seconds_count{kind=builtin}"] == 1.0
        (folder,) = (tmp_path / "bots" / "metrics").iterdir()
        assert any(folder.glob("*.db")), "the worker's processes write their metric files there"
        worker.stop()
        assert not folder.exists(), "a stopped worker removes its metric files"


def test_a_child_killed_mid_match_stops_counting_as_in_progress(tmp_path: Path) -> None:
    port = free_port()
    with runner_stack(tmp_path) as rs:
        worker = rs.worker(HEIGHTS_RUNNER_METRICS_PORT=str(port))
        _slow_match_in_progress(rs, port, seed=8)
        (folder,) = (tmp_path / "bots" / "metrics").iterdir()
        (live,) = [
            int(p.stem.rsplit("_", 1)[1])
            for p in folder.glob("gauge_livesum_*.db")
            if int(p.stem.rsplit("_", 1)[1]) != worker.proc.pid
        ]
        os.kill(live, signal.SIGKILL)  # as the OOM killer would: no clean exit, no hook
        # The match is handed back (acks_late) and played again by a new child; once its
        # one result is in, nothing is in progress, the killed child's 1 included.
        assert len(rs.results(1, timeout=120)) == 1
        _wait_for(port, "heights_runner_matches_in_progress{}", 0.0, timeout=30)
        assert not (folder / f"gauge_livesum_{live}.db").exists()
