"""Celery tasks of the matches app: thin over the services, safe to run twice."""

from __future__ import annotations

import logging
from typing import Any

from celery import shared_task
from django.db import InterfaceError, OperationalError

from heights_platform.celery_app import (
    TASK_MATCHES_REAP_OVERDUE,
    TASK_MATCHES_RESEND_STALLED,
    TASK_SEAT_LOGS_PRUNE,
)
from heights_platform.matches.reaping import matches_reap_overdue
from heights_platform.matches.services import (
    match_mark_running,
    match_result_record,
    matches_resend_stalled,
    seat_logs_prune,
)
from heights_runner.contract import TASK_MATCH_STARTED, TASK_RECORD_RESULT, MatchResult

log = logging.getLogger(__name__)


@shared_task(
    name=TASK_RECORD_RESULT,
    acks_late=True,
    # The database away: keep the message and try again; recording is idempotent.
    autoretry_for=(OperationalError, InterfaceError),
    retry_backoff=True,
    retry_backoff_max=120,
    max_retries=20,
)
def record_match_result(result: dict[str, Any]) -> None:
    """The runner's reply: one `MatchResult` as a dict."""
    try:
        parsed = MatchResult.from_dict(result)
    except (TypeError, KeyError, ValueError) as err:
        # Retrying cannot fix a malformed message: log it and drop it.
        log.error("dropping a malformed match result: %s", err)
        return
    match_result_record(result=parsed)


@shared_task(name=TASK_MATCH_STARTED, acks_late=True, ignore_result=True)
def record_match_started(match_id: str) -> None:
    """The runner began playing a match: queued -> running (never moves a match back)."""
    match_mark_running(match_id=match_id)


@shared_task(name=TASK_MATCHES_RESEND_STALLED, acks_late=True, ignore_result=True)
def resend_stalled_matches() -> int:
    """Beat's safety net: a match whose message was lost goes to the runner again."""
    return len(matches_resend_stalled())


@shared_task(name=TASK_MATCHES_REAP_OVERDUE, acks_late=True, ignore_result=True)
def reap_overdue_matches() -> int:
    """Beat, every minute: a running match past its deadline is sent again, then failed."""
    return len(matches_reap_overdue())


@shared_task(name=TASK_SEAT_LOGS_PRUNE, acks_late=True, ignore_result=True)
def prune_seat_logs() -> int:
    """Beat, hourly: the bots' logs of old matches go (`seat_logs_prune`)."""
    return seat_logs_prune()
