"""Requests are checked against the OpenAPI schema at the door: through the real API."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from heights_platform.bots.models import Bot
from heights_platform.common.converters import MAX_ID
from heights_platform.ladders.services import ladder_create

BIG = "9" * 20  # over any bigint


@pytest.mark.parametrize(
    ("url", "field", "allowed"),
    [
        (f"/api/v1/matches/?winner={BIG}", "winner", f"an integer from 1 to {MAX_ID}"),
        ("/api/v1/matches/?winner=1.5", "winner", f"an integer from 1 to {MAX_ID}"),
        (f"/api/v1/replays/?tournament={BIG}", "tournament", f"an integer from 1 to {MAX_ID}"),
        ("/api/v1/bots/?page_size=null", "page_size", "an integer from 1 to 200"),
        ("/api/v1/bots/?page_size=0", "page_size", "an integer from 1 to 200"),
        ("/api/v1/bots/?active=1", "active", "true or false"),
        ("/api/v1/matches/?status=done", "status", "one of failed, finished, queued, running"),
        (
            f"/api/v1/ladders/duel/leaderboard/?offset={BIG}",
            "offset",
            "an integer from 0 to 2147483647",
        ),
        ("/api/v1/bots/?owner=" + "x" * 201, "owner", "at most 200 characters"),
        ("/api/v1/bots/?owner=a&owner=b", "owner", "given once"),
        # Valid ISO 8601, but outside the years 1..9999 once in UTC: was a DataError,
        # answered without naming the parameter.
        (
            "/api/v1/matches/?created_after=0001-01-01T00:00:00%2B23:59",
            "created_after",
            "a date-time",
        ),
        (
            "/api/v1/replays/?created_before=9999-12-31T23:59:59-01:00",
            "created_before",
            "a date-time",
        ),
    ],
)
def test_a_query_value_the_schema_forbids_is_400_naming_it(
    api: APIClient, url: str, field: str, allowed: str
) -> None:
    ladder_create(slug="duel", name="Duel", players=2)
    response = api.get(url)
    assert response.status_code == 400, response.content
    body = response.json()
    assert body["code"] == "invalid"
    assert body["details"] == {"in": "query", "field": field, "allowed": allowed}
    assert field in body["message"]


@pytest.mark.parametrize(
    ("url", "field", "allowed"),
    [
        (f"/api/v1/bots/{BIG}/", "bot_id", f"an integer from 1 to {MAX_ID}"),
        ("/api/v1/bots/0/versions/", "bot_id", f"an integer from 1 to {MAX_ID}"),
        (f"/api/v1/replays/1/steps/{BIG}/", "step", "an integer from 0 to 2147483647"),
    ],
)
def test_a_path_integer_out_of_range_is_400_naming_it(
    api: APIClient, url: str, field: str, allowed: str
) -> None:
    response = api.get(url)
    assert response.status_code == 400, response.content
    assert response.json()["details"] == {"in": "path", "field": field, "allowed": allowed}


def test_unknown_query_parameters_are_400_listing_the_allowed_ones(api: APIClient) -> None:
    response = api.get("/api/v1/bots/?colour=red&owner=x")
    assert response.status_code == 400
    details = response.json()["details"]
    assert details["unknown"] == ["colour"]
    assert details["allowed"] == ["active", "cursor", "name", "ordering", "owner", "page_size"]
    assert "colour" in response.json()["message"]
    assert api.get("/api/v1/ladders/?page_size=5").status_code == 400  # not paginated


def test_a_body_the_schema_forbids_is_400_naming_the_field(
    make_user: Callable[..., User], client_for: Callable[[User], APIClient]
) -> None:
    client = client_for(make_user())
    for body, field in [
        ({"name": 7}, "name"),
        ({"name": "ok", "description": None}, "description"),
    ]:
        response = client.post("/api/v1/bots/", body, format="json")
        assert response.status_code == 400, response.content
        assert response.json()["details"]["in"] == "body"
        assert response.json()["details"]["field"] == field
    assert not Bot.objects.exists()


def test_patch_is_partial(
    make_user: Callable[..., User],
    client_for: Callable[[User], APIClient],
    make_bot: Callable[..., Bot],
) -> None:
    owner = make_user()
    bot = make_bot(owner, "rocket", description="fast")
    client = client_for(owner)
    unchanged = client.patch(f"/api/v1/bots/{bot.pk}/", {}, format="json")
    assert unchanged.status_code == 200, unchanged.content
    assert unchanged.json()["description"] == "fast"
    changed = client.patch(f"/api/v1/bots/{bot.pk}/", {"description": "slow"}, format="json")
    assert changed.json()["description"] == "slow"


def test_the_schema_declares_the_bounds_it_enforces(api: APIClient) -> None:
    schema = api.get("/api/v1/schema/?format=json").json()
    matches = schema["paths"]["/api/v1/matches/"]["get"]["parameters"]
    by_name = {p["name"]: p["schema"] for p in matches}
    assert by_name["winner"] == {"type": "integer", "minimum": 1, "maximum": MAX_ID}
    assert by_name["page_size"] == {"type": "integer", "minimum": 1, "maximum": 200}
    bot = schema["paths"]["/api/v1/bots/{bot_id}/"]["get"]["parameters"][0]
    assert bot["schema"] == {"type": "integer", "minimum": 1, "maximum": MAX_ID}
