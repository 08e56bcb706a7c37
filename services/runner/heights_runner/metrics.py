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
from collections.abc import Iterator
from pathlib import Path

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, start_http_server
from prometheus_client.metrics_core import Metric
from prometheus_client.registry import Collector

from heights_runner.metrics_files import MULTIPROC_ENV

MATCHES = Counter("heights_runner_matches_total", "Matches played, by status", ["status"])
FORFEITS = Counter("heights_runner_forfeits_total", "Seat forfeits, by reason", ["reason"])
# The runners' share of the demand the autoscaler follows (deploy/k8s/runner.yaml): summed
# over live processes only (_LiveProcessesCollector), so a child that died mid-match stops
# counting.
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
    registry = CollectorRegistry()
    registry.register(_LiveProcessesCollector())
    start_http_server(port, registry=registry)


class _LiveProcessesCollector(Collector):
    """The multiprocess sum, after dropping the live gauges of children that are gone.

    A child that exits cleanly drops its own (`process_ended`, on Celery's
    worker_process_shutdown); one killed mid-match (OOM killer, SIGKILL) never does, and
    its matches-in-progress would count forever, keeping the autoscaler a pod too high.
    """

    def collect(self) -> Iterator[Metric]:
        from prometheus_client import multiprocess

        folder = os.environ.get(MULTIPROC_ENV, "")
        for path in Path(folder).glob("gauge_live*_*.db"):
            pid = int(path.stem.rsplit("_", 1)[1])
            if not _alive(pid):
                multiprocess.mark_process_dead(pid, folder)  # type: ignore[no-untyped-call]
        collector = multiprocess.MultiProcessCollector(None, folder)  # type: ignore[no-untyped-call]
        return iter(collector.collect())  # type: ignore[no-untyped-call]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process under that pid: not ours to judge
    return True


def process_ended(pid: int) -> None:
    """Drop a dead child's live gauges (its counters stay in the sum)."""
    if os.environ.get(MULTIPROC_ENV):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(pid)  # type: ignore[no-untyped-call]
