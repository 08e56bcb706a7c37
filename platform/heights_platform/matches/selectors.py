"""Reads of the matches app: match lists (with their filters) and one match's detail."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import django_filters  # type: ignore[import-untyped]  # no stubs published
from django import forms
from django.db.models import Exists, OuterRef, Prefetch, QuerySet
from drf_spectacular.utils import extend_schema_field

from heights_platform.bots.selectors import AnyUser, bot_private_visible
from heights_platform.common.converters import MAX_ID, PATH_SCHEMAS
from heights_platform.common.errors import ApiError
from heights_platform.matches.models import Match, MatchSeat, SeatLog


def seats_prefetch() -> Prefetch[Any]:
    return Prefetch(
        "seats",
        queryset=MatchSeat.objects.select_related("bot_version__bot__owner")
        .defer("bot_version__content", "forfeit_detail")
        .annotate(**{MatchSeat.DETAIL_SHOWN: MatchSeat.detail_shown()})
        .order_by("seat"),
    )


def match_list() -> QuerySet[Match]:
    """Matches with their seats, annotated with `seed_revealed` (`Match.with_secrecy`)."""
    return (
        Match.with_secrecy(Match.objects.select_related("ladder", "replay"))
        .defer("replay__data")
        .prefetch_related(seats_prefetch())
        .order_by("-created_at")
    )


# The seat columns a list shows, read as plain values: a page of 50 four-player matches
# would otherwise build some 1,000 model objects (seat, version, bot, owner) per request.
SEAT_VALUES = (
    "match_id",
    "seat",
    "bot_version__bot_id",
    "bot_version__bot__name",
    "bot_version__bot__owner__username",
    "bot_version__number",
    "rank",
    "score",
    "forfeit_reason",
    "forfeit_step",
    "moves",
    "think_ms",
    "max_move_ms",
)


def seat_values(
    *, match_ids: Sequence[Any], extra: Sequence[str] = ()
) -> dict[Any, list[dict[str, Any]]]:
    """The seats of these matches, in seat order, as `SEAT_VALUES` dicts by match id
    (with the `extra` columns too, e.g. what the site needs to link a seat's bot), each
    with its `forfeit_detail` as shown (`MatchSeat.DETAIL_SHOWN`)."""
    found: dict[Any, list[dict[str, Any]]] = {match_id: [] for match_id in match_ids}
    seats = MatchSeat.objects.filter(match_id__in=list(found)).order_by("match_id", "seat")
    shown = {MatchSeat.DETAIL_SHOWN: MatchSeat.detail_shown()}
    for row in seats.values(*SEAT_VALUES, *extra, **shown):
        row["forfeit_detail"] = row.pop(MatchSeat.DETAIL_SHOWN)
        found[row["match_id"]].append(row)
    return found


def match_list_page() -> QuerySet[Match]:
    """`match_list` without the seats: a list page reads them with `seat_values`."""
    return (
        Match.objects.select_related("ladder", "replay")
        .defer("replay__data")
        .order_by("-created_at")
    )


# What a table of matches on the site shows of each (site/templatetags/match_table.py).
MATCH_ROW_FIELDS = (
    "kind",
    "status",
    "finished_at",
    "tournament_id",
    "tournament_round",
    "ladder__slug",
)


def bot_match_list_page(*, bot_id: int) -> QuerySet[Match]:
    """The matches this bot held a seat in, newest first, as `MatchFilter`'s `bot` filters
    them (one semi-join, never a match twice), without building a FilterSet: its form
    and filters are deep-copied for each one, a tenth of a bot page's CPU. Only
    `MATCH_ROW_FIELDS` are loaded (and the ladder's slug): the rest of a match (its
    options parsed from JSON, its seed, its replay) was read into every row and never shown."""
    seated = MatchSeat.objects.filter(match=OuterRef("pk"), bot_version__bot_id=bot_id)
    rows = Match.objects.select_related("ladder").only(*MATCH_ROW_FIELDS)
    return rows.filter(Exists(seated)).order_by("-created_at")


# The columns of a match list row (`apis.match_row_output` renders them): read as plain
# values, as the seats are, since a page of 50 matches built as model objects (with
# their ladder and replay) and then serialized field by field cost most of a request.
MATCH_VALUES = (
    "id",
    "kind",
    "status",
    "ladder__slug",
    "tournament_id",
    "tournament_round",
    "duplicate_group",
    "players",
    "solo",
    "options",
    "catalogue",
    "seed_commitment",
    "seed",
    "seed_chosen",
    "termination",
    "rounds",
    "error",
    "finished_seq",
    "replay__id",
    "created_at",
    "started_at",
    "finished_at",
    "seed_revealed",  # Match.with_secrecy: may the seed and the replay be shown
)


def match_list_values() -> QuerySet[Match, dict[str, Any]]:
    """Matches, newest first, as `MATCH_VALUES` dicts (the API's list pages)."""
    ordered = Match.with_secrecy(Match.objects.order_by("-created_at"))
    rows: QuerySet[Match, dict[str, Any]] = ordered.values(*MATCH_VALUES)
    return rows


def access_match_by_id(*, match_id: Any) -> Match:
    match = match_list().filter(pk=match_id).first()
    if match is None:
        raise ApiError("not_found", "no such match")
    return match


def access_seat_log(*, user: AnyUser, match_id: Any, seat: int) -> tuple[MatchSeat, str, str]:
    """A seat, its bot's log, and why the log is withheld ("" when it is not), for the
    bot's owner and staff; anyone else gets 404.

    The log is "" when the bot wrote nothing, or while the match is not revealed
    (`Match.revealed`), which the third value then says: what a bot writes is what it
    saw, part of the deal its duplicates may still play.
    """
    row = (
        MatchSeat.objects.select_related("match", "bot_version__bot")
        .defer("bot_version__content")
        .filter(match_id=match_id, seat=seat)
        .first()
    )
    if row is None or not bot_private_visible(user=user, bot=row.bot_version.bot):
        raise ApiError("not_found", "no such seat log")
    if not row.match.is_revealed:
        return row, "", row.match.withheld_message("bot's log")
    text = SeatLog.objects.filter(seat=row).values_list("text", flat=True).first()
    return row, text or "", ""


@extend_schema_field(PATH_SCHEMAS["id"])
class IdFilter(django_filters.NumberFilter):  # type: ignore[misc]
    """An object's id: an integer from 1 to 2**63 - 1 (a bigint)."""

    field_class = forms.IntegerField

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("min_value", 1)
        kwargs.setdefault("max_value", MAX_ID)
        super().__init__(*args, **kwargs)


class SeatFilters(django_filters.FilterSet):  # type: ignore[misc]
    """Filters on a match's seats, shared by the match and replay lists.

    They use EXISTS rather than a join, so a match is never listed twice. `match_ref`
    names the field of the listed rows that holds the match.
    """

    match_ref: ClassVar[str] = "pk"

    bot = IdFilter(method="_bot", help_text="A bot id that held a seat.")
    owner = django_filters.CharFilter(
        method="_owner", help_text="Username of the owner of a seated bot."
    )
    winner = IdFilter(method="_winner", help_text="A bot id that ranked 1st.")
    created = django_filters.IsoDateTimeFromToRangeFilter(
        field_name="created_at", help_text="created_after / created_before (ISO 8601)."
    )

    def _seat_exists(self, **lookups: Any) -> Exists:
        return Exists(MatchSeat.objects.filter(match=OuterRef(self.match_ref), **lookups))

    def _bot(self, queryset: QuerySet[Any], name: str, value: int) -> QuerySet[Any]:
        return queryset.filter(self._seat_exists(bot_version__bot_id=value))

    def _owner(self, queryset: QuerySet[Any], name: str, value: str) -> QuerySet[Any]:
        return queryset.filter(self._seat_exists(bot_version__bot__owner__username__iexact=value))

    def _winner(self, queryset: QuerySet[Any], name: str, value: int) -> QuerySet[Any]:
        return queryset.filter(self._seat_exists(bot_version__bot_id=value, rank=1))


class MatchFilter(SeatFilters):
    kind = django_filters.ChoiceFilter(choices=Match.Kind.choices)
    status = django_filters.ChoiceFilter(choices=Match.Status.choices)
    ladder = django_filters.CharFilter(field_name="ladder__slug", help_text="A ladder's slug.")
    tournament = IdFilter(field_name="tournament_id")

    class Meta:
        model = Match
        fields: ClassVar[list[str]] = []
