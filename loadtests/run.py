"""`make loadtest`: engine replicas on one core, an open-loop generator on the other.

For each configuration (LOADTEST_CONFIGS, default `memory-1,redis-1,redis-2`: store and
number of replicas) it starts the replicas on 127.0.0.1 (the compiled rules core),
pinned to LOADTEST_SERVER_CPUS, and drives them from this process, pinned to
LOADTEST_CLIENT_CPUS, at fixed arrival rates (loadtests/openloop.py):

1. the empty RPC (grpc.health.v1 Check), stepped up by LOADTEST_STEP_FACTOR from
   LOADTEST_START_RATE until its p99 passes LOADTEST_P99_MS, then bisected between the
   last rate that held and the first that did not (a rate that fails is tried again
   LOADTEST_CONFIRM times before the ladder stops): the empty RPC's capacity;
2. the calls of games in play (loadtests/drivers.py) the same way, the bound on
   ApplyAction's p99: ApplyAction's capacity;
3. both at half the empty RPC's capacity, for ApplyAction's latency there and the
   servers' CPU per call of each kind (from /proc).

The servers stop afterwards, whatever happens, and the Redis keys of the run (a key
prefix of its own) are deleted. Writes loadtests/results/summary.json and prints one
table. Run as `python -m loadtests.run` from the repository's root.
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import secrets
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any
from urllib.parse import urlsplit

import redis
from grpc import aio
from loadtests.drivers import EmptyCalls, GameCalls
from loadtests.openloop import Driver, Pids, run_step

from heights_cli.stack import grpc_serving

ROOT = Path(__file__).resolve().parent.parent
HERE = ROOT / "loadtests"
HOST = "127.0.0.1"  # never anything else
TARGET_RATIO = 0.7  # ApplyAction's capacity over the empty RPC's, at the same p99 bound
TARGET_CPU_RATIO = 1.5  # server CPU per game call over CPU per empty call
BUSY = 0.9  # the share of its cores past which a process is taken to be the limit


@dataclass(frozen=True)
class Config:
    name: str
    store: str  # "memory" or "redis"
    replicas: int


def env(name: str, default: str) -> str:
    return os.environ.get(name, "").strip() or default


def cpus(name: str, default: str) -> set[int] | None:
    """A set of CPUs from `0,1` or `0-1`; None (no pinning) for `all`."""
    raw = env(name, default)
    if raw == "all":
        return None
    found: set[int] = set()
    for part in raw.split(","):
        first, _, last = part.partition("-")
        if not first.isdigit() or (last and not last.isdigit()):
            raise SystemExit(f"{name} must be CPU numbers like 0,1 or 0-1, or all; not {raw!r}")
        found.update(range(int(first), int(last or first) + 1))
    return found


P99_MS = float(env("LOADTEST_P99_MS", "50"))
START_RATE = float(env("LOADTEST_START_RATE", "250"))
STEP_FACTOR = float(env("LOADTEST_STEP_FACTOR", "1.5"))
MAX_RATE = float(env("LOADTEST_MAX_RATE", "20000"))
# Three geometric bisections leave a bracket of 1.5 ** (1 / 8), ~5% (two left ~11%:
# more than the differences a ratio of two capacities is read for).
REFINE = int(env("LOADTEST_REFINE", "3"))
CONFIRM = int(env("LOADTEST_CONFIRM", "1"))
STEP_SECONDS = float(env("LOADTEST_STEP_SECONDS", "4"))
WARMUP_SECONDS = float(env("LOADTEST_WARMUP_SECONDS", "1"))
HALF_SECONDS = float(env("LOADTEST_HALF_SECONDS", "10"))
GAMES = int(env("LOADTEST_GAMES", "300"))
BASE_PORT = int(env("LOADTEST_BASE_PORT", "50161"))
REDIS_URL = env("LOADTEST_REDIS_URL", f"redis://{HOST}:6379/0")
SERVER_PYTHONPATH = env("LOADTEST_SERVER_PYTHONPATH", str(ROOT / "build/compiled"))
SERVER_LOG_LEVEL = env("LOADTEST_SERVER_LOG_LEVEL", "INFO")
# A folder: each server runs under cProfile and writes <config>-server<i>.prof there.
SERVER_PROFILE = env("LOADTEST_SERVER_PROFILE", "")
CLIENT = env("LOADTEST_CLIENT", "lean")
ROUTING = env("LOADTEST_ROUTING", "call")
RESULTS = Path(env("LOADTEST_RESULTS", str(HERE / "results")))
SERVER_CPUS = cpus("LOADTEST_SERVER_CPUS", "1")
CLIENT_CPUS = cpus("LOADTEST_CLIENT_CPUS", "0")


def check_settings() -> None:
    """Refuse a host other than 127.0.0.1, and values the generator does not know."""
    if ROUTING not in ("call", "game"):
        raise SystemExit(f"LOADTEST_ROUTING must be call or game, not {ROUTING!r}")
    if CLIENT not in ("lean", "view"):
        raise SystemExit(f"LOADTEST_CLIENT must be lean or view, not {CLIENT!r}")
    host = urlsplit(REDIS_URL).hostname
    if urlsplit(REDIS_URL).scheme != "redis" or host != HOST:
        raise SystemExit(f"LOADTEST_REDIS_URL must be redis://{HOST}:<port>/<db>")
    if not (STEP_FACTOR > 1 and 0 < START_RATE <= MAX_RATE and STEP_SECONDS > 0):
        raise SystemExit(
            "LOADTEST_*: need STEP_FACTOR > 1, 0 < START_RATE <= MAX_RATE, STEP_SECONDS > 0"
        )
    available = os.sched_getaffinity(0)
    for name, wanted in (("SERVER", SERVER_CPUS), ("CLIENT", CLIENT_CPUS)):
        if wanted is not None and not wanted <= available:
            raise SystemExit(f"LOADTEST_{name}_CPUS: {sorted(wanted)} is not within {available}")


def parse_configs(raw: str) -> list[Config]:
    configs = []
    for name in raw.split(","):
        store, _, replicas = name.strip().partition("-")
        if store not in ("memory", "redis") or not replicas.isdigit() or int(replicas) < 1:
            raise SystemExit(f"LOADTEST_CONFIGS: {name!r} is not memory-N or redis-N")
        if store == "memory" and int(replicas) != 1:
            raise SystemExit("the in-memory store serves one replica only")
        configs.append(Config(name.strip(), store, int(replicas)))
    return configs


def _pin_to_server_cpus() -> None:  # runs in the child, before exec
    if SERVER_CPUS is not None:
        os.sched_setaffinity(0, SERVER_CPUS)


class Servers:
    """Engine replicas in child processes; `stop` always ends every one of them."""

    def __init__(self, config: Config, prefix: str) -> None:
        self.config = config
        self.prefix = prefix
        self.addresses = [f"{HOST}:{BASE_PORT + i}" for i in range(config.replicas)]
        self.processes: list[subprocess.Popen[bytes]] = []
        self.operator_token = secrets.token_urlsafe(32)  # the generator creates games with it

    def start(self) -> None:
        secret = secrets.token_hex(16)
        for i, address in enumerate(self.addresses):
            child = dict(os.environ)
            child.update(
                PYTHONPATH=SERVER_PYTHONPATH,
                HEIGHTS_ENGINE_ADDRESS=address,
                HEIGHTS_ENGINE_REDIS_URL=REDIS_URL if self.config.store == "redis" else "",
                HEIGHTS_ENGINE_REDIS_PREFIX=self.prefix,
                HEIGHTS_ENGINE_TOKEN_SECRET=secret,
                HEIGHTS_ENGINE_OPERATOR_TOKEN=self.operator_token,
                HEIGHTS_ENGINE_METRICS_PORT="0",
                HEIGHTS_ENGINE_LOG_LEVEL=SERVER_LOG_LEVEL,
            )
            log = open(RESULTS / f"{self.config.name}-server{i}.log", "wb")  # noqa: SIM115
            command = [sys.executable, "-m", "heights_engine"]
            if SERVER_PROFILE:
                profile = Path(SERVER_PROFILE).resolve() / f"{self.config.name}-server{i}.prof"
                command[1:1] = ["-m", "cProfile", "-o", str(profile)]
            self.processes.append(
                subprocess.Popen(
                    command,
                    env=child,
                    cwd=ROOT,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    preexec_fn=_pin_to_server_cpus,  # noqa: PLW1509 (no threads yet)
                )
            )
            log.close()
        for address, process in zip(self.addresses, self.processes, strict=True):
            wait_healthy(address, process)
        check_compiled(self.processes[0].pid)

    def stop(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process in self.processes:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        self.processes.clear()


def wait_healthy(address: str, process: subprocess.Popen[bytes], timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not grpc_serving(address, timeout=1):
        if process.poll() is not None or time.monotonic() > deadline:
            raise SystemExit(f"the engine at {address} did not start (see its log)")
        time.sleep(0.1)


def check_compiled(pid: int) -> None:
    """Warn when the server runs the pure-Python rules core (no `make compiled`)."""
    maps = Path(f"/proc/{pid}/maps")
    if maps.exists() and "__mypyc" not in maps.read_text():
        print("warning: the engine runs the pure-Python rules core", file=sys.stderr)


def held(step: dict[str, Any], rpc: str) -> bool:
    """Whether a step kept `rpc`'s p99 within the bound with nothing failed or dropped."""
    row = step["rpcs"].get(rpc)
    errors = sum(r["errors"] for r in step["rpcs"].values())
    return row is not None and row["p99_ms"] <= P99_MS and not errors and not step["dropped"]


def generator_bound(step: dict[str, Any]) -> bool:
    """Whether the generator, not the servers, may have been the limit of a step: it was
    near all of its cores while the servers were not near all of theirs."""
    every = os.cpu_count() or 1
    client = len(CLIENT_CPUS) if CLIENT_CPUS is not None else every
    server = len(SERVER_CPUS) if SERVER_CPUS is not None else every
    cpu = step["cpu"]
    return bool(cpu["generator_cores"] >= BUSY * client and cpu["server_cores"] < BUSY * server)


Step = Callable[[float, float], Any]  # (rate, seconds) -> awaitable step summary


async def capacity(label: str, rpc: str, step: Step) -> dict[str, Any]:
    """Step the rate up until `rpc`'s p99 passes the bound, then bisect: the highest rate
    held, as `rpc`'s own call rate at that step (None when even the first failed)."""
    steps: list[dict[str, Any]] = []

    async def attempt(rate: float) -> bool:
        result = await step(rate, STEP_SECONDS)
        result["held"] = held(result, rpc)
        steps.append(result)
        row = result["rpcs"].get(rpc, {})
        print(
            f"  {label:<16} {rate:>8.0f}/s  {rpc} {row.get('rate', 0):>7.0f}/s"
            f" p50 {row.get('p50_ms', 0):>6.1f} p99 {row.get('p99_ms', 0):>7.1f} ms"
            f"  server {result['cpu']['server_cores']:.2f} generator"
            f" {result['cpu']['generator_cores']:.2f} steal {result['cpu']['stolen_cores']:.2f}"
            f" cores  {'held' if result['held'] else 'PASSED THE BOUND'}",
            flush=True,
        )
        return bool(result["held"])

    low: float | None = None
    high: float | None = None
    rate = START_RATE
    while rate <= MAX_RATE:
        # A neighbour's burst can fail one step: a rate fails the ladder only if it fails
        # 1 + CONFIRM times in a row.
        for _ in range(1 + CONFIRM):
            if await attempt(rate):
                break
        else:
            high = rate
            break
        low, rate = rate, rate * STEP_FACTOR
    while low is None and high is not None and high > START_RATE / 8:
        high = high / 2  # even the first rate failed: go down before bisecting
        if await attempt(high):
            low, high = high, high * 2
    for _ in range(REFINE):
        if low is None or high is None:
            break
        middle = math.sqrt(low * high)
        if await attempt(middle):
            low = middle
        else:
            high = middle
    best = max((s for s in steps if s["held"]), key=lambda s: s["rate"], default=None)
    first_failed = min((s for s in steps if not s["held"]), key=lambda s: s["rate"], default=None)
    return {
        "capacity": best["rpcs"][rpc]["rate"] if best else 0.0,
        "arrival_rate": best["rate"] if best else 0.0,
        # A lower bound only: the highest rate tried held, or the generator was saturated.
        "at_least": first_failed is None or generator_bound(first_failed),
        "steps": steps,
    }


def redis_pid() -> int:
    """The process of the Redis at LOADTEST_REDIS_URL (another redis-server on the machine
    is not this run's)."""
    client = redis.Redis.from_url(REDIS_URL)
    try:
        return int(client.info("server")["process_id"])
    finally:
        client.close()


async def measure_async(config: Config, servers: Servers) -> dict[str, Any]:
    pids = Pids(
        servers=[p.pid for p in servers.processes],
        # Redis works for the servers (each append runs a script there): counted apart.
        redis=[redis_pid()] if config.store == "redis" else [],
    )
    channels = [aio.insecure_channel(address) for address in servers.addresses]
    try:
        empty = EmptyCalls(channels)

        def games() -> Driver:
            return GameCalls(
                channels,
                operator_token=servers.operator_token,
                routing=ROUTING,
                lean=CLIENT == "lean",
                max_games=GAMES,
            )

        game_driver = games()

        async def empty_step(rate: float, seconds: float) -> dict[str, Any]:
            return await run_step(empty, rate, seconds, WARMUP_SECONDS, pids)

        async def game_step(rate: float, seconds: float) -> dict[str, Any]:
            return await run_step(game_driver, rate, seconds, WARMUP_SECONDS, pids)

        print(f"== {config.name}", flush=True)
        empty_capacity = await capacity(f"{config.name} empty", "Check", empty_step)
        apply_capacity = await capacity(f"{config.name} game", "ApplyAction", game_step)
        half = max(empty_capacity["capacity"] / 2, 1.0)
        empty_half = await empty_step(half, HALF_SECONDS)
        game_half = await game_step(half, HALF_SECONDS)
        print(f"  {config.name} at half the empty capacity ({half:.0f}/s): done", flush=True)
    finally:
        for channel in channels:
            await channel.close()
    return result_of(config, empty_capacity, apply_capacity, empty_half, game_half)


def result_of(
    config: Config,
    empty: dict[str, Any],
    apply: dict[str, Any],
    empty_half: dict[str, Any],
    game_half: dict[str, Any],
) -> dict[str, Any]:
    ratio = apply["capacity"] / empty["capacity"] if empty["capacity"] else 0.0
    empty_cpu = empty_half["cpu"]["server_ms_per_call"]
    game_cpu = game_half["cpu"]["server_ms_per_call"]
    cpu_ratio = game_cpu / empty_cpu if empty_cpu else 0.0
    at_half = game_half["rpcs"].get("ApplyAction", {"p50_ms": 0.0, "p99_ms": 0.0})
    return {
        "config": config.name,
        "store": config.store,
        "replicas": config.replicas,
        "empty_capacity": empty["capacity"],
        "apply_capacity": apply["capacity"],
        "capacity_ratio": round(ratio, 3),
        "capacity_at_least": {"empty": empty["at_least"], "apply": apply["at_least"]},
        "half_rate": empty_half["rate"],
        "apply_p50_ms_at_half": at_half["p50_ms"],
        "apply_p99_ms_at_half": at_half["p99_ms"],
        "server_ms_per_empty_call": empty_cpu,
        "server_ms_per_game_call": game_cpu,
        "cpu_ratio": round(cpu_ratio, 3),
        # Redis's side of a game call (its scripts), not in the servers' CPU above.
        "redis_ms_per_game_call": game_half["cpu"]["redis_ms_per_call"],
        "stolen_cores": max(
            s["cpu"]["stolen_cores"] for s in (*empty["steps"], *apply["steps"], game_half)
        ),
        "load_average_1m": game_half["cpu"]["load_average_1m"],
        "ratio_met": ratio >= TARGET_RATIO,
        "cpu_ratio_met": 0 < cpu_ratio <= TARGET_CPU_RATIO,
        "empty_steps": empty["steps"],
        "apply_steps": apply["steps"],
        "empty_at_half": empty_half,
        "game_at_half": game_half,
    }


def delete_keys(prefix: str) -> None:
    client = redis.Redis.from_url(REDIS_URL)
    try:
        keys = list(client.scan_iter(match=f"{prefix}:*", count=1000))
        for start in range(0, len(keys), 500):
            client.delete(*keys[start : start + 500])
    finally:
        client.close()


def measure(config: Config) -> dict[str, Any]:
    prefix = f"heights:loadtest:{os.getpid()}:{config.name}"
    servers = Servers(config, prefix)
    try:
        servers.start()
        return asyncio.run(measure_async(config, servers))
    finally:
        servers.stop()
        if config.store == "redis":
            delete_keys(prefix)


def table(results: list[dict[str, Any]]) -> str:
    """The one table `make loadtest` prints (loadtests/README.md shows it)."""
    head = (
        f"{'config':<9} {'Check cap/s':>11} {'Apply cap/s':>11} {'ratio':>6}"
        f" {'Apply p50/p99 at half (ms)':>27} {'server CPU ms empty/game':>25}"
        f" {'CPU ratio':>9} {'Redis ms':>8} {'steal':>6} {'load':>5}"
    )
    lines = [head]
    for r in results:
        more = r["capacity_at_least"]
        check = f"{'>=' if more['empty'] else ''}{r['empty_capacity']:.0f}"
        apply = f"{'>=' if more['apply'] else ''}{r['apply_capacity']:.0f}"
        p50, p99 = r["apply_p50_ms_at_half"], r["apply_p99_ms_at_half"]
        at_half = f"{p50:.1f} / {p99:.1f} @{r['half_rate']:.0f}/s"
        cpu = f"{r['server_ms_per_empty_call']:.3f} / {r['server_ms_per_game_call']:.3f}"
        lines.append(
            f"{r['config']:<9} {check:>11} {apply:>11} {r['capacity_ratio']:>6.2f}"
            f" {at_half:>27} {cpu:>25} {r['cpu_ratio']:>9.2f}"
            f" {r['redis_ms_per_game_call']:>8.3f} {r['stolen_cores']:>6.2f}"
            f" {r['load_average_1m']:>5.1f}"
        )
    lines.append(
        f"capacity: the highest arrival rate whose p99 held <= {P99_MS:g} ms with no error"
        f" (the RPC's own rate then; >= where the generator, not the server, was the limit);"
        f" goals: ratio >= {TARGET_RATIO}, CPU ratio <= {TARGET_CPU_RATIO}; Redis ms: Redis's CPU"
        " a game call at half; steal: the most cores the hypervisor took in any step"
    )
    return "\n".join(lines)


def _stop(signum: int, frame: FrameType | None) -> None:
    raise SystemExit(128 + signum)  # unwinds through `finally`: the servers stop


def main() -> int:
    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGHUP, _stop)
    check_settings()
    configs = parse_configs(env("LOADTEST_CONFIGS", "memory-1,redis-1,redis-2"))
    RESULTS.mkdir(parents=True, exist_ok=True)
    if CLIENT_CPUS is not None:
        os.sched_setaffinity(0, CLIENT_CPUS)  # the servers set theirs when they start
    results = [measure(config) for config in configs]
    summary = {
        "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "method": "open loop: fixed arrival rates, latency from each call's due time",
        "server_cpus": sorted(SERVER_CPUS) if SERVER_CPUS is not None else "all",
        "client_cpus": sorted(CLIENT_CPUS) if CLIENT_CPUS is not None else "all",
        "p99_bound_ms": P99_MS,
        "step_seconds": STEP_SECONDS,
        "warmup_seconds": WARMUP_SECONDS,
        "half_seconds": HALF_SECONDS,
        "client": CLIENT,
        "routing": ROUTING,
        "cpus": os.cpu_count(),
        "times_in": "ms, from each call's due time",
        "targets": {"ratio": TARGET_RATIO, "cpu_ratio": TARGET_CPU_RATIO},
        "results": results,
    }
    (RESULTS / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    print(table(results))
    print(f"summary: {RESULTS / 'summary.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
