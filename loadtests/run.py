"""`make loadtest`: start engine replicas, run locust against them, write the summary.

For each configuration (LOADTEST_CONFIGS, default `memory-1,redis-1,redis-2`: store and
number of replicas) it starts the replicas on 127.0.0.1 (the compiled rules core), then
runs two locust phases of LOADTEST_SECONDS each at LOADTEST_USERS users: the empty RPC
(grpc.health.v1 Check) and the game users. The servers stop afterwards, whatever
happens, and the Redis keys of the run (a key prefix of its own) are deleted.

Writes loadtests/results/summary.json and prints a table. The ratio reported is the
ApplyAction rate of the game phase over the Check rate of the empty phase.
"""

from __future__ import annotations

import csv
import json
import os
import secrets
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any
from urllib.parse import urlsplit

import grpc
import redis
from grpc_health.v1 import health_pb2, health_pb2_grpc

from heights_cli.cpu_usage import (
    busy_seconds,
    children_seconds,
    pids_named,
    process_seconds,
    stolen_seconds,
)

ROOT = Path(__file__).resolve().parent.parent
HERE = ROOT / "loadtests"
HOST = "127.0.0.1"  # never anything else
TARGET_RATIO = 0.6
TARGET_P99_MS = 50.0


@dataclass(frozen=True)
class Config:
    name: str
    store: str  # "memory" or "redis"
    replicas: int


def env(name: str, default: str) -> str:
    return os.environ.get(name, "").strip() or default


SECONDS = int(env("LOADTEST_SECONDS", "60"))
USERS = int(env("LOADTEST_USERS", "50"))
BASE_PORT = int(env("LOADTEST_BASE_PORT", "50161"))
REDIS_URL = env("LOADTEST_REDIS_URL", f"redis://{HOST}:6379/0")
SERVER_PYTHONPATH = env("LOADTEST_SERVER_PYTHONPATH", str(ROOT / "build/compiled"))
SERVER_LOG_LEVEL = env("LOADTEST_SERVER_LOG_LEVEL", "INFO")
CLIENT = env("LOADTEST_CLIENT", "lean")
ROUTING = env("LOADTEST_ROUTING", "call")
RESULTS = Path(env("LOADTEST_RESULTS", str(HERE / "results")))


def check_settings() -> None:
    """Refuse a host other than 127.0.0.1, and values the locust users do not know."""
    if ROUTING not in ("call", "game"):
        raise SystemExit(f"LOADTEST_ROUTING must be call or game, not {ROUTING!r}")
    if CLIENT not in ("lean", "view"):
        raise SystemExit(f"LOADTEST_CLIENT must be lean or view, not {CLIENT!r}")
    host = urlsplit(REDIS_URL).hostname
    if urlsplit(REDIS_URL).scheme != "redis" or host != HOST:
        raise SystemExit(f"LOADTEST_REDIS_URL must be redis://{HOST}:<port>/<db>")


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


class Servers:
    """Engine replicas in child processes; `stop` always ends every one of them."""

    def __init__(self, config: Config, prefix: str) -> None:
        self.config = config
        self.prefix = prefix
        self.addresses = [f"{HOST}:{BASE_PORT + i}" for i in range(config.replicas)]
        self.processes: list[subprocess.Popen[bytes]] = []
        self.cpu: dict[str, dict[str, float]] = {}  # by phase: cores used, by whom
        self.operator_token = secrets.token_urlsafe(32)  # locust creates games with it

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
            self.processes.append(
                subprocess.Popen(
                    [sys.executable, "-m", "heights_engine"],
                    env=child,
                    cwd=ROOT,
                    stdout=log,
                    stderr=subprocess.STDOUT,
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
    with grpc.insecure_channel(address) as channel:
        health = health_pb2_grpc.HealthStub(channel)
        deadline = time.monotonic() + timeout
        while True:
            try:
                reply = health.Check(health_pb2.HealthCheckRequest(), timeout=1)
                if reply.status == health_pb2.HealthCheckResponse.SERVING:
                    return
            except grpc.RpcError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"the engine at {address} did not start (see its log)")
            time.sleep(0.1)


def check_compiled(pid: int) -> None:
    """Warn when the server runs the pure-Python rules core (no `make compiled`)."""
    maps = Path(f"/proc/{pid}/maps")
    if maps.exists() and "__mypyc" not in maps.read_text():
        print("warning: the engine runs the pure-Python rules core", file=sys.stderr)


def run_locust(config: Config, phase: str, user_class: str, servers: Servers) -> Path:
    targets = servers.addresses
    prefix = RESULTS / f"{config.name}-{phase}"
    command = [
        *(sys.executable, "-m", "locust", "-f", str(HERE / "locustfile.py")),
        *("--headless", "--only-summary", "--reset-stats", "--loglevel", "WARNING"),
        *("-u", str(USERS), "-r", str(USERS), "-t", f"{SECONDS}s", "--stop-timeout", "0"),
        *("--csv", str(prefix), user_class),
    ]
    child = dict(os.environ, LOADTEST_TARGETS=",".join(targets), LOADTEST_CLIENT=CLIENT)
    child["HEIGHTS_ENGINE_OPERATOR_TOKEN"] = servers.operator_token
    child["LOADTEST_ROUTING"] = ROUTING
    print(f"== {config.name}: {phase} phase ({USERS} users, {SECONDS} s)", flush=True)
    pids = [p.pid for p in servers.processes]
    # Redis works for the servers (each append runs a script there): counted apart.
    redis_pids = pids_named("redis-server") if config.store == "redis" else []

    def sample() -> tuple[float, ...]:
        return (
            time.monotonic(),
            busy_seconds(),
            process_seconds(pids),
            children_seconds(),
            process_seconds(redis_pids),
            stolen_seconds(),
        )

    before = sample()
    # Exit code 1 means "some requests failed": the summary says which.
    code = subprocess.run(command, env=child, cwd=ROOT, check=False).returncode
    if code not in (0, 1):
        raise SystemExit(f"locust failed with exit code {code}")
    after = sample()
    wall, busy, server, locust, redis_cpu, stolen = (
        b - a for a, b in zip(before, after, strict=True)
    )
    # The machine is shared: what else ran during the phase is part of the result.
    servers.cpu[phase] = {
        "wall_s": round(wall, 1),
        "server_cores": round(server / wall, 2),
        "locust_cores": round(locust / wall, 2),
        "redis_cores": round(max(redis_cpu, 0.0) / wall, 2),
        "other_cores": round(max(busy - server - locust - redis_cpu, 0.0) / wall, 2),
        # Cores the hypervisor gave to other machines meanwhile: runs with much of this
        # are not comparable with quiet ones.
        "stolen_cores": round(stolen / wall, 2),
        "load_average_1m": round(os.getloadavg()[0], 2),
    }
    return Path(f"{prefix}_stats.csv")


def read_stats(path: Path) -> dict[str, dict[str, Any]]:
    rows: dict[str, dict[str, Any]] = {}
    with path.open() as f:
        for row in csv.DictReader(f):
            name = row["Name"]
            rows[name] = {
                "requests": int(row["Request Count"]),
                "failures": int(row["Failure Count"]),
                "rps": round(float(row["Requests/s"]), 1),
                "avg_ms": round(float(row["Average Response Time"]), 2),
                "p50_ms": float(row["50%"]),
                "p95_ms": float(row["95%"]),
                "p99_ms": float(row["99%"]),
                "max_ms": round(float(row["Max Response Time"]), 1),
            }
    return rows


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
        empty = read_stats(run_locust(config, "empty", "HealthUser", servers))
        game = read_stats(run_locust(config, "game", "GameUser", servers))
    finally:
        servers.stop()
        if config.store == "redis":
            delete_keys(prefix)
    # CPU per request, less sensitive to the rest of the machine than the rates are.
    for phase, rows in (("empty", empty), ("game", game)):
        rps = rows.get("Aggregated", {"rps": 0.0})["rps"]
        cpu = servers.cpu[phase]
        for who in ("server", "locust", "redis"):
            ms = 1000 * cpu[f"{who}_cores"] / rps if rps else 0.0
            cpu[f"{who}_ms_per_request"] = round(ms, 3)
    check = empty.get("Check", {"rps": 0.0})
    apply = game.get("ApplyAction", {"rps": 0.0, "p99_ms": float("inf")})
    ratio = apply["rps"] / check["rps"] if check["rps"] else 0.0
    failures = sum(r["failures"] for n, r in {**empty, **game}.items() if n != "Aggregated")
    return {
        "config": config.name,
        "store": config.store,
        "replicas": config.replicas,
        "empty_phase": empty,
        "game_phase": game,
        "apply_over_empty_ratio": round(ratio, 3),
        "failures": failures,
        "cpu": servers.cpu,
        "target_met": ratio >= TARGET_RATIO and failures == 0 and apply["p99_ms"] <= TARGET_P99_MS,
    }


def table(results: list[dict[str, Any]]) -> str:
    lines = [
        f"{'config':<10} {'phase':<6} {'rpc':<17} {'req/s':>8} {'p50':>6} {'p95':>6} "
        f"{'p99':>6} {'fail':>5}"
    ]
    for result in results:
        for phase in ("empty", "game"):
            for name, row in result[f"{phase}_phase"].items():
                lines.append(
                    f"{result['config']:<10} {phase:<6} {name:<17} {row['rps']:>8.1f} "
                    f"{row['p50_ms']:>6g} {row['p95_ms']:>6g} {row['p99_ms']:>6g} "
                    f"{row['failures']:>5}"
                )
        for phase, cpu in result["cpu"].items():
            lines.append(
                f"{result['config']:<10} {phase:<6} cores used: server {cpu['server_cores']:.2f},"
                f" locust {cpu['locust_cores']:.2f}, redis {cpu['redis_cores']:.2f},"
                f" other processes {cpu['other_cores']:.2f},"
                f" stolen by the hypervisor {cpu.get('stolen_cores', 0.0):.2f};"
                " CPU ms a request: server"
                f" {cpu['server_ms_per_request']:.3f}, locust {cpu['locust_ms_per_request']:.3f},"
                f" redis {cpu['redis_ms_per_request']:.3f}"
            )
        met = "met" if result["target_met"] else "MISSED"
        lines.append(
            f"{result['config']:<10} ApplyAction/Check = {result['apply_over_empty_ratio']:.3f}"
            f" (target >= {TARGET_RATIO}, p99 <= {TARGET_P99_MS:g} ms, 0 failures: {met})"
        )
    return "\n".join(lines)


def _stop(signum: int, frame: FrameType | None) -> None:
    raise SystemExit(128 + signum)  # unwinds through `finally`: the servers stop


def main() -> int:
    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGHUP, _stop)
    check_settings()
    RESULTS.mkdir(parents=True, exist_ok=True)
    configs = parse_configs(env("LOADTEST_CONFIGS", "memory-1,redis-1,redis-2"))
    results = [measure(config) for config in configs]
    summary = {
        "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "users": USERS,
        "seconds_per_phase": SECONDS,
        "client": CLIENT,
        "routing": ROUTING,
        "cpus": os.cpu_count(),
        "times_in": "ms; percentiles as locust rounds them",
        "targets": {"ratio": TARGET_RATIO, "p99_apply_ms": TARGET_P99_MS, "failures": 0},
        "results": results,
    }
    (RESULTS / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    print(table(results))
    print(f"summary: {RESULTS / 'summary.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
