"""The pages to browse: home, ladder, bot, match, tournament and the replay index.

Every read goes through a selector of the app that owns the data; these views only
choose what to read, bound the query parameters and hand rows to the templates.
"""

from __future__ import annotations

import uuid

from django.http import HttpRequest, HttpResponse

from heights_platform.bots import selectors as bots
from heights_platform.bots.models import Bot
from heights_platform.common.errors import ApiError
from heights_platform.ladders import selectors as ladders
from heights_platform.ladders.models import LadderEntry
from heights_platform.matches.selectors import (
    MatchFilter,
    access_match_by_id,
    bot_match_list_page,
    match_list_page,
)
from heights_platform.replays.selectors import replay_list_page
from heights_platform.site.bot_page import cached_bot_page, public_reader
from heights_platform.site.charts import MAX_BOTS_CHARTED, MAX_POINTS, bot_charts, ladder_chart
from heights_platform.site.listing import (
    MatchRow,
    SeatsById,
    bot_page_visible,
    bots_visible,
    match_rows,
    opponents_of,
    page_get,
    seat_rows,
)
from heights_platform.site.params import PAGE, Choice, page_of, query_read
from heights_platform.site.rendering import page, page_view
from heights_platform.tournaments import selectors as tournaments
from heights_platform.tournaments.models import Tournament

HOME_MATCHES = 15
HOME_TOURNAMENTS = 10
LEADERBOARD_PAGE = 50
MATCHES_PAGE = 20
REPLAYS_PAGE = 25
ORDER = Choice(("elo", "conservative"), "elo")  # Elo, or OpenSkill's mu - 3 sigma
HISTORY_ROWS = 50  # a bot's rating table per ladder: its latest matches


@page_view
def home(request: HttpRequest) -> HttpResponse:
    query_read(request.GET, {})
    finished = MatchFilter({"status": "finished"}, queryset=match_list_page()).qs
    context = {
        "ladders": ladders.ladder_list(active=True),
        "running": tournaments.tournament_list(status=Tournament.Status.RUNNING)[:HOME_TOURNAMENTS],
        "open": tournaments.tournament_list(status=Tournament.Status.REGISTRATION)[
            :HOME_TOURNAMENTS
        ],
        "matches": match_rows(user=request.user, matches=list(finished[:HOME_MATCHES])),
    }
    return page(request, "home.html", context)


@page_view
def ladder_detail(request: HttpRequest, slug: str) -> HttpResponse:
    params = query_read(
        request.GET, {"page": PAGE, "order": Choice(("elo", "conservative"), "conservative")}
    )
    ladder = ladders.access_ladder_by_slug(slug=slug)
    order: ladders.LeaderboardOrder = "conservative" if params["order"] == "conservative" else "elo"
    board = ladders.ladder_leaderboard(ladder=ladder, order=order)
    rows = page_get(board, number=page_of(params), per_page=LEADERBOARD_PAGE)
    charted = list(board[:MAX_BOTS_CHARTED])
    histories = [(entry.bot.name, list(ladders.rating_history(entry=entry))) for entry in charted]
    context = {
        "ladder": ladder,
        "rows": rows,
        "order": order,
        "chart": ladder_chart(histories=histories),
        "charted": len(charted),
    }
    return page(request, "ladder.html", context)


def _ladder_histories(
    bot: Bot, windows: list[tuple[LadderEntry, ladders.RatingWindow]], seats: SeatsById
) -> list[dict[str, object]]:
    """Per ladder: the entry, its charts, and its latest rating changes with opponents."""
    found: list[dict[str, object]] = []
    for n, (entry, window) in enumerate(windows, start=1):
        found.append(
            {
                "entry": entry,
                "charts": bot_charts(changes=window.points),
                "elo_id": f"elo-{n}",  # the ids of the charts' data in the page
                "skill_id": f"skill-{n}",
                "changes": [
                    (row, opponents_of(seats[row.match_id], bot.pk)) for row in window.rows
                ],
                "count": window.total,
            }
        )
    return found


@page_view
def bot_detail(request: HttpRequest, bot_id: int) -> HttpResponse:
    params = query_read(request.GET, {"page": PAGE})
    number = page_of(params)
    if public_reader(request):  # most readers: one rendering for all (site/bot_page.py)
        return cached_bot_page(
            bot_id=bot_id, number=number, render=lambda: _bot_page(request, bot_id, number)
        )
    return _bot_page(request, bot_id, number)


def _bot_page(request: HttpRequest, bot_id: int, number: int) -> HttpResponse:
    bot = bots.access_bot_by_id(bot_id=bot_id)
    if not bot_page_visible(user=request.user, bot=bot):
        raise ApiError("not_found", "no such bot")  # not yet public: as if it did not exist
    played = bot_match_list_page(bot_id=bot.pk)
    matches = page_get(played, number=number, per_page=MATCHES_PAGE)
    windows = [
        (entry, ladders.rating_window(entry=entry, points=MAX_POINTS, rows=HISTORY_ROWS))
        for entry in ladders.bot_ladder_entries(bot=bot)
    ]
    listed = list(matches)
    # The seats of every match the page shows (its rating histories' and its page of
    # matches'), read at once.
    shown = [row.match_id for _, window in windows for row in window.rows]
    seats = seat_rows(user=request.user, match_ids=shown + [m.pk for m in listed])
    context = {
        "bot": bot,
        "private": bots.bot_private_visible(user=request.user, bot=bot),
        "versions": bots.bot_version_list(bot=bot)[:20],
        "ladders": _ladder_histories(bot, windows, seats),
        "matches": matches,
        "match_rows": [MatchRow(m, seats[m.pk]) for m in listed],
    }
    return page(request, "bot.html", context)


@page_view
def match_detail(request: HttpRequest, match_id: uuid.UUID) -> HttpResponse:
    query_read(request.GET, {})
    match = access_match_by_id(match_id=match_id)
    row = match_rows(user=request.user, matches=[match])[0]
    replay = getattr(match, "replay", None) if match.is_revealed else None
    return page(request, "match.html", {"match": match, "row": row, "replay": replay})


@page_view
def tournament_detail(request: HttpRequest, tournament_id: int) -> HttpResponse:
    query_read(request.GET, {})
    tournament = tournaments.access_tournament_by_id(tournament_id=tournament_id)
    standings = tournaments.tournament_standings(tournament=tournament)
    by_round = tournaments.tournament_matches_by_round(tournament=tournament)
    all_matches = [m for number in sorted(by_round) for m in by_round[number]]
    rows = match_rows(user=request.user, matches=all_matches)
    rounds: dict[int, list[object]] = {}
    for row in rows:
        rounds.setdefault(row.match.tournament_round or 0, []).append(row)
    visible = {r.bot_id for row in rows for r in row.seats if r.linked}
    context = {
        "tournament": tournament,
        "progress": tournaments.tournament_progress(tournament=tournament),
        "standings": standings,
        "rounds": sorted(rounds.items()),
        "linked_bots": visible | _entry_bots_visible(request, standings),
    }
    return page(request, "tournament.html", context)


def _entry_bots_visible(
    request: HttpRequest, standings: list[tournaments.StandingsRow]
) -> set[int]:
    return bots_visible(user=request.user, bot_ids=[s.entry.bot_id for s in standings])


@page_view
def viewer_index(request: HttpRequest) -> HttpResponse:
    params = query_read(request.GET, {"page": PAGE})
    replays = page_get(replay_list_page(), number=page_of(params), per_page=REPLAYS_PAGE)
    matches = [r.match for r in replays]
    rows = match_rows(user=request.user, matches=matches)
    return page(
        request,
        "viewer_index.html",
        {"replays": replays, "rows": list(zip(replays, rows, strict=True))},
    )
