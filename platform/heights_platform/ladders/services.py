"""Writes of the ladders app: ladders, entries, rating updates and matchmaking.

Ratings (`ratings_apply`) are applied once per match (RatingChange is unique per entry
and match) in match order. Match order is `Match.finished_seq`, assigned when the result
is recorded; results are recorded one at a time and a ladder match's ratings are applied
in that same transaction, so the order of application is the order of `finished_seq`.
`ratings_apply` refuses (logs, changes nothing) a match older than one already applied
on its ladder, which only a manual call could attempt.

Both models update from the pre-match ratings of every seat: Elo by pairwise
decomposition (`competition.elo`, K = 32 split over the N - 1 opponents) and
Plackett-Luce (`competition.plackett_luce`). A forfeiting seat is ranked last by the
runner already; ranks are taken as recorded.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import timedelta
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from heights_platform.bots.models import Bot, BotVersion
from heights_platform.common.errors import ApiError
from heights_platform.competition.elo import elo_update
from heights_platform.competition.plackett_luce import Rating, pl_update
from heights_platform.ladders import matchmaking
from heights_platform.ladders.models import Ladder, LadderEntry, RatingChange
from heights_platform.matches.models import Match, MatchSeat

log = logging.getLogger(__name__)

MIN_PLAYERS, MAX_PLAYERS = 2, 4
DEFAULT_IN_FLIGHT = 2  # ladder matches queued or running at once, per ladder
# A match queued this long is presumed lost (broker outage, runner crash): it no longer
# holds a slot, so one lost message cannot stop a ladder. Its result still counts if late.
STALE_AFTER = timedelta(hours=1)


def _invalid(field: str, message: str) -> ApiError:
    return ApiError("invalid", message, {"fields": {field: [message]}})


def ladder_create(
    *,
    slug: str,
    name: str,
    players: int,
    options: dict[str, Any] | None = None,
    catalogue: str = "reconstructed-v1",
    is_active: bool = True,
) -> Ladder:
    from heights_platform.matches.services import _options_check

    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise _invalid("players", "a ladder has 2 to 4 players per game")
    _options_check(options=options or {}, catalogue=catalogue)
    try:
        with transaction.atomic():
            return Ladder.objects.create(
                slug=slug,
                name=name,
                players=players,
                options=options or {},
                catalogue=catalogue,
                is_active=is_active,
            )
    except IntegrityError:
        raise ApiError("conflict", f"a ladder {slug!r} exists", {"field": "slug"}) from None


def ladder_join(*, ladder: Ladder, bot: Bot) -> tuple[LadderEntry, bool]:
    """Put `bot` on `ladder` (the caller checked ownership); (entry, created). Idempotent."""
    if not ladder.is_active:
        raise ApiError("conflict", f"ladder {ladder.slug!r} is closed")
    active = bot.active_version
    if active is None or active.status != BotVersion.Status.ACTIVE:
        raise ApiError("conflict", "the bot has no active version: it must pass qualification")
    try:
        with transaction.atomic():
            entry, created = LadderEntry.objects.get_or_create(
                ladder=ladder, bot=bot, defaults={"seat_counts": [0] * ladder.players}
            )
    except IntegrityError:  # a concurrent join won
        entry, created = LadderEntry.objects.get(ladder=ladder, bot=bot), False
    return entry, created


def ratings_apply(*, match: Match) -> list[RatingChange]:
    """Apply a finished ladder match's ratings exactly once, in match order."""
    if (
        match.kind != Match.Kind.LADDER
        or match.status != Match.Status.FINISHED
        or match.ladder_id is None
        or match.finished_seq is None
    ):
        return []
    with transaction.atomic():
        # The ladder's row is the lock that keeps its ratings in match order.
        ladder = Ladder.objects.select_for_update().only("pk", "rated_seq")
        rated_seq = ladder.get(pk=match.ladder_id).rated_seq
        if RatingChange.objects.filter(match=match).exists():
            return []  # already applied
        if rated_seq is not None and rated_seq > match.finished_seq:
            log.error("match %s: a later match of its ladder is rated; not applied", match.pk)
            return []
        seats = list(
            MatchSeat.objects.filter(match=match).select_related("bot_version").order_by("seat")
        )
        if any(s.rank is None for s in seats) or len(seats) < MIN_PLAYERS:
            log.error("match %s: ranks missing; ratings not applied", match.pk)
            return []
        bot_ids = [s.bot_version.bot_id for s in seats]
        if len(set(bot_ids)) != len(bot_ids):
            log.error("match %s: one bot holds two seats; ratings not applied", match.pk)
            return []
        locked = LadderEntry.objects.select_for_update().filter(
            ladder_id=match.ladder_id, bot_id__in=bot_ids
        )
        by_bot = {e.bot_id: e for e in locked.order_by("pk")}
        missing = [b for b in bot_ids if b not in by_bot]
        if missing:  # a bot seated before it joined: it joins now (rarely: one query else)
            LadderEntry.objects.bulk_create(
                [LadderEntry(ladder_id=match.ladder_id, bot_id=b) for b in missing],
                ignore_conflicts=True,
            )
            by_bot = {e.bot_id: e for e in locked.all().order_by("pk")}
        entries = {s.seat: by_bot[s.bot_version.bot_id] for s in seats}
        ranks = {s.seat: int(s.rank or 0) for s in seats}
        changes = _ratings_write(match=match, entries=entries, ranks=ranks)
        Ladder.objects.filter(pk=match.ladder_id).update(rated_seq=match.finished_seq)
        return changes


def _ratings_write(
    *, match: Match, entries: dict[int, LadderEntry], ranks: dict[int, int]
) -> list[RatingChange]:
    elo = elo_update({s: e.elo for s, e in entries.items()}, ranks)
    elo_after = elo.ratings_after()
    pl = pl_update({s: Rating(mu=e.mu, sigma=e.sigma) for s, e in entries.items()}, ranks)
    winners = sum(1 for r in ranks.values() if r == 1)
    changes = []
    for seat, entry in entries.items():
        changes.append(
            RatingChange(
                entry=entry,
                match=match,
                elo_before=entry.elo,
                elo_after=elo_after[seat],
                mu_before=entry.mu,
                mu_after=pl[seat].mu,
                sigma_before=entry.sigma,
                sigma_after=pl[seat].sigma,
                rank=ranks[seat],
            )
        )
        entry.elo, entry.mu, entry.sigma = elo_after[seat], pl[seat].mu, pl[seat].sigma
        entry.games += 1
        if ranks[seat] == 1:
            entry.wins += 1.0 / winners
        counts = list(entry.seat_counts or [])
        counts += [0] * (seat + 1 - len(counts))
        counts[seat] += 1
        entry.seat_counts = counts
        entry.last_match_at = match.finished_at or timezone.now()
    # One UPDATE a row: bulk_update's CASE expressions cost ~18 ms of Python per match
    # (measured with `heights bench-ratings`), four plain UPDATEs well under a millisecond.
    for entry in entries.values():
        LadderEntry.objects.filter(pk=entry.pk).update(
            elo=entry.elo,
            mu=entry.mu,
            sigma=entry.sigma,
            games=entry.games,
            wins=entry.wins,
            seat_counts=entry.seat_counts,
            last_match_at=entry.last_match_at,
        )
    return RatingChange.objects.bulk_create(changes)


def _in_flight_limit() -> int:
    from django.conf import settings

    return int(getattr(settings, "HEIGHTS_LADDER_MATCHES_IN_FLIGHT", DEFAULT_IN_FLIGHT))


def ladder_matchmake(*, ladder: Ladder, limit: int | None = None) -> list[Match]:
    """Create ladder matches up to the in-flight cap (see `ladders.matchmaking`)."""
    from heights_platform.matches.services import match_create

    cap = _in_flight_limit() if limit is None else limit
    with transaction.atomic():
        # One matchmaker per ladder at a time: overlapping beat ticks must not double up.
        locked = Ladder.objects.select_for_update().filter(pk=ladder.pk, is_active=True).first()
        if locked is None:
            return []
        busy = Match.objects.filter(
            ladder=locked,
            status__in=[Match.Status.QUEUED, Match.Status.RUNNING],
            created_at__gt=timezone.now() - STALE_AFTER,
        )
        slots = cap - busy.count()
        if slots <= 0:
            return []
        busy_bots = set(busy.values_list("seats__bot_version__bot_id", flat=True))
        entries = [
            e
            for e in LadderEntry.objects.filter(
                ladder=locked, bot__active_version__status=BotVersion.Status.ACTIVE
            ).select_related("bot__active_version")
            if e.bot_id not in busy_bots
        ]
        games = matchmaking.games_pick(
            candidates=[matchmaking.candidate(e) for e in entries],
            players=locked.players,
            games=slots,
            # Ties between equally urgent bots: a fresh order each tick, reproducible from
            # the ladder and the number of its matches.
            seed=locked.pk * 1_000_003 + Match.objects.filter(ladder=locked).count(),
        )
        versions = {e.pk: e.bot.active_version for e in entries}
        return [
            match_create(
                kind=Match.Kind.LADDER,
                seats=_versions(versions, game),
                players=locked.players,
                options=locked.options,
                catalogue=locked.catalogue,
                ladder=locked,
            )
            for game in games
        ]


def _versions(versions: dict[int, BotVersion | None], game: Sequence[int]) -> list[BotVersion]:
    out = []
    for entry_id in game:
        version = versions[entry_id]
        assert version is not None  # filtered on an active version above
        out.append(version)
    return out


def ladders_matchmake() -> int:
    """Matchmake every active ladder (beat); returns how many matches were created."""
    return sum(
        len(ladder_matchmake(ladder=ladder)) for ladder in Ladder.objects.filter(is_active=True)
    )
