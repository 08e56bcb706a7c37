"""The reaper: every running match ends, even when its runner, its message or its result
was lost.

A match's deadline comes from the runner's contract (`match_deadline_seconds`: start-up,
every seat's whole-game thinking budget, the longest game, the runner's retries), counted
from when it was last handed to a runner (`started_at`, or `sent_at` once sent again),
plus `RESULT_GRACE_S` for a result on its way. Past it, a running match is sent again
once (the embedded file broker never redelivers a message whose worker died; the runner's
ledger re-sends a result it stored but could not send); past its deadline again, it is
recorded as an infrastructure failure: no forfeit, not rated, the error shown to the
bots' owners. Recording goes through `match_result_record`, so a late result and the
reaper cannot both count: whichever locks the match row first is the one recorded.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal

from django.db.models import Q
from django.utils import timezone

from heights_platform.matches.models import Match
from heights_platform.matches.services import (
    match_limits,
    match_result_record,
    match_send_again,
)
from heights_runner.contract import (
    INFRASTRUCTURE_FAILURE,
    RESULT_GRACE_S,
    RETRY_WINDOW_S,
    BotRef,
    MatchResult,
    MatchSpec,
    SeatSpec,
    match_deadline_seconds,
)

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Reaped:
    match_id: str
    action: Literal["sent_again", "failed"]


def match_deadline_s(*, match: Match) -> float:
    """Seconds after the match was handed to a runner by which its result is due."""
    # Only the seat count and the limits count: the bots' bytes are not loaded.
    seats = tuple(SeatSpec(f"seat{i}", BotRef.builtin("random")) for i in range(match.players))
    limits = match_limits(match=match)
    spec = MatchSpec(str(match.pk), match.seed, seats, solo=match.solo, limits=limits)
    return match_deadline_seconds(spec) + RESULT_GRACE_S


def _handed_at(match: Match) -> datetime | None:
    times = [t for t in (match.started_at, match.sent_at) if t is not None]
    return max(times) if times else None


def _sent_again(match: Match) -> bool:
    """Whether the match was sent again after it started (the reaper's first step)."""
    return (
        match.sent_at is not None
        and match.started_at is not None
        and match.sent_at > match.started_at
    )


def matches_reap_overdue(*, now: datetime | None = None, limit: int = 500) -> list[Reaped]:
    """Send again, or fail, every running match past its deadline (oldest first)."""
    now = now or timezone.now()
    # No deadline is shorter than the runner's retry window: a cheap first cut.
    earliest = now - timedelta(seconds=RETRY_WINDOW_S)
    candidates = (
        Match.objects.filter(status=Match.Status.RUNNING)
        .filter(Q(started_at__lt=earliest) | Q(started_at__isnull=True))
        .defer("options")
        .order_by("started_at")[:limit]
    )
    reaped = []
    for match in candidates:
        handed = _handed_at(match)
        deadline_s = match_deadline_s(match=match)
        if handed is not None and handed + timedelta(seconds=deadline_s) > now:
            continue
        if not _sent_again(match):
            if match_send_again(match=match):
                reaped.append(Reaped(str(match.pk), "sent_again"))
            continue
        if _fail(match, deadline_s, now):
            reaped.append(Reaped(str(match.pk), "failed"))
    return reaped


def _fail(match: Match, deadline_s: float, now: datetime) -> bool:
    """Record the match as an infrastructure failure, unless a result got there first."""
    started = match.started_at or match.sent_at or match.created_at
    error = (
        f"{INFRASTRUCTURE_FAILURE}no result within the match's deadline ({deadline_s:.0f} s), "
        "after it was sent again"
    )
    result = MatchResult(
        str(match.pk),
        "failed",
        match.seed,
        "",
        error=error,
        seconds=max(0.0, (now - started).total_seconds()),
    )
    recorded = match_result_record(result=result)
    failed = recorded is not None and recorded.error == error
    if failed:
        log.error("match %s failed: %s", match.pk, error)
    return failed
