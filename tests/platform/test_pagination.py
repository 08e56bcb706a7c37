"""Cursor pagination (common/pagination.py): a cursor the list did not give is refused."""

from __future__ import annotations

import base64
from collections.abc import Callable

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from heights_platform.bots.models import Bot

LISTS = [
    "/api/v1/matches/",
    "/api/v1/replays/",
    "/api/v1/bots/",
    "/api/v1/bots/?ordering=-created_at",
    "/api/v1/tournaments/",
    "/api/v1/accounts/tokens/",
    "/api/v1/bots/{bot}/versions/",
]


def _cursor(tokens: str) -> str:
    return base64.b64encode(tokens.encode()).decode()


@pytest.mark.parametrize("url", LISTS)
@pytest.mark.parametrize(
    "tokens",
    [
        "p=not-a-time",
        "p=2020-13-45",
        "p=%00",
        "o=1&r=1&p=x",
        "p=1e400",
        # A time in the years 1..9999 that is not in UTC, where PostgreSQL compares it:
        # a DataError, answered 'a value is outside the range the database accepts'.
        "p=0001-01-01T00:00:00%2B23:59",
        "p=9999-12-31T23:59:59-23:59",
    ],
)
def test_a_forged_cursor_position_is_refused_naming_the_cursor(
    make_user: Callable[..., User],
    client_for: Callable[[User], APIClient],
    make_bot: Callable[..., Bot],
    url: str,
    tokens: str,
) -> None:
    # The position is the ordering field's value in the last row shown: one that is no
    # value of that field (a time, a number) was a Django ValidationError, a 500.
    user = make_user("ada")
    bot = make_bot(user, "mine")
    separator = "&" if "?" in url else "?"
    address = url.format(bot=bot.pk) + f"{separator}cursor={_cursor(tokens)}"
    refused = client_for(user).get(address)
    assert refused.status_code == 404, refused.content
    body = refused.json()
    assert body["code"] == "not_found"
    assert body["message"].startswith("invalid cursor")
    assert "next or previous link" in body["message"]


def test_the_cursors_a_list_gives_still_page_through_it(
    api: APIClient, make_user: Callable[..., User], make_bot: Callable[..., Bot]
) -> None:
    owner = make_user()
    for n in range(5):
        make_bot(owner, f"b{n}")
    for ordering in ("-created_at", "name"):
        page = api.get("/api/v1/bots/", {"page_size": 2, "ordering": ordering}).json()
        seen = [b["name"] for b in page["results"]]
        while page["next"]:
            page = api.get(page["next"]).json()
            seen += [b["name"] for b in page["results"]]
        assert sorted(seen) == [f"b{n}" for n in range(5)]
        back = api.get(page["previous"]).json()
        assert back["results"]
