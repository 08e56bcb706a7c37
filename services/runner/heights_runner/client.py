"""Submitting matches to runner workers and reading their results, without the platform.

The platform sends matches by task name and consumes results with its own worker; this
client does the same from a plain process, for benchmarks, tests and operators' checks.
"""

from __future__ import annotations

import json
from typing import Any

from celery import Celery
from kombu import Connection

from heights_runner.contract import (
    QUEUE_MATCHES,
    QUEUE_RESULTS,
    TASK_PLAY_MATCH,
    TASK_RECORD_RESULT,
    MatchSpec,
)


class RunnerClient:
    def __init__(self, app: Celery) -> None:
        self.app = app

    def submit(self, spec: MatchSpec) -> None:
        self.app.send_task(
            TASK_PLAY_MATCH, args=[spec.to_dict()], queue=QUEUE_MATCHES, task_id=spec.match_id
        )

    def results(self, count: int, timeout: float) -> list[dict[str, Any]]:
        """Up to `count` result messages, waiting at most `timeout` seconds for each.

        Other messages on the results queue (the runner's start hints) are consumed and
        skipped: this client stands in for the platform's results worker.
        """
        found: list[dict[str, Any]] = []
        options: dict[str, Any] = dict(self.app.conf.broker_transport_options or {})
        with Connection(self.app.conf.broker_url, transport_options=options) as conn:
            queue = conn.SimpleQueue(QUEUE_RESULTS)
            try:
                while len(found) < count:
                    try:
                        message = queue.get(timeout=timeout)
                    except queue.Empty:
                        break
                    message.ack()
                    if message.headers.get("task") != TASK_RECORD_RESULT:
                        continue
                    args, _kwargs, _embed = json.loads(message.body or "null")
                    found.append(args[0])
            finally:
                queue.close()
        return found
