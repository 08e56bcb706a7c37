"""A user's public profile: the username, display name and bots.

It lists bots, so it belongs to the bots app, which may read accounts below it; the
root URLconf serves it at its address under accounts/ (`accounts-user`).
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from drf_spectacular.utils import extend_schema, extend_schema_field, extend_schema_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from heights_platform.accounts.selectors import access_user_by_username, user_display_name
from heights_platform.bots.selectors import bot_list


@extend_schema_serializer(component_name="UserPublicBot")
class UserBotOutputSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    name = serializers.CharField()
    description = serializers.CharField()
    active_version = serializers.IntegerField(allow_null=True)
    created_at = serializers.DateTimeField()


class UserDetailApi(APIView):
    """A public profile: the username, display name and bots."""

    @extend_schema_serializer(component_name="UserPublic")
    class OutputSerializer(serializers.Serializer[User]):
        username = serializers.CharField()
        display_name = serializers.SerializerMethodField()
        date_joined = serializers.DateTimeField()
        bots = serializers.SerializerMethodField()

        def get_display_name(self, user: User) -> str:
            return user_display_name(user=user)

        @extend_schema_field(UserBotOutputSerializer(many=True))
        def get_bots(self, user: User) -> list[dict[str, Any]]:
            return [
                {
                    "id": bot.pk,
                    "name": bot.name,
                    "description": bot.description,
                    "active_version": bot.active_version.number if bot.active_version else None,
                    "created_at": bot.created_at,
                }
                for bot in bot_list(owner=user.username).order_by("name")
            ]

    @extend_schema(responses={200: OutputSerializer})
    def get(self, request: Request, username: str) -> Response:
        user = access_user_by_username(username=username)
        return Response(self.OutputSerializer(user).data)
