"""Drill: Redis restarted in the middle of a series of matches.

A private Redis with an append-only file fsynced on every write is the broker, the
runner's ledger and the engine's game store. While a series of matches is played by a
real runner worker and engine service, Redis is killed (SIGKILL: no shutdown save) and
started again from its file. Every match still ends with one result, and every replay
verifies against the rules: no acknowledged action was lost.
"""

from __future__ import annotations

import signal
import time
import uuid
from pathlib import Path

import pytest
from tests.drills.drill_tools import PrivateRedis, wait_for

from heights_cli.stack import Stack, free_port
from heights_rules.replay import Replay, verify
from heights_runner.celery_app import make_app
from heights_runner.client import RunnerClient
from heights_runner.contract import BotRef, MatchResult, MatchSpec, SeatSpec, TimeLimits
from heights_runner.settings import RunnerSettings

pytestmark = pytest.mark.drill

MATCHES = 4


def _spec(i: int) -> MatchSpec:
    bots = ("greedy", "random") if i % 2 else ("random", "greedy")
    seats = tuple(SeatSpec(f"seat{s}", BotRef.builtin(b), True) for s, b in enumerate(bots))
    limits = TimeLimits(move_ms=5000, bank_ms=60_000, start_ms=30_000)
    return MatchSpec(
        f"drill-{uuid.uuid4().hex[:10]}", 100 + i, seats, options={"round_cap": 3}, limits=limits
    )


def test_matches_survive_a_redis_restart(tmp_path: Path) -> None:
    store = PrivateRedis(free_port(), tmp_path / "redis")
    store.start()
    stack = Stack(tmp_path / "var")
    try:
        engine = stack.engine(redis_url=store.url, HEIGHTS_ENGINE_LOG_LEVEL="WARNING")
        settings = RunnerSettings(
            broker_url=store.url,
            broker_prefix="",
            engine_address=engine.address,
            cache_dir=tmp_path / "bots",
            ledger_url=store.url,
            concurrency=1,
            metrics_port=0,
            allow_unsandboxed=False,
            visibility_timeout=5,
            max_retries=5,
        )
        worker = stack.runner(
            "runner",
            HEIGHTS_RUNNER_BROKER_URL=store.url,
            HEIGHTS_RUNNER_LEDGER_URL=store.url,
            HEIGHTS_RUNNER_ENGINE_ADDRESS=engine.address,
            HEIGHTS_RUNNER_CACHE_DIR=str(tmp_path / "bots"),
            HEIGHTS_RUNNER_CONCURRENCY="1",
            HEIGHTS_RUNNER_VISIBILITY_TIMEOUT="5",
        )
        app = make_app(settings)
        client = RunnerClient(app)
        specs = [_spec(i) for i in range(MATCHES)]
        for spec in specs:
            client.submit(spec)
        wait_for(
            "a match is being played", lambda: "game created" in worker.log(), 60, worker.log()
        )
        time.sleep(0.3)

        store.stop(signal.SIGKILL)  # mid-game: acknowledged actions must be on disk already
        # Down for longer than Celery's default publish retries (~0.6 s): a result sent
        # meanwhile must wait for Redis, not be dropped.
        time.sleep(2.0)
        store.start()

        results: dict[str, MatchResult] = {}
        deadline = time.monotonic() + 90
        while len(results) < MATCHES and time.monotonic() < deadline:
            for data in client.results(MATCHES, timeout=2):
                result = MatchResult.from_dict(data)
                results.setdefault(result.match_id, result)  # a re-sent result is the same
        app.close()
        missing = {s.match_id for s in specs} - set(results)
        assert not missing, f"no result for {missing}:\n" + _story(worker.log())
        assert "Connection to broker lost" in worker.log()  # the restart did hit the worker
    finally:
        stack.stop()
        store.stop()

    for spec in specs:
        result = results[spec.match_id]
        assert result.status == "finished", result.error
        replay = Replay.from_bytes(result.replay_bytes())
        assert replay.seed == spec.seed
        check = verify(replay)
        assert check.ok, check


def _story(log: str) -> str:
    """The runner's own lines and every warning or error: what happened to each match."""
    keep = [
        line[:400]
        for line in log.splitlines()
        if '"heights.runner"' in line or '"level": "WARNING"' in line or '"ERROR"' in line
    ]
    return "\n".join(keep[-80:])
