"""Matches API: lists with filters, one match's detail, and challenges (a user's bot
against chosen opponents, unrated). The seed and the replay are shown only once a match
has finished and so has every match on its deal (`Match.with_secrecy`).
"""

from __future__ import annotations

from datetime import tzinfo
from typing import Any

from django.contrib.auth.models import User
from django.http import HttpResponse
from django.utils import timezone
from django_filters.rest_framework import (  # type: ignore[import-untyped]
    DjangoFilterBackend,
)
from drf_spectacular.utils import extend_schema, extend_schema_field, extend_schema_serializer
from rest_framework import serializers, status
from rest_framework.generics import GenericAPIView
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import ScopedRateThrottle

from heights_platform.bots.models import Bot, BotVersion
from heights_platform.bots.selectors import bot_page_version
from heights_platform.common.catalogues import catalogue_input
from heights_platform.common.errors import ApiError
from heights_platform.common.fields import RuleOptionsField
from heights_platform.common.page_cache import shared_cached_response
from heights_platform.matches import selectors, services
from heights_platform.matches.models import Match, MatchSeat


@extend_schema_serializer(component_name="MatchForfeit")
class ForfeitOutputSerializer(serializers.Serializer[Any]):
    reason = serializers.CharField(source="forfeit_reason")
    step = serializers.IntegerField(source="forfeit_step", allow_null=True)
    # "" until the match is revealed (`MatchSeat.DETAIL_SHOWN`, read by `seats_prefetch`).
    detail = serializers.CharField(
        source=MatchSeat.DETAIL_SHOWN,
        help_text="Empty until the match's seed is shown (a crash's detail quotes the "
        "bot's last stderr line, what it saw of the deal).",
    )


@extend_schema_serializer(component_name="MatchSeat")
class MatchSeatOutputSerializer(serializers.Serializer[Any]):
    seat = serializers.IntegerField()
    name = serializers.SerializerMethodField()
    bot = serializers.IntegerField(source="bot_version.bot_id")
    bot_name = serializers.CharField(source="bot_version.bot.name")
    owner = serializers.CharField(source="bot_version.bot.owner.username")
    version = serializers.IntegerField(source="bot_version.number")
    rank = serializers.IntegerField(allow_null=True)
    score = serializers.IntegerField(allow_null=True)
    forfeit = serializers.SerializerMethodField()
    moves = serializers.IntegerField()
    think_ms = serializers.IntegerField()
    max_move_ms = serializers.IntegerField()

    def get_name(self, seat: MatchSeat) -> str:
        return services.seat_name(seat.bot_version)

    @extend_schema_field(ForfeitOutputSerializer(allow_null=True))
    def get_forfeit(self, seat: MatchSeat) -> dict[str, Any] | None:
        if not seat.forfeit_reason:
            return None
        return dict(ForfeitOutputSerializer(seat).data)


def seat_output(row: dict[str, Any]) -> dict[str, Any]:
    """What `MatchSeatOutputSerializer` renders, from a `selectors.SEAT_VALUES` row."""
    owner, bot = row["bot_version__bot__owner__username"], row["bot_version__bot__name"]
    forfeit = None
    if row["forfeit_reason"]:
        forfeit = {
            "reason": row["forfeit_reason"],
            "step": row["forfeit_step"],
            "detail": row["forfeit_detail"],
        }
    return {
        "seat": row["seat"],
        "name": services.seat_label(owner, bot, row["bot_version__number"]),
        "bot": row["bot_version__bot_id"],
        "bot_name": bot,
        "owner": owner,
        "version": row["bot_version__number"],
        "rank": row["rank"],
        "score": row["score"],
        "forfeit": forfeit,
        "moves": row["moves"],
        "think_ms": row["think_ms"],
        "max_move_ms": row["max_move_ms"],
    }


_DATETIME = serializers.DateTimeField()  # renders as MatchOutputSerializer's fields do


def _when(value: Any, zone: tzinfo) -> str | None:
    """`value` as `_DATETIME` renders it (ISO 8601 in the current zone, UTC as "Z"), with
    the zone looked up once a row: DRF looks it up (a thread-local read) twice a value,
    and 150 values a list page made that a fifth of the page's CPU (cProfile)."""
    if value is None:
        return None
    if timezone.is_naive(value):
        return str(_DATETIME.to_representation(value))  # never from the database (USE_TZ)
    text: str = value.astimezone(zone).isoformat()
    return text[:-6] + "Z" if text.endswith("+00:00") else text


def match_row_output(row: dict[str, Any]) -> dict[str, Any]:
    """What `MatchOutputSerializer` renders (less `seats`), from a `selectors.MATCH_VALUES`
    row; tests/platform/test_matches.py holds the two to the same output."""
    revealed = row["seed_revealed"]
    group = row["duplicate_group"]
    zone = timezone.get_current_timezone()
    return {
        "id": str(row["id"]),
        "kind": row["kind"],
        "status": row["status"],
        "ladder": row["ladder__slug"],
        "tournament": row["tournament_id"],
        "tournament_round": row["tournament_round"],
        "duplicate_group": None if group is None else str(group),
        "players": row["players"],
        "solo": row["solo"],
        "options": row["options"],
        "catalogue": row["catalogue"],
        "seed_commitment": row["seed_commitment"],
        "seed": row["seed"] if revealed else None,  # Match.seed_public
        "seed_chosen": row["seed_chosen"],
        "termination": row["termination"],
        "rounds": row["rounds"],
        "error": row["error"],
        "finished_seq": row["finished_seq"],
        "replay": row["replay__id"] if revealed else None,
        "created_at": _when(row["created_at"], zone),
        "started_at": _when(row["started_at"], zone),
        "finished_at": _when(row["finished_at"], zone),
    }


def with_seats(rows: list[dict[str, Any]], match_ids: list[Any]) -> list[dict[str, Any]]:
    """List rows (rendered without seats) completed with their seats, read in one query."""
    seats = selectors.seat_values(match_ids=match_ids)
    for row, match_id in zip(rows, match_ids, strict=True):
        row["seats"] = [seat_output(seat) for seat in seats[match_id]]
    return rows


@extend_schema_serializer(component_name="Match")
class MatchOutputSerializer(serializers.Serializer[Any]):
    id = serializers.UUIDField()
    kind = serializers.CharField(help_text="ladder, tournament, challenge or qualification.")
    status = serializers.ChoiceField(choices=Match.Status.choices)
    ladder = serializers.SlugField(source="ladder.slug", allow_null=True, default=None)
    tournament = serializers.IntegerField(source="tournament_id", allow_null=True)
    tournament_round = serializers.IntegerField(allow_null=True)
    duplicate_group = serializers.UUIDField(allow_null=True)
    players = serializers.IntegerField()
    solo = serializers.BooleanField()
    options = serializers.DictField()
    catalogue = serializers.CharField()
    seed_commitment = serializers.CharField(
        help_text='sha256 hex of "rolling-heights-seed-v1:{seed}", published at creation.'
    )
    seed = serializers.IntegerField(
        source="seed_public",
        allow_null=True,
        help_text="Null until the match has finished and so has every match on its deal "
        "(its duplicate group, one seed).",
    )
    seed_chosen = serializers.BooleanField(
        help_text="True when a person chose the seed (unrated play only), not a secret draw."
    )
    termination = serializers.CharField()
    rounds = serializers.IntegerField(allow_null=True)
    error = serializers.CharField()
    finished_seq = serializers.IntegerField(allow_null=True)
    replay = serializers.SerializerMethodField()
    created_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    seats = MatchSeatOutputSerializer(many=True)

    def get_replay(self, match: Match) -> int | None:
        """Null until the seed is shown: the replay reveals it."""
        if not match.is_revealed:
            return None
        replay = getattr(match, "replay", None)
        return replay.pk if replay is not None else None


# How long a bot's cached match list may miss an edit made outside the services (the
# admin's other forms, SQL), as the bot's page does (site/bot_page.CACHE_SECONDS).
MATCHES_BY_BOT_SECONDS = 300


class MatchListApi(GenericAPIView[Match]):
    """Matches, newest first, with filters."""

    serializer_class = MatchOutputSerializer
    filter_backends = (DjangoFilterBackend,)
    filterset_class = selectors.MatchFilter

    def get_queryset(self) -> Any:
        return selectors.match_list_values()

    @extend_schema(responses=MatchOutputSerializer(many=True))
    def get(self, request: Request) -> Response | HttpResponse:
        bot = request.query_params.get("bot")
        if bot is None or request.user.is_authenticated:
            return self._page()
        # Every row of a list filtered by a bot is one of that bot's matches, and every
        # write to one of those (created, started, finished, failed, reaped; a seated bot
        # or the ladder renamed in the admin) bumps the bot's page version once it
        # commits: the version read first keys the page (site/bot_page.py lists them).
        # Signed-in readers read afresh, as on the site: nothing older than their writes.
        version = bot_page_version(bot_id=int(bot))
        key = f"matches-by-bot:{int(bot)}:{version}"
        return shared_cached_response(
            request, key, lambda: self._page().data, seconds=MATCHES_BY_BOT_SECONDS
        )

    def _page(self) -> Response:
        page = self.paginate_queryset(self.filter_queryset(self.get_queryset())) or []
        rows = [match_row_output(row) for row in page]
        return self.get_paginated_response(with_seats(rows, [row["id"] for row in page]))


class MatchDetailApi(GenericAPIView[Match]):
    serializer_class = MatchOutputSerializer

    def get(self, request: Request, match_id: str) -> Response:
        match = selectors.access_match_by_id(match_id=match_id)
        return Response(MatchOutputSerializer(match).data)


class SeatLogApi(GenericAPIView[MatchSeat]):
    """What a seat's bot wrote on stderr in this match (its last 64 KiB), for the bot's
    owner and staff; 404 for anyone else. Empty, and `withheld` says why, until the match
    and every match on its deal have ended."""

    @extend_schema_serializer(component_name="SeatLog")
    class OutputSerializer(serializers.Serializer[Any]):
        match = serializers.UUIDField()
        seat = serializers.IntegerField()
        status = serializers.ChoiceField(choices=Match.Status.choices, help_text="The match's.")
        log = serializers.CharField(
            help_text="The bot's stderr; a first line says how many earlier bytes were dropped."
        )
        withheld = serializers.CharField(
            help_text="Why `log` is not shown yet (the match, or another match on its deal, "
            "has not ended); empty once it is."
        )

    serializer_class = OutputSerializer

    def get(self, request: Request, match_id: str, seat: int) -> Response:
        row, text, withheld = selectors.access_seat_log(
            user=request.user, match_id=match_id, seat=seat
        )
        data = {
            "match": row.match_id,
            "seat": row.seat,
            "status": row.match.status,
            "log": text,
            "withheld": withheld,
        }
        response = Response(self.OutputSerializer(data).data)
        response["Cache-Control"] = "private, no-store"
        return response


def _active_version(bot_id: int) -> BotVersion:
    bot = Bot.objects.select_related("active_version", "owner").filter(pk=bot_id).first()
    if bot is None:
        raise ApiError("not_found", f"no bot {bot_id}", {"bot": bot_id})
    if bot.active_version is None:
        raise ApiError("conflict", f"bot {bot_id} has no active version", {"bot": bot_id})
    return bot.active_version


class ChallengeCreateApi(GenericAPIView[Match]):
    """Challenge: your bot (its active version, or `version`) against chosen opponents'
    active versions, for fun: unrated. Throttled by the "challenge" rate."""

    serializer_class = MatchOutputSerializer
    permission_classes = (IsAuthenticated,)
    throttle_classes = (ScopedRateThrottle,)
    throttle_scope = "challenge"

    @extend_schema_serializer(component_name="ChallengeCreateInput")
    class InputSerializer(serializers.Serializer[Any]):
        bot = serializers.IntegerField(help_text="One of your bots.")
        version = serializers.IntegerField(
            required=False, help_text="A version number; the active version by default."
        )
        opponents = serializers.ListField(
            child=serializers.IntegerField(), min_length=1, max_length=3, help_text="Bot ids."
        )
        options = RuleOptionsField(required=False, default=dict)
        catalogue = catalogue_input()
        seed = serializers.IntegerField(
            required=False,
            min_value=0,
            max_value=services.SEED_LIMIT - 1,
            help_text="Chooses the seed (shown as chosen); a secret draw if omitted.",
        )

    @extend_schema(request=InputSerializer, responses={201: MatchOutputSerializer})
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        user = request.user
        assert isinstance(user, User)
        mine = Bot.objects.select_related("owner").filter(pk=values["bot"]).first()
        if mine is None:
            raise ApiError("not_found", "no such bot")
        if "version" in values:
            version = BotVersion.objects.filter(bot=mine, number=values["version"]).first()
            if version is None:
                raise ApiError("not_found", "no such version")
        else:
            version = _active_version(mine.pk)
        match = services.challenge_create(
            user=user,
            bot_version=version,
            opponents=[_active_version(b) for b in values["opponents"]],
            options=values["options"],
            catalogue=values["catalogue"],
            seed=values.get("seed"),
        )
        body = MatchOutputSerializer(selectors.access_match_by_id(match_id=match.pk)).data
        return Response(body, status=status.HTTP_201_CREATED)
