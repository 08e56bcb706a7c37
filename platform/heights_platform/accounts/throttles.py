"""Login throttles: per client (IP, or user when signed in) and per attempted username."""

from __future__ import annotations

import hashlib
from typing import Any

from rest_framework.request import Request
from rest_framework.throttling import ScopedRateThrottle, SimpleRateThrottle


class LoginRateThrottle(ScopedRateThrottle):
    """Per client address; the view sets `throttle_scope = "login"`."""


class LoginUsernameRateThrottle(SimpleRateThrottle):
    """Per attempted username, so a botnet of addresses cannot guess one account's password."""

    scope = "login"

    def get_cache_key(self, request: Request, view: Any) -> str | None:
        data = request.data
        username = data.get("username") if hasattr(data, "get") else None
        if not isinstance(username, str) or not username:
            return None
        ident = hashlib.sha256(username.strip().lower().encode()).hexdigest()
        return self.cache_format % {"scope": "login_username", "ident": ident}
