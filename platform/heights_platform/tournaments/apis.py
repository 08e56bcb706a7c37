"""Tournaments API: create and list, detail with progress, entries, start, standings, matches.

Thin views: input serializers validate shape, services decide, output serializers render.
"""

from __future__ import annotations

from typing import Any, cast

from django.contrib.auth.models import User
from django.db.models import QuerySet
from drf_spectacular.utils import (
    OpenApiParameter,
    extend_schema,
    extend_schema_field,
    extend_schema_serializer,
)
from rest_framework import serializers, status
from rest_framework.generics import ListAPIView
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.settings import APISettings
from rest_framework.views import APIView

from heights_platform.common.catalogues import catalogue_input
from heights_platform.common.converters import MAX_INDEX
from heights_platform.common.errors import ApiError
from heights_platform.common.fields import RuleOptionsField
from heights_platform.matches.models import Match, MatchSeat
from heights_platform.tournaments import selectors, services
from heights_platform.tournaments.models import Tournament, TournamentEntry

_NO_FORMAT_OVERRIDE: Any = APISettings(user_settings=cast(Any, {"URL_FORMAT_OVERRIDE": None}))


class FormatFilterNegotiation(DefaultContentNegotiation):
    """`?format=` filters tournaments by format here; it does not pick a renderer."""

    settings = _NO_FORMAT_OVERRIDE


def _me(request: Request) -> User:
    user = request.user
    assert isinstance(user, User)  # IsAuthenticated ran first
    return user


@extend_schema_serializer(component_name="TournamentProgress")
class ProgressOutputSerializer(serializers.Serializer[Any]):
    rounds_done = serializers.IntegerField()
    rounds_total = serializers.IntegerField(
        allow_null=True, help_text="Known at the start; elimination: may end sooner."
    )
    current_round = serializers.IntegerField()
    matches_finished = serializers.IntegerField()
    matches_failed = serializers.IntegerField()
    matches_total = serializers.IntegerField(help_text="Matches created so far.")


@extend_schema_serializer(component_name="Tournament")
class TournamentOutputSerializer(serializers.Serializer[Tournament]):
    id = serializers.IntegerField()
    name = serializers.CharField()
    owner = serializers.CharField(source="owner.username")
    format = serializers.ChoiceField(choices=Tournament.Format.choices)
    players = serializers.IntegerField()
    options = serializers.DictField(child=serializers.JSONField())
    catalogue = serializers.CharField()
    duplicate = serializers.BooleanField()
    swiss_rounds = serializers.IntegerField(allow_null=True)
    rated = serializers.BooleanField(help_text="Rated play never takes a chosen seed.")
    seed = serializers.SerializerMethodField(help_text="Published once the tournament ends.")
    seed_chosen = serializers.BooleanField(
        help_text="True when the owner chose the seed (unrated only): every match seed "
        "derives from it. Otherwise each table's seed is a secret draw."
    )
    registration_opens_at = serializers.DateTimeField()
    registration_closes_at = serializers.DateTimeField()
    status = serializers.ChoiceField(choices=Tournament.Status.choices)
    current_round = serializers.IntegerField()
    rounds_total = serializers.IntegerField(allow_null=True)
    entry_count = serializers.IntegerField()
    created_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    progress = serializers.SerializerMethodField()

    @extend_schema_field(ProgressOutputSerializer)
    def get_progress(self, tournament: Tournament) -> dict[str, Any]:
        progress = selectors.tournament_progress(tournament=tournament)
        return dict(ProgressOutputSerializer(progress).data)

    @extend_schema_field(
        serializers.IntegerField(allow_null=True, min_value=0, max_value=2**63 - 1)
    )
    def get_seed(self, tournament: Tournament) -> int | None:
        return tournament.seed if tournament.status == Tournament.Status.FINISHED else None


@extend_schema_serializer(component_name="TournamentEntry")
class EntryOutputSerializer(serializers.Serializer[TournamentEntry]):
    id = serializers.IntegerField()
    bot = serializers.IntegerField(source="bot_id")
    bot_name = serializers.CharField(source="bot.name")
    owner = serializers.CharField(source="bot.owner.username")
    version = serializers.IntegerField(source="bot_version.number")
    seed_number = serializers.IntegerField(allow_null=True)
    created_at = serializers.DateTimeField()


class TournamentListApi(ListAPIView[Tournament]):
    """Tournaments, newest first; filter by `status`, `format` or `owner`. Create one (POST)."""

    serializer_class = TournamentOutputSerializer
    filter_backends = ()
    content_negotiation_class = FormatFilterNegotiation

    @extend_schema_serializer(component_name="TournamentCreateInput")
    class InputSerializer(serializers.Serializer[Any]):
        name = serializers.CharField(max_length=80)
        format = serializers.ChoiceField(choices=Tournament.Format.choices)
        players = serializers.IntegerField(min_value=2, max_value=4)
        registration_opens_at = serializers.DateTimeField()
        registration_closes_at = serializers.DateTimeField()
        options = RuleOptionsField(required=False)
        catalogue = catalogue_input()
        duplicate = serializers.BooleanField(default=False)
        swiss_rounds = serializers.IntegerField(required=False, allow_null=True, min_value=1)
        rated = serializers.BooleanField(default=True)
        seed = serializers.IntegerField(
            required=False,
            min_value=0,
            max_value=2**63 - 1,
            help_text="Unrated only (rated: false; a 400 otherwise): fixes every match seed, "
            "shown as chosen. Omitted: each table's seed is a secret draw. Public at the end.",
        )

    class FilterSerializer(serializers.Serializer[Any]):
        status = serializers.ChoiceField(choices=Tournament.Status.choices, required=False)
        format = serializers.ChoiceField(choices=Tournament.Format.choices, required=False)
        owner = serializers.CharField(max_length=150, required=False)

    def get_queryset(self) -> QuerySet[Tournament]:
        filters = self.FilterSerializer(data=self.request.query_params)
        filters.is_valid(raise_exception=True)
        return selectors.tournament_list(**filters.validated_data)

    @extend_schema(
        parameters=[
            OpenApiParameter("status", str, enum=Tournament.Status.values),
            OpenApiParameter("format", str, enum=Tournament.Format.values),
            OpenApiParameter("owner", str, description="The owner's username."),
        ]
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)

    @extend_schema(request=InputSerializer, responses={201: TournamentOutputSerializer})
    def post(self, request: Request) -> Response:
        if not request.user.is_authenticated:
            raise ApiError("not_authenticated", "log in to create a tournament")
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        created = services.tournament_create(owner=_me(request), **data.validated_data)
        tournament = selectors.access_tournament_by_id(tournament_id=created.pk)
        body = TournamentOutputSerializer(tournament).data
        return Response(body, status=status.HTTP_201_CREATED)


class TournamentDetailApi(APIView):
    """One tournament with its progress: rounds done of total, matches finished of total."""

    @extend_schema(responses={200: TournamentOutputSerializer})
    def get(self, request: Request, tournament_id: int) -> Response:
        tournament = selectors.access_tournament_by_id(tournament_id=tournament_id)
        return Response(TournamentOutputSerializer(tournament).data)


class TournamentEntryListApi(APIView):
    """The entries (GET); register one of my bots' active version while registration is open."""

    @extend_schema_serializer(component_name="TournamentRegisterInput")
    class InputSerializer(serializers.Serializer[Any]):
        bot = serializers.IntegerField(help_text="The id of one of my bots.")

    @extend_schema(responses={200: EntryOutputSerializer(many=True)})
    def get(self, request: Request, tournament_id: int) -> Response:
        tournament = selectors.access_tournament_by_id(tournament_id=tournament_id)
        entries = selectors.tournament_entries(tournament=tournament)
        return Response([EntryOutputSerializer(e).data for e in entries])

    @extend_schema(request=InputSerializer, responses={201: EntryOutputSerializer})
    def post(self, request: Request, tournament_id: int) -> Response:
        if not request.user.is_authenticated:
            raise ApiError("not_authenticated", "log in to register a bot")
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        tournament = selectors.access_tournament_by_id(tournament_id=tournament_id)
        bot = selectors.access_bot_by_id(bot_id=data.validated_data["bot"])
        entry = services.tournament_entry_register(
            tournament=tournament, bot=bot, user=request.user
        )
        entry = selectors.access_entry_by_id(tournament=tournament, entry_id=entry.pk)
        return Response(EntryOutputSerializer(entry).data, status=status.HTTP_201_CREATED)


class TournamentEntryWithdrawApi(APIView):
    """Withdraw an entry before the start (the bot's owner, the tournament's owner, staff)."""

    permission_classes = (IsAuthenticated,)

    @extend_schema(request=None, responses={204: None})
    def delete(self, request: Request, tournament_id: int, entry_id: int) -> Response:
        tournament = selectors.access_tournament_by_id(tournament_id=tournament_id)
        entry = selectors.access_entry_by_id(tournament=tournament, entry_id=entry_id)
        services.tournament_entry_withdraw(entry=entry, user=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


class TournamentStartApi(APIView):
    """Close registration and schedule the first round (round robin: all rounds)."""

    permission_classes = (IsAuthenticated,)

    @extend_schema(request=None, responses={200: TournamentOutputSerializer})
    def post(self, request: Request, tournament_id: int) -> Response:
        tournament = selectors.access_tournament_by_id(tournament_id=tournament_id)
        services.tournament_start(tournament=tournament, user=request.user)
        tournament = selectors.access_tournament_by_id(tournament_id=tournament_id)
        return Response(TournamentOutputSerializer(tournament).data)


@extend_schema_serializer(component_name="TournamentTiebreaks")
class TiebreaksOutputSerializer(serializers.Serializer[Any]):
    average_rank = serializers.FloatField(
        allow_null=True, help_text="Mean finishing rank over the games played (lower is better)."
    )
    buchholz = serializers.FloatField(
        help_text="Sum of the points of every opponent met, once per game (0 in round robin)."
    )
    head_to_head = serializers.FloatField(
        help_text="Results against the entries tied on the criteria above (1/0.5/0 per pair)."
    )
    score = serializers.FloatField(help_text="Total game score.")
    games = serializers.IntegerField()
    byes = serializers.IntegerField()


@extend_schema_serializer(component_name="TournamentStanding")
class StandingOutputSerializer(serializers.Serializer[selectors.StandingsRow]):
    place = serializers.IntegerField(help_text="Final place once finished, else the live rank.")
    entry = serializers.IntegerField(source="entry.pk")
    bot = serializers.IntegerField(source="entry.bot_id")
    bot_name = serializers.CharField(source="entry.bot.name")
    owner = serializers.CharField(source="entry.bot.owner.username")
    version = serializers.IntegerField(source="entry.bot_version.number")
    seed_number = serializers.IntegerField(source="entry.seed_number", allow_null=True)
    points = serializers.FloatField(source="row.points")
    tiebreaks = serializers.SerializerMethodField()
    eliminated_round = serializers.IntegerField(source="entry.eliminated_round", allow_null=True)

    @extend_schema_field(TiebreaksOutputSerializer)
    def get_tiebreaks(self, standing: selectors.StandingsRow) -> dict[str, Any]:
        return dict(TiebreaksOutputSerializer(standing.row).data)


class TournamentStandingsApi(APIView):
    """Standings: live while running, final (with places) once finished.

    Points (a win 1, a shared first 1/k, a Swiss bye 1, a failed match a draw), then
    average rank, Buchholz (not in round robin), head to head, total score; entries equal
    on all of these share a place. Elimination ranks by the round an entry went out first.
    """

    @extend_schema_serializer(component_name="TournamentStandings")
    class OutputSerializer(serializers.Serializer[Any]):
        final = serializers.BooleanField(help_text="True once the tournament has finished.")
        progress = ProgressOutputSerializer()
        standings = StandingOutputSerializer(many=True)

    @extend_schema(responses={200: OutputSerializer})
    def get(self, request: Request, tournament_id: int) -> Response:
        tournament = selectors.access_tournament_by_id(tournament_id=tournament_id)
        body = {
            "final": tournament.status == Tournament.Status.FINISHED,
            "progress": selectors.tournament_progress(tournament=tournament),
            "standings": selectors.tournament_standings(tournament=tournament),
        }
        return Response(self.OutputSerializer(body).data)


@extend_schema_serializer(component_name="TournamentMatchSeat")
class MatchSeatOutputSerializer(serializers.Serializer[MatchSeat]):
    seat = serializers.IntegerField()
    bot = serializers.IntegerField(source="bot_version.bot_id")
    bot_name = serializers.CharField(source="bot_version.bot.name")
    owner = serializers.CharField(source="bot_version.bot.owner.username")
    version = serializers.IntegerField(source="bot_version.number")
    rank = serializers.IntegerField(allow_null=True)
    score = serializers.IntegerField(allow_null=True)
    forfeit_reason = serializers.CharField()


@extend_schema_serializer(component_name="TournamentMatch")
class MatchOutputSerializer(serializers.Serializer[Match]):
    id = serializers.UUIDField()
    status = serializers.CharField(help_text="queued, running, finished or failed.")
    duplicate_group = serializers.UUIDField(allow_null=True)
    seed_commitment = serializers.CharField(
        help_text='sha256 hex of "rolling-heights-seed-v1:{seed}", published at creation.'
    )
    seed = serializers.IntegerField(
        source="seed_public",
        allow_null=True,
        help_text="Null until the match has finished and so has every match on its deal "
        "(its duplicate group, one seed).",
    )
    seed_chosen = serializers.BooleanField()
    termination = serializers.CharField()
    created_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)
    seats = serializers.SerializerMethodField()

    @extend_schema_field(MatchSeatOutputSerializer(many=True))
    def get_seats(self, match: Match) -> list[Any]:
        seats = sorted(match.seats.all(), key=lambda s: s.seat)
        return [MatchSeatOutputSerializer(s).data for s in seats]


class TournamentMatchListApi(APIView):
    """The tournament's matches grouped by round; `round` picks one round."""

    @extend_schema_serializer(component_name="TournamentRound")
    class RoundOutputSerializer(serializers.Serializer[Any]):
        round = serializers.IntegerField()
        matches = MatchOutputSerializer(many=True)

    class QuerySerializer(serializers.Serializer[Any]):
        round = serializers.IntegerField(required=False, min_value=1, max_value=MAX_INDEX)

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "round",
                {"type": "integer", "minimum": 1, "maximum": MAX_INDEX},
                description="Only this round.",
            )
        ],
        responses={200: RoundOutputSerializer(many=True)},
    )
    def get(self, request: Request, tournament_id: int) -> Response:
        query = self.QuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        tournament = selectors.access_tournament_by_id(tournament_id=tournament_id)
        rounds = selectors.tournament_matches_by_round(
            tournament=tournament, round_number=query.validated_data.get("round")
        )
        body = [{"round": number, "matches": matches} for number, matches in rounds.items()]
        return Response(self.RoundOutputSerializer(body, many=True).data)
