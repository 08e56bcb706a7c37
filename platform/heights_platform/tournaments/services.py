"""Writes of the tournaments app: create, register, withdraw, start, advance, finish.

Scheduling choices (pairings and standings are `heights_platform.competition`'s, reached
through `scheduling`):

- Round robin schedules every round at start: all matches can play at once and
  `current_round` is the last round from the start on; the tournament ends when every
  match has finished or failed. Every pair meets (with 3-4 players some pairs more than
  once); seats are balanced over the schedule.
- Swiss (`swiss_rounds`, default ceil(log2(entries))) and elimination schedule one round
  at a time: the next round is created, under a row lock on the tournament, once every
  match of the current round has finished or failed (`tournament_match_finished`, with
  `tournament_tick` as the safety net). Swiss pairs by the standings avoiding rematches;
  elimination follows a seeded bracket of the next power of `players`, byes to the top.
- Duplicate: each table is played once per rotation of its seats, all with the table's
  seed and one `duplicate_group`; each of those matches counts as a game in the standings.
- Points: a win 1, a first place shared by k 1/k, otherwise 0; a Swiss bye 1. A failed
  match (an engine or infrastructure error; a bot's forfeit ranks last and is a loss)
  counts as a draw: every seat shares first. In elimination a table's winner is the entry
  with the most points over the table's matches, then the higher total score, then the
  better seed.
- Seeds: rated play never takes a chosen seed. Each table's seed is a secret draw
  (`matches.services.seed_draw`) stored on its matches (duplicates share it), so nobody,
  the owner included, knows a roll before its match ends, and the stored matches
  reproduce the tournament. The tournament's own seed (a secret draw too) only orders
  the entries. An unrated tournament may choose its seed (`seed_chosen`): then every
  match seed derives from it, the round and the table (sha256), and its matches say so.
  The tournament's seed is published once it finishes.
"""

from __future__ import annotations

import logging
import math
import uuid
from collections import defaultdict
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from django.contrib.auth.models import AnonymousUser, User
from django.db import IntegrityError, transaction
from django.utils import timezone

from heights_platform.bots.models import Bot, BotVersion
from heights_platform.common.errors import ApiError
from heights_platform.matches.models import Match
from heights_platform.matches.services import match_create, options_check, seed_draw
from heights_platform.tournaments import scheduling, selectors
from heights_platform.tournaments.models import Tournament, TournamentBye, TournamentEntry
from heights_rules import DEFAULT_CATALOGUE

AnyUser = User | AnonymousUser

logger = logging.getLogger(__name__)

MIN_PLAYERS, MAX_PLAYERS = 2, 4
MAX_SWISS_ROUNDS = 20
MAX_ENTRIES = 256
# A round robin schedules every pair in the request (or task) that starts it: its matches
# grow as the square of the entries (256 two-player entries were 32,640 tables, 65,280
# matches with duplicates), and building a 3- or 4-player schedule faster still (about
# n**4.5 of CPU: 256 entries over ten minutes). At 32: at most 496 tables, 992 matches
# (starting 64 entries' 4,032 took 36 s in one request). Swiss and elimination schedule a
# round at a time.
MAX_ROUND_ROBIN_ENTRIES = 32


def max_entries(*, tournament: Tournament) -> int:
    """How many entries the tournament takes, by its format."""
    if tournament.format == Tournament.Format.ROUND_ROBIN:
        return MAX_ROUND_ROBIN_ENTRIES
    return MAX_ENTRIES


def _invalid(field: str, message: str) -> ApiError:
    return ApiError("invalid", message, {"fields": {field: [message]}})


def tournament_create(
    *,
    owner: User,
    name: str,
    format: str,
    players: int,
    registration_opens_at: datetime,
    registration_closes_at: datetime,
    options: dict[str, Any] | None = None,
    catalogue: str = DEFAULT_CATALOGUE,
    duplicate: bool = False,
    swiss_rounds: int | None = None,
    rated: bool = True,
    seed: int | None = None,
) -> Tournament:
    if format not in Tournament.Format.values:
        raise _invalid("format", f"unknown format {format!r}")
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise _invalid("players", f"players per game must be {MIN_PLAYERS} to {MAX_PLAYERS}")
    if registration_closes_at <= registration_opens_at:
        raise _invalid("registration_closes_at", "registration must close after it opens")
    if registration_closes_at <= timezone.now():
        raise _invalid("registration_closes_at", "registration must close in the future")
    if swiss_rounds is not None and format != Tournament.Format.SWISS:
        raise _invalid("swiss_rounds", "swiss_rounds applies to the swiss format only")
    if swiss_rounds is not None and not 1 <= swiss_rounds <= MAX_SWISS_ROUNDS:
        raise _invalid("swiss_rounds", f"swiss_rounds must be 1 to {MAX_SWISS_ROUNDS}")
    if seed is not None and rated:
        raise _invalid(
            "seed",
            "a rated tournament draws its seeds in secret: choose a seed only with rated: false",
        )
    options = dict(options or {})
    options_check(options=options, catalogue=catalogue)
    return Tournament.objects.create(
        owner=owner,
        name=name,
        format=format,
        players=players,
        options=options,
        catalogue=catalogue,
        duplicate=duplicate,
        swiss_rounds=swiss_rounds,
        rated=rated,
        seed=seed if seed is not None else seed_draw(),
        seed_chosen=seed is not None,
        registration_opens_at=registration_opens_at,
        registration_closes_at=registration_closes_at,
    )


def _can_manage(*, user: AnyUser, tournament: Tournament) -> bool:
    return bool(user.is_authenticated and (user.is_staff or user.pk == tournament.owner_id))


@transaction.atomic
def tournament_entry_register(
    *, tournament: Tournament, bot: Bot, user: AnyUser
) -> TournamentEntry:
    """Enter a bot's active version while registration is open.

    The bot's owner may; so may staff, for any bot: that is how the arena's built-in
    bots (owned by the system user) enter tournaments, e.g. in `heights demo`.
    """
    if not user.is_authenticated or (user.pk != bot.owner_id and not user.is_staff):
        raise ApiError("permission_denied", "only the bot's owner (or staff) can register it")
    tournament = Tournament.objects.select_for_update().get(pk=tournament.pk)
    now = timezone.now()
    if tournament.status != Tournament.Status.REGISTRATION or not (
        tournament.registration_opens_at <= now < tournament.registration_closes_at
    ):
        raise ApiError("conflict", "registration is not open", {"status": tournament.status})
    version = bot.active_version
    if version is None or version.status != BotVersion.Status.ACTIVE:
        raise ApiError("conflict", f"bot {bot.name!r} has no active version", {"bot": bot.pk})
    limit = max_entries(tournament=tournament)
    if TournamentEntry.objects.filter(tournament=tournament).count() >= limit:
        reason = "; a round robin plays every pair" if limit == MAX_ROUND_ROBIN_ENTRIES else ""
        message = f"the tournament is full ({limit} entries{reason})"
        raise ApiError("conflict", message, {"limit": limit})
    try:
        with transaction.atomic():
            return TournamentEntry.objects.create(
                tournament=tournament, bot=bot, bot_version=version
            )
    except IntegrityError:
        raise ApiError(
            "conflict", f"bot {bot.name!r} is already registered", {"bot": bot.pk}
        ) from None


@transaction.atomic
def tournament_entry_withdraw(*, entry: TournamentEntry, user: AnyUser) -> None:
    """Withdraw before the start: the bot's owner, the tournament's owner or staff."""
    tournament = Tournament.objects.select_for_update().get(pk=entry.tournament_id)
    allowed = user.is_authenticated and (
        user.pk == entry.bot.owner_id or _can_manage(user=user, tournament=tournament)
    )
    if not allowed:
        raise ApiError("permission_denied", "only the bot's owner can withdraw it")
    if tournament.status != Tournament.Status.REGISTRATION:
        raise ApiError("conflict", "the tournament has started", {"status": tournament.status})
    entry.delete()


def tournament_start(*, tournament: Tournament, user: AnyUser | None = None) -> Tournament:
    """Close registration and schedule round 1 (round robin: every round).

    `user` is None when the system starts it (registration closed, `tournament_tick`);
    otherwise only the owner or staff may, at any time during registration.
    """
    if user is not None and not _can_manage(user=user, tournament=tournament):
        raise ApiError("permission_denied", "only the tournament's owner or staff can start it")
    with transaction.atomic():
        locked = Tournament.objects.select_for_update().get(pk=tournament.pk)
        if locked.status != Tournament.Status.REGISTRATION:
            raise ApiError(
                "conflict", "the tournament has already started", {"status": locked.status}
            )
        entries = list(
            TournamentEntry.objects.filter(tournament=locked).order_by("created_at", "pk")
        )
        needed = max(MIN_PLAYERS, locked.players)
        if len(entries) < needed:
            raise ApiError(
                "conflict",
                f"at least {needed} entries are needed to start",
                {"entries": len(entries)},
            )
        # Registration refuses entries past the bound; a tournament registered before the
        # bound existed may hold more, and its schedule would be built here, unbounded.
        limit = max_entries(tournament=locked)
        if len(entries) > limit:
            kind = locked.format.replace("_", " ")
            raise ApiError(
                "conflict",
                f"{len(entries)} entries cannot start: a {kind} tournament takes at most "
                f"{limit}; withdraw {len(entries) - limit}",
                {"entries": len(entries), "limit": limit},
            )
        _schedule_start(tournament=locked, entries=entries)
    return locked


def _schedule_start(*, tournament: Tournament, entries: list[TournamentEntry]) -> None:
    now = timezone.now()
    order = scheduling.seeding_order(
        tournament_seed=tournament.seed, entry_ids=[e.pk for e in entries]
    )
    by_id = {e.pk: e for e in entries}
    for number, entry_id in enumerate(order, start=1):
        by_id[entry_id].seed_number = number
    TournamentEntry.objects.bulk_update(entries, ["seed_number"])
    tournament.status = Tournament.Status.RUNNING
    tournament.started_at = now
    tournament.registration_closes_at = min(tournament.registration_closes_at, now)
    players = tournament.players
    if tournament.format == Tournament.Format.ROUND_ROBIN:
        plans = scheduling.round_robin_schedule(entry_ids=order, players=players)
        tournament.rounds_total = len(plans)
        for number, plan in enumerate(plans, start=1):
            _round_create(tournament=tournament, round_number=number, plan=plan)
        tournament.current_round = len(plans)
    else:
        if tournament.format == Tournament.Format.SWISS:
            tournament.rounds_total = tournament.swiss_rounds or max(
                1, math.ceil(math.log2(len(order)))
            )
            plan = scheduling.swiss_round(
                ranked=order, players=players, history=[], had_bye=set(), seat_counts={}
            )
        else:
            tournament.rounds_total = scheduling.elimination_rounds(
                entries=len(order), players=players
            )
            plan = scheduling.elimination_round(seeds=order, players=players, survivors_after=[])
        tournament.current_round = 1
        _round_create(tournament=tournament, round_number=1, plan=plan)
    tournament.save()


def _table_seed(*, tournament: Tournament, round_number: int, table: int) -> int:
    """A secret draw, unless the (unrated) tournament chose its seed: then derived from it."""
    if not tournament.seed_chosen:
        return seed_draw()
    return scheduling.match_seed(
        tournament_seed=tournament.seed, round_number=round_number, table=table
    )


def _round_create(*, tournament: Tournament, round_number: int, plan: scheduling.RoundPlan) -> None:
    versions = {
        e.pk: e.bot_version
        for e in TournamentEntry.objects.filter(tournament=tournament).select_related(
            "bot_version__bot"
        )
    }
    byes = list(plan.byes)
    for index, table in enumerate(plan.tables):
        if len(table) < MIN_PLAYERS:  # a table of one is a bye
            byes.extend(table)
            continue
        seed = _table_seed(tournament=tournament, round_number=round_number, table=index)
        rotations = scheduling.seat_rotations(table=table) if tournament.duplicate else [table]
        group = uuid.uuid4() if tournament.duplicate else None
        for seats in rotations:
            match_create(
                kind=Match.Kind.TOURNAMENT,
                seats=[versions[e] for e in seats],
                players=len(seats),
                options=tournament.options,
                catalogue=tournament.catalogue,
                tournament=tournament,
                tournament_round=round_number,
                duplicate_group=group,
                seed=seed,
                seed_chosen=tournament.seed_chosen,
                created_by=tournament.owner,
            )
    TournamentBye.objects.bulk_create(
        [TournamentBye(tournament=tournament, entry_id=e, round=round_number) for e in byes],
        ignore_conflicts=True,
    )


def tournament_match_finished(*, match: Match) -> None:
    """A tournament match finished or failed: advance the tournament if its round is done.

    Called inside the transaction that records the result; safe to call any number of times.
    """
    if match.tournament_id is None:
        return
    with transaction.atomic():
        tournament = Tournament.objects.select_for_update().get(pk=match.tournament_id)
        _advance(tournament=tournament)


def tournament_tick(*, tournament_id: int) -> None:
    """Start a tournament whose registration has closed, or advance a finished round.

    For Celery beat and recovery: checks state first and is safe to run repeatedly. A
    tournament whose registration closed with too few entries is cancelled.
    """
    with transaction.atomic():
        tournament = Tournament.objects.select_for_update().filter(pk=tournament_id).first()
        if tournament is None:
            return
        if tournament.status == Tournament.Status.REGISTRATION:
            if tournament.registration_closes_at > timezone.now():
                return
            try:
                tournament_start(tournament=tournament)
            except ApiError as err:
                logger.info("tournament %s cancelled: %s", tournament.pk, err.message)
                tournament.status = Tournament.Status.CANCELLED
                tournament.finished_at = timezone.now()
                tournament.save(update_fields=["status", "finished_at"])
            return
        _advance(tournament=tournament)


def tournaments_tick_due() -> int:
    """Tick every tournament that may need it (beat); returns how many were ticked."""
    ids = list(
        Tournament.objects.filter(
            status__in=[Tournament.Status.REGISTRATION, Tournament.Status.RUNNING]
        )
        .exclude(status=Tournament.Status.REGISTRATION, registration_closes_at__gt=timezone.now())
        .values_list("pk", flat=True)
    )
    for tournament_id in ids:
        tournament_tick(tournament_id=tournament_id)
    return len(ids)


def _advance(*, tournament: Tournament) -> None:
    """With the tournament locked: if the current round is done, record standings and go on."""
    if tournament.status != Tournament.Status.RUNNING:
        return
    pending = (
        Match.objects.filter(tournament=tournament, tournament_round__lte=tournament.current_round)
        .exclude(status__in=selectors.DONE)
        .exists()
    )
    if pending:
        return
    entries = list(selectors.tournament_entries(tournament=tournament))
    rows = _standings_record(tournament=tournament, entries=entries)
    if tournament.format == Tournament.Format.ELIMINATION:
        if _elimination_advance(tournament=tournament, entries=entries) > 1:
            _next_round(tournament, _elimination_next(tournament=tournament, entries=entries))
            return
    elif tournament.current_round < (tournament.rounds_total or 0):
        _next_round(tournament, _swiss_next(tournament=tournament, rows=rows))
        return
    _finish(tournament=tournament, rows=rows, entries=entries)


def _next_round(tournament: Tournament, plan: scheduling.RoundPlan) -> None:
    tournament.current_round += 1
    tournament.rounds_total = max(tournament.rounds_total or 0, tournament.current_round)
    tournament.save(update_fields=["current_round", "rounds_total"])
    _round_create(tournament=tournament, round_number=tournament.current_round, plan=plan)


def _standings_record(
    *, tournament: Tournament, entries: list[TournamentEntry]
) -> list[scheduling.StandingRow]:
    rows = selectors.tournament_standing_rows(tournament=tournament, entries=entries)
    by_id = {e.pk: e for e in entries}
    for row in rows:
        entry = by_id[row.player]
        entry.points = row.points
        entry.tiebreaks = {
            "average_rank": row.average_rank,
            "buchholz": row.buchholz,
            "head_to_head": row.head_to_head,
            "score": row.score,
            "games": row.games,
            "byes": row.byes,
        }
    TournamentEntry.objects.bulk_update(entries, ["points", "tiebreaks"])
    return rows


def _swiss_next(
    *, tournament: Tournament, rows: Sequence[scheduling.StandingRow]
) -> scheduling.RoundPlan:
    history = [tuple(g.ranks) for g in selectors.tournament_game_results(tournament=tournament)]
    had_bye = set(
        TournamentBye.objects.filter(tournament=tournament).values_list("entry_id", flat=True)
    )
    return scheduling.swiss_round(
        ranked=[r.player for r in rows],
        players=tournament.players,
        history=history,
        had_bye=had_bye,
        seat_counts=selectors.tournament_seat_counts(tournament=tournament),
    )


def _elimination_advance(*, tournament: Tournament, entries: list[TournamentEntry]) -> int:
    """Knock out the losers of every table of the current round; how many remain."""
    round_number = tournament.current_round
    seed_order = [e.pk for e in entries]
    tables: dict[Any, list[scheduling.GameResult]] = defaultdict(list)
    for match, game in selectors.tournament_games(tournament=tournament, round_number=round_number):
        tables[match.duplicate_group or match.pk].append(game)
    losers: set[int] = set()
    for games in tables.values():
        winner = scheduling.table_winner(games=games, seed_order=seed_order)
        losers.update(e for g in games for e in g.ranks if e != winner)
    out = [e for e in entries if e.pk in losers]
    for entry in out:
        entry.eliminated = True
        entry.eliminated_round = round_number
    TournamentEntry.objects.bulk_update(out, ["eliminated", "eliminated_round"])
    return sum(1 for e in entries if not e.eliminated)


def _elimination_next(
    *, tournament: Tournament, entries: list[TournamentEntry]
) -> scheduling.RoundPlan:
    """The next round, from the bracket of the seeds and who survived each round so far."""
    survivors_after = [
        {e.pk for e in entries if e.eliminated_round is None or e.eliminated_round > r}
        for r in range(1, tournament.current_round + 1)
    ]
    return scheduling.elimination_round(
        seeds=[e.pk for e in entries], players=tournament.players, survivors_after=survivors_after
    )


def _finish(
    *,
    tournament: Tournament,
    rows: list[scheduling.StandingRow],
    entries: list[TournamentEntry],
) -> None:
    by_id = {e.pk: e for e in entries}
    for place, row in selectors.tournament_places(tournament=tournament, rows=rows, entries=by_id):
        by_id[row.player].place = place
    TournamentEntry.objects.bulk_update(entries, ["place"])
    tournament.status = Tournament.Status.FINISHED
    tournament.finished_at = timezone.now()
    tournament.save(update_fields=["status", "finished_at"])
