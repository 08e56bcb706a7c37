"""`Authorization: Token <key>` (or `Bearer <key>`, as most HTTP clients send it) against
ApiToken: many named tokens per user, revocable. Any other scheme is refused with a 401
that names the accepted ones, rather than passed over as if no credentials were sent."""

from __future__ import annotations

import hashlib
from typing import Any

from django.utils import timezone
from rest_framework import authentication, exceptions
from rest_framework.request import Request

from heights_platform.accounts.models import ApiToken


def token_digest(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


# The schemes a token may be sent with, the first the one the docs use.
SCHEMES = ("Token", "Bearer")
EXAMPLE = "Authorization: Token <key> (or Bearer <key>), the key from POST /api/v1/accounts/login/"


class ApiTokenAuthentication(authentication.TokenAuthentication):
    """DRF's token scheme on the ApiToken model: keys stored as SHA-256, never in clear."""

    keyword = SCHEMES[0]
    hint = f"send {EXAMPLE}"  # added to the 401 of a request with no credentials

    def authenticate(self, request: Request) -> tuple[Any, ApiToken] | None:
        header = authentication.get_authorization_header(request).split()
        if not header:
            return None
        if header[0].lower() not in {s.lower().encode() for s in SCHEMES}:
            scheme = header[0].decode(errors="replace")[:20]
            raise exceptions.AuthenticationFailed(
                f"the Authorization scheme {scheme!r} is not accepted; send {EXAMPLE}"
            )
        if len(header) != 2:
            raise exceptions.AuthenticationFailed(f"malformed Authorization header; send {EXAMPLE}")
        try:
            key = header[1].decode()
        except UnicodeError:
            raise exceptions.AuthenticationFailed("malformed token") from None
        return self.authenticate_credentials(key)

    def authenticate_credentials(self, key: str) -> tuple[Any, ApiToken]:
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
