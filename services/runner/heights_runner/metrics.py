"""Prometheus metrics of a runner worker (exposed when HEIGHTS_RUNNER_METRICS_PORT is set).

A Celery worker plays its matches in forked child processes, and each child counts in
its own memory: without prometheus_client's multiprocess mode the parent's /metrics
would show none of them. `heights runner worker` therefore points
`PROMETHEUS_MULTIPROC_DIR` at a fresh folder before this module is imported
(`metrics_files`; every process then writes its values there) and serves the folder's
sum (`serve`).
"""

from __future__ import annotations

import os

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, start_http_server

from heights_runner.metrics_files import MULTIPROC_ENV

MATCHES = Counter("heights_runner_matches_total", "Matches played, by status", ["status"])
FORFEITS = Counter("heights_runner_forfeits_total", "Seat forfeits, by reason", ["reason"])
# The runners' share of the demand the autoscaler follows (deploy/k8s/runner.yaml): summed
# over live processes only, so a child that died mid-match stops counting.
MATCHES_IN_PROGRESS = Gauge(
    "heights_runner_matches_in_progress",
    "Matches this worker is playing now",
    multiprocess_mode="livesum",
)
MATCH_SECONDS = Histogram(
    "heights_runner_match_seconds",
    "Wall time of a match, bots' start-up included",
    buckets=(0.5, 1, 2, 4, 8, 15, 30, 60, 120, 300),
)
SEAT_THINK_SECONDS = Histogram(
    "heights_runner_seat_think_seconds",
    "A seat's total thinking time in one match (the runner's clock), by bot kind",
    ["kind"],
    buckets=(0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 120),
)
SEAT_MAX_MOVE_SECONDS = Histogram(
    "heights_runner_seat_max_move_seconds",
    "A seat's slowest move in one match, by bot kind",
    ["kind"],
    buckets=(0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10),
)


def serve(port: int) -> None:
    """Serve every process's metrics, summed, on `port` (all interfaces, as Prometheus
    scrapes the pod's address)."""
    from prometheus_client import multiprocess

    registry = CollectorRegistry()
    multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
    start_http_server(port, registry=registry)


def process_ended(pid: int) -> None:
    """Drop a dead child's live gauges (its counters stay in the sum)."""
    if os.environ.get(MULTIPROC_ENV):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(pid)  # type: ignore[no-untyped-call]
