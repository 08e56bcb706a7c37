"""Prometheus metrics of the platform, served at /metrics to a bearer token only.

- HTTP requests by view (the URL pattern's name or route, never the raw path, so ids do
  not explode the label set), method (HTTP's, else `other`) and status; their latency
  by view. Every label takes its values from a fixed set, whatever clients send.
- Match results recorded, by status, and seat forfeits by reason: counted in the process
  that records them (the platform worker), once the recording transaction commits
  (`result_count`, called by the matches app).
- The depth of the runner's `matches` queue and the platform's `results` queue, read
  from Redis on each scrape (one LLEN each) when the broker is Redis.

With `PROMETHEUS_MULTIPROC_DIR` set (gunicorn workers and the platform worker on one
host), /metrics aggregates every process's files; otherwise it shows this process, and
the platform worker serves its own counters on `HEIGHTS_PLATFORM_METRICS_PORT`.
"""

from __future__ import annotations

import hmac
import logging
import os
from collections.abc import Iterator, Sequence
from typing import Any

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
)
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from heights_platform.common.logging import recording_match
from heights_runner.contract import FORFEIT_REASONS, TASK_RECORD_RESULT

log = logging.getLogger(__name__)

REQUESTS = Counter(
    "heights_platform_requests_total", "HTTP requests, by view, method and status",
    ["view", "method", "status"],
)  # fmt: skip
REQUEST_SECONDS = Histogram(
    "heights_platform_request_seconds",
    "HTTP request latency, by view",
    ["view"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10),
)
RESULTS = Counter(
    "heights_platform_match_results_total", "Match results recorded, by match status", ["status"]
)
FORFEITS = Counter(
    "heights_platform_forfeits_total", "Seat forfeits in recorded results, by reason", ["reason"]
)

QUEUES = ("matches", "results")


class QueueDepthCollector(Collector):
    """`heights_platform_queue_depth{queue}`: messages waiting, read from Redis on scrape."""

    def collect(self) -> Iterator[GaugeMetricFamily]:
        depths = queue_depths()
        if depths is None:
            return
        family = GaugeMetricFamily(
            "heights_platform_queue_depth", "Messages waiting in a Celery queue", labels=["queue"]
        )
        for queue, depth in depths.items():
            family.add_metric([queue], depth)
        yield family

    def describe(self) -> Iterator[GaugeMetricFamily]:
        return iter(())  # collected on scrape only: nothing to check at registration


def queue_depths() -> dict[str, int] | None:
    """LLEN of each queue's list (kombu's Redis layout); None without a Redis broker."""
    from django.conf import settings

    url = str(getattr(settings, "HEIGHTS_BROKER_URL", "") or "")
    if not url.startswith(("redis://", "rediss://")):
        return None
    import redis

    prefix = os.environ.get("HEIGHTS_BROKER_PREFIX", "")
    client = redis.Redis.from_url(url, socket_timeout=0.5, socket_connect_timeout=0.5)
    try:
        pipe = client.pipeline(transaction=False)
        for queue in QUEUES:
            pipe.llen(f"{prefix}{queue}")
        return dict(zip(QUEUES, (int(n) for n in pipe.execute()), strict=True))
    except redis.RedisError as err:
        log.warning("queue depth unavailable: %s", err)
        return None
    finally:
        client.close()


_QUEUE_COLLECTOR = QueueDepthCollector()
REGISTRY.register(_QUEUE_COLLECTOR)


def exposition() -> tuple[bytes, str]:
    """The metrics text and its content type, for /metrics."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
        registry.register(_QUEUE_COLLECTOR)
        return generate_latest(registry), CONTENT_TYPE_LATEST
    return generate_latest(REGISTRY), CONTENT_TYPE_LATEST


def metrics_view(request: Any) -> Any:
    """/metrics for a scraper with `HEIGHTS_PLATFORM_METRICS_TOKEN` as its bearer token.

    Not public: without a configured token the route answers 404 as if absent, and a
    request without the right `Authorization: Bearer` header is 401.
    """
    from django.conf import settings
    from django.http import HttpResponse, JsonResponse

    token = str(getattr(settings, "HEIGHTS_METRICS_TOKEN", "") or "")
    if not token:
        return JsonResponse(
            {"code": "not_found", "message": "metrics are not served here", "details": {}},
            status=404,
        )
    given = str(request.META.get("HTTP_AUTHORIZATION", "")).encode()
    if not hmac.compare_digest(given, f"Bearer {token}".encode()):
        response = JsonResponse(
            {
                "code": "not_authenticated",
                "message": "metrics need Authorization: Bearer <HEIGHTS_PLATFORM_METRICS_TOKEN>",
                "details": {},
            },
            status=401,
        )
        response["WWW-Authenticate"] = 'Bearer realm="metrics"'
        return response
    body, content_type = exposition()
    return HttpResponse(body, content_type=content_type)


# --------------------------------------------------------------- recorded results
def result_count(*, match_id: str, status: str, forfeit_reasons: Sequence[str]) -> None:
    """Count one recorded result and its seats' forfeits. The matches app calls it once
    its recording transaction commits; a reason outside the runner's list (a runner of
    another version) is counted as `other`, so the label keeps a fixed set of values."""
    RESULTS.labels(status).inc()
    for reason in forfeit_reasons:
        FORFEITS.labels(reason if reason in FORFEIT_REASONS else "other").inc()
    log.info("match result recorded", extra={"match_id": match_id, "status": status})


def _task_started(sender: Any = None, task: Any = None, args: Any = None, **kw: Any) -> None:
    if task is None or task.name != TASK_RECORD_RESULT or not args:
        return
    result = args[0] if isinstance(args[0], dict) else {}
    recording_match.set(str(result.get("match_id", "")))


def _task_ended(sender: Any = None, task: Any = None, **kw: Any) -> None:
    recording_match.set("")


def _worker_metrics_serve(**kw: Any) -> None:
    """In the pool process that records results (concurrency 1, the platform default)."""
    port = int(os.environ.get("HEIGHTS_PLATFORM_METRICS_PORT", "") or 0)
    if port and not os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import start_http_server

        try:
            start_http_server(port)
        except OSError as err:  # a second pool process: use PROMETHEUS_MULTIPROC_DIR
            log.warning("platform worker metrics not served on port %d: %s", port, err)
            return
        log.info("platform worker metrics on port %d", port)


def connect() -> None:
    """Hook the worker's log context and metrics server to Celery's signals (from the
    common app's `ready`)."""
    from celery import signals as celery_signals

    celery_signals.task_prerun.connect(_task_started, weak=False)
    celery_signals.task_postrun.connect(_task_ended, weak=False)
    celery_signals.worker_process_init.connect(_worker_metrics_serve, weak=False)
