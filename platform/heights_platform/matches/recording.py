"""Recording a runner's result exactly once, then telling the apps above (`signals`).

`match_result_record` is idempotent: an unknown match is logged and dropped, a match
already finished or failed is left as it is. Results are recorded one at a time (a
transaction-scoped advisory lock on PostgreSQL; SQLite serialises writers anyway), so
`finished_seq` is `max + 1`, unique, and follows commit order: ladder ratings apply in
`finished_seq` order because they are applied in the same transaction (the ladders
app's receiver of `match_recorded`). `match_results_record` records a batch the same
way in one transaction and sends `results_recorded` at its end.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Max
from django.utils import timezone

from heights_platform.bots.services import bot_pages_changed
from heights_platform.common import metrics
from heights_platform.common.rows import rows_update
from heights_platform.matches.models import Match, MatchSeat, SeatLog
from heights_platform.matches.signals import match_recorded, replay_received, results_recorded
from heights_rules import Replay as ReplayRecord
from heights_rules import ReplayError, players_ranked
from heights_runner.contract import MatchResult, SeatResult, log_tail

log = logging.getLogger(__name__)

# Any constant: the key of the advisory lock that serialises result recording.
_RESULTS_LOCK_KEY = 0x52484152  # "RHAR"


def _results_lock() -> None:
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [_RESULTS_LOCK_KEY])


def _next_finished_seq() -> int:
    latest = Match.objects.aggregate(n=Max("finished_seq"))["n"]
    return (latest or 0) + 1


# A write that a receiver of `replay_received` prepared, run in the recording transaction.
_ReplayWrite = Callable[[], None]


def _replay_check(*, match: Match, result: MatchResult) -> list[_ReplayWrite]:
    """The replay as received, checked against the match, and what the apps that keep
    replays prepared to write; ValueError if it does not hold. Writes nothing: it runs
    before the results lock is taken, as the replays app's simulation for its
    checkpoints is the costliest part of recording a result."""
    blob = result.replay_bytes()  # checks replay_sha256
    try:
        record = ReplayRecord.from_bytes(blob)
    except ReplayError as err:
        raise ValueError(f"unreadable replay: {err}") from None
    if result.seed != match.seed or record.seed != match.seed:
        raise ValueError("the result was played with another seed than the match's")
    if record.config.players != match.players or len(record.seats) != match.players:
        raise ValueError(f"the replay has {record.config.players} players, not {match.players}")
    # Django's stubs type a receiver's response as a string; ours return their writes.
    prepared: Sequence[tuple[object, Any]] = replay_received.send(
        sender=Match, match=match, record=record, data=blob, sha256=result.replay_sha256
    )
    return [write for _, write in prepared if callable(write)]


def _seats_record(*, match: Match, results: Sequence[SeatResult]) -> None:
    seats = {s.seat: s for s in MatchSeat.objects.filter(match=match)}
    if sorted(seats) != sorted(r.seat for r in results):
        raise ValueError(f"result seats {[r.seat for r in results]} do not match the match's")
    ranked = players_ranked(len(results), solo=match.solo)  # a solo bot the Mayor beats is 2nd
    if any(not 1 <= r.rank <= ranked for r in results):
        raise ValueError(f"ranks {[r.rank for r in results]} are not in 1..{ranked}")
    for r in results:
        row = seats[r.seat]
        row.rank = r.rank
        row.score = r.score
        row.moves = max(0, r.moves)
        row.think_ms = max(0, r.think_ms)
        row.max_move_ms = max(0, r.max_move_ms)
        if r.forfeit is not None:
            row.forfeit_reason = r.forfeit.reason[:16]
            row.forfeit_step = r.forfeit.step
            # A crash's detail quotes the bot's last stderr line: any bytes it wrote.
            row.forfeit_detail = _pg_text(r.forfeit.detail[:2000])
    rows_update(
        MatchSeat,
        seats.values(),
        (
            "rank",
            "score",
            "moves",
            "think_ms",
            "max_move_ms",
            "forfeit_reason",
            "forfeit_step",
            "forfeit_detail",
        ),
    )
    # Bounded again (a runner of another version may send more).
    logs = [SeatLog(seat=seats[r.seat], text=_pg_text(log_tail(r.log))) for r in results if r.log]
    SeatLog.objects.bulk_create(logs)


def _pg_text(text: str) -> str:
    """`text` as PostgreSQL text holds it (no NUL): a bot may write anything."""
    return text.replace("\x00", "\ufffd")


def _finish(*, match: Match, result: MatchResult, replay_writes: list[_ReplayWrite]) -> None:
    """Write the outcome of a `finished` result; ValueError when it does not hold."""
    _seats_record(match=match, results=result.seats)
    for write in replay_writes:
        write()
    match.status = Match.Status.FINISHED
    match.termination = result.termination[:24]
    match.rounds = result.rounds


def match_mark_running(*, match_id: str) -> bool:
    """queued -> running when the runner starts playing; a no-op in any other state
    (a late or repeated hint never moves a finished match back)."""
    try:
        uuid.UUID(match_id)
    except ValueError:
        log.warning("ignoring a start hint for a malformed match id %r", match_id)
        return False
    with transaction.atomic():
        updated = Match.objects.filter(pk=match_id, status=Match.Status.QUEUED).update(
            status=Match.Status.RUNNING, started_at=timezone.now()
        )
        if updated:
            _seated_pages_changed(match_ids=[match_id])
    return bool(updated)


def _seated_pages_changed(*, match_ids: Sequence[Any]) -> None:
    """The pages of the bots seated in these matches show their status and results."""
    seated = MatchSeat.objects.filter(match_id__in=match_ids)
    bot_pages_changed(bot_ids=seated.values_list("bot_version__bot_id", flat=True))


def match_result_record(*, result: MatchResult) -> Match | None:
    """Record a runner's result exactly once, then rate and notify (see module docstring)."""
    with transaction.atomic():
        match = _result_record(result=result, batch=False)
        if match is not None:
            _seated_pages_changed(match_ids=[match.pk])
        return match


def match_results_record(*, results: Sequence[MatchResult]) -> list[Match | None]:
    """Record many results in one transaction (a drained queue, an import): each as
    `match_result_record` does, in the order given, then `results_recorded` once, with
    all of them: a ladder rates its new results at once (`ratings_apply_pending`), the
    same ratings in the same match order from a few bulk queries instead of ten or so
    per result.

    The results lock is held from the first result to the commit, so results recorded
    meanwhile elsewhere wait and `finished_seq` still follows commit order."""
    with transaction.atomic():
        recorded = [_result_record(result=r, batch=True) for r in results]
        matches = [m for m in recorded if m is not None]
        results_recorded.send(sender=Match, matches=matches)
        _seated_pages_changed(match_ids=[m.pk for m in matches])
    return recorded


def _result_record(*, result: MatchResult, batch: bool) -> Match | None:
    """One result, inside the caller's transaction; `match_recorded` sent with `batch`."""
    try:
        match_id = uuid.UUID(result.match_id)
    except ValueError:
        log.warning("dropping a result for a malformed match id %r", result.match_id)
        return None
    match = Match.objects.select_for_update().filter(pk=match_id).first()
    if match is None:
        log.warning("dropping a result for unknown match %s", match_id)
        return None
    if match.status in (Match.Status.FINISHED, Match.Status.FAILED):
        log.info("match %s already recorded; result ignored", match_id)
        return match
    error = result.error
    replay_writes: list[_ReplayWrite] | None = None
    if result.status == "finished":
        try:
            replay_writes = _replay_check(match=match, result=result)
        except ValueError as err:
            error = _rejected(match, err)
    _results_lock()
    now = timezone.now()
    if replay_writes is not None:
        try:
            with transaction.atomic():  # a bad result leaves no half-written rows
                _finish(match=match, result=result, replay_writes=replay_writes)
        except ValueError as err:
            error = _rejected(match, err)
    if match.status != Match.Status.FINISHED:
        match.status = Match.Status.FAILED
        match.error = _pg_text(error) or "the match failed"
    match.finished_at = now
    match.started_at = now - timedelta(seconds=max(0.0, result.seconds))
    match.finished_seq = _next_finished_seq()
    match.save()
    match_recorded.send(sender=Match, match=match, batch=batch)
    _count_on_commit(match=match, result=result)
    return match


def _count_on_commit(*, match: Match, result: MatchResult) -> None:
    """The result and its forfeits in the platform's metrics, once the transaction commits."""
    finished = match.status == Match.Status.FINISHED
    reasons = [s.forfeit.reason for s in result.seats if finished and s.forfeit is not None]
    match_id, status = str(match.pk), str(match.status)
    transaction.on_commit(
        lambda: metrics.result_count(match_id=match_id, status=status, forfeit_reasons=reasons)
    )


def _rejected(match: Match, err: ValueError) -> str:
    log.error("match %s: result rejected: %s", match.pk, err)
    return f"result rejected: {err}"


def seat_logs_prune(*, now: datetime | None = None) -> int:
    """Delete the bots' logs of matches that finished over HEIGHTS_SEAT_LOG_DAYS ago; how
    many. Logs are for debugging recent games: kept forever they would grow with every
    match, by up to four seats' worth of whatever the bots chose to write."""
    before = (now or timezone.now()) - timedelta(days=settings.HEIGHTS_SEAT_LOG_DAYS)
    deleted, _ = SeatLog.objects.filter(seat__match__finished_at__lt=before).delete()
    if deleted:
        log.info("deleted %d bot logs of matches finished before %s", deleted, before)
    return deleted
