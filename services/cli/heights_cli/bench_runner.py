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
import base64
import dataclasses
import json
import os
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

REDIS = "redis://127.0.0.1:6379/0"
STARTS = 5  # sandbox starts measured, of each kind
THOUGHTLESS = "random"  # the built-in bot that thinks least: the platform's own cost


def register(commands: Any) -> None:
    p: argparse.ArgumentParser = commands.add_parser(
        "bench-runner", help="match throughput and overhead through worker, engine and sandbox"
    )
    p.add_argument("--matches", type=int, default=6, help="matches for the overhead factor")
    p.add_argument("--throughput-matches", type=int, default=16)
    p.add_argument("--workers", type=int, default=2, help="worker processes for throughput")
    p.add_argument(
        "--matches-per-worker",
        type=int,
        default=1,
        help="matches each worker process plays at once in the throughput phase (threads)",
    )
    p.add_argument("--seed", type=int, default=77)
    p.add_argument("--redis", default=REDIS, help="the Redis of the broker and the engine")
    p.add_argument(
        "--ask-forced",
        action="store_true",
        help="send decisions with a single legal action to the bots (as before play_forced)",
    )
    p.add_argument("--json", action="store_true")
    p.set_defaults(run=run)


def _specs(count: int, seed: int, play_forced: bool = True, bot: str = "greedy") -> list[Any]:
    from heights_runner.contract import BotRef, MatchSpec, SeatSpec

    seats = tuple(SeatSpec(f"{bot}-{i}", BotRef.builtin(bot), True) for i in range(4))
    return [
        MatchSpec(f"bench-{uuid.uuid4().hex[:10]}", seed + i, seats, play_forced=play_forced)
        for i in range(count)
    ]


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


def run(args: argparse.Namespace) -> int:
    from heights_cli.cpu_usage import CpuGroup
    from heights_cli.stack import Stack
    from heights_runner.celery_app import make_app
    from heights_runner.client import RunnerClient
    from heights_runner.settings import RunnerSettings

    prefix = f"heights-bench-{uuid.uuid4().hex[:8]}:"
    # Everything started from here on (engine, workers, their sandboxed bots) in one
    # group, whose count sees the bots that the process trees' counts cannot.
    group = CpuGroup.enter(prefix.rstrip(":"))
    with tempfile.TemporaryDirectory() as tmp:
        stack = Stack(Path(tmp) / "var")
        try:
            engine = stack.engine(
                redis_url=args.redis,
                HEIGHTS_ENGINE_REDIS_PREFIX=f"{prefix}engine",
                HEIGHTS_ENGINE_LOG_LEVEL="WARNING",
            )
            env = {
                "HEIGHTS_RUNNER_BROKER_URL": args.redis,
                "HEIGHTS_BROKER_PREFIX": prefix,
                "HEIGHTS_RUNNER_ENGINE_ADDRESS": engine.address,
                "HEIGHTS_RUNNER_CACHE_DIR": str(Path(tmp) / "bots"),
                "HEIGHTS_RUNNER_CONCURRENCY": "1",
            }
            settings = dataclasses.replace(
                RunnerSettings.from_env(), broker_url=args.redis, broker_prefix=prefix
            )
            client = RunnerClient(make_app(settings))
            runners = [stack.runner("runner-1", **env)]
            report = _measure(client, stack, env, args, [engine.proc.pid], runners, group)
            report |= _floor(report, engine.address, [engine.proc.pid], Path(tmp))
        except MatchNotPlayedError as err:
            print(f"bench-runner: {err}", file=sys.stderr)
            return 1
        finally:
            stack.stop()
            if group is not None:
                group.leave()
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        for key, value in report.items():
            print(f"{key:>40}: {value}")
    return 0


def _floor(
    report: dict[str, Any], address: str, engine_pids: list[int], tmp: Path
) -> dict[str, Any]:
    """The floor of a decision, measured now, and the path's cost over it.

    The path's cost of a decision: a match alone, less its sandboxes' start-up (measured
    apart, as the runner starts them), over the match's decisions; both per decision of
    the game (every seat decision, forced ones too: what the path plays) and per decision
    relayed to a bot. The floor: one ping on the engine's ApplyActions stream and back
    plus one line through a sandboxed process and back. In CPU too (wall time on a busy
    machine says little): the engine's and the runner's CPU a relayed decision over what
    the engine and its client spend on a ping.
    """
    from heights_cli import bench_floor

    start_ms = bench_floor.match_start_ms(tmp / "starts", "greedy", 4, STARTS)
    thoughtless_start_ms = bench_floor.match_start_ms(tmp / "starts-t", THOUGHTLESS, 4, STARTS)
    echo_ms = bench_floor.echo_start_ms(tmp / "echo-start", STARTS)
    pipe_us = bench_floor.sandbox_pipe_us(tmp / "echo")
    ping = bench_floor.stream_ping(address, engine_pids)
    rpc_us = bench_floor.empty_rpc_us(address)
    floor_us = ping.round_trip_us + pipe_us
    path_s = report["match_seconds_whole_path"] - start_ms / 1000.0
    per_decision_us = path_s / report["decisions_per_match"] * 1e6
    per_relayed_us = path_s / max(1, report["decisions_relayed_per_match"]) * 1e6
    in_process_us = report["match_seconds_in_process"] / report["decisions_per_match"] * 1e6
    relayed = report["decisions_relayed_per_match"] / report["decisions_per_match"]
    cpu_us = (
        report["engine_cpu_us_per_relayed_decision"] + report["runner_cpu_us_per_relayed_decision"]
    )
    ping_cpu_us = ping.engine_cpu_us + ping.client_cpu_us
    t = f"_{THOUGHTLESS}_bots"
    t_path_s = report[f"match_seconds_whole_path{t}"] - thoughtless_start_ms / 1000.0
    t_per_decision_us = t_path_s / report[f"decisions_per_match{t}"] * 1e6
    t_relayed = report[f"decisions_relayed_per_match{t}"] / report[f"decisions_per_match{t}"]
    t_cpu_us = (
        report[f"engine_cpu_us_per_relayed_decision{t}"]
        + report[f"runner_cpu_us_per_relayed_decision{t}"]
    )
    return {
        "sandbox_start_ms_bare_python": round(echo_ms, 1),
        "match_start_ms_4_greedy": round(start_ms, 1),
        "empty_rpc_round_trip_us": round(rpc_us),
        "stream_ping_round_trip_us": round(ping.round_trip_us),
        "sandbox_pipe_round_trip_us": round(pipe_us),
        "floor_us_per_decision": round(floor_us),
        "in_process_us_per_decision": round(in_process_us, 1),
        "path_us_per_decision": round(per_decision_us),
        "path_us_per_relayed_decision": round(per_relayed_us),
        "path_over_floor": round(per_decision_us / floor_us, 2),
        "path_over_floor_relayed": round(per_relayed_us / floor_us, 2),
        "stream_ping_cpu_us_engine": round(ping.engine_cpu_us),
        "stream_ping_cpu_us_client": round(ping.client_cpu_us),
        # Engine and runner CPU a decision of the game (a forced one costs a share of the
        # message it rode on) over the CPU of a ping: the same ratio, robust to load.
        "cpu_path_over_floor": round(cpu_us * relayed / ping_cpu_us, 2),
        "cpu_path_over_floor_relayed": round(cpu_us / ping_cpu_us, 2),
        # The same over the floor with bots that hardly think: the platform's own cost.
        f"match_start_ms_4{t}": round(thoughtless_start_ms, 1),
        f"path_us_per_decision{t}": round(t_per_decision_us),
        f"path_over_floor{t}": round(t_per_decision_us / floor_us, 2),
        f"cpu_path_over_floor{t}": round(t_cpu_us * t_relayed / ping_cpu_us, 2),
    }


def _redis_cpu_seconds(url: str) -> float:
    import redis

    info = redis.Redis.from_url(url).info("cpu")
    return float(info["used_cpu_user"]) + float(info["used_cpu_sys"])


class MatchNotPlayedError(RuntimeError):
    """A bench match ended without being played (an infrastructure failure): its figures
    would be a failure's, not the path's."""


def _played(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    failed = [r for r in results if r.get("status") != "finished"]
    if failed:
        first = failed[0]
        raise MatchNotPlayedError(
            f"{len(failed)} of {len(results)} matches were not played; "
            f"{first.get('match_id')}: {first.get('status')}: {first.get('error')}"
        )
    return results


def _counts(results: list[dict[str, Any]]) -> dict[str, float]:
    """Steps a match by kind, from the replays; relayed: the decisions bots were sent."""
    from heights_cli.bench_floor import step_counts

    _played(results)
    counts = [step_counts(base64.b64decode(r["replay_b64"])) for r in results]
    n = max(1, len(results))
    relayed = sum(seat["moves"] for r in results for seat in r["seats"])
    return {
        "decisions_per_match": sum(c.decisions for c in counts) / n,
        "forced_decisions_per_match": sum(c.forced for c in counts) / n,
        "chance_steps_per_match": sum(c.chance for c in counts) / n,
        "decisions_relayed_per_match": relayed / n,
    }


def _alone(
    client: Any, specs: list[Any], engine_pids: list[int], runner_pids: list[int], group: Any
) -> dict[str, Any]:
    """Matches one at a time (the path's cost, not contention's), with CPU by part."""
    from heights_cli.cpu_usage import tree_seconds, tree_split_seconds

    # The runner's own processes, without their sandboxes (whose CPU the trees cannot
    # read: an ended bot's time dies with its sandbox's PID namespace). The bots' CPU is
    # what the bench's cgroup counted beyond the engine, the runner and this driver.
    def parts() -> tuple[float, float, float, float]:
        whole = group.seconds() if group is not None else 0.0
        runner = tree_split_seconds(runner_pids, "bwrap")[0]
        return tree_seconds(engine_pids), runner, whole, time.process_time()

    before = parts()
    seconds, results = [], []
    for spec in specs:
        client.submit(spec)
        [result] = client.results(1, timeout=300)
        seconds.append(float(result["seconds"]))
        results.append(result)
    engine_s, runner_s, whole_s, driver_s = (b - a for a, b in zip(before, parts(), strict=True))
    counts = _counts(results)
    relayed = counts["decisions_relayed_per_match"] * len(specs)
    bots_s = whole_s - engine_s - runner_s - driver_s
    return {
        "match_seconds_whole_path": sum(seconds) / len(seconds),
        **counts,
        # Per message the runner sent the engine (one a relayed decision), start-up and
        # finishing included: what each part spends a decision.
        "engine_cpu_us_per_relayed_decision": round(engine_s / relayed * 1e6),
        "runner_cpu_us_per_relayed_decision": round(runner_s / relayed * 1e6),
        # The four bots' processes (bubblewrap and their start-up included); None
        # without a cgroup to count them in.
        "bots_cpu_us_per_relayed_decision": round(bots_s / relayed * 1e6) if group else None,
    }


def _measure(  # noqa: PLR0917 (one caller, all of the bench's parts)
    client: Any,
    stack: Any,
    env: dict[str, str],
    args: argparse.Namespace,
    engine_pids: list[int],
    runners: list[Any],
    group: Any,
) -> dict[str, Any]:
    from heights_cli.cpu_usage import busy_seconds, stolen_seconds, tree_seconds

    forced = not args.ask_forced
    specs = _specs(args.matches, args.seed, forced)
    client.submit(_specs(1, args.seed + 999, forced)[0])  # warm-up: imports, bot cache
    client.results(1, timeout=120)
    stolen_alone0, alone_started = stolen_seconds(), time.perf_counter()
    runner_pids0 = [r.proc.pid for r in runners]
    alone = _alone(client, specs, engine_pids, runner_pids0, group)
    stolen_alone = (stolen_seconds() - stolen_alone0) / (time.perf_counter() - alone_started)
    # The same, with bots that hardly think (random: a legal action, no search): what
    # the platform itself costs a decision, without the greedy bot's thinking.
    thoughtless = _alone(
        client,
        _specs(args.matches, args.seed, forced, THOUGHTLESS),
        engine_pids,
        runner_pids0,
        group,
    )
    baseline = in_process_seconds(specs)
    if args.matches_per_worker > 1:  # the worker of the one-at-a-time phase as well
        stack.services.remove(runners[0])
        runners[0].stop()
        runners.clear()
        threads = {"HEIGHTS_RUNNER_POOL": "threads"}
        env = env | threads | {"HEIGHTS_RUNNER_CONCURRENCY": str(args.matches_per_worker)}
    for i in range(len(runners) + 1, args.workers + 1):
        runners.append(stack.runner(f"runner-{i}", **env))
    runner_pids = [r.proc.pid for r in runners]
    batch = _specs(args.throughput_matches, args.seed + 500, forced)
    # CPU by part while the batch runs: the workers' trees hold the bots (bubblewrap and
    # the runner wait for theirs, so an ended bot's time lands in its parent's counts).
    cpu0 = (tree_seconds(engine_pids), tree_seconds(runner_pids), _redis_cpu_seconds(args.redis))
    busy0, stolen0 = busy_seconds(), stolen_seconds()
    rest0 = _RestProbe.start(group)
    start = time.perf_counter()
    for spec in batch:
        client.submit(spec)
    done = _played(client.results(len(batch), timeout=300))
    elapsed = time.perf_counter() - start
    cpu1 = (tree_seconds(engine_pids), tree_seconds(runner_pids), _redis_cpu_seconds(args.redis))
    busy, stolen = busy_seconds() - busy0, stolen_seconds() - stolen0
    engine_s, runners_s, redis_s = (b - a for a, b in zip(cpu0, cpu1, strict=True))
    rest = rest0.split(
        busy - engine_s - runners_s - redis_s, engine_s + runners_s, [*engine_pids, *runner_pids]
    )
    n = len(done)
    mean_base = sum(baseline) / len(baseline)
    mean_alone = alone.pop("match_seconds_whole_path")
    return {
        "play_forced": forced,
        "match_seconds_whole_path": round(mean_alone, 3),
        "match_seconds_in_process": round(mean_base, 4),
        "overhead_factor": round(mean_alone / mean_base, 1),
        **{k: round(v, 1) if isinstance(v, float) else v for k, v in alone.items()},
        "machine_cores_stolen_alone": round(stolen_alone, 2),
        **{
            f"{k}_{THOUGHTLESS}_bots": round(v, 3 if k.startswith("match_") else 1)
            for k, v in thoughtless.items()
        },
        "worker_processes": args.workers,
        "matches_per_worker_process": args.matches_per_worker,
        "throughput_matches": n,
        "matches_per_minute": round(60 * n / elapsed, 1),
        "cpu_s_per_match_engine": round(engine_s / n, 3),
        # The workers' process trees: the workers, bubblewrap's own processes, and not
        # the bots inside their PID namespaces (whose time is in the rest's
        # `sandboxed_bots` when the bench could count it).
        "cpu_s_per_match_workers_and_bots": round(runners_s / n, 3),
        "cpu_s_per_match_redis": round(redis_s / n, 3),
        "cpu_s_per_match_rest_of_machine": round((busy - engine_s - runners_s - redis_s) / n, 3),
        **{
            f"cpu_s_per_match_rest_{k}": None if v is None else round(v / n, 3)
            for k, v in rest.seconds.items()
        },
        "rest_other_processes_top": rest.top,
        "machine_cores_busy": round(busy / elapsed, 2),
        # On a virtual machine: cores the hypervisor gave to others meanwhile. Numbers
        # from runs with much of this are not comparable with quiet runs.
        "machine_cores_stolen": round(stolen / elapsed, 2),
        "load_average_1m": round(os.getloadavg()[0], 2),
    }


@dataclasses.dataclass
class _RestProbe:
    """What "the rest of the machine" was while the batch ran: the sandboxed bots (the
    bench's cgroup less the engine, the workers' trees and this process), this bench's
    own process (the driver: it submits matches and reads results), the kernel's
    threads, other processes on the machine (another user's jobs on a shared one), and
    what no live process was charged with (processes that ended unwaited for,
    interrupts served on an idle core). Interrupts are printed beside it: they overlap
    the processes' times (tick-based accounting charges a tick in an interrupt to the
    task it interrupted)."""

    group: Any
    processes: Any
    whole_s: float
    driver_s: float
    interrupts_s: float
    seconds: dict[str, float | None] = dataclasses.field(default_factory=dict)
    top: str = ""

    @classmethod
    def start(cls, group: Any) -> _RestProbe:
        from heights_cli.cpu_usage import ProcessTimes, interrupt_seconds

        whole = group.seconds() if group is not None else 0.0
        return cls(group, ProcessTimes.now(), whole, time.process_time(), interrupt_seconds())

    def split(self, rest_s: float, measured_s: float, measured_roots: list[int]) -> _RestProbe:
        """`rest_s` in parts; `measured_s`: the engine's and the workers' trees' CPU."""
        from heights_cli.cpu_usage import (
            ProcessTimes,
            interrupt_seconds,
            kernel_thread_pids,
            pids_named,
            seconds_between,
        )

        driver_s = time.process_time() - self.driver_s
        interrupts_s = interrupt_seconds() - self.interrupts_s
        bots_s = None
        if self.group is not None:
            bots_s = self.group.seconds() - self.whole_s - measured_s - driver_s
        now = ProcessTimes.now()
        kernel = kernel_thread_pids(now)
        counted = now.descendants([*measured_roots, os.getpid()]) | set(pids_named("redis-server"))
        others = set(now.parents) - counted - kernel
        kernel_s = seconds_between(self.processes, now, kernel)
        others_s = seconds_between(self.processes, now, others)
        by_name: dict[str, float] = {}
        for pid in others:
            by_name[now.names[pid]] = by_name.get(now.names[pid], 0.0) + seconds_between(
                self.processes, now, {pid}
            )
        ranked = sorted(by_name.items(), key=lambda kv: -kv[1])[:4]
        self.top = ", ".join(f"{name} {s:.1f} s" for name, s in ranked if s > 0)
        self.seconds = {
            "sandboxed_bots": bots_s,
            "bench_driver": driver_s,
            "kernel_threads": kernel_s,
            "other_processes": others_s,
            "unattributed": rest_s - (bots_s or 0.0) - driver_s - kernel_s - others_s,
            "interrupts_overlapping": interrupts_s,
        }
        return self
