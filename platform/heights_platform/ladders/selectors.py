"""Reads of the ladders app: ladders, leaderboards and rating histories."""

from __future__ import annotations

from typing import Literal, NamedTuple

from django.db.models import Case, F, FloatField, QuerySet, Value, When, Window
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


def rating_points(*, entry: LadderEntry, last: int) -> list[RatingPoint]:
    """The entry's latest `last` rating changes as plain numbers, oldest first: a bot with
    hundreds of matches would otherwise build two model objects a change."""
    newest = RatingChange.objects.filter(entry=entry).order_by("-match__finished_seq", "-pk")
    rows = newest.values_list(*RatingPoint._fields)[:last]
    return [RatingPoint(*row) for row in reversed(rows)]


# What a bot page's history row shows of a change and its match (site/templatetags/
# history.py): the match's other columns (its options, seed, four times) were parsed into
# 50 model objects a page and never read.
HISTORY_ROW_FIELDS = (
    "rank",
    "elo_before",
    "elo_after",
    "mu_before",
    "mu_after",
    "sigma_before",
    "sigma_after",
    "match__finished_at",
)


def rating_history_latest(*, entry: LadderEntry, last: int) -> list[RatingChange]:
    """The entry's latest `last` rating changes with their matches, newest first (only
    `HISTORY_ROW_FIELDS` loaded: another field of the match would cost a query)."""
    newest = rating_history(entry=entry).order_by("-match__finished_seq", "-pk")
    return list(newest.only(*HISTORY_ROW_FIELDS)[:last])


def rating_count(*, entry: LadderEntry) -> int:
    return RatingChange.objects.filter(entry=entry).count()


def bot_ladders(*, bot: Bot) -> QuerySet[LadderEntry]:
    return LadderEntry.objects.filter(bot=bot).select_related("ladder")


def bot_ladder_entries(*, bot: Bot) -> QuerySet[LadderEntry]:
    """A bot's entries on every ladder, by ladder slug (its detail and its page)."""
    return LadderEntry.objects.filter(bot=bot).select_related("ladder").order_by("ladder__slug")
