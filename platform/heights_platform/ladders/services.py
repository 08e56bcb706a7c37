"""Writes of the ladders app: ladders, entries, rating updates and matchmaking.

Ratings (`ratings_apply`) are applied once per match (RatingChange is unique per entry
and match) in match order. Match order is `Match.finished_seq`, assigned when the result
is recorded; results are recorded one at a time and a ladder match's ratings are applied
in that same transaction, so the order of application is the order of `finished_seq`.
`ratings_apply` refuses (logs, changes nothing) a match older than one already applied
on its ladder, which only a manual call could attempt.

The batch paths rate many matches in one transaction from bulk reads and writes, through
the same computation, so they give exactly the ratings of the one-at-a-time path:
`ratings_apply_pending` (the ladder's unrated matches after `rated_seq`; what
`matches.services.match_results_record` calls) and `ladder_ratings_recompute` (the whole
history again from the initial ratings, as after a change to the rating models).

Both models update from the pre-match ratings of every seat: Elo by pairwise
decomposition (`competition.elo`, K = 32 split over the N - 1 opponents) and
Plackett-Luce (`competition.plackett_luce`). A forfeiting seat is ranked last by the
runner already; ranks are taken as recorded.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta
from itertools import groupby
from typing import Any

from django.conf import settings
from django.db import IntegrityError, connection, transaction
from django.db.models import Exists, F, OuterRef, QuerySet
from django.utils import timezone

from heights_platform.bots.models import Bot, BotVersion
from heights_platform.bots.services import bot_pages_changed
from heights_platform.common.errors import ApiError
from heights_platform.common.rows import rows_update
from heights_platform.competition.elo import elo_update
from heights_platform.competition.pairing import rotations
from heights_platform.competition.plackett_luce import DEFAULT_MU, DEFAULT_SIGMA, Rating, pl_update
from heights_platform.ladders import matchmaking
from heights_platform.ladders.models import Ladder, LadderEntry, RatingChange
from heights_platform.matches.models import Match, MatchSeat
from heights_platform.matches.services import match_create, options_check
from heights_rules import DEFAULT_CATALOGUE, shared_first_points

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
    catalogue: str = DEFAULT_CATALOGUE,
    is_active: bool = True,
    seed: int | None = None,
) -> Ladder:
    if seed is not None:
        raise _invalid("seed", "a ladder is rated: its match seeds are secret draws, never chosen")
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise _invalid("players", "a ladder has 2 to 4 players per game")
    options_check(options=options or {}, catalogue=catalogue)
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
            if created:
                standings_changed(ladder_ids=[ladder.pk])
                bot_pages_changed(bot_ids=[bot.pk])  # its page lists its ladders
    except IntegrityError:  # a concurrent join won
        entry, created = LadderEntry.objects.get(ladder=ladder, bot=bot), False
    return entry, created


def _next_version() -> Any:
    # + 1 in the UPDATE itself: concurrent bumps never collapse into one.
    return F("standings_version") + 1


def standings_changed(*, ladder_ids: Iterable[int]) -> None:
    """Bump these ladders' `standings_version` (their cached leaderboard pages expire);
    call it in the transaction of any write to what a leaderboard shows."""
    Ladder.objects.filter(pk__in=list(ladder_ids)).update(standings_version=_next_version())


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
        changes = _ratings_compute(
            match_id=match.pk, finished_at=match.finished_at, entries=entries, ranks=ranks
        )
        _entries_write(entries.values())
        Ladder.objects.filter(pk=match.ladder_id).update(
            rated_seq=match.finished_seq, standings_version=_next_version()
        )
        bot_pages_changed(bot_ids=bot_ids)  # their ratings and histories
        return RatingChange.objects.bulk_create(changes)


def _ratings_compute(
    *,
    match_id: Any,
    finished_at: datetime | None,
    entries: dict[int, LadderEntry],
    ranks: dict[int, int],
) -> list[RatingChange]:
    """Rate one match in memory: update `entries` (by seat), return the unsaved changes.

    The one-at-a-time and the batch paths both rate through here, with seats in seat
    order: the floating-point sums run in the same order, so both give identical ratings.
    """
    elo = elo_update({s: e.elo for s, e in entries.items()}, ranks)
    elo_after = elo.ratings_after()
    pl = pl_update({s: Rating(mu=e.mu, sigma=e.sigma) for s, e in entries.items()}, ranks)
    points = dict(zip(ranks, shared_first_points(list(ranks.values())), strict=True))
    changes = []
    for seat, entry in entries.items():
        changes.append(
            RatingChange(
                entry=entry,
                match_id=match_id,
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
        entry.wins += float(points[seat])  # a shared first counts 1/k of a win
        counts = list(entry.seat_counts or [])
        counts += [0] * (seat + 1 - len(counts))
        counts[seat] += 1
        entry.seat_counts = counts
        entry.last_match_at = finished_at or timezone.now()
    return changes


def _entries_write(entries: Iterable[LadderEntry]) -> None:
    rows_update(
        LadderEntry,
        entries,
        ("elo", "mu", "sigma", "games", "wins", "seat_counts", "last_match_at"),
    )


# Matches read and rating changes written per round trip in the batch paths.
BATCH_CHUNK = 2_000


def ratings_apply_pending(*, ladder: Ladder) -> int:
    """Rate, in match order, every finished match of `ladder` after its `rated_seq` that
    has no rating yet, in one transaction; returns how many matches were rated.

    The batch form of `ratings_apply`, with the same checks and the same result (it
    rates through `_ratings_compute`): for results recorded while rating was held back,
    or rated nowhere (a bulk import). Bulk reads and writes: a few queries per
    `BATCH_CHUNK` matches instead of about ten per match.
    """
    with transaction.atomic():
        locked = Ladder.objects.select_for_update().only("pk", "rated_seq", "players")
        row = locked.get(pk=ladder.pk)
        entries = _entries_lock(ladder_id=row.pk)
        return _ratings_batch(ladder=row, after=row.rated_seq, entries=entries, versions=None)


def ladder_ratings_recompute(*, ladder: Ladder) -> int:
    """Rate the ladder's whole history again from the start (after a change to the rating
    models): every entry back to its initial ratings and counters, every rating change
    deleted and re-made in match order; one transaction. Returns the matches rated.

    A new active version resets a bot's sigma when it is activated (`bots.services`); the
    history has no record of that moment, so the reset is placed before the bot's first
    match with a higher version number, which is where it falls when versions change
    between matches.
    """
    with transaction.atomic():
        locked = Ladder.objects.select_for_update().only("pk", "rated_seq", "players")
        row = locked.get(pk=ladder.pk)
        entries = _entries_lock(ladder_id=row.pk)
        for entry in entries.values():
            entry.elo, entry.mu, entry.sigma = 1500.0, DEFAULT_MU, DEFAULT_SIGMA
            entry.games, entry.wins, entry.last_match_at = 0, 0.0, None
            entry.seat_counts = [0] * row.players
        RatingChange.objects.filter(entry__ladder_id=row.pk).delete()
        rated = _ratings_batch(ladder=row, after=None, entries=entries, versions={})
        _entries_write(entries.values())  # also those left with no match at all
        if rated == 0:
            Ladder.objects.filter(pk=row.pk).update(rated_seq=None)
        Ladder.objects.filter(pk=row.pk).update(standings_version=_next_version())
        bot_pages_changed(bot_ids=entries)  # every entry's ratings and history again
        return rated


def _entries_lock(*, ladder_id: int) -> dict[int, LadderEntry]:
    """The ladder's entries by bot, row-locked (the order of `pk`, as `ratings_apply`)."""
    locked = LadderEntry.objects.select_for_update().filter(ladder_id=ladder_id).order_by("pk")
    return {e.bot_id: e for e in locked}


def _ratings_batch(
    *,
    ladder: Ladder,
    after: int | None,
    entries: dict[int, LadderEntry],
    versions: dict[int, int] | None,
) -> int:
    """Rate the ladder's unrated finished matches after `after` in order, updating
    `entries` in memory and writing changes, entries and `rated_seq`. `versions` (bot ->
    last version number seen) turns on the sigma reset of `ladder_ratings_recompute`.

    Seats are read a chunk of matches at a time into lists, never through a cursor left
    open while rating changes are written (the unrated filter reads that table)."""
    pending = list(_pending_matches(ladder_id=ladder.pk, after=after))
    touched: dict[int, LadderEntry] = {}
    rated, last_seq = 0, None
    for start in range(0, len(pending), BATCH_CHUNK):
        chunk = pending[start : start + BATCH_CHUNK]
        seats = MatchSeat.objects.filter(match_id__in=[m[0] for m in chunk])
        rows = list(seats.order_by("match__finished_seq", "seat").values_list(*_SEAT_COLUMNS))
        _entries_add_missing(ladder_id=ladder.pk, bots={r[4] for r in rows}, entries=entries)
        changes: list[RatingChange] = []
        for (match_id, seq, finished_at), group in groupby(rows, _match_key):
            table = list(group)
            bots = [r[4] for r in table]
            if any(r[5] is None for r in table) or len(table) < MIN_PLAYERS:
                log.error("match %s: ranks missing; ratings not applied", match_id)
                continue
            if len(set(bots)) != len(bots):
                log.error("match %s: one bot holds two seats; ratings not applied", match_id)
                continue
            if versions is not None:
                _sigma_reset_on_new_version(table, entries, versions)
            by_seat = {r[3]: entries[r[4]] for r in table}
            ranks = {r[3]: int(r[5]) for r in table}
            changes += _ratings_compute(
                match_id=match_id, finished_at=finished_at, entries=by_seat, ranks=ranks
            )
            touched.update((e.pk, e) for e in by_seat.values())
            rated, last_seq = rated + 1, seq
        _rating_changes_write(changes)
    _entries_write(touched.values())
    bot_pages_changed(bot_ids=[e.bot_id for e in touched.values()])
    if last_seq is not None:
        Ladder.objects.filter(pk=ladder.pk).update(
            rated_seq=last_seq, standings_version=_next_version()
        )
    return rated


_CHANGE_COLUMNS = (
    "entry_id",
    "match_id",
    "elo_before",
    "elo_after",
    "mu_before",
    "mu_after",
    "sigma_before",
    "sigma_after",
    "rank",
)


def _rating_changes_write(changes: list[RatingChange]) -> None:
    """Insert the batch's rating changes: one COPY on PostgreSQL, where bulk_create spent
    half the batch's time building and quoting 10 parameters a row in Python (measured
    with `heights bench-ratings`); bulk_create elsewhere. The unique (entry, match)
    constraint holds either way."""
    if connection.vendor != "postgresql":
        RatingChange.objects.bulk_create(changes, batch_size=BATCH_CHUNK)
        return
    now = timezone.now()  # created_at, which COPY does not fill in
    table = RatingChange._meta.db_table
    columns = ", ".join((*_CHANGE_COLUMNS, "created_at"))
    with (
        connection.cursor() as cursor,
        cursor.cursor.copy(f"COPY {table} ({columns}) FROM STDIN") as copy,
    ):
        for change in changes:
            copy.write_row([getattr(change, c) for c in _CHANGE_COLUMNS] + [now])


# match id, finished_seq, finished_at, seat, bot id, rank, version number
_SEAT_COLUMNS = (
    "match_id",
    "match__finished_seq",
    "match__finished_at",
    "seat",
    "bot_version__bot_id",
    "rank",
    "bot_version__number",
)


def _pending_matches(
    *, ladder_id: int, after: int | None
) -> QuerySet[Match, tuple[Any, int | None]]:
    """(id, finished_seq) of the ladder's finished matches after `after` with no rating
    change yet, in match order."""
    matches = Match.objects.filter(
        ladder_id=ladder_id,
        kind=Match.Kind.LADDER,
        status=Match.Status.FINISHED,
        finished_seq__isnull=False,
    ).exclude(Exists(RatingChange.objects.filter(match_id=OuterRef("pk"))))
    if after is not None:
        matches = matches.filter(finished_seq__gt=after)
    return matches.order_by("finished_seq").values_list("pk", "finished_seq")


def _match_key(row: tuple[Any, ...]) -> tuple[Any, int, datetime | None]:
    return row[0], row[1], row[2]


def _entries_add_missing(
    *, ladder_id: int, bots: set[int], entries: dict[int, LadderEntry]
) -> None:
    """Entries for bots seated before they joined (as `ratings_apply` makes them), locked."""
    missing = bots - set(entries)
    if missing:
        LadderEntry.objects.bulk_create(
            [LadderEntry(ladder_id=ladder_id, bot_id=b) for b in sorted(missing)],
            ignore_conflicts=True,
        )
        for bot, entry in _entries_lock(ladder_id=ladder_id).items():
            entries.setdefault(bot, entry)


def _sigma_reset_on_new_version(
    table: list[tuple[Any, ...]], entries: dict[int, LadderEntry], versions: dict[int, int]
) -> None:
    for row in table:
        bot, number = row[4], row[6]
        if bot in versions and number > versions[bot]:
            entries[bot].sigma = DEFAULT_SIGMA
        versions[bot] = max(number, versions.get(bot, number))


def _in_flight_limit() -> int:
    from django.conf import settings

    return int(getattr(settings, "HEIGHTS_LADDER_MATCHES_IN_FLIGHT", DEFAULT_IN_FLIGHT))


def _duplicate() -> bool:
    return bool(getattr(settings, "HEIGHTS_LADDER_DUPLICATE", False))


def ladder_matchmake(*, ladder: Ladder, limit: int | None = None) -> list[Match]:
    """Create ladder matches up to the in-flight cap (see `ladders.matchmaking`).

    With duplicate on (the default: docs/ranking.md), a table is a group of matches,
    one per rotation of its seats, on one secret seed: each bot meets the same map,
    markets and dice in every seat, so the group takes most of the luck out. A group may pass
    the cap by up to its size less one, so that a ladder with a cap below the table size
    still plays.
    """
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
        group = locked.players if _duplicate() else 1
        games = matchmaking.games_pick(
            candidates=[matchmaking.candidate(e) for e in entries],
            players=locked.players,
            games=max(1, slots // group),
            # Ties between equally urgent bots: a fresh order each tick, reproducible from
            # the ladder and the number of its matches.
            seed=locked.pk * 1_000_003 + Match.objects.filter(ladder=locked).count(),
        )
        versions = {e.pk: e.bot.active_version for e in entries}
        return [m for game in games for m in _table_create(locked, _versions(versions, game))]


def _table_create(ladder: Ladder, seats: list[BotVersion]) -> list[Match]:
    """One table's matches: one, or with duplicate every rotation on one secret seed."""
    from heights_platform.matches.services import seed_draw

    if not _duplicate():
        tables, seed, group = [tuple(seats)], None, None
    else:
        tables, seed, group = rotations(seats), seed_draw(), uuid.uuid4()
    return [
        match_create(
            kind=Match.Kind.LADDER,
            seats=list(table),
            players=ladder.players,
            options=ladder.options,
            catalogue=ladder.catalogue,
            ladder=ladder,
            seed=seed,
            duplicate_group=group,
        )
        for table in tables
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
