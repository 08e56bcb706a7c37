"""Sending matches to the runner: the `MatchSpec` message, by task name, and again
when one has waited too long. The task id is the match id (the idempotency key)."""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import cast

from django.db.models import Q
from django.utils import timezone
from kombu.exceptions import OperationalError

from heights_platform.bots.models import BotVersion
from heights_platform.matches.models import Match, MatchSeat
from heights_runner.contract import (
    QUEUE_MATCHES,
    TASK_PLAY_MATCH,
    BotRef,
    FileKind,
    MatchSpec,
    SeatSpec,
    TimeLimits,
)

log = logging.getLogger(__name__)


def seat_name(version: BotVersion) -> str:
    return seat_label(version.bot.owner.username, version.bot.name, version.number)


def seat_label(owner: str, bot: str, version: int) -> str:
    """How a seat is named in results and replays: `owner/bot vN`."""
    return f"{owner}/{bot} v{version}"


def _seat_spec(version: BotVersion) -> SeatSpec:
    if version.kind == BotVersion.Kind.BUILTIN:
        return SeatSpec(seat_name(version), BotRef.builtin(version.filename), trusted=True)
    kind = cast(FileKind, version.kind)  # a file's kind is its suffix, or "zip"
    ref = BotRef.from_bytes(kind, version.filename, bytes(version.content))
    return SeatSpec(seat_name(version), ref, trusted=False)


def match_spec(*, match: Match) -> MatchSpec:
    """The message the runner plays from (bot bytes included)."""
    seats = (
        MatchSeat.objects.filter(match=match)
        .select_related("bot_version__bot__owner")
        .order_by("seat")
    )
    return MatchSpec(
        match_id=str(match.pk),
        seed=match.seed,
        seats=tuple(_seat_spec(s.bot_version) for s in seats),
        solo=match.solo,
        options=dict(match.options),
        catalogue=match.catalogue,
        limits=match_limits(match=match),
    )


def match_limits(*, match: Match) -> TimeLimits:
    """The time limits the match is played with (today the same for every match); the
    reaper derives the match's deadline from them (`matches.reaping`)."""
    return TimeLimits()


def match_enqueue(*, match: Match) -> None:
    """Send the match to the runner; the task id is the match id (the idempotency key)."""
    from heights_platform.celery_app import app

    spec = match_spec(match=match)
    app.send_task(
        TASK_PLAY_MATCH, args=[spec.to_dict()], queue=QUEUE_MATCHES, task_id=str(match.pk)
    )
    Match.objects.filter(pk=match.pk).update(sent_at=timezone.now())


# How long a queued match may wait for the runner before it is sent again: one whose
# message never reached the broker (an outage at creation) goes again after a minute; one
# that was sent, after six hours queued (a message lost by the broker; a shorter wait
# would copy a long but healthy backlog). A running match past its deadline is the
# reaper's (`matches.reaping.matches_reap_overdue`).
# Re-sending is harmless: the task id is the match id, the runner's ledger re-sends a
# known result instead of playing again, and recording a result is idempotent.
RESEND_UNSENT_AFTER = timedelta(minutes=1)
RESEND_QUEUED_AFTER = timedelta(hours=6)


def matches_resend_stalled(
    *,
    unsent_after: timedelta = RESEND_UNSENT_AFTER,
    queued_after: timedelta = RESEND_QUEUED_AFTER,
    limit: int = 500,
) -> list[Match]:
    """Send again the queued matches that have waited too long for the runner (oldest first).

    A match is sent again at most once per period: `sent_at` moves on with each send.
    A broker that is still away raises; what was sent before it stays sent. A match
    that cannot be sent for another reason is logged and skipped.
    """
    now = timezone.now()
    never_sent = Q(sent_at__isnull=True, created_at__lt=now - unsent_after)
    queued = Q(status=Match.Status.QUEUED) & (never_sent | Q(sent_at__lt=now - queued_after))
    stalled = list(Match.objects.filter(queued).order_by("created_at")[:limit])
    return [match for match in stalled if match_send_again(match=match)]


def match_send_again(*, match: Match) -> bool:
    """`match_enqueue`, logged; False when the match's spec cannot be built (logged).
    A broker that is away raises: the next tick tries again."""
    log.warning(
        "sending match %s again (%s since %s)",
        match.pk,
        match.status,
        match.sent_at or match.created_at,
    )
    try:
        match_enqueue(match=match)
    except OperationalError:
        raise
    except Exception:
        # One match that cannot be sent (its spec broken) must not hold up the rest.
        log.exception("could not send match %s again", match.pk)
        return False
    return True
