"""Runner settings, read once from the environment (prefix HEIGHTS_RUNNER_)."""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path

from heights_runner.contract import largest_match_deadline_seconds


def default_visibility_timeout() -> int:
    """Seconds: the deadline of the longest match the platform sends (4 players, default
    limits), so a match whose worker died comes back minutes later, never while it runs."""
    return math.ceil(largest_match_deadline_seconds())


def _env(name: str, default: str = "") -> str:
    return os.environ.get(f"HEIGHTS_RUNNER_{name}", "") or default


POOLS = ("prefork", "threads")


def _pool(name: str) -> str:
    if name not in POOLS:
        raise ValueError(f"HEIGHTS_RUNNER_POOL must be one of {', '.join(POOLS)}, not {name!r}")
    return name


@dataclass(frozen=True, slots=True)
class RunnerSettings:
    broker_url: str  # redis://… in production; empty = the embedded file broker
    broker_prefix: str  # HEIGHTS_BROKER_PREFIX: namespaces Redis keys (shared with the platform)
    engine_address: str  # e.g. dns:///engine-headless:50051; empty = in-process engine
    cache_dir: Path  # unpacked bots by content hash
    ledger_url: str  # where finished results are remembered (redis://…; empty = a folder)
    concurrency: int  # matches a worker plays at once
    metrics_port: int  # 0 = off
    allow_unsandboxed: bool  # local development only
    visibility_timeout: int  # seconds before an unacknowledged match is redelivered
    max_retries: int  # engine-unavailable retries of a match
    engine_operator_token: str = ""  # the engine's HEIGHTS_ENGINE_OPERATOR_TOKEN (creates games)
    # How a worker plays its `concurrency` matches: "prefork", a process each; "threads",
    # threads of the worker's one process (a match mostly waits on its engine and bots).
    pool: str = "prefork"

    @classmethod
    def from_env(cls) -> RunnerSettings:
        var = Path(os.environ.get("HEIGHTS_VAR_DIR", Path.cwd() / "var"))
        broker = _env("BROKER_URL")
        return cls(
            broker_url=broker,
            broker_prefix=os.environ.get("HEIGHTS_BROKER_PREFIX", ""),
            engine_address=_env("ENGINE_ADDRESS"),
            engine_operator_token=_env("ENGINE_OPERATOR_TOKEN"),
            cache_dir=Path(_env("CACHE_DIR", str(var / "bots"))),
            ledger_url=_env("LEDGER_URL", broker if broker.startswith("redis") else ""),
            concurrency=int(_env("CONCURRENCY", "2")),
            pool=_pool(_env("POOL", "prefork")),
            metrics_port=int(_env("METRICS_PORT", "0")),
            allow_unsandboxed=_env("ALLOW_UNSANDBOXED", "0") == "1",
            visibility_timeout=int(_env("VISIBILITY_TIMEOUT", str(default_visibility_timeout()))),
            max_retries=int(_env("MAX_RETRIES", "5")),
        )
