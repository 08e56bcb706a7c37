"""`make loadtest-platform`: seed a database, serve the platform, run locust, summarise.

1. Seed a PostgreSQL database (127.0.0.1 only) with `seed.py` at the scale of issue 19
   (1,000 bots, 100,000 finished matches, 10,000 replays), once: the seeded database is
   kept as a template, `<LOADTEST_DATABASE_URL's name>_tpl_<hash>`, keyed by the hash of
   seed.py, the platform's migrations and the seed's parameters. Each run copies it
   (CREATE DATABASE ... TEMPLATE, seconds) into LOADTEST_DATABASE_URL's database;
   templates of other hashes are dropped.
2. Start the platform under gunicorn (`heights platform serve`, LOADTEST_WORKERS workers
   of LOADTEST_THREADS threads, the compiled rules core, DEBUG off, throttles raised out
   of the way), pinned with taskset to LOADTEST_SERVER_CPUS (by default only on 4 cores
   or more, below), its cache in Redis as deployed (LOADTEST_CACHE_URL, database 13 by
   default, emptied first; "-" for each process's own memory).
3. Run locust headless, pinned to LOADTEST_LOCUST_CPUS: LOADTEST_USERS spectators
   (`locustfile.py`) for LOADTEST_SECONDS.
4. Stop the server (also on SIGTERM/SIGINT), drop the run's database (the template stays
   unless LOADTEST_KEEP_TEMPLATE=0), write loadtests/results/platform-summary.json, print
   a table.
"""

from __future__ import annotations

import contextlib
import csv
import hashlib
import importlib
import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from types import FrameType
from typing import Any

import redis

from heights_cli.cpu_usage import (
    busy_seconds,
    children_seconds,
    pids_named,
    process_seconds,
    stolen_seconds,
)

ROOT = Path(__file__).resolve().parents[2]
HERE = ROOT / "loadtests" / "platform"
RESULTS = ROOT / "loadtests" / "results"
HOST = "127.0.0.1"  # never anything else
TARGET_P99_MS = 100.0
ENDPOINTS = ("leaderboard", "bot", "bot page", "matches by bot", "replay list", "replay step")

sys.path.insert(0, str(HERE))
seed_module = importlib.import_module("seed")  # the sibling script: database helpers


def env(name: str, default: str) -> str:
    return os.environ.get(name, "").strip() or default


SECONDS = int(env("LOADTEST_SECONDS", "60"))
# Before the measured run, the same users for this long, reported apart and not counted:
# the replay step caches are per process and in memory, and the pages cached in Redis
# (bot pages, matches by bot) are emptied before each run, so a fresh server is cold,
# where a long-running one has its readers' popular pages cached.
WARMUP_SECONDS = int(env("LOADTEST_WARMUP_SECONDS", "60"))
USERS = int(env("LOADTEST_USERS", "100"))
WAIT = env("LOADTEST_WAIT", "0.5,1.5")
# The scale of the seeded data (seed.py's defaults: issue 19's figures).
SCALE = {
    "bots": int(env("LOADTEST_BOTS", str(seed_module.BOTS))),
    "matches": int(env("LOADTEST_MATCHES", str(seed_module.MATCHES))),
    "replays": int(env("LOADTEST_REPLAYS", str(seed_module.REPLAYS))),
    "games": int(env("LOADTEST_GAMES", str(seed_module.GAMES))),
}
KEEP_TEMPLATE = env("LOADTEST_KEEP_TEMPLATE", "1") == "1"
# One process per core, threads within it: a step's simulation is CPU-bound, but the
# replay caches (replays/stepping.py) are per process, so fewer processes warm faster.
WORKERS = int(env("LOADTEST_WORKERS", str(os.cpu_count() or 1)))
THREADS = int(env("LOADTEST_THREADS", "4"))
# Longer than the think time: with gunicorn's 2 s default, locust reuses connections the
# server is closing and gets "connection reset by peer".
KEEP_ALIVE = 30
PORT = int(env("LOADTEST_PORT", "8731"))
DATABASE_URL = env("LOADTEST_DATABASE_URL", f"postgres://postgres@{HOST}:5432/heights_loadtest")
# Locust on the last core and the server on the others (taskset), as `make loadtest`
# pins the engine and its generator: the server's CPU is not shared with the load
# generator's, so the test measures the server. On 2 cores the server's two workers share
# core 0 (on 1 core nothing is pinned). PostgreSQL and Redis are shared system services,
# never pinned; the summary says what each used. "-" pins nothing.
_CORES = os.cpu_count() or 1
SERVER_CPUS = env("LOADTEST_SERVER_CPUS", f"0-{max(0, _CORES - 2)}" if _CORES >= 2 else "-")
LOCUST_CPUS = env("LOADTEST_LOCUST_CPUS", str(_CORES - 1) if _CORES >= 2 else "-")
# The bots' popularity (locustfile.py, popularity.py): Zipf's exponent; 0 is uniform.
ZIPF = env("LOADTEST_ZIPF", "0.8")
# The platform from its sources (build/compiled holds a copy as of the last build), the
# rules core compiled.
SERVER_PYTHONPATH = env(
    "LOADTEST_SERVER_PYTHONPATH", f"{ROOT / 'platform'}:{ROOT / 'build/compiled'}"
)
KEEP_DATABASE = env("LOADTEST_KEEP_DATABASE", "0") == "1"
# Throttling is the platform's defence, not what is measured: raised far above the load.
THROTTLE = "1000000/min"
# The platform's cache as deployed (deploy/: HEIGHTS_PLATFORM_REDIS_URL): one Redis
# database that every worker shares, emptied before each run so that no page cached by
# an earlier run is a hit in this one. "-" serves with each process's own memory cache.
CACHE_URL = env("LOADTEST_CACHE_URL", f"redis://{HOST}:6379/13")


def child_env() -> dict[str, str]:
    child = dict(os.environ)
    child.update(
        PYTHONPATH=SERVER_PYTHONPATH,
        DATABASE_URL=DATABASE_URL,
        DJANGO_SETTINGS_MODULE="heights_platform.settings",
        HEIGHTS_PLATFORM_DEBUG="0",
        HEIGHTS_PLATFORM_THROTTLE_ANON=THROTTLE,
        HEIGHTS_PLATFORM_THROTTLE_USER=THROTTLE,
        HEIGHTS_PLATFORM_LOG_LEVEL="WARNING",
        HEIGHTS_VAR_DIR=str(RESULTS / "platform-var"),
        GUNICORN_CMD_ARGS=f"--threads {THREADS} --keep-alive {KEEP_ALIVE}",
    )
    if CACHE_URL != "-":
        child["HEIGHTS_PLATFORM_REDIS_URL"] = CACHE_URL
    return child


def cache_empty() -> None:
    """The run's cache database emptied (only it: FLUSHDB on the URL's database)."""
    if CACHE_URL == "-":
        return
    client = redis.Redis.from_url(CACHE_URL)
    try:
        client.flushdb()
    finally:
        client.close()


def pinned(cpus: str, command: list[str]) -> list[str]:
    """`command` run on these cores only (taskset), or as it is ("-")."""
    return command if cpus == "-" else ["taskset", "-c", cpus, *command]


def seed_key() -> str:
    """What the seeded data depends on: the seed script, the schema, the parameters, and
    the rules core and catalogues that play the recorded games (their replays)."""
    digest = hashlib.sha256((HERE / "seed.py").read_bytes())
    rules = ROOT / "services" / "engine" / "heights_rules"
    sources = sorted((ROOT / "platform" / "heights_platform").glob("*/migrations/*.py"))
    sources += sorted(rules.glob("*.py")) + sorted(rules.glob("data/*.json"))
    for path in sources:
        digest.update(str(path.relative_to(ROOT)).encode() + path.read_bytes())
    digest.update(json.dumps(SCALE, sort_keys=True).encode())
    return digest.hexdigest()[:12]


def with_database(url: str, name: str) -> str:
    return url.rsplit("/", 1)[0] + "/" + name


def seed(manifest: Path) -> dict[str, Any]:
    """Copy the seeded template into the run's database, seeding it first if missing."""
    name = seed_module.check_url(DATABASE_URL)
    template = f"{name}_tpl_{seed_key()}"
    template_url = with_database(DATABASE_URL, template)
    existing = seed_module.databases_named(DATABASE_URL, f"{name}_tpl_")
    for old in existing:
        if old != template:  # an earlier seed.py, schema or scale: ours, by its name
            seed_module.database_drop(with_database(DATABASE_URL, old))
    started = time.monotonic()
    reused = template in existing
    if not reused:
        print(f"== seeding {template} ({SCALE})", flush=True)
        command = [sys.executable, str(HERE / "seed.py"), "--create", "--manifest", str(manifest)]
        for option, value in SCALE.items():
            command += [f"--{option}", str(value)]
        env_seed = dict(child_env(), DATABASE_URL=template_url)
        try:
            subprocess.run(command, env=env_seed, cwd=ROOT, check=True)
        except BaseException:
            seed_module.database_drop(template_url)  # never leave a half-seeded template
            raise
    seeded = time.monotonic() - started
    print(f"== copying {template} into {name}", flush=True)
    seed_module.database_recreate(DATABASE_URL, template=template)
    command = [
        sys.executable,
        str(HERE / "seed.py"),
        "--manifest-only",
        "--manifest",
        str(manifest),
    ]
    subprocess.run(command, env=child_env(), cwd=ROOT, check=True)
    return {
        "template": template,
        "template_reused": reused,
        "seed_seconds": round(seeded, 1),
        "copy_seconds": round(time.monotonic() - started - seeded, 1),
        **SCALE,
    }


class Server:
    """gunicorn in a child process; `stop` always ends it (and so its workers)."""

    def __init__(self, port: int, workers: int, log: Path) -> None:
        self.port, self.workers, self.log = port, workers, log
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}"

    def start(self) -> None:
        command = [sys.executable, "-m", "heights_cli.main", "platform", "serve"]
        command += ["--bind", f"{HOST}:{self.port}", "--workers", str(self.workers)]
        command = pinned(SERVER_CPUS, command)
        with self.log.open("wb") as log:
            self.process = subprocess.Popen(
                command, env=child_env(), cwd=ROOT, stdout=log, stderr=subprocess.STDOUT
            )
        deadline = time.monotonic() + 60
        while not self._ready():
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"the platform did not start (see {self.log})")
            time.sleep(0.2)
        while len(self.pids()) < 1 + self.workers and time.monotonic() < deadline:
            time.sleep(0.2)

    def _ready(self) -> bool:
        try:
            with urllib.request.urlopen(f"{self.url}/healthz", timeout=2) as reply:
                return int(reply.status) == 200
        except OSError:
            return False

    def pids(self) -> list[int]:
        """The master and its workers (from /proc)."""
        if self.process is None:
            return []
        master = self.process.pid
        found = [master]
        with contextlib.suppress(OSError):
            children = Path(f"/proc/{master}/task/{master}/children").read_text().split()
            found += [int(pid) for pid in children]
        return found

    def stop(self) -> None:
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.process = None


# Users start over this many seconds, and statistics restart once all run
# (--reset-stats): 100 users started at once send their first requests in one burst that
# no steady load has, and that burst alone would set the p99.
RAMP_SECONDS = 10


def locust_command(server: Server, seconds: int, prefix: Path) -> list[str]:
    rate = max(1, USERS // RAMP_SECONDS)
    ramp = -(-USERS // rate)
    return pinned(
        LOCUST_CPUS,
        [
            *(sys.executable, "-m", "locust", "-f", str(HERE / "locustfile.py")),
            *("--headless", "--only-summary", "--reset-stats", "--loglevel", "WARNING"),
            *("-u", str(USERS), "-r", str(rate), "-t", f"{seconds + ramp}s", "--stop-timeout", "0"),
            *("--host", server.url, "--csv", str(prefix)),
        ],
    )


# The shared cache's keys of each cached read (Django's `:1:` prefix, then the key the
# platform gives: site/bot_page.py, common/page_cache.shared_cached_response). With no
# writes in the test and runs shorter than the pages' 300 s, each new key is one miss.
CACHED_KINDS = {
    "bot page": ":1:site-bot:*",
    "bot": ":1:page:bot:*",
    "matches by bot": ":1:page:matches-by-bot:*",
}


def cached_pages() -> dict[str, int] | None:
    """How many pages of each cached read the run's Redis cache holds, or None."""
    if CACHE_URL == "-":
        return None
    client = redis.Redis.from_url(CACHE_URL)
    try:
        return {
            kind: sum(1 for _ in client.scan_iter(match=pattern, count=1000))
            for kind, pattern in CACHED_KINDS.items()
        }
    finally:
        client.close()


def run_locust(server: Server, manifest: Path) -> tuple[Path, dict[str, Any]]:
    prefix = RESULTS / "platform"
    child = dict(os.environ, LOADTEST_PLATFORM_MANIFEST=str(manifest), LOADTEST_WAIT=WAIT)
    child["LOADTEST_ZIPF"] = ZIPF
    if WARMUP_SECONDS > 0:
        print(f"== platform: warm-up, {USERS} users for {WARMUP_SECONDS} s", flush=True)
        warmup = locust_command(server, WARMUP_SECONDS, RESULTS / "platform-warmup")
        subprocess.run(warmup, env=child, cwd=ROOT, check=False)
    pages_before = cached_pages()
    command = locust_command(server, SECONDS, prefix)
    print(f"== platform: {USERS} users for {SECONDS} s (think time {WAIT} s)", flush=True)
    pids = server.pids()
    load_before = os.getloadavg()
    pg_before = {pid: process_seconds([pid]) for pid in pids_named("postgres")}
    before = (
        time.monotonic(),
        busy_seconds(),
        process_seconds(pids),
        0.0,
        children_seconds(),
        stolen_seconds(),
    )
    # Exit code 1 means "some requests failed": the summary says which.
    code = subprocess.run(command, env=child, cwd=ROOT, check=False).returncode
    if code not in (0, 1):
        raise SystemExit(f"locust failed with exit code {code}")
    # Backends started during the run count from zero; those that ended are not counted.
    pg_after = {pid: process_seconds([pid]) for pid in pids_named("postgres")}
    pg_used = sum(max(0.0, s - pg_before.get(pid, 0.0)) for pid, s in pg_after.items())
    after = (
        time.monotonic(),
        busy_seconds(),
        process_seconds(pids),
        pg_used,
        children_seconds(),
        stolen_seconds(),
    )
    wall, busy, served, database, locust, stolen = (
        b - a for a, b in zip(before, after, strict=True)
    )
    # The machine is shared: what else ran during the run is part of the result.
    cpu = {
        "wall_s": round(wall, 1),
        "server_cores": round(served / wall, 2),
        "postgres_cores": round(database / wall, 2),
        "locust_cores": round(locust / wall, 2),
        "other_cores": round(max(busy - served - database - locust, 0.0) / wall, 2),
        "stolen_cores": round(stolen / wall, 2),  # by the hypervisor, for other machines
        "load_average_1m_before": round(load_before[0], 2),
        "load_average_1m_after": round(os.getloadavg()[0], 2),
        "cached_pages_before": pages_before,
        "cached_pages_after": cached_pages(),
    }
    return Path(f"{prefix}_stats.csv"), cpu


def read_stats(path: Path) -> dict[str, dict[str, Any]]:
    rows: dict[str, dict[str, Any]] = {}
    with path.open() as f:
        for row in csv.DictReader(f):
            rows[row["Name"]] = {
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


def warmup_table(stats: dict[str, dict[str, Any]]) -> str:
    lines = [
        f"{'endpoint':<15} {'req/s':>7} {'p50':>6} {'p95':>6} {'p99':>6} {'max':>7} {'fail':>5}"
    ]
    for name, row in stats.items():
        lines.append(
            f"{name:<15} {row['rps']:>7.1f} {row['p50_ms']:>6g} {row['p95_ms']:>6g} "
            f"{row['p99_ms']:>6g} {row['max_ms']:>7g} {row['failures']:>5}"
        )
    return "\n".join(lines)


def table(stats: dict[str, dict[str, Any]], cpu: dict[str, Any], met: bool) -> str:
    lines = [warmup_table(stats)]
    lines.append(
        f"server CPU a request: {cpu['server_cpu_ms_per_request']:.2f} ms; "
        f"cores used: server {cpu['server_cores']:.2f}, postgres {cpu['postgres_cores']:.2f}, "
        f"locust {cpu['locust_cores']:.2f}, other processes {cpu['other_cores']:.2f}, "
        f"stolen by the hypervisor {cpu.get('stolen_cores', 0.0):.2f}; "
        f"load average {cpu['load_average_1m_before']:.2f} -> {cpu['load_average_1m_after']:.2f}"
    )
    before, after = cpu.get("cached_pages_before"), cpu.get("cached_pages_after")
    if before is not None and after is not None:
        # Pages added while measured are misses: the rest of each kind's requests hit.
        parts = []
        for kind, count in after.items():
            requests = stats.get(kind, {}).get("requests", 0)
            added = count - before.get(kind, 0)
            hits = f", {1 - added / requests:.0%} hits" if requests else ""
            parts.append(f"{kind} {before.get(kind, 0)} -> {count}{hits}")
        lines.append(
            "pages in the shared cache, after the warm-up -> at the end: " + "; ".join(parts)
        )
    verdict = "met" if met else "MISSED"
    lines.append(f"target: p99 <= {TARGET_P99_MS:g} ms on every endpoint, 0 failures: {verdict}")
    return "\n".join(lines)


def measure(manifest: Path) -> dict[str, Any]:
    seeded = seed(manifest)
    cache_empty()
    server = Server(PORT, WORKERS, RESULTS / "platform-server.log")
    try:
        server.start()
        stats_path, cpu = run_locust(server, manifest)
        warmup_path = RESULTS / "platform-warmup_stats.csv"
        warmup = read_stats(warmup_path) if WARMUP_SECONDS > 0 and warmup_path.exists() else {}
    finally:
        server.stop()
        if not KEEP_DATABASE:
            seed_module.database_drop(DATABASE_URL)
        if not KEEP_TEMPLATE:
            seed_module.database_drop(with_database(DATABASE_URL, seeded["template"]))
    stats = read_stats(stats_path)
    failures = sum(r["failures"] for n, r in stats.items() if n != "Aggregated")
    worst = max((stats[n]["p99_ms"] for n in ENDPOINTS if n in stats), default=float("inf"))
    met = failures == 0 and worst <= TARGET_P99_MS and all(n in stats for n in ENDPOINTS)
    total = stats.get("Aggregated", {}).get("rps", 0.0)
    # The server's CPU a request: the number that depends least on the neighbours.
    cpu["server_cpu_ms_per_request"] = (
        round(cpu["server_cores"] * 1000 / total, 2) if total else 0.0
    )
    return {
        "data": seeded,
        "endpoints": stats,
        "failures": failures,
        "cpu": cpu,
        "target_met": met,
        "warmup_endpoints": warmup,  # not counted: the caches filling
    }


def _stop(signum: int, frame: FrameType | None) -> None:
    raise SystemExit(128 + signum)  # unwinds through `finally`: the server stops


def main() -> int:
    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGHUP, _stop)
    seed_module.check_url(DATABASE_URL)
    RESULTS.mkdir(exist_ok=True)
    manifest = RESULTS / "platform-manifest.json"
    result = measure(manifest)
    replays = json.loads(manifest.read_text())["replays"]
    summary = {
        "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "users": USERS,
        "seconds": SECONDS,
        "warmup_seconds": WARMUP_SECONDS,
        "think_time_s": WAIT,
        "bot_popularity": f"Zipf, exponent {ZIPF}" if float(ZIPF) else "uniform",
        "gunicorn_workers": WORKERS,
        "gunicorn_threads": THREADS,
        "cache": CACHE_URL if CACHE_URL != "-" else "per-process memory",
        "server_cpus": SERVER_CPUS,
        "locust_cpus": LOCUST_CPUS,
        "replays": len(replays),
        "replay_steps_mean": round(sum(s for _, s in replays) / max(1, len(replays))),
        "cpus": os.cpu_count(),
        "times_in": "ms; percentiles as locust rounds them",
        "targets": {"p99_ms": TARGET_P99_MS, "failures": 0},
        **result,
    }
    (RESULTS / "platform-summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    if result["warmup_endpoints"]:
        print(f"warm-up ({WARMUP_SECONDS} s, not counted):")
        print(warmup_table(result["warmup_endpoints"]))
        print(f"measured ({SECONDS} s):")
    print(table(result["endpoints"], result["cpu"], result["target_met"]))
    print(f"summary: {(RESULTS / 'platform-summary.json').relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
