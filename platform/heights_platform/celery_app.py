"""The platform's Celery app: it sends matches to the runner and consumes their results.

The broker comes from `settings.HEIGHTS_BROKER_URL` (env `HEIGHTS_PLATFORM_BROKER_URL`):
redis://… in production (the tests use redis://127.0.0.1:6379/15), and when empty the
runner's embedded file broker (`heights_runner.broker`), so a newcomer needs no server.
Matches are sent by task name (`send_task`); the platform never imports runner tasks.

The platform worker consumes the `results` and `platform` queues and runs beat, which
schedules ladder matchmaking every `HEIGHTS_PLATFORM_MATCHMAKING_SECONDS` (default 30),
the tournaments' safety-net tick every minute, and every minute the re-sending of
matches that waited too long for the runner and the reaping of running matches past
their deadline (`matches.reaping`) (`heights platform worker --beat`):

    celery -A heights_platform.celery_app worker -Q results,platform -B
"""

from __future__ import annotations

import logging
import math
import os
from typing import Any

from celery import Celery

from heights_runner.contract import (
    QUEUE_MATCHES,
    QUEUE_RESULTS,
    TASK_PLAY_MATCH,
    TASK_RECORD_RESULT,
    celery_broker_settings,
    describe,
    largest_match_deadline_seconds,
)

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "heights_platform.settings")

log = logging.getLogger("heights.platform.celery")

# The platform's own tasks (beat's, tournaments'): a queue only platform workers read, so
# a runner worker (matches, short) never receives a task it does not know.
QUEUE_PLATFORM = "platform"
TASK_LADDER_MATCHMAKE = "heights_platform.ladder_matchmake"
TASK_TOURNAMENTS_TICK_DUE = "heights_platform.tournaments_tick_due"
TASK_MATCHES_RESEND_STALLED = "heights_platform.matches_resend_stalled"
TASK_MATCHES_REAP_OVERDUE = "heights_platform.matches_reap_overdue"
TASK_SEAT_LOGS_PRUNE = "heights_platform.seat_logs_prune"


def _broker_settings(url: str) -> dict[str, Any]:
    log.info("celery broker: %s", describe(url))
    settings = celery_broker_settings(url)
    if url.startswith(("redis://", "rediss://")):
        # kombu restores every unacknowledged message of a Redis broker older than the
        # restoring client's own timeout, whichever client that is: the platform's must
        # follow the match deadline as the runner's does (a result being recorded that
        # comes back meanwhile is recorded once all the same).
        options = dict(settings.get("broker_transport_options", {}))
        options["visibility_timeout"] = math.ceil(largest_match_deadline_seconds())
        settings["broker_transport_options"] = options
    return settings


def matchmaking_seconds() -> float:
    return float(os.environ.get("HEIGHTS_PLATFORM_MATCHMAKING_SECONDS", "") or 30)


def make_app(broker_url: str) -> Celery:
    # Not made current here: only the module's `app` below is (tests build others).
    app = Celery("heights_platform", set_as_current=False)
    app.conf.update(
        _broker_settings(broker_url),
        broker_connection_retry_on_startup=True,
        task_serializer="json",
        result_serializer="json",
        accept_content=["json"],
        task_ignore_result=True,
        # A result is acknowledged once it is recorded; recording is idempotent, so a
        # worker that dies half-way just records it again.
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        task_default_queue=QUEUE_PLATFORM,
        task_routes={
            TASK_PLAY_MATCH: {"queue": QUEUE_MATCHES},
            TASK_RECORD_RESULT: {"queue": QUEUE_RESULTS},
        },
        beat_schedule={
            "ladder-matchmake": {
                "task": TASK_LADDER_MATCHMAKE,
                "schedule": matchmaking_seconds(),
            },
            "tournaments-tick-due": {"task": TASK_TOURNAMENTS_TICK_DUE, "schedule": 60.0},
            "matches-resend-stalled": {"task": TASK_MATCHES_RESEND_STALLED, "schedule": 60.0},
            "matches-reap-overdue": {"task": TASK_MATCHES_REAP_OVERDUE, "schedule": 60.0},
            "seat-logs-prune": {"task": TASK_SEAT_LOGS_PRUNE, "schedule": 3600.0},
        },
        worker_hijack_root_logger=False,
    )
    app.conf.imports = (
        "heights_platform.matches.tasks",
        "heights_platform.ladders.tasks",
        "heights_platform.tournaments.tasks",
    )
    return app


def _configured_broker_url() -> str:
    from django.conf import settings

    return str(getattr(settings, "HEIGHTS_BROKER_URL", "") or "")


app = make_app(_configured_broker_url())
# `shared_task`s (every app's tasks.py) bind to the current app: this one.
app.set_current()
app.set_default()
