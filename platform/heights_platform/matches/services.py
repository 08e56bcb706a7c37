"""Writes of the matches app: create and enqueue matches, record their results.

- A match and its seats are created in one transaction; the `MatchSpec` is sent to the
  runner (by task name, task id = match id) only once that transaction commits.
- Seeds come from `secrets` unless the caller gives one (tournaments derive theirs). The
  platform's `seed_commitment` is `sha256(f"rolling-heights-seed-v1:{seed}".encode())`
  in hex, published at creation; the seed itself is shown once the match has finished.
  (The engine service publishes its own salted commitment; that one is not stored.)
- `match_result_record` is idempotent: an unknown match is logged and dropped, a match
  already finished or failed is left as it is. Results are recorded one at a time (a
  transaction-scoped advisory lock on PostgreSQL; SQLite serialises writers anyway), so
  `finished_seq` is `max + 1`, unique, and follows commit order: ladder ratings apply in
  `finished_seq` order because they are applied in the same transaction.
  `match_results_record` records a batch the same way in one transaction and rates each
  ladder's new results together at its end.
"""

from __future__ import annotations

import hashlib
import logging
import secrets
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, cast

from django.contrib.auth.models import User
from django.db import connection, transaction
from django.db.models import Max, Q
from django.utils import timezone
from kombu.exceptions import OperationalError

from heights_platform.bots.models import BotVersion
from heights_platform.common.errors import ApiError
from heights_platform.ladders.models import Ladder
from heights_platform.matches.models import Match, MatchSeat, SeatLog
from heights_platform.replays.models import Replay, ReplayCheckpoint
from heights_runner.contract import (
    INFRASTRUCTURE_FAILURE,
    QUEUE_MATCHES,
    TASK_PLAY_MATCH,
    BotRef,
    FileKind,
    MatchResult,
    MatchSpec,
    SeatResult,
    SeatSpec,
    TimeLimits,
    log_tail,
)

log = logging.getLogger(__name__)

SEED_LIMIT = 2**63  # Match.seed is a signed 64-bit column; replays accept [0, 2**64)
_COMMITMENT_PREFIX = "rolling-heights-seed-v1:"
# Any constant: the key of the advisory lock that serialises result recording.
_RESULTS_LOCK_KEY = 0x52484152  # "RHAR"
MIN_PLAYERS, MAX_PLAYERS = 2, 4


def seed_commitment(seed: int) -> str:
    """The platform's commitment to a match seed (see the module docstring)."""
    return hashlib.sha256(f"{_COMMITMENT_PREFIX}{seed}".encode()).hexdigest()


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


def match_create(
    *,
    kind: str,
    seats: Sequence[BotVersion],
    players: int,
    options: dict[str, Any],
    catalogue: str = "reconstructed-v1",
    ladder: Ladder | None = None,
    tournament: Any = None,
    tournament_round: int | None = None,
    duplicate_group: uuid.UUID | None = None,
    seed: int | None = None,
    created_by: User | None = None,
) -> Match:
    """Create a match and its seats (seat i plays `seats[i]`); enqueue it after commit."""
    if kind not in Match.Kind.values:
        raise ApiError("invalid", f"unknown match kind {kind!r}")
    if len(seats) != players:
        raise ApiError("invalid", f"{players} player(s) need {players} seat(s), got {len(seats)}")
    solo = players == 1
    if not solo and not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise ApiError("invalid", "a match has 2 to 4 players (or 1 in solo)")
    if seed is None:
        seed = secrets.randbelow(SEED_LIMIT)
    elif not 0 <= seed < SEED_LIMIT:
        raise ApiError("invalid", f"a seed is an integer in [0, 2**63), not {seed}")
    with transaction.atomic():
        match = Match.objects.create(
            kind=kind,
            ladder=ladder,
            tournament=tournament,
            tournament_round=tournament_round,
            duplicate_group=duplicate_group,
            created_by=created_by,
            players=players,
            solo=solo,
            options=dict(options),
            catalogue=catalogue,
            seed=seed,
            seed_commitment=seed_commitment(seed),
        )
        MatchSeat.objects.bulk_create(
            [MatchSeat(match=match, seat=i, bot_version=v) for i, v in enumerate(seats)]
        )
        # robust: a broker outage must not undo or fail the caller's request; the match
        # stays queued (logged) and can be re-sent with `match_enqueue`.
        transaction.on_commit(lambda: match_enqueue(match=match), robust=True)
    return match


def match_create_for_qualification(*, version: BotVersion) -> Match:
    """A 2-player game of `version` (seat 0) against the built-in random bot (seat 1)."""
    from heights_platform.bots.services import builtin_bots_ensure

    opponent = builtin_bots_ensure()["random"]
    return match_create(
        kind=Match.Kind.QUALIFICATION,
        seats=[version, opponent],
        players=2,
        options={},
        created_by=version.bot.owner,
    )


def _options_check(*, options: dict[str, Any], catalogue: str) -> None:
    from heights_rules.catalogue import load_catalogue
    from heights_rules.options import RuleOptions

    try:
        RuleOptions.from_dict(options)
    except (ValueError, TypeError, KeyError) as err:
        message = f"invalid rule options: {err}"
        raise ApiError("invalid", message, {"fields": {"options": [message]}}) from None
    try:
        load_catalogue(catalogue)
    except (ValueError, KeyError, OSError) as err:
        message = f"unknown catalogue {catalogue!r}: {err}"
        raise ApiError("invalid", message, {"fields": {"catalogue": [message]}}) from None


def challenge_create(
    *,
    user: User,
    bot_version: BotVersion,
    opponents: Sequence[BotVersion],
    options: dict[str, Any] | None = None,
    catalogue: str = "reconstructed-v1",
) -> Match:
    """An unrated match of the user's bot version (seat 0) against active opponents."""
    if bot_version.bot.owner_id != user.pk:
        raise ApiError("permission_denied", "only the bot's owner may challenge with it")
    if bot_version.status == BotVersion.Status.REJECTED:
        raise ApiError("conflict", "a rejected version cannot play")
    inactive = [v.pk for v in opponents if v.status != BotVersion.Status.ACTIVE]
    if inactive:
        raise ApiError("conflict", "opponents must be active versions", {"versions": inactive})
    players = 1 + len(opponents)
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise ApiError("invalid", "a challenge has 1 to 3 opponents")
    _options_check(options=options or {}, catalogue=catalogue)
    return match_create(
        kind=Match.Kind.CHALLENGE,
        seats=[bot_version, *opponents],
        players=players,
        options=options or {},
        catalogue=catalogue,
        created_by=user,
    )


def _results_lock() -> None:
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [_RESULTS_LOCK_KEY])


def _next_finished_seq() -> int:
    latest = Match.objects.aggregate(n=Max("finished_seq"))["n"]
    return (latest or 0) + 1


@dataclass(frozen=True, slots=True)
class _CheckedReplay:
    data: bytes
    steps: int
    checkpoints: list[tuple[int, bytes]]  # replays.stepping.checkpoints_of


def _replay_check(*, match: Match, result: MatchResult) -> _CheckedReplay:
    """The replay as received, its step count and its checkpoints; ValueError if they do
    not hold. Writes nothing: it runs before the results lock is taken, as the
    simulation for the checkpoints is the costliest part of recording a result."""
    from heights_platform.replays.stepping import checkpoints_of
    from heights_rules.errors import ReplayError
    from heights_rules.replay import Replay as ReplayRecord

    blob = result.replay_bytes()  # checks replay_sha256
    try:
        record = ReplayRecord.from_bytes(blob)
    except ReplayError as err:
        raise ValueError(f"unreadable replay: {err}") from None
    if result.seed != match.seed or record.seed != match.seed:
        raise ValueError("the result was played with another seed than the match's")
    if record.config.players != match.players or len(record.seats) != match.players:
        raise ValueError(f"the replay has {record.config.players} players, not {match.players}")
    try:
        checkpoints = checkpoints_of(record)
    except ReplayError as err:
        # Verification (replays.selectors.replay_verify) reports such a replay; the result
        # stands as the runner played it, and its steps are simulated from the start.
        log.warning("match %s: replay does not simulate, no checkpoints: %s", match.pk, err)
        checkpoints = []
    return _CheckedReplay(blob, len(record.actions), checkpoints)


def _seats_record(*, match: Match, results: Sequence[SeatResult]) -> None:
    from heights_rules.outcome import players_ranked

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
            row.forfeit_detail = r.forfeit.detail[:2000]
    # One UPDATE a seat: bulk_update's CASE expressions cost far more Python than four rows.
    for row in seats.values():
        MatchSeat.objects.filter(pk=row.pk).update(
            rank=row.rank,
            score=row.score,
            moves=row.moves,
            think_ms=row.think_ms,
            max_move_ms=row.max_move_ms,
            forfeit_reason=row.forfeit_reason,
            forfeit_step=row.forfeit_step,
            forfeit_detail=row.forfeit_detail,
        )
    # Bounded again (a runner of another version may send more); PostgreSQL text holds
    # no NUL, and a bot may write anything.
    logs = [
        SeatLog(seat=seats[r.seat], text=log_tail(r.log).replace("\x00", "\ufffd"))
        for r in results
        if r.log
    ]
    SeatLog.objects.bulk_create(logs)


def _finish(*, match: Match, result: MatchResult, replay: _CheckedReplay | ValueError) -> None:
    """Write the outcome of a `finished` result; ValueError when it does not hold."""
    if isinstance(replay, ValueError):
        raise replay
    _seats_record(match=match, results=result.seats)
    row = Replay.objects.create(
        match=match,
        data=replay.data,
        sha256=result.replay_sha256,
        size=len(replay.data),
        steps=replay.steps,
    )
    ReplayCheckpoint.objects.bulk_create(
        [ReplayCheckpoint(replay=row, step=step, state=state) for step, state in replay.checkpoints]
    )
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
    updated = Match.objects.filter(pk=match_id, status=Match.Status.QUEUED).update(
        status=Match.Status.RUNNING, started_at=timezone.now()
    )
    return bool(updated)


def match_result_record(*, result: MatchResult) -> Match | None:
    """Record a runner's result exactly once, then rate and notify (see module docstring)."""
    with transaction.atomic():
        return _result_record(result=result, rate=True)


def match_results_record(*, results: Sequence[MatchResult]) -> list[Match | None]:
    """Record many results in one transaction (a drained queue, an import): each as
    `match_result_record` does, in the order given, then each ladder's new results
    rated at once by `ladders.services.ratings_apply_pending`: the same ratings, in
    the same match order, from a few bulk queries instead of ten or so per result.

    The results lock is held from the first result to the commit, so results recorded
    meanwhile elsewhere wait and `finished_seq` still follows commit order."""
    from heights_platform.ladders.services import ratings_apply_pending

    with transaction.atomic():
        recorded = [_result_record(result=r, rate=False) for r in results]
        rated = {
            m.ladder_id
            for m in recorded
            if m is not None and m.kind == Match.Kind.LADDER and m.ladder_id is not None
        }
        for ladder in Ladder.objects.filter(pk__in=rated).order_by("pk"):
            ratings_apply_pending(ladder=ladder)
    return recorded


def _result_record(*, result: MatchResult, rate: bool) -> Match | None:
    """One result, inside the caller's transaction; ladder ratings only when `rate`."""
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
    replay: _CheckedReplay | ValueError = ValueError("no replay")
    if result.status == "finished":
        try:
            replay = _replay_check(match=match, result=result)
        except ValueError as err:
            replay = err
    _results_lock()
    now = timezone.now()
    error = result.error
    if result.status == "finished":
        try:
            with transaction.atomic():  # a bad result leaves no half-written rows
                _finish(match=match, result=result, replay=replay)
        except ValueError as err:
            log.error("match %s: result rejected: %s", match_id, err)
            error = f"result rejected: {err}"
    if match.status != Match.Status.FINISHED:
        match.status = Match.Status.FAILED
        match.error = error or "the match failed"
    match.finished_at = now
    match.started_at = now - timedelta(seconds=max(0.0, result.seconds))
    match.finished_seq = _next_finished_seq()
    match.save()
    _after_record(match=match, rate=rate)
    return match


def _after_record(*, match: Match, rate: bool = True) -> None:
    """Ratings and the hooks of the apps that asked for this match; same transaction."""
    if match.kind == Match.Kind.LADDER and match.status == Match.Status.FINISHED:
        if not rate:
            return  # the batch rates its ladders once all its results are in
        from heights_platform.ladders.services import ratings_apply

        ratings_apply(match=match)
    elif match.kind == Match.Kind.QUALIFICATION:
        _qualification_finished(match=match)
    elif match.kind == Match.Kind.TOURNAMENT:
        try:
            from heights_platform.tournaments.services import tournament_match_finished
        except ImportError:  # pragma: no cover - the tournaments app is being written
            log.warning("tournaments hook unavailable; match %s not reported", match.pk)
            return
        tournament_match_finished(match=match)


# An infrastructure failure is never the bot's: its qualification is played again, up to
# this many times in all, before the version is turned down (with the failure named).
QUALIFICATION_ATTEMPTS = 3


def _qualification_finished(*, match: Match) -> None:
    from heights_platform.bots.services import bot_version_qualification_finished

    seat = MatchSeat.objects.select_related("bot_version").get(match=match, seat=0)
    if match.status != Match.Status.FINISHED and _qualification_again(match=match, seat=seat):
        return
    if match.status != Match.Status.FINISHED:
        passed, error = False, f"the qualification game failed: {match.error}"
    elif seat.forfeit_reason:
        passed = False
        error = f"forfeit ({seat.forfeit_reason}) at step {seat.forfeit_step}: "
        error += seat.forfeit_detail
    else:
        passed, error = True, ""
    bot_version_qualification_finished(
        version=seat.bot_version, match=match, passed=passed, error=error
    )


def _qualification_again(*, match: Match, seat: MatchSeat) -> bool:
    """After an infrastructure failure, a new qualification match (while attempts last)."""
    if not match.error.startswith(INFRASTRUCTURE_FAILURE):
        return False
    failed = Match.objects.filter(
        kind=Match.Kind.QUALIFICATION,
        status=Match.Status.FAILED,
        seats__seat=0,
        seats__bot_version=seat.bot_version,
    ).count()
    if failed >= QUALIFICATION_ATTEMPTS:
        return False
    version = seat.bot_version
    if version.status != BotVersion.Status.QUALIFYING or version.qualification_match_id not in (
        None,
        match.pk,
    ):
        return False  # decided already, or another qualification stands: nothing to redo
    log.warning("qualification match %s failed (%s); playing it again", match.pk, match.error)
    again = match_create_for_qualification(version=version)
    # The version's result now comes from the new match (a result of the old is stale).
    BotVersion.objects.filter(pk=version.pk).update(qualification_match=again)
    return True


def seat_logs_prune(*, now: datetime | None = None) -> int:
    """Delete the bots' logs of matches that finished over HEIGHTS_SEAT_LOG_DAYS ago; how
    many. Logs are for debugging recent games: kept forever they would grow with every
    match, by up to four seats' worth of whatever the bots chose to write."""
    from django.conf import settings

    before = (now or timezone.now()) - timedelta(days=settings.HEIGHTS_SEAT_LOG_DAYS)
    deleted, _ = SeatLog.objects.filter(seat__match__finished_at__lt=before).delete()
    if deleted:
        log.info("deleted %d bot logs of matches finished before %s", deleted, before)
    return deleted
