"""What the pages list: matches with their seats, paginated, built from the selectors.

A seat names its bot with a link only when the reader may open that bot's page (see
`bots_visible`); seat logs are never read here.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from django.core.paginator import EmptyPage, Page, Paginator
from django.db.models import Model, QuerySet

from heights_platform.bots.models import Bot
from heights_platform.bots.selectors import AnyUser, bot_list, bot_private_visible
from heights_platform.common.errors import ApiError
from heights_platform.matches.models import Match
from heights_platform.matches.selectors import seat_values
from heights_platform.matches.services import seat_label

T = TypeVar("T", bound=Model)


@dataclass(frozen=True, slots=True)
class SeatRow:
    seat: int
    bot_id: int
    bot_name: str
    owner: str
    version: int
    label: str  # `owner/bot vN`, as results and replays name a seat
    rank: int | None
    score: int | None
    forfeit_reason: str
    forfeit_step: int | None
    forfeit_detail: str
    linked: bool  # the reader may open the bot's page


@dataclass(frozen=True, slots=True)
class MatchRow:
    match: Match
    seats: list[SeatRow]

    def seat_of(self, bot_id: int) -> SeatRow | None:
        return next((s for s in self.seats if s.bot_id == bot_id), None)


def opponents_of(seats: Sequence[SeatRow], bot_id: int) -> list[SeatRow]:
    """The seats of a match but the bot's own."""
    return [s for s in seats if s.bot_id != bot_id]


def bot_page_visible(*, user: AnyUser, bot: Bot) -> bool:
    """A bot's page is public once it has qualified; before that, its owner's (and staff's)."""
    return bot.active_version_id is not None or bot_private_visible(user=user, bot=bot)


def bots_visible(
    *, user: AnyUser, bot_ids: Iterable[int], public: set[int] | None = None
) -> set[int]:
    """Which of these bots' pages the reader may open (one query at most; none when
    `public`, the ids of those with an active version, is known and the reader is not
    signed in)."""
    ids = set(bot_ids)
    if public is None:
        public = set(bot_list(active=True).filter(pk__in=ids).values_list("pk", flat=True))
    hidden = ids - public
    if hidden and user.is_authenticated:
        if user.is_staff:
            return ids
        mine = bot_list(owner=user.get_username()).filter(pk__in=hidden)
        public |= set(mine.values_list("pk", flat=True))
    return public


def _seat_row(row: dict[str, Any], visible: set[int]) -> SeatRow:
    owner, name = row["bot_version__bot__owner__username"], row["bot_version__bot__name"]
    return SeatRow(
        seat=row["seat"],
        bot_id=row["bot_version__bot_id"],
        bot_name=name,
        owner=owner,
        version=row["bot_version__number"],
        label=seat_label(owner, name, row["bot_version__number"]),
        rank=row["rank"],
        score=row["score"],
        forfeit_reason=row["forfeit_reason"],
        forfeit_step=row["forfeit_step"],
        forfeit_detail=row["forfeit_detail"],
        linked=row["bot_version__bot_id"] in visible,
    )


# Read with the seats: whether the seat's bot is public (`bot_page_visible`), so that
# `bots_visible` needs no query of its own for a reader who is not signed in.
_ACTIVE = "bot_version__bot__active_version_id"


SeatsById = dict[Any, list[SeatRow]]  # a match's seats by its id


def seat_rows(*, user: AnyUser, match_ids: Sequence[Any]) -> SeatsById:
    """The seats of these matches by match id, in seat order (one query for a reader who
    is not signed in, two at most otherwise)."""
    seats = seat_values(match_ids=match_ids, extra=(_ACTIVE,))
    rows = [row for found in seats.values() for row in found]
    public = {row["bot_version__bot_id"] for row in rows if row[_ACTIVE] is not None}
    bot_ids = {row["bot_version__bot_id"] for row in rows}
    visible = bots_visible(user=user, bot_ids=bot_ids, public=public)
    return {match_id: [_seat_row(r, visible) for r in found] for match_id, found in seats.items()}


def match_rows(*, user: AnyUser, matches: Sequence[Match]) -> list[MatchRow]:
    """The matches with their seats, in the order given (`seat_rows`)."""
    seats = seat_rows(user=user, match_ids=[m.pk for m in matches])
    return [MatchRow(m, seats[m.pk]) for m in matches]


def page_get(items: QuerySet[T] | Sequence[T], *, number: int, per_page: int) -> Page[T]:
    """One page of a list; a number past the last page is a 404 naming the last one."""
    paginator = Paginator(items, per_page, allow_empty_first_page=True)
    try:
        return paginator.page(number)
    except EmptyPage:
        last = paginator.num_pages
        raise ApiError("not_found", f"page {number} is past the last page ({last})") from None
