"""`heights bench-runner`: matches through the whole path, against the same games in-process.

Whole path: a Celery worker (real processes) takes each match from Redis, plays it on
the engine service (Redis store) over gRPC, with one sandboxed process per seat, and
sends the result back. The overhead factor is the mean time of one such match, played
alone, divided by the time of the same seeds and bots played in one process.
Throughput is measured separately, with two worker processes kept busy. Prints, never
asserts.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

REDIS = "redis://127.0.0.1:6379/0"


def register(commands: Any) -> None:
    p: argparse.ArgumentParser = commands.add_parser(
        "bench-runner", help="match throughput and overhead through worker, engine and sandbox"
    )
    p.add_argument("--matches", type=int, default=6, help="matches for the overhead factor")
    p.add_argument("--throughput-matches", type=int, default=16)
    p.add_argument("--workers", type=int, default=2, help="worker processes for throughput")
    p.add_argument("--seed", type=int, default=77)
    p.add_argument("--json", action="store_true")
    p.set_defaults(run=run)


def _specs(count: int, seed: int) -> list[Any]:
    from heights_runner.contract import BotRef, MatchSpec, SeatSpec

    seats = tuple(SeatSpec(f"greedy-{i}", BotRef.builtin("greedy"), True) for i in range(4))
    return [MatchSpec(f"bench-{uuid.uuid4().hex[:10]}", seed + i, seats) for i in range(count)]


def in_process_seconds(specs: list[Any]) -> list[float]:
    from heights_bots.bot import make_bot
    from heights_bots.play import play_game
    from heights_rules import GameConfig

    times = []
    for spec in specs:
        # The same bot seeds as the protocol bots (heights_bots.protocol_main).
        bots = [make_bot("greedy", spec.seed * 8 + s) for s in range(4)]
        start = time.perf_counter()
        play_game(GameConfig(players=4), spec.seed, bots)
        times.append(time.perf_counter() - start)
    return times


def run(args: argparse.Namespace) -> int:
    from heights_cli.stack import Stack
    from heights_runner.celery_app import make_app
    from heights_runner.client import RunnerClient
    from heights_runner.settings import RunnerSettings

    prefix = f"heights-bench-{uuid.uuid4().hex[:8]}:"
    with tempfile.TemporaryDirectory() as tmp:
        stack = Stack(Path(tmp) / "var")
        try:
            engine = stack.engine(
                redis_url=REDIS,
                HEIGHTS_ENGINE_REDIS_PREFIX=f"{prefix}engine",
                HEIGHTS_ENGINE_LOG_LEVEL="WARNING",
            )
            env = {
                "HEIGHTS_RUNNER_BROKER_URL": REDIS,
                "HEIGHTS_BROKER_PREFIX": prefix,
                "HEIGHTS_RUNNER_ENGINE_ADDRESS": engine.address,
                "HEIGHTS_RUNNER_CACHE_DIR": str(Path(tmp) / "bots"),
                "HEIGHTS_RUNNER_CONCURRENCY": "1",
            }
            settings = dataclasses.replace(
                RunnerSettings.from_env(), broker_url=REDIS, broker_prefix=prefix
            )
            client = RunnerClient(make_app(settings))
            stack.runner("runner-1", **env)
            report = _measure(client, stack, env, args)
        finally:
            stack.stop()
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        for key, value in report.items():
            print(f"{key:>32}: {value}")
    return 0


def _measure(
    client: Any, stack: Any, env: dict[str, str], args: argparse.Namespace
) -> dict[str, Any]:
    specs = _specs(args.matches, args.seed)
    client.submit(_specs(1, args.seed + 999)[0])  # warm-up: imports, bot cache
    client.results(1, timeout=120)
    alone = []
    for spec in specs:  # one at a time: the overhead of the path, not of contention
        client.submit(spec)
        [result] = client.results(1, timeout=300)
        alone.append(float(result["seconds"]))
    baseline = in_process_seconds(specs)
    for i in range(2, args.workers + 1):
        stack.runner(f"runner-{i}", **env)
    batch = _specs(args.throughput_matches, args.seed + 500)
    start = time.perf_counter()
    for spec in batch:
        client.submit(spec)
    done = client.results(len(batch), timeout=300)
    elapsed = time.perf_counter() - start
    mean_alone = sum(alone) / len(alone)
    mean_base = sum(baseline) / len(baseline)
    return {
        "match_seconds_whole_path": round(mean_alone, 3),
        "match_seconds_in_process": round(mean_base, 4),
        "overhead_factor": round(mean_alone / mean_base, 1),
        "worker_processes": args.workers,
        "throughput_matches": len(done),
        "matches_per_minute": round(60 * len(done) / elapsed, 1),
    }
