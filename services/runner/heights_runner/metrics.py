"""Prometheus metrics of a runner worker (exposed when HEIGHTS_RUNNER_METRICS_PORT is set)."""

from __future__ import annotations

from prometheus_client import Counter, Histogram

MATCHES = Counter("heights_runner_matches_total", "Matches played, by status", ["status"])
FORFEITS = Counter("heights_runner_forfeits_total", "Seat forfeits, by reason", ["reason"])
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
