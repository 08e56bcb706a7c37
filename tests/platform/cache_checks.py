"""Checks shared by the tests of the API's caches for readers not signed in (a bot's
detail, its matches): what a reply is, a fresh one, and one built afresh after a write."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from django.core.cache import cache
from django.test import RequestFactory
from rest_framework.test import APIClient

from heights_platform.bots.models import Bot, BotVersion


def api_bytes(path: str, client: APIClient | None = None) -> bytes:
    """The JSON reply to GET `path`, which must succeed."""
    response = (client or APIClient()).get(path)
    assert response.status_code == 200, (path, response.status_code, response.content)
    assert response["Content-Type"] == "application/json"
    content: bytes = response.content
    return content


def fresh_api_bytes(path: str) -> bytes:
    """The reply with nothing cached."""
    cache.clear()
    return api_bytes(path)


def built_afresh_after(path: str, committed: Callable[[], Any], write: Callable[[], Any]) -> Any:
    """The reply before `write` comes from the cache; after it, it shows the change and is
    byte for byte a fresh one. Returns the reply after, parsed."""
    before = api_bytes(path)
    assert api_bytes(path) == before
    with committed():
        write()
    after = api_bytes(path)
    assert after != before
    assert after == fresh_api_bytes(path)
    return json.loads(after)


def active_version(bot: Bot) -> BotVersion:
    """The bot's active version as the database has it now."""
    bot.refresh_from_db()
    assert isinstance(bot.active_version, BotVersion)
    return bot.active_version


def admin_request(world: dict[str, Any]) -> Any:
    """A request to the admin by the world's alice, made staff: what an admin action takes."""
    staff = world["users"]["alice"]
    staff.is_staff = staff.is_superuser = True
    request = RequestFactory().post("/admin/")
    request.user = staff
    return request
