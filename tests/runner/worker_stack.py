"""A real runner stack for tests: engine service, Redis broker, Celery worker processes.

Each test gets a broker key prefix and an engine key prefix of its own, so tests (and
xdist workers) share the machine's Redis without seeing each other's messages, and the
keys under it are deleted when the stack stops. The ledger's results are not under it
(`heights:runner:result:<match id>`, as in production): unique match ids keep them
apart, and they expire after the ledger's seven days.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from celery import Celery
from tests.real_redis import TEST_REDIS_URL, redis_forget

from heights_cli.stack import Service, Stack
from heights_runner.celery_app import make_app
from heights_runner.client import RunnerClient
from heights_runner.contract import MatchSpec
from heights_runner.settings import RunnerSettings

REDIS = TEST_REDIS_URL


def slow_bot(sleep_s: float = 0.01) -> bytes:
    """A bot that thinks `sleep_s` a move, so a match lasts long enough to act on mid-way."""
    return f"""
import time
from heights_sdk import Bot, run

class Slow(Bot):
    def choose(self, decision):
        time.sleep({sleep_s})
        return decision.legal[0].id

run(Slow(name="slow"))
""".encode()


@dataclass
class RunnerStack:
    stack: Stack
    engine: Service
    prefix: str
    app: Celery
    env: dict[str, str]

    def worker(self, name: str = "runner", **env: str) -> Service:
        return self.stack.runner(name, **(self.env | env))

    def submit(self, spec: MatchSpec) -> None:
        RunnerClient(self.app).submit(spec)

    def results(self, count: int, timeout: float) -> list[dict[str, Any]]:
        return RunnerClient(self.app).results(count, timeout)


@contextmanager
def runner_stack(tmp: Path, broker: str = "redis", **env: str) -> Iterator[RunnerStack]:
    """The stack on the Redis broker, or with `broker="file"` on the embedded file broker
    (a folder of the test's own; the engine's store and the ledger stay on Redis)."""
    prefix = f"heights-test-{uuid.uuid4().hex[:10]}:"
    broker_url = REDIS if broker == "redis" else f"file://{tmp / 'broker'}"
    stack = Stack(tmp / "var")
    try:
        engine = stack.engine(
            redis_url=REDIS,
            HEIGHTS_ENGINE_REDIS_PREFIX=f"{prefix}engine",
            HEIGHTS_ENGINE_LOG_LEVEL="WARNING",
        )
        worker_env = {
            "HEIGHTS_RUNNER_BROKER_URL": broker_url,
            "HEIGHTS_BROKER_PREFIX": prefix,
            "HEIGHTS_RUNNER_ENGINE_ADDRESS": engine.address,
            "HEIGHTS_RUNNER_CACHE_DIR": str(tmp / "bots"),
            "HEIGHTS_RUNNER_LEDGER_URL": REDIS,
            "HEIGHTS_RUNNER_CONCURRENCY": "1",
        } | env
        settings = RunnerSettings(
            broker_url=broker_url,
            broker_prefix=prefix,
            engine_address=engine.address,
            cache_dir=tmp / "bots",
            ledger_url=REDIS,
            concurrency=1,
            metrics_port=0,
            allow_unsandboxed=False,
            visibility_timeout=int(worker_env.get("HEIGHTS_RUNNER_VISIBILITY_TIMEOUT", "3600")),
            max_retries=5,
        )
        app = make_app(settings)
        yield RunnerStack(stack, engine, prefix, app, worker_env)
    finally:
        try:
            stack.stop()
        finally:
            redis_forget(prefix, REDIS)
