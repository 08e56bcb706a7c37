"""Replays API (public, read-only): lists with filters, metadata, the gzip record, step
browsing with any viewer's observation, and verification by re-simulation.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpResponse
from django.utils.http import content_disposition_header
from django_filters.rest_framework import (  # type: ignore[import-untyped]
    DjangoFilterBackend,
)
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_serializer,
)
from rest_framework import serializers
from rest_framework.generics import GenericAPIView
from rest_framework.request import Request
from rest_framework.response import Response

from heights_platform.common.page_cache import cached_response
from heights_platform.matches.apis import (
    MatchOutputSerializer,
    MatchSeatOutputSerializer,
    with_seats,
)
from heights_platform.replays import selectors
from heights_platform.replays.conditional import STEP_CACHE_CONTROL, not_modified, step_etag
from heights_platform.replays.models import Replay
from heights_rules import FILE_SUFFIX, PUBLIC


@extend_schema_serializer(component_name="Replay")
class ReplayOutputSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    match = serializers.UUIDField(source="match_id")
    kind = serializers.CharField(
        source="match.kind", help_text="ladder, tournament, challenge or qualification."
    )
    ladder = serializers.SlugField(source="match.ladder.slug", allow_null=True, default=None)
    tournament = serializers.IntegerField(source="match.tournament_id", allow_null=True)
    steps = serializers.IntegerField()
    size = serializers.IntegerField()
    sha256 = serializers.CharField()
    created_at = serializers.DateTimeField()
    seats = MatchSeatOutputSerializer(source="match.seats", many=True)


class _ReplayRowSerializer(ReplayOutputSerializer):
    """A replay list row before `with_seats` adds its seats."""

    seats = None  # type: ignore[assignment]  # removes the field


@extend_schema_serializer(component_name="ReplayDetail")
class ReplayDetailOutputSerializer(ReplayOutputSerializer):
    seed = serializers.IntegerField(source="match.seed")
    seed_text = serializers.CharField(
        source="match.seed",
        help_text="The seed as a decimal string: exact in JavaScript, whose numbers round "
        "integers above 2**53.",
    )
    seed_commitment = serializers.CharField(source="match.seed_commitment")
    match_detail = MatchOutputSerializer(source="match")


@extend_schema_serializer(component_name="ReplayAction")
class ReplayActionOutputSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    text = serializers.CharField()
    actor = serializers.JSONField(help_text='The seat that chose the action, or "chance".')
    debug = serializers.CharField(
        help_text="The acting bot's note on this decision (public, as the whole replay is); "
        "empty when it gave none."
    )


@extend_schema_serializer(component_name="ReplayEvent")
class ReplayEventOutputSerializer(serializers.Serializer[Any]):
    kind = serializers.CharField()
    player = serializers.IntegerField()
    data = serializers.DictField()  # type: ignore[assignment]  # a field named data


@extend_schema_serializer(component_name="ReplayStep")
class ReplayStepOutputSerializer(serializers.Serializer[Any]):
    step = serializers.IntegerField()
    steps = serializers.IntegerField()
    viewer = serializers.JSONField(help_text='"public" or a seat.')
    observation = serializers.DictField(
        help_text="heights_rules observation before the action, without `infoset`."
    )
    action = ReplayActionOutputSerializer(allow_null=True)
    events = ReplayEventOutputSerializer(many=True)


@extend_schema_serializer(component_name="ReplayVerification")
class ReplayVerifyOutputSerializer(serializers.Serializer[Any]):
    ok = serializers.BooleanField()
    steps = serializers.IntegerField()
    message = serializers.CharField()
    first_difference = serializers.DictField(allow_null=True)
    checks = serializers.DictField(child=serializers.BooleanField())


class ReplayListApi(GenericAPIView[Replay]):
    """Replays of finished matches, newest first."""

    serializer_class = ReplayOutputSerializer
    filter_backends = (DjangoFilterBackend,)
    filterset_class = selectors.ReplayFilter

    def get_queryset(self) -> Any:
        return selectors.replay_list_page()

    @extend_schema(responses=ReplayOutputSerializer(many=True))
    def get(self, request: Request) -> Response | HttpResponse:
        def build() -> Any:
            page = self.paginate_queryset(self.filter_queryset(self.get_queryset())) or []
            rows = list(_ReplayRowSerializer(page, many=True).data)
            return self.get_paginated_response(with_seats(rows, [r.match_id for r in page])).data

        return cached_response(request, ("replays", selectors.replays_version()), build)


class ReplayDetailApi(GenericAPIView[Replay]):
    serializer_class = ReplayDetailOutputSerializer

    def get(self, request: Request, replay_id: int) -> Response:
        replay = selectors.access_replay_by_id(replay_id=replay_id)
        return Response(ReplayDetailOutputSerializer(replay).data)


class ReplayDownloadApi(GenericAPIView[Replay]):
    """The replay record as stored: gzip of canonical JSON; ETag is its sha256."""

    @extend_schema(
        responses={
            (200, "application/gzip"): OpenApiResponse(
                OpenApiTypes.BINARY, description=f"The gzip replay record ({FILE_SUFFIX})."
            ),
            304: OpenApiResponse(description="Not modified (If-None-Match)."),
        }
    )
    def get(self, request: Request, replay_id: int) -> HttpResponse:
        replay = selectors.access_replay_data_by_id(replay_id=replay_id)
        etag = f'"{replay.sha256}"'
        if etag in request.headers.get("If-None-Match", ""):
            response = HttpResponse(status=304)
        else:
            response = HttpResponse(bytes(replay.data), content_type="application/gzip")
            filename = f"{replay.match_id}{FILE_SUFFIX}"
            response["Content-Disposition"] = content_disposition_header(True, filename)
        response["ETag"] = etag
        response["Cache-Control"] = "public, max-age=86400, immutable"
        return response


class ReplayStepApi(GenericAPIView[Replay]):
    """The game before action `step` (0..steps; `steps` is the final state), the action
    and its events. `viewer`: "public" (default) or a seat: a finished game hides nothing
    from its audience, so every seat's view is allowed."""

    serializer_class = ReplayStepOutputSerializer

    @extend_schema_serializer(component_name="ReplayStepQuery")
    class FilterSerializer(serializers.Serializer[Any]):
        viewer = serializers.RegexField(
            r"^(public|[0-3])$",
            default="public",
            error_messages={
                "invalid": '"public" or a seat number 0-3, e.g. ?viewer=public or ?viewer=1'
            },
        )

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "viewer",
                str,
                enum=["public", "0", "1", "2", "3"],
                description='"public" (default) or a seat number (0-3).',
            )
        ]
    )
    def get(self, request: Request, replay_id: int, step: int) -> Response | HttpResponse:
        query = self.FilterSerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        raw = query.validated_data["viewer"]
        viewer = PUBLIC if raw == "public" else int(raw)
        replay = selectors.access_replay_for_steps_by_id(replay_id=replay_id)
        # A recorded replay never changes, so neither does its step: the tag names its
        # inputs (the record's sha256, the step, the viewer, the code that renders it),
        # and a client that holds it is answered before anything is simulated.
        etag = step_etag(sha256=replay.sha256, step=step, viewer=raw)
        if not_modified(request, etag):
            response: Response | HttpResponse = HttpResponse(status=304)
        else:
            response = Response(selectors.replay_step(replay=replay, step=step, viewer=viewer))
        response["ETag"] = etag
        response["Cache-Control"] = STEP_CACHE_CONTROL
        return response


class ReplayVerifyApi(GenericAPIView[Replay]):
    """Re-simulate the record: does it reach the recorded end with the recorded ranks?"""

    serializer_class = ReplayVerifyOutputSerializer

    def get(self, request: Request, replay_id: int) -> Response:
        replay = selectors.access_replay_by_id(replay_id=replay_id, with_data=True)
        report = selectors.replay_verify(replay=replay)
        return Response(ReplayVerifyOutputSerializer(report).data)
