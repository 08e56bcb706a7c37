"""A bot's detail: the bot, its recent versions and its ratings on every ladder.

It lists ladder ratings, so it belongs to the ladders app, which may read bots below it;
the root URLconf serves it at its address under bots/ (`bot`). Its owner may edit the
description here (bots.services.bot_update).
"""

from __future__ import annotations

from typing import Any

from django.http import HttpResponse
from drf_spectacular.utils import extend_schema, extend_schema_serializer
from rest_framework import serializers
from rest_framework.generics import GenericAPIView
from rest_framework.request import Request
from rest_framework.response import Response

from heights_platform.bots import selectors, services
from heights_platform.bots.apis import BotOutputSerializer, BotVersionOutputSerializer
from heights_platform.bots.models import Bot
from heights_platform.common.page_cache import shared_cached_response
from heights_platform.ladders.selectors import bot_ladder_entries

_RECENT_VERSIONS = 20
# How long a cached reply may miss an edit made outside the services (the admin's other
# forms, SQL), as the bot's page on the site does (site/bot_page.CACHE_SECONDS).
BOT_DETAIL_SECONDS = 300


@extend_schema_serializer(component_name="BotLadderEntry")
class BotLadderEntryOutputSerializer(serializers.Serializer[Any]):
    """A bot's ratings on one ladder."""

    ladder = serializers.CharField(source="ladder.slug")
    elo = serializers.FloatField()
    mu = serializers.FloatField()
    sigma = serializers.FloatField()
    games = serializers.IntegerField()
    wins = serializers.FloatField()
    last_match_at = serializers.DateTimeField(allow_null=True)


class BotDetailApi(GenericAPIView[Bot]):
    """A bot with its recent versions and its ratings; its owner may edit the description."""

    @extend_schema_serializer(component_name="BotDetail")
    class OutputSerializer(BotOutputSerializer):
        version_count = serializers.IntegerField()
        versions = BotVersionOutputSerializer(many=True, help_text="The 20 most recent.")
        ladder_entries = BotLadderEntryOutputSerializer(many=True)

    @extend_schema_serializer(component_name="BotUpdateInput")
    class InputSerializer(serializers.Serializer[Any]):
        description = serializers.CharField(max_length=2000, allow_blank=True)

    def _render(self, request: Request, bot: Bot) -> dict[str, Any]:
        private = selectors.bot_private_visible(user=request.user, bot=bot)
        versions = selectors.bot_version_list(bot=bot)
        recent = list(versions[:_RECENT_VERSIONS])
        # Counted only when the recent ones may not be all: most bots have a few versions.
        count = len(recent) if len(recent) < _RECENT_VERSIONS else versions.count()
        entries = bot_ladder_entries(bot=bot)
        return {
            **BotOutputSerializer(bot).data,
            "version_count": count,
            "versions": BotVersionOutputSerializer(
                recent, many=True, context={"private": private}
            ).data,
            "ladder_entries": BotLadderEntryOutputSerializer(entries, many=True).data,
        }

    @extend_schema(responses={200: OutputSerializer})
    def get(self, request: Request, bot_id: int) -> Response | HttpResponse:
        def build() -> dict[str, Any]:
            return self._render(request, selectors.access_bot_by_id(bot_id=bot_id))

        if request.user.is_authenticated:  # the owner sees rejection texts: always fresh
            return Response(build())
        # What this shows (the bot, its versions, its ratings on every ladder) is part of
        # what its page on the site shows, and every write to it bumps the bot's page
        # version once it commits (site/bot_page.py lists them): the version read first
        # keys the reply. An unknown bot is a 404 raised by build(), never stored.
        version = selectors.bot_page_version(bot_id=bot_id)
        return shared_cached_response(
            request, f"bot:{bot_id}:{version}", build, seconds=BOT_DETAIL_SECONDS
        )

    @extend_schema(request=InputSerializer, responses={200: OutputSerializer})
    def patch(self, request: Request, bot_id: int) -> Response:
        bot = selectors.access_bot_for_owner_by_id(user=request.user, bot_id=bot_id)
        data = self.InputSerializer(data=request.data, partial=True)  # PATCH: any subset
        data.is_valid(raise_exception=True)
        bot = services.bot_update(bot=bot, **data.validated_data)
        return Response(self._render(request, bot))
