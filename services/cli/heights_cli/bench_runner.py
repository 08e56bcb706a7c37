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
    from heights_bots.bot import make_bot, seat_seed
    from heights_bots.play import play_game
    from heights_rules import GameConfig

    times = []
    for spec in specs:
        # The same bot seeds as the protocol bots (heights_bots.protocol_main).
        bots = [make_bot("greedy", seat_seed(spec.seed, s)) for s in range(4)]
        start = time.perf_counter()
        play_game(GameConfig(players=4), spec.seed, bots)
        times.append(time.perf_counter() - start)
    return times


ROUND_TRIPS = 2000
ECHO = "import sys\nfor line in sys.stdin:\n    sys.stdout.write(line)\n    sys.stdout.flush()\n"


def empty_rpc_us(address: str) -> float:
    """Mean round trip of the health check (an RPC that does nothing) on the engine."""
    import grpc
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    with grpc.insecure_channel(address) as chan:
        check = health_pb2_grpc.HealthStub(chan).Check
        request = health_pb2.HealthCheckRequest()
        for _ in range(200):
            check(request, timeout=5)
        start = time.perf_counter()
        for _ in range(ROUND_TRIPS):
            check(request, timeout=5)
        return (time.perf_counter() - start) / ROUND_TRIPS * 1e6


def sandbox_pipe_us(folder: Path) -> float:
    """Mean round trip of one line through a sandboxed Python process that echoes it."""
    from heights_runner import sandbox

    folder.mkdir(parents=True, exist_ok=True)
    (folder / "main.py").write_text(ECHO)
    python, binds = sandbox.python_binds()
    bot = sandbox.start_bot(folder, [python, "-u", "-S", "/bot/main.py"], ro_binds=binds)
    try:
        line = '{"type":"decide","step":1}'
        for _ in range(200):
            bot.send(line)
            bot.receive(5)
        start = time.perf_counter()
        for _ in range(ROUND_TRIPS):
            bot.send(line)
            bot.receive(5)
        return (time.perf_counter() - start) / ROUND_TRIPS * 1e6
    finally:
        bot.close()


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
            runners = [stack.runner("runner-1", **env)]
            report = _measure(client, stack, env, args, [engine.proc.pid], runners)
            # What a decision costs on this path with no work at all: an RPC that does
            # nothing, and a line to a sandboxed process and back. Times a match's
            # decisions, over the in-process match: the overhead factor this path cannot
            # go below with no work done (a stream message costs somewhat less than the
            # unary RPC measured; the pipe alone is a hard floor).
            pipe_us = sandbox_pipe_us(Path(tmp) / "echo")
            rpc_us = empty_rpc_us(engine.address)
            report["empty_rpc_round_trip_us"] = round(rpc_us)
            report["sandbox_pipe_round_trip_us"] = round(pipe_us)
            for name, floor_us in (("pipe_only", pipe_us), ("pipe_and_rpc", pipe_us + rpc_us)):
                floor_s = floor_us * report["decisions_per_match"] / 1e6
                report[f"overhead_factor_floor_{name}"] = round(
                    floor_s / report["match_seconds_in_process"], 1
                )
        finally:
            stack.stop()
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        for key, value in report.items():
            print(f"{key:>32}: {value}")
    return 0


def _redis_cpu_seconds() -> float:
    import redis

    info = redis.Redis.from_url(REDIS).info("cpu")
    return float(info["used_cpu_user"]) + float(info["used_cpu_sys"])


def _measure(  # noqa: PLR0917 (one caller, all of the bench's parts)
    client: Any,
    stack: Any,
    env: dict[str, str],
    args: argparse.Namespace,
    engine_pids: list[int],
    runners: list[Any],
) -> dict[str, Any]:
    from heights_cli.cpu_usage import busy_seconds, stolen_seconds, tree_seconds

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
        runners.append(stack.runner(f"runner-{i}", **env))
    runner_pids = [r.proc.pid for r in runners]
    batch = _specs(args.throughput_matches, args.seed + 500)
    # CPU by part while the batch runs: the workers' trees hold the bots (bubblewrap and
    # the runner wait for theirs, so an ended bot's time lands in its parent's counts).
    cpu0 = (tree_seconds(engine_pids), tree_seconds(runner_pids), _redis_cpu_seconds())
    busy0, stolen0 = busy_seconds(), stolen_seconds()
    start = time.perf_counter()
    for spec in batch:
        client.submit(spec)
    done = client.results(len(batch), timeout=300)
    elapsed = time.perf_counter() - start
    cpu1 = (tree_seconds(engine_pids), tree_seconds(runner_pids), _redis_cpu_seconds())
    busy, stolen = busy_seconds() - busy0, stolen_seconds() - stolen0
    engine_s, runners_s, redis_s = (b - a for a, b in zip(cpu0, cpu1, strict=True))
    n = len(done)
    decisions = sum(seat["moves"] for result in done for seat in result["seats"]) / max(1, n)
    mean_alone = sum(alone) / len(alone)
    mean_base = sum(baseline) / len(baseline)
    return {
        "match_seconds_whole_path": round(mean_alone, 3),
        "match_seconds_in_process": round(mean_base, 4),
        "overhead_factor": round(mean_alone / mean_base, 1),
        "worker_processes": args.workers,
        "throughput_matches": n,
        "matches_per_minute": round(60 * n / elapsed, 1),
        "decisions_per_match": round(decisions),
        "cpu_s_per_match_engine": round(engine_s / n, 3),
        "cpu_s_per_match_workers_and_bots": round(runners_s / n, 3),
        "cpu_s_per_match_redis": round(redis_s / n, 3),
        "cpu_s_per_match_rest_of_machine": round((busy - engine_s - runners_s - redis_s) / n, 3),
        "machine_cores_busy": round(busy / elapsed, 2),
        # On a virtual machine: cores the hypervisor gave to others meanwhile. Numbers
        # from runs with much of this are not comparable with quiet runs.
        "machine_cores_stolen": round(stolen / elapsed, 2),
    }
