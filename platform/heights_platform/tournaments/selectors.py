"""Reads of the tournaments app: lists, progress, standings and matches by round."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from django.db.models import Count, Q, QuerySet

from heights_platform.bots.models import Bot
from heights_platform.common.errors import ApiError
from heights_platform.matches.models import Match, MatchSeat
from heights_platform.tournaments import scheduling
from heights_platform.tournaments.models import Tournament, TournamentBye, TournamentEntry

DONE = (Match.Status.FINISHED, Match.Status.FAILED)


def _with_progress(qs: QuerySet[Tournament]) -> QuerySet[Tournament]:
    not_done = ~Q(matches__status__in=DONE) & Q(matches__isnull=False)
    return qs.annotate(
        entry_count=Count("entries", distinct=True),
        matches_total=Count("matches", distinct=True),
        matches_finished=Count(
            "matches", filter=Q(matches__status=Match.Status.FINISHED), distinct=True
        ),
        matches_failed=Count(
            "matches", filter=Q(matches__status=Match.Status.FAILED), distinct=True
        ),
        open_rounds=Count("matches__tournament_round", filter=not_done, distinct=True),
    )


def tournament_list(
    *, status: str | None = None, format: str | None = None, owner: str | None = None
) -> QuerySet[Tournament]:
    """Tournaments, newest first, with entry count and progress; `owner` is a username."""
    qs = _with_progress(Tournament.objects.select_related("owner")).order_by("-created_at")
    if status:
        qs = qs.filter(status=status)
    if format:
        qs = qs.filter(format=format)
    if owner:
        qs = qs.filter(owner__username__iexact=owner)
    return qs


def access_tournament_by_id(*, tournament_id: int) -> Tournament:
    tournament = tournament_list().filter(pk=tournament_id).first()
    if tournament is None:
        raise ApiError("not_found", f"no tournament {tournament_id}")
    return tournament


def access_entry_by_id(*, tournament: Tournament, entry_id: int) -> TournamentEntry:
    entry = (
        TournamentEntry.objects.select_related("bot__owner", "bot_version")
        .filter(tournament=tournament, pk=entry_id)
        .first()
    )
    if entry is None:
        raise ApiError("not_found", f"no entry {entry_id} in tournament {tournament.pk}")
    return entry


def access_bot_by_id(*, bot_id: int) -> Bot:
    bot = Bot.objects.select_related("active_version", "owner").filter(pk=bot_id).first()
    if bot is None:
        raise ApiError("not_found", f"no bot {bot_id}")
    return bot


def tournament_entries(*, tournament: Tournament) -> QuerySet[TournamentEntry]:
    """Entries in seed order once seeded, else in registration order."""
    return (
        TournamentEntry.objects.filter(tournament=tournament)
        .select_related("bot__owner", "bot_version")
        .order_by("seed_number", "created_at", "pk")
    )


@dataclass(frozen=True, slots=True)
class TournamentProgress:
    rounds_done: int
    rounds_total: int | None
    current_round: int
    matches_finished: int
    matches_failed: int
    matches_total: int  # created so far: Swiss and elimination create a round at a time


def tournament_progress(*, tournament: Tournament) -> TournamentProgress:
    if not hasattr(tournament, "open_rounds"):
        tournament = _with_progress(Tournament.objects.filter(pk=tournament.pk)).get()
    counts: dict[str, int] = {
        name: getattr(tournament, name)
        for name in ("matches_total", "matches_finished", "matches_failed", "open_rounds")
    }
    return TournamentProgress(
        rounds_done=max(0, tournament.current_round - counts["open_rounds"]),
        rounds_total=tournament.rounds_total,
        current_round=tournament.current_round,
        matches_finished=counts["matches_finished"],
        matches_failed=counts["matches_failed"],
        matches_total=counts["matches_total"],
    )


def tournament_games(
    *, tournament: Tournament, round_number: int | None = None
) -> list[tuple[Match, scheduling.GameResult]]:
    """Every finished or failed match with its result as a game between entries."""
    entry_of = dict(
        TournamentEntry.objects.filter(tournament=tournament).values_list("bot_version_id", "pk")
    )
    matches = (
        Match.objects.filter(tournament=tournament, status__in=DONE)
        .prefetch_related("seats")
        .order_by("tournament_round", "created_at", "pk")
    )
    if round_number is not None:
        matches = matches.filter(tournament_round=round_number)
    games: list[tuple[Match, scheduling.GameResult]] = []
    for match in matches:
        seats = sorted(match.seats.all(), key=lambda s: s.seat)
        worst = len(seats)  # a seat without a rank (should not happen) ranks last
        game = scheduling.GameResult(
            round=match.tournament_round or 0,
            ranks={entry_of[s.bot_version_id]: s.rank or worst for s in seats},
            scores={entry_of[s.bot_version_id]: s.score or 0 for s in seats},
            failed=match.status == Match.Status.FAILED,
        )
        games.append((match, game))
    return games


def tournament_game_results(*, tournament: Tournament) -> list[scheduling.GameResult]:
    return [game for _, game in tournament_games(tournament=tournament)]


def tournament_seat_counts(*, tournament: Tournament) -> dict[int, list[int]]:
    """How often each entry sat in each seat so far (`counts[entry][seat]`)."""
    entry_of = dict(
        TournamentEntry.objects.filter(tournament=tournament).values_list("bot_version_id", "pk")
    )
    counts: dict[int, list[int]] = {}
    seats = MatchSeat.objects.filter(match__tournament=tournament).values_list(
        "bot_version_id", "seat"
    )
    for version_id, seat in seats:
        row = counts.setdefault(entry_of[version_id], [])
        row.extend([0] * (seat + 1 - len(row)))
        row[seat] += 1
    return counts


def tournament_byes(*, tournament: Tournament) -> dict[int, int]:
    """Byes per entry id (only those that count: Swiss byes score as a win)."""
    if tournament.format != Tournament.Format.SWISS:
        return {}
    byes: dict[int, int] = defaultdict(int)
    for entry_id in TournamentBye.objects.filter(tournament=tournament).values_list(
        "entry_id", flat=True
    ):
        byes[entry_id] += 1
    return dict(byes)


@dataclass(frozen=True, slots=True)
class StandingsRow:
    place: int  # the final place once finished, else the live one; tied entries share it
    entry: TournamentEntry
    row: scheduling.StandingRow


def tournament_standing_rows(
    *, tournament: Tournament, entries: list[TournamentEntry]
) -> list[scheduling.StandingRow]:
    """Standings from every finished or failed match (`entries` in seed order)."""
    return scheduling.standings(
        entry_ids=[e.pk for e in entries],
        games=tournament_game_results(tournament=tournament),
        byes=tournament_byes(tournament=tournament),
        # Everyone meets the same field in a round robin: Buchholz would only echo points.
        use_buchholz=tournament.format != Tournament.Format.ROUND_ROBIN,
    )


def tournament_places(
    *,
    tournament: Tournament,
    rows: list[scheduling.StandingRow],
    entries: dict[int, TournamentEntry],
) -> list[tuple[int, scheduling.StandingRow]]:
    """(place, row), best first. Elimination ranks by the round an entry went out in
    (still in: first), then by the standings; entries equal on everything share a place."""
    if tournament.format != Tournament.Format.ELIMINATION:
        return [(row.place, row) for row in rows]
    still_in = (tournament.rounds_total or 0) + 1

    def key(row: scheduling.StandingRow) -> tuple[int, int]:
        return (-(entries[row.player].eliminated_round or still_in), row.place)

    ordered = sorted(rows, key=key)
    places: list[tuple[int, scheduling.StandingRow]] = []
    for i, row in enumerate(ordered):
        shared = i > 0 and key(ordered[i - 1]) == key(row)
        places.append((places[-1][0] if shared else i + 1, row))
    return places


def tournament_standings(*, tournament: Tournament) -> list[StandingsRow]:
    """Live standings computed from the matches; final once the tournament has finished."""
    entries = list(tournament_entries(tournament=tournament))
    by_id = {e.pk: e for e in entries}
    rows = tournament_standing_rows(tournament=tournament, entries=entries)
    return [
        StandingsRow(place, by_id[row.player], row)
        for place, row in tournament_places(tournament=tournament, rows=rows, entries=by_id)
    ]


def tournament_matches_by_round(
    *, tournament: Tournament, round_number: int | None = None
) -> dict[int, list[Match]]:
    qs = (
        Match.with_secrecy(Match.objects.filter(tournament=tournament))
        .prefetch_related("seats__bot_version__bot__owner")
        .order_by("tournament_round", "created_at", "pk")
    )
    if round_number is not None:
        qs = qs.filter(tournament_round=round_number)
    rounds: dict[int, list[Match]] = defaultdict(list)
    for match in qs:
        rounds[match.tournament_round or 0].append(match)
    return dict(rounds)
