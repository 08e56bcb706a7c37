"""`Authorization: Token <key>` against ApiToken: many named tokens per user, revocable."""

from __future__ import annotations

import hashlib
from typing import Any

from django.utils import timezone
from rest_framework import authentication, exceptions
from rest_framework.request import Request

from heights_platform.accounts.models import ApiToken


def token_digest(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


class ApiTokenAuthentication(authentication.BaseAuthentication):
    keyword = "Token"

    def authenticate(self, request: Request) -> tuple[Any, ApiToken] | None:
        header = authentication.get_authorization_header(request).split()
        if not header or header[0].lower() != self.keyword.lower().encode():
            return None
        if len(header) != 2:
            raise exceptions.AuthenticationFailed("malformed Authorization header")
        try:
            key = header[1].decode()
        except UnicodeError:
            raise exceptions.AuthenticationFailed("malformed token") from None
        token = (
            ApiToken.objects.select_related("user")
            .filter(key_sha256=token_digest(key), revoked_at__isnull=True)
            .first()
        )
        if token is None or not token.user.is_active:
            raise exceptions.AuthenticationFailed("invalid or revoked token")
        # Coarse (once a minute) so reads do not turn into a write per request.
        now = timezone.now()
        if token.last_used_at is None or (now - token.last_used_at).total_seconds() > 60:
            ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
        return token.user, token

    def authenticate_header(self, request: Request) -> str:
        return self.keyword
