"""The runner's Celery app: match tasks on their own queue, late acks, one at a time.

Workers take ids and plain data (contract.MatchSpec) and answer with a message
(contract.MatchResult) to the task the spec names; they hold no database credentials.
"""

from __future__ import annotations

from celery import Celery

from heights_runner.broker import celery_broker_settings
from heights_runner.contract import (
    QUEUE_MATCHES,
    QUEUE_RESULTS,
    QUEUE_SHORT,
    TASK_PLAY_MATCH,
    TASK_RECORD_RESULT,
)
from heights_runner.settings import RunnerSettings


def make_app(settings: RunnerSettings) -> Celery:
    app = Celery("heights_runner")
    broker = celery_broker_settings(settings.broker_url, settings.broker_prefix)
    options = dict(broker.pop("broker_transport_options", {}))
    options["visibility_timeout"] = settings.visibility_timeout
    if settings.broker_url.startswith(("redis://", "rediss://")):
        # kombu scans for expired unacknowledged messages every interval, but by default
        # only on every 10th tick (100 s); a match whose worker died should come back
        # soon after its visibility timeout, so scan on every tick.
        options["unacked_restore_throttle"] = 1
        options["unacked_restore_interval"] = max(1, min(10, settings.visibility_timeout // 2))
    app.conf.update(
        broker,
        broker_transport_options=options,
        broker_connection_retry_on_startup=True,
        task_serializer="json",
        accept_content=["json"],
        task_ignore_result=True,
        # A match is acknowledged only once its result is sent; a worker process that
        # dies mid-match hands it back to the queue instead of losing it.
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        # A result is sent as a message: a broker restart while it is sent must delay it,
        # not lose it. Celery's default gives up after ~0.6 s, then the task fails and its
        # message is acknowledged; this keeps trying for about two minutes.
        task_publish_retry_policy={
            "max_retries": 60,
            "interval_start": 0.0,
            "interval_step": 0.5,
            "interval_max": 2.0,
        },
        task_default_queue=QUEUE_SHORT,
        task_routes={
            TASK_PLAY_MATCH: {"queue": QUEUE_MATCHES},
            TASK_RECORD_RESULT: {"queue": QUEUE_RESULTS},
        },
        worker_hijack_root_logger=False,
    )
    app.conf.imports = ("heights_runner.tasks",)
    return app


app = make_app(RunnerSettings.from_env())
