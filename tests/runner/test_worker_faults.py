"""Faults injected under a real runner worker, on the Redis and the embedded file broker:
each match ends with exactly one result, within its deadline, blaming the right party.

The engine is a real `heights_engine` process whose domain refuses the Nth action with a
given ErrorInfo reason; the worker is a real Celery worker whose sandbox cannot start a
process (tests/runner/injected_faults.py). Each test prints how long the match took to
resolve (`pytest -s`).
"""

from __future__ import annotations

import os
import sys
import time
import uuid
from pathlib import Path

import pytest
from tests.engine.clients import wait_healthy
from tests.runner.injected_faults import FAULT_ENV, engine_fault
from tests.runner.worker_stack import REDIS, RunnerStack, runner_stack

from heights_cli.stack import free_port
from heights_runner.contract import (
    INFRASTRUCTURE_FAILURE,
    BotRef,
    MatchResult,
    MatchSpec,
    SeatSpec,
    match_deadline_seconds,
)

BROKERS = ["redis", "file"]
FAULT_AT = 4  # the engine refuses the 4th action it is sent
PERSISTS = 10_000  # ... and every one after it: no attempt can finish
ROOT = Path(__file__).resolve().parents[2]  # so `-m tests.runner.injected_faults` imports


def _spec() -> MatchSpec:
    seats = tuple(SeatSpec(f"seat{i}", BotRef.builtin("random"), True) for i in range(2))
    return MatchSpec(f"m-{uuid.uuid4().hex[:12]}", 20261124, seats, options={"round_cap": 2})


def _injected_env() -> dict[str, str]:
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    return {"PYTHONPATH": path}


def _refusing_engine(rs: RunnerStack, fault: str) -> str:
    """Start an engine service process refusing as `fault` says; its address."""
    address = f"127.0.0.1:{free_port()}"
    service = rs.stack.process(
        "engine-refusing",
        [sys.executable, "-m", "tests.runner.injected_faults", "engine"],
        HEIGHTS_ENGINE_ADDRESS=address,
        HEIGHTS_ENGINE_REDIS_URL=REDIS,
        HEIGHTS_ENGINE_REDIS_PREFIX=f"{rs.prefix}refusing",
        HEIGHTS_ENGINE_TOKEN_SECRET="injected-faults-secret",
        HEIGHTS_ENGINE_LOG_LEVEL="WARNING",
        **{FAULT_ENV: fault},
        **_injected_env(),
    )
    wait_healthy(address, timeout=60, alive=service.alive)
    return address


def _resolve(rs: RunnerStack, spec: MatchSpec, case: str, broker: str) -> MatchResult:
    """Submit `spec`, wait for its one result; print the time to resolution."""
    started = time.monotonic()
    rs.submit(spec)
    results = rs.results(1, timeout=90)
    resolved_s = time.monotonic() - started
    assert len(results) == 1, f"{case} on {broker}: no result within 90 s"
    result = MatchResult.from_dict(results[0])
    print(f"\nRESOLVED {case:<26} {broker:<6} {result.status:<9} {resolved_s:6.1f} s")
    assert result.match_id == spec.match_id
    assert resolved_s < match_deadline_seconds(spec)
    assert rs.results(1, timeout=3) == [], f"{case} on {broker}: a second result"
    return result


@pytest.mark.parametrize("broker", BROKERS)
def test_an_illegal_action_refused_mid_game_is_one_forfeit_of_that_seat(
    tmp_path: Path, broker: str
) -> None:
    with runner_stack(tmp_path, broker, HEIGHTS_RUNNER_MAX_RETRIES="1") as rs:
        address = _refusing_engine(rs, engine_fault("ILLEGAL_ACTION", FAULT_AT, 1))
        worker = rs.worker(HEIGHTS_RUNNER_ENGINE_ADDRESS=address)
        result = _resolve(rs, _spec(), "ILLEGAL_ACTION once", broker)
        assert result.status == "finished", result.error
        forfeits = [s for s in result.seats if s.forfeit is not None]
        assert len(forfeits) == 1, result.seats
        forfeit = forfeits[0].forfeit
        assert forfeit is not None
        assert forfeit.reason == "illegal"
        assert "ILLEGAL_ACTION" in forfeit.detail
        # The refused action was the game's 4th: the seat's forfeit is at the step the
        # engine refused (steps count from 0; the engine rolls chance steps itself).
        assert forfeit.step >= FAULT_AT - 1
        assert [r.rank for r in result.seats if r.forfeit is not None] == [2]  # ranked last
        assert "match attempt failed" not in worker.log()  # a bot's fault: never replayed


@pytest.mark.parametrize("reason", ["STALE_SEQUENCE", "INTERNAL"])
@pytest.mark.parametrize("broker", BROKERS)
def test_an_engine_fault_that_persists_is_one_infrastructure_failure(
    tmp_path: Path, broker: str, reason: str
) -> None:
    with runner_stack(tmp_path, broker, HEIGHTS_RUNNER_MAX_RETRIES="1") as rs:
        address = _refusing_engine(rs, engine_fault(reason, FAULT_AT, PERSISTS))
        worker = rs.worker(HEIGHTS_RUNNER_ENGINE_ADDRESS=address)
        result = _resolve(rs, _spec(), f"{reason} persisting", broker)
        assert result.status == "failed"
        assert result.error.startswith(f"{INFRASTRUCTURE_FAILURE}EngineFaultError: engine")
        expected = "STALE_SEQUENCE" if reason == "STALE_SEQUENCE" else "UNKNOWN -"
        assert expected in result.error, result.error
        assert result.seats == ()  # no forfeit: no bot is blamed
        assert worker.log().count("match attempt failed") == 2  # played again once


@pytest.mark.parametrize("broker", BROKERS)
def test_a_sandbox_that_cannot_start_is_one_infrastructure_failure(
    tmp_path: Path, broker: str
) -> None:
    with runner_stack(tmp_path, broker, HEIGHTS_RUNNER_MAX_RETRIES="1") as rs:
        worker = rs.stack.process(
            "runner-no-sandbox",
            [sys.executable, "-m", "tests.runner.injected_faults", "worker"],
            ready_text=" ready.",
            **(rs.env | _injected_env()),
        )
        result = _resolve(rs, _spec(), "sandbox cannot start", broker)
        assert result.status == "failed"
        assert result.error.startswith(
            f"{INFRASTRUCTURE_FAILURE}SandboxUnavailable: cannot start"
        ), result.error
        assert "Resource temporarily unavailable" in result.error
        assert result.seats == ()
        assert worker.log().count("match attempt failed") == 2
