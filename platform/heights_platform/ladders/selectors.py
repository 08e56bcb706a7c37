"""Reads of the ladders app: ladders, leaderboards and rating histories."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Literal, NamedTuple

from django.db.models import Case, Count, F, FloatField, QuerySet, Value, When, Window
from django.db.models.functions import RowNumber

from heights_platform.bots.models import Bot
from heights_platform.common.errors import ApiError
from heights_platform.ladders.models import Ladder, LadderEntry, RatingChange

LeaderboardOrder = Literal["elo", "conservative"]
CONSERVATIVE_SIGMAS = 3.0


def ladder_list(*, active: bool | None = None) -> QuerySet[Ladder]:
    queryset = Ladder.objects.order_by("slug")
    if active is not None:
        queryset = queryset.filter(is_active=active)
    return queryset


def access_ladder_by_slug(*, slug: str) -> Ladder:
    ladder = Ladder.objects.filter(slug=slug).first()
    if ladder is None:
        raise ApiError("not_found", f"no ladder {slug!r}")
    return ladder


def ladder_leaderboard(
    *, ladder: Ladder, order: LeaderboardOrder = "conservative"
) -> QuerySet[LadderEntry]:
    """Entries with `conservative` (mu - 3 sigma), `win_rate` and `position` (1 = top)."""
    key = "-elo" if order == "elo" else "-conservative"
    ordering = [F(key[1:]).desc(), F("games").desc(), F("pk").asc()]
    return (
        LadderEntry.objects.filter(ladder=ladder)
        .select_related("bot__owner", "bot__active_version")
        .defer("bot__active_version__content")  # a bot's source: up to 1 MB a row
        .annotate(
            conservative=F("mu") - Value(CONSERVATIVE_SIGMAS) * F("sigma"),
            win_rate=Case(
                When(games=0, then=Value(0.0)),
                default=F("wins") / F("games"),
                output_field=FloatField(),
            ),
        )
        .annotate(position=Window(RowNumber(), order_by=ordering))
        .order_by(*ordering)
    )


def access_ladder_entry(*, ladder: Ladder, bot_id: int) -> LadderEntry:
    entry = LadderEntry.objects.select_related("bot__owner").filter(ladder=ladder, bot_id=bot_id)
    found = entry.first()
    if found is None:
        raise ApiError("not_found", "the bot is not on this ladder")
    return found


def rating_history(*, entry: LadderEntry) -> QuerySet[RatingChange]:
    """The entry's rating changes in match order (oldest first)."""
    return (
        RatingChange.objects.filter(entry=entry)
        .select_related("match")
        .order_by("match__finished_seq", "pk")
    )


class RatingPoint(NamedTuple):
    """One rating change's numbers, without its model object or its match (a chart's point)."""

    elo_before: float
    elo_after: float
    mu_before: float
    mu_after: float
    sigma_before: float
    sigma_after: float


class HistoryRow(NamedTuple):
    """One rating change as a bot page's history table shows it (site/templatetags/
    history.py): its numbers, the bot's rank, and the match's id and finishing time."""

    rating: RatingPoint
    rank: int
    match_id: uuid.UUID
    finished_at: datetime | None


class RatingWindow(NamedTuple):
    """An entry's latest rating changes: `points` for its charts (oldest first), `rows`
    for its history table (newest first), and how many changes it has in all."""

    points: list[RatingPoint]
    rows: list[HistoryRow]
    total: int


def rating_window(*, entry: LadderEntry, points: int, rows: int) -> RatingWindow:
    """The entry's latest `points` changes as chart points and its latest `rows` as table
    rows, with the count of all of them: one query, where a bot's page read the points,
    the rows and the count in three. Plain values, not model objects: a bot with
    hundreds of matches would otherwise build two objects a change. The columns only
    the table shows (the match, its time, the rank) are read for its rows alone: parsing
    a time and a UUID for each of 500 points was a tenth of the page's CPU."""
    order = [F("match__finished_seq").desc(), F("pk").desc()]
    newest = RatingChange.objects.filter(entry=entry).order_by(*order)
    shown = {
        name: Case(When(position__lte=rows, then=F(column)), default=None)
        for name, column in (("r", "rank"), ("m", "match_id"), ("t", "match__finished_at"))
    }
    counted = newest.annotate(
        total=Window(Count("*")),  # over all the entry's rows, before the LIMIT
        position=Window(RowNumber(), order_by=order),
    ).annotate(**shown)
    found = list(counted.values_list(*RatingPoint._fields, *shown, "total")[: max(points, rows)])
    numbers = len(RatingPoint._fields)
    return RatingWindow(
        points=[RatingPoint(*row[:numbers]) for row in reversed(found[:points])],
        rows=[HistoryRow(RatingPoint(*row[:numbers]), *row[numbers:-1]) for row in found[:rows]],
        total=found[0][-1] if found else 0,
    )


def bot_ladders(*, bot: Bot) -> QuerySet[LadderEntry]:
    return LadderEntry.objects.filter(bot=bot).select_related("ladder")


def bot_ladder_entries(*, bot: Bot) -> QuerySet[LadderEntry]:
    """A bot's entries on every ladder, by ladder slug (its detail and its page)."""
    return LadderEntry.objects.filter(bot=bot).select_related("ladder").order_by("ladder__slug")
