"""Accounts API: registration, log-in tokens, my profile and password.

A user's public profile lists their bots, so it is the bots app's (bots.profile_apis).

Thin views: input serializers validate shape, services decide, output serializers render.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import update_session_auth_hash
from django.contrib.auth.models import User
from drf_spectacular.utils import extend_schema, extend_schema_serializer
from rest_framework import serializers, status
from rest_framework.authentication import SessionAuthentication
from rest_framework.generics import ListAPIView
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import BaseThrottle
from rest_framework.views import APIView

from heights_platform.accounts import selectors, services
from heights_platform.accounts.models import ApiToken
from heights_platform.accounts.throttles import LoginRateThrottle, LoginUsernameRateThrottle


def _me(request: Request) -> User:
    user = request.user
    assert isinstance(user, User)  # IsAuthenticated ran first
    return user


@extend_schema_serializer(component_name="ApiToken")
class ApiTokenOutputSerializer(serializers.ModelSerializer[ApiToken]):
    """A token as its owner sees it: never the key, only its first characters."""

    class Meta:
        model = ApiToken
        fields = ("id", "name", "prefix", "created_at", "last_used_at")
        read_only_fields = fields


@extend_schema_serializer(component_name="Me")
class MeOutputSerializer(serializers.Serializer[User]):
    id = serializers.IntegerField()
    username = serializers.CharField()
    email = serializers.EmailField()
    display_name = serializers.SerializerMethodField()
    date_joined = serializers.DateTimeField()

    def get_display_name(self, user: User) -> str:
        return selectors.user_display_name(user=user)


class UserRegisterApi(APIView):
    """Create an account; log in afterwards to get a token. Throttled like log-ins."""

    permission_classes = (AllowAny,)
    throttle_scope = "login"
    throttle_classes = (LoginRateThrottle,)

    @extend_schema_serializer(component_name="UserRegisterInput")
    class InputSerializer(serializers.Serializer[Any]):
        username = serializers.RegexField(
            r"^[A-Za-z0-9_.-]+$",
            max_length=40,
            min_length=2,
            error_messages={"invalid": "letters, digits, '_', '.' and '-' only, e.g. ada.l_42"},
        )
        email = serializers.EmailField()
        password = serializers.CharField(max_length=128, write_only=True)

    @extend_schema(request=InputSerializer, responses={201: MeOutputSerializer})
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        user = services.user_register(**data.validated_data)
        return Response(MeOutputSerializer(user).data, status=status.HTTP_201_CREATED)


class UserLogInApi(APIView):
    """Username and password for a new named token; the key is in this response only."""

    permission_classes = (AllowAny,)
    throttle_scope = "login"

    @extend_schema_serializer(component_name="LogInInput")
    class InputSerializer(serializers.Serializer[Any]):
        username = serializers.CharField(max_length=150)
        password = serializers.CharField(max_length=128, write_only=True)
        token_name = serializers.CharField(max_length=64, default="api")

    @extend_schema_serializer(component_name="LogInOutput")
    class OutputSerializer(serializers.Serializer[Any]):
        key = serializers.CharField(help_text="The token key: shown once, store it now.")
        token = ApiTokenOutputSerializer()

    def get_throttles(self) -> list[BaseThrottle]:
        return [LoginRateThrottle(), LoginUsernameRateThrottle()]

    @extend_schema(request=InputSerializer, responses={201: OutputSerializer})
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        issued = services.user_log_in(request=request._request, **data.validated_data)
        body = self.OutputSerializer({"key": issued.key, "token": issued.token}).data
        return Response(body, status=status.HTTP_201_CREATED)


class ApiTokenListApi(ListAPIView[ApiToken]):
    """My live tokens, newest first."""

    permission_classes = (IsAuthenticated,)
    serializer_class = ApiTokenOutputSerializer
    filter_backends = ()

    def get_queryset(self) -> Any:
        return selectors.api_token_list(user=_me(self.request))


class ApiTokenRevokeApi(APIView):
    """Revoke one of my tokens; anyone else's token id is a 404."""

    permission_classes = (IsAuthenticated,)

    @extend_schema(request=None, responses={204: None})
    def delete(self, request: Request, token_id: int) -> Response:
        token = selectors.access_api_token_by_id(user=_me(request), token_id=token_id)
        services.api_token_revoke(token=token)
        return Response(status=status.HTTP_204_NO_CONTENT)


class MeApi(APIView):
    """My account: read it, or change the e-mail address and display name."""

    permission_classes = (IsAuthenticated,)

    @extend_schema_serializer(component_name="MeUpdateInput")
    class InputSerializer(serializers.Serializer[Any]):
        email = serializers.EmailField(required=False)
        display_name = serializers.CharField(max_length=64, required=False, allow_blank=True)

    @extend_schema(responses={200: MeOutputSerializer})
    def get(self, request: Request) -> Response:
        return Response(MeOutputSerializer(_me(request)).data)

    @extend_schema(request=InputSerializer, responses={200: MeOutputSerializer})
    def patch(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data, partial=True)
        data.is_valid(raise_exception=True)
        user = services.profile_update(user=_me(request), **data.validated_data)
        return Response(MeOutputSerializer(user).data)


class MePasswordChangeApi(APIView):
    """New password for the old one; every other token is revoked."""

    permission_classes = (IsAuthenticated,)

    @extend_schema_serializer(component_name="PasswordChangeInput")
    class InputSerializer(serializers.Serializer[Any]):
        old_password = serializers.CharField(max_length=128, write_only=True)
        new_password = serializers.CharField(max_length=128, write_only=True)

    @extend_schema_serializer(component_name="PasswordChangeOutput")
    class OutputSerializer(serializers.Serializer[Any]):
        revoked_tokens = serializers.IntegerField()

    @extend_schema(request=InputSerializer, responses={200: OutputSerializer})
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        user = _me(request)
        keep = request.auth if isinstance(request.auth, ApiToken) else None
        revoked = services.user_change_password(user=user, keep_token=keep, **data.validated_data)
        if isinstance(request.successful_authenticator, SessionAuthentication):
            update_session_auth_hash(request._request, user)  # keep this session signed in
        return Response(self.OutputSerializer({"revoked_tokens": revoked}).data)
