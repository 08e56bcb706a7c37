"""Ladders API: ladders, their leaderboards, a bot's rating history, joining (the owner)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.http import HttpResponse
from drf_spectacular.utils import extend_schema, extend_schema_serializer
from rest_framework import serializers, status
from rest_framework.generics import GenericAPIView
from rest_framework.permissions import BasePermission, IsAdminUser, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from heights_platform.bots.selectors import access_bot_for_entry_by_id
from heights_platform.common.catalogues import catalogue_input
from heights_platform.common.converters import MAX_INDEX
from heights_platform.common.fields import RuleOptionsField
from heights_platform.common.page_cache import cached_response
from heights_platform.ladders import selectors, services
from heights_platform.ladders.models import Ladder, LadderEntry, RatingChange

MAX_LEADERBOARD = 500


@extend_schema_serializer(component_name="Ladder")
class LadderOutputSerializer(serializers.Serializer[Any]):
    slug = serializers.SlugField()
    name = serializers.CharField()
    players = serializers.IntegerField()
    options = serializers.DictField()
    catalogue = serializers.CharField()
    is_active = serializers.BooleanField()
    created_at = serializers.DateTimeField()


@extend_schema_serializer(component_name="LadderEntry")
class LadderEntryOutputSerializer(serializers.Serializer[Any]):
    bot = serializers.IntegerField(source="bot_id")
    bot_name = serializers.CharField(source="bot.name")
    owner = serializers.CharField(source="bot.owner.username")
    elo = serializers.FloatField()
    mu = serializers.FloatField()
    sigma = serializers.FloatField()
    games = serializers.IntegerField()
    wins = serializers.FloatField()
    seat_counts = serializers.ListField(child=serializers.IntegerField())
    last_match_at = serializers.DateTimeField(allow_null=True)
    created_at = serializers.DateTimeField()


@extend_schema_serializer(component_name="LeaderboardRow")
class LeaderboardRowOutputSerializer(serializers.Serializer[Any]):
    rank = serializers.IntegerField(source="position")
    bot = serializers.IntegerField(source="bot_id")
    bot_name = serializers.CharField(source="bot.name")
    owner = serializers.CharField(source="bot.owner.username")
    version = serializers.IntegerField(
        source="bot.active_version.number", allow_null=True, default=None
    )
    elo = serializers.FloatField()
    mu = serializers.FloatField()
    sigma = serializers.FloatField()
    conservative = serializers.FloatField(help_text="mu - 3 sigma")
    games = serializers.IntegerField()
    wins = serializers.FloatField(help_text="A victory shared by k counts 1/k.")
    win_rate = serializers.FloatField()
    uncertainty = serializers.SerializerMethodField(
        help_text="mu +- this (2 sigma) holds the skill with about 95% probability."
    )
    provisional = serializers.SerializerMethodField(
        help_text="Too few games for the place to be settled (see docs/ranking.md)."
    )

    def get_uncertainty(self, entry: LadderEntry) -> float:
        return entry.uncertainty

    def get_provisional(self, entry: LadderEntry) -> bool:
        return entry.provisional


@extend_schema_serializer(component_name="RatingChange")
class RatingChangeOutputSerializer(serializers.Serializer[Any]):
    match = serializers.UUIDField(source="match_id")
    finished_seq = serializers.IntegerField(source="match.finished_seq", allow_null=True)
    rank = serializers.IntegerField()
    elo_before = serializers.FloatField()
    elo_after = serializers.FloatField()
    mu_before = serializers.FloatField()
    mu_after = serializers.FloatField()
    sigma_before = serializers.FloatField()
    sigma_after = serializers.FloatField()
    created_at = serializers.DateTimeField()


class _StaffWrites(BasePermission):
    def has_permission(self, request: Request, view: Any) -> bool:
        if request.method in ("GET", "HEAD", "OPTIONS"):
            return True
        return IsAdminUser().has_permission(request, view)


class LadderListApi(GenericAPIView[Ladder]):
    """Ladders by slug; staff create them."""

    serializer_class = LadderOutputSerializer
    permission_classes = (_StaffWrites,)
    pagination_class = None
    filter_backends = ()

    @extend_schema_serializer(component_name="LadderCreateInput")
    class InputSerializer(serializers.Serializer[Any]):
        slug = serializers.SlugField(max_length=40)
        name = serializers.CharField(max_length=80)
        players = serializers.IntegerField(min_value=2, max_value=4)
        options = RuleOptionsField(required=False, default=dict)
        catalogue = catalogue_input()
        is_active = serializers.BooleanField(default=True)
        seed = serializers.IntegerField(
            required=False, help_text="Refused (400): ladder seeds are secret draws."
        )

    @extend_schema_serializer(component_name="LadderListFilter")
    class FilterSerializer(serializers.Serializer[Any]):
        active = serializers.BooleanField(required=False, allow_null=True, default=None)

    @extend_schema(parameters=[FilterSerializer], responses=LadderOutputSerializer(many=True))
    def get(self, request: Request) -> Response:
        filters = self.FilterSerializer(data=request.query_params)
        filters.is_valid(raise_exception=True)
        ladders = selectors.ladder_list(**filters.validated_data)
        return Response(LadderOutputSerializer(ladders, many=True).data)

    @extend_schema(request=InputSerializer, responses={201: LadderOutputSerializer})
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        ladder = services.ladder_create(**data.validated_data)
        return Response(LadderOutputSerializer(ladder).data, status=status.HTTP_201_CREATED)


class LadderDetailApi(GenericAPIView[Ladder]):
    serializer_class = LadderOutputSerializer

    def get(self, request: Request, slug: str) -> Response:
        ladder = selectors.access_ladder_by_slug(slug=slug)
        return Response(LadderOutputSerializer(ladder).data)


class LadderLeaderboardApi(GenericAPIView[LadderEntry]):
    """The ladder's bots ranked by the conservative mu - 3 sigma (default) or by Elo.

    The default is what the ladder simulator ranks best (docs/ranking.md): with the
    ladder's matchmaking, Elo's order settles far later and stays noisier.
    """

    serializer_class = LeaderboardRowOutputSerializer
    pagination_class = None
    filter_backends = ()

    @extend_schema_serializer(component_name="LeaderboardFilter")
    class FilterSerializer(serializers.Serializer[Any]):
        order = serializers.ChoiceField(choices=["conservative", "elo"], default="conservative")
        limit = serializers.IntegerField(min_value=1, max_value=MAX_LEADERBOARD, default=100)
        offset = serializers.IntegerField(min_value=0, max_value=MAX_INDEX, default=0)

    @extend_schema(
        parameters=[FilterSerializer], responses=LeaderboardRowOutputSerializer(many=True)
    )
    def get(self, request: Request, slug: str) -> Response | HttpResponse:
        filters = self.FilterSerializer(data=request.query_params)
        filters.is_valid(raise_exception=True)
        ladder = selectors.access_ladder_by_slug(slug=slug)
        order, start = filters.validated_data["order"], filters.validated_data["offset"]
        end = start + filters.validated_data["limit"]

        def build() -> Any:
            rows = selectors.ladder_leaderboard(ladder=ladder, order=order)
            return LeaderboardRowOutputSerializer(rows[start:end], many=True).data

        key = ("leaderboard", ladder.pk, ladder.standings_version, order, start, end)
        return cached_response(request, key, build)


class LadderBotHistoryApi(GenericAPIView[RatingChange]):
    """A bot's rating on a ladder, match by match (oldest first)."""

    serializer_class = RatingChangeOutputSerializer
    pagination_class = None
    filter_backends = ()

    @extend_schema(responses=RatingChangeOutputSerializer(many=True))
    def get(self, request: Request, slug: str, bot_id: int) -> Response:
        ladder = selectors.access_ladder_by_slug(slug=slug)
        entry = selectors.access_ladder_entry(ladder=ladder, bot_id=bot_id)
        history = selectors.rating_history(entry=entry)
        return Response(RatingChangeOutputSerializer(history, many=True).data)


class LadderJoinApi(GenericAPIView[LadderEntry]):
    """Put one of your bots (staff: any bot) with an active version on the ladder; idempotent."""

    serializer_class = LadderEntryOutputSerializer
    permission_classes = (IsAuthenticated,)

    @extend_schema_serializer(component_name="LadderJoinInput")
    class InputSerializer(serializers.Serializer[Any]):
        bot = serializers.IntegerField(help_text="The id of one of your bots.")

    @extend_schema(
        request=InputSerializer,
        responses={200: LadderEntryOutputSerializer, 201: LadderEntryOutputSerializer},
    )
    def post(self, request: Request, slug: str) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        ladder = selectors.access_ladder_by_slug(slug=slug)
        user = request.user
        assert isinstance(user, User)
        bot = access_bot_for_entry_by_id(user=user, bot_id=data.validated_data["bot"])
        entry, created = services.ladder_join(ladder=ladder, bot=bot)
        code = status.HTTP_201_CREATED if created else status.HTTP_200_OK
        return Response(LadderEntryOutputSerializer(entry).data, status=code)
