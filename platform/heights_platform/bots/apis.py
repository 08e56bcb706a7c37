"""Bots API: bots and their versions (uploads, metadata, source).

A bot's detail lists its ladder ratings, so it is the ladders app's (ladders.bot_apis).

Metadata is public; writes need the owner; a version's source and rejection text are
the owner's and staff's only (see selectors). Versions are immutable: no PUT, PATCH or
DELETE (405).
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.http import HttpResponse
from django.utils.http import content_disposition_header
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_serializer
from rest_framework import serializers, status
from rest_framework.filters import OrderingFilter
from rest_framework.generics import GenericAPIView
from rest_framework.parsers import MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import BaseThrottle, ScopedRateThrottle

from heights_platform.bots import selectors, services
from heights_platform.bots.models import Bot, BotVersion
from heights_platform.common.errors import ApiError
from heights_platform.common.pagination import CursorPagination
from heights_runner.contract import MAX_BOT_BYTES

# A version's source as uploaded: an archive, or one source file by its language.
_SOURCE_TYPES = {"zip": "application/zip", "py": "text/x-python"}


def _me(request: Request) -> User:
    user = request.user
    assert isinstance(user, User)  # IsAuthenticatedOrReadOnly ran first for writes
    return user


@extend_schema_serializer(component_name="Bot")
class BotOutputSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    owner = serializers.CharField(source="owner.username")
    name = serializers.CharField()
    description = serializers.CharField()
    active_version = serializers.IntegerField(
        source="active_version.number", allow_null=True, default=None
    )
    created_at = serializers.DateTimeField()


@extend_schema_serializer(component_name="BotVersion")
class BotVersionOutputSerializer(serializers.Serializer[Any]):
    """Public metadata; `error` is null unless the reader owns the bot (or is staff)."""

    number = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=BotVersion.Kind.choices)
    filename = serializers.CharField()
    size = serializers.IntegerField()
    sha256 = serializers.CharField()
    status = serializers.ChoiceField(choices=BotVersion.Status.choices)
    qualification_match = serializers.UUIDField(
        source="qualification_match_id", allow_null=True, read_only=True
    )
    created_at = serializers.DateTimeField()
    error = serializers.SerializerMethodField()

    def get_error(self, version: BotVersion) -> str | None:
        return version.error if self.context.get("private") else None


class BotListApi(GenericAPIView[Bot]):
    """List bots (filter by owner, name, active; order by created_at or name) or create one."""

    serializer_class = BotOutputSerializer
    filter_backends = (OrderingFilter,)
    ordering_fields = ("created_at", "name")
    ordering = ("-created_at",)

    @extend_schema_serializer(component_name="BotCreateInput")
    class InputSerializer(serializers.Serializer[Any]):
        name = serializers.RegexField(
            r"^[a-z0-9][a-z0-9_-]*$",
            max_length=40,
            error_messages={
                "invalid": "lower-case letters, digits, '_' and '-', starting with a letter "
                "or digit, e.g. my-bot_2"
            },
        )
        description = serializers.CharField(max_length=2000, required=False, allow_blank=True)

    @extend_schema_serializer(component_name="BotListFilter")
    class FilterSerializer(serializers.Serializer[Any]):
        owner = serializers.CharField(required=False, help_text="The owner's username.")
        name = serializers.CharField(required=False)
        active = serializers.BooleanField(
            required=False,
            allow_null=True,
            default=None,
            help_text="Only bots with (true) or without (false) an active version.",
        )

    def get_queryset(self) -> Any:
        return selectors.bot_list()

    @extend_schema(parameters=[FilterSerializer], responses=BotOutputSerializer(many=True))
    def get(self, request: Request) -> Response:
        filters = self.FilterSerializer(data=request.query_params)
        filters.is_valid(raise_exception=True)
        queryset = selectors.bot_list(**filters.validated_data)
        page = self.paginate_queryset(self.filter_queryset(queryset))
        return self.get_paginated_response(BotOutputSerializer(page, many=True).data)

    @extend_schema(request=InputSerializer, responses={201: BotOutputSerializer})
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        bot = services.bot_create(owner=_me(request), **data.validated_data)
        return Response(BotOutputSerializer(bot).data, status=status.HTTP_201_CREATED)


class _VersionPagination(CursorPagination):
    ordering = "-number"


class BotVersionListApi(GenericAPIView[BotVersion]):
    """A bot's versions, newest first, or upload a new one (the owner; multipart `file`)."""

    serializer_class = BotVersionOutputSerializer
    pagination_class = _VersionPagination
    filter_backends = ()
    parser_classes = (MultiPartParser,)  # only POST has a body
    throttle_scope = "upload"

    @extend_schema_serializer(component_name="BotVersionUploadInput")
    class InputSerializer(serializers.Serializer[Any]):
        file = serializers.FileField(
            max_length=100,
            allow_empty_file=True,
            help_text=services.UPLOAD_HELP,
        )

    def get_throttles(self) -> list[BaseThrottle]:
        throttles = super().get_throttles()
        if self.request.method == "POST":
            throttles.append(ScopedRateThrottle())
        return throttles

    @extend_schema(responses=BotVersionOutputSerializer(many=True))
    def get(self, request: Request, bot_id: int) -> Response:
        bot = selectors.access_bot_by_id(bot_id=bot_id)
        private = selectors.bot_private_visible(user=request.user, bot=bot)
        page = self.paginate_queryset(selectors.bot_version_list(bot=bot))
        data = BotVersionOutputSerializer(page, many=True, context={"private": private}).data
        return self.get_paginated_response(data)

    @extend_schema(
        request={"multipart/form-data": InputSerializer},
        responses={201: BotVersionOutputSerializer},
    )
    def post(self, request: Request, bot_id: int) -> Response:
        bot = selectors.access_bot_for_owner_by_id(user=request.user, bot_id=bot_id)
        # Refuse an oversized body by its declared length, before reading any of it.
        declared = services.declared_too_large(request.META)
        if declared is not None:
            raise ApiError("too_large", declared, {"limit": MAX_BOT_BYTES})
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        upload = data.validated_data["file"]
        if upload.size is not None and upload.size > MAX_BOT_BYTES:
            raise services.too_large(str(upload.name), upload.size)
        version = services.bot_version_create(
            bot=bot, filename=str(upload.name), content=upload.read(MAX_BOT_BYTES + 1)
        )
        body = BotVersionOutputSerializer(version, context={"private": True}).data
        return Response(body, status=status.HTTP_201_CREATED)


class BotVersionDetailApi(GenericAPIView[BotVersion]):
    """One version's metadata. Versions are immutable: GET only."""

    serializer_class = BotVersionOutputSerializer

    def get(self, request: Request, bot_id: int, number: int) -> Response:
        bot = selectors.access_bot_by_id(bot_id=bot_id)
        version = selectors.access_bot_version_by_number(bot=bot, number=number)
        private = selectors.bot_private_visible(user=request.user, bot=bot)
        return Response(BotVersionOutputSerializer(version, context={"private": private}).data)


class BotVersionSourceApi(GenericAPIView[BotVersion]):
    """The uploaded file, for the bot's owner and staff; 404 for anyone else."""

    @extend_schema(
        responses={
            (200, "text/x-python"): OpenApiResponse(
                OpenApiTypes.BINARY, description="The .py file as uploaded."
            ),
            (200, "text/plain"): OpenApiResponse(
                OpenApiTypes.BINARY,
                description="A .js, .java, .cpp or .rs file as uploaded (UTF-8).",
            ),
            (200, "application/zip"): OpenApiResponse(
                OpenApiTypes.BINARY, description="The .zip archive as uploaded."
            ),
        }
    )
    def get(self, request: Request, bot_id: int, number: int) -> HttpResponse:
        version = selectors.access_bot_version_source_by_number(
            user=request.user, bot_id=bot_id, number=number
        )
        content_type = _SOURCE_TYPES.get(version.kind, "text/plain; charset=utf-8")
        response = HttpResponse(bytes(version.content), content_type=content_type)
        response["Content-Disposition"] = content_disposition_header(True, version.filename)
        response["Cache-Control"] = "private, no-store"
        return response
