"""An API that says what it wants: the token scheme, the content types, the trailing
slash, each refusal in the one error shape naming what is accepted, changing nothing."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from heights_platform.bots.models import Bot
from heights_platform.common.parsers import MAX_BODY_VALUES
from heights_rules import MAX_JSON_DEPTH

PASSWORD = "correct-horse-battery-9"


def _key(api: APIClient, make_user: Callable[..., User]) -> str:
    user = make_user("ada", password=PASSWORD)
    reply = api.post("/api/v1/accounts/login/", {"username": user.username, "password": PASSWORD})
    assert reply.status_code == 201, reply.json()
    key: str = reply.json()["key"]
    return key


def _as(authorization: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=authorization)
    return client


def test_a_token_is_accepted_as_bearer_as_well(
    api: APIClient, make_user: Callable[..., User]
) -> None:
    key = _key(api, make_user)
    for scheme in ("Token", "Bearer", "bearer"):
        me = _as(f"{scheme} {key}").get("/api/v1/accounts/me/")
        assert me.status_code == 200, (scheme, me.json())
        assert me.json()["username"] == "ada"


def test_another_scheme_is_a_401_naming_the_accepted_ones(
    api: APIClient, make_user: Callable[..., User]
) -> None:
    _key(api, make_user)
    refused = _as("Basic YWRhOmNvcnJlY3Q=").post("/api/v1/bots/", {"name": "mine"})
    assert refused.status_code == 401
    body = refused.json()
    assert body["code"] == "authentication_failed"
    assert body["message"].startswith("the Authorization scheme 'Basic' is not accepted; send ")
    assert "Authorization: Token <key> (or Bearer <key>)" in body["message"]
    assert refused["WWW-Authenticate"] == "Token"
    assert not Bot.objects.exists()


def test_no_credentials_is_a_401_saying_how_to_send_them(api: APIClient) -> None:
    refused = api.post("/api/v1/bots/", {"name": "mine"})
    assert refused.status_code == 401
    body = refused.json()
    assert body["code"] == "not_authenticated"
    assert "send Authorization: Token <key> (or Bearer <key>)" in body["message"]
    assert "POST /api/v1/accounts/login/" in body["message"]


def test_an_unsupported_or_missing_content_type_is_a_415_naming_the_accepted_ones(
    make_user: Callable[..., User], client_for: Callable[[User], APIClient]
) -> None:
    client = client_for(make_user("ada"))
    for content_type, named in [
        ("text/plain", "Content-Type 'text/plain'"),
        ("", "a body without a Content-Type"),
    ]:
        refused = client.generic("POST", "/api/v1/bots/", '{"name": "mine"}', content_type)
        assert refused.status_code == 415, refused.content
        body = refused.json()
        assert body["code"] == "unsupported_media_type"
        assert body["message"].startswith(f"{named} is not accepted here; send one of: ")
        assert "application/json" in body["details"]["accepted"]
        assert all(kind in body["message"] for kind in body["details"]["accepted"])
    assert not Bot.objects.exists()
    created = client.generic("POST", "/api/v1/bots/", '{"name": "mine"}', "application/json")
    assert created.status_code == 201, created.json()


def test_a_write_without_the_trailing_slash_reaches_its_view(
    make_user: Callable[..., User], client_for: Callable[[User], APIClient]
) -> None:
    client = client_for(make_user("ada"))
    created = client.post("/api/v1/bots", {"name": "slashless"}, format="json")
    assert created.status_code == 201, created.content
    assert Bot.objects.get().name == "slashless"
    bot_id = created.json()["id"]
    changed = client.patch(f"/api/v1/bots/{bot_id}", {"description": "x"}, format="json")
    assert changed.status_code == 200, changed.content
    assert Bot.objects.get().description == "x"
    # A read may still be redirected: a GET loses nothing by it.
    read = client.get("/api/v1/bots")
    assert read.status_code == 301
    assert read["Location"] == "/api/v1/bots/"
    # A path that is no route with or without the slash: 404 in the error shape.
    missing = client.post("/api/v1/no-such-thing", {}, format="json")
    assert missing.status_code == 404
    assert missing.json()["code"] == "not_found"
    assert missing.json()["message"].startswith("no such path: /api/v1/no-such-thing")


DEEP = 100_000  # levels: past the depth where Python's JSON parser runs out of stack


@pytest.mark.parametrize(
    "body",
    [
        "[" * DEEP + "]" * DEEP,
        '{"description": ' + '{"a": ' * DEEP + "1" + "}" * DEEP + "}",
        '{"description": ' + "[" * (MAX_JSON_DEPTH + 1) + "]" * (MAX_JSON_DEPTH + 1) + "}",
    ],
    ids=["deep-array", "deep-object-in-a-field", "just-past-the-bound"],
)
def test_a_json_body_nested_too_deep_is_a_400_naming_the_bound(
    make_user: Callable[..., User], client_for: Callable[[User], APIClient], body: str
) -> None:
    client = client_for(make_user("ada"))
    bot = Bot.objects.create(owner=User.objects.get(username="ada"), name="mine")
    for method, url in [("PATCH", f"/api/v1/bots/{bot.pk}/"), ("POST", "/api/v1/bots/")]:
        refused = client.generic(method, url, body, "application/json")
        assert refused.status_code == 400, refused.content
        reply = refused.json()
        assert reply["code"] == "parse_error"
        assert f"nested more than {MAX_JSON_DEPTH} levels deep" in reply["message"]
        assert reply["details"] == {"limit": MAX_JSON_DEPTH}
    # Anonymous writes are refused the same way, before anything else is read.
    anonymous = APIClient().generic("POST", "/api/v1/accounts/register/", body, "application/json")
    assert anonymous.status_code == 400, anonymous.content
    assert anonymous.json()["code"] == "parse_error"
    assert list(Bot.objects.values_list("name", "description")) == [("mine", "")]


def test_a_json_body_over_the_request_limit_is_a_413_naming_it(
    make_user: Callable[..., User], client_for: Callable[[User], APIClient]
) -> None:
    client = client_for(make_user("ada"))
    bot = Bot.objects.create(owner=User.objects.get(username="ada"), name="mine")
    body = json.dumps({"description": "x" * settings.DATA_UPLOAD_MAX_MEMORY_SIZE})
    for method, url in [("PATCH", f"/api/v1/bots/{bot.pk}/"), ("POST", "/api/v1/bots/")]:
        refused = client.generic(method, url, body, "application/json")
        assert refused.status_code == 413, refused.content
        reply = refused.json()
        assert reply["code"] == "too_large"
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        assert reply["message"] == f"a request body is at most {limit} bytes"
        assert reply["details"] == {"limit": limit}
    assert list(Bot.objects.values_list("name", "description")) == [("mine", "")]


@pytest.mark.parametrize(
    "body",
    [
        {"bot": 1, "opponents": [2], "options": {f"k{n}": [] for n in range(MAX_BODY_VALUES)}},
        {"bot": 1, "opponents": ["x"] * MAX_BODY_VALUES},
    ],
    ids=["options-with-many-names", "a-long-list"],
)
def test_a_json_body_holding_too_many_values_is_a_400_before_anything_else(
    make_user: Callable[..., User], client_for: Callable[[User], APIClient], body: object
) -> None:
    # Within 2 MiB, 150,000 such options took 10 s of CPU to check against the schema, and
    # the check runs before authentication and throttles: anyone could send them.
    text = json.dumps(body)
    for client in (APIClient(), client_for(make_user("ada"))):
        refused = client.generic("POST", "/api/v1/matches/challenges/", text, "application/json")
        assert refused.status_code == 400, refused.content
        reply = refused.json()
        assert reply["code"] == "parse_error"
        assert f"more than {MAX_BODY_VALUES} values" in reply["message"]
        assert reply["details"] == {"limit": MAX_BODY_VALUES}


def test_a_query_of_too_many_fields_is_a_400_in_the_api_shape(api: APIClient) -> None:
    # Django refuses it (TooManyFieldsSent) before any view: its page was an HTML 400
    # saying nothing. 1,001 fields fit in 2,002 bytes, under gunicorn's request line.
    limit = settings.DATA_UPLOAD_MAX_NUMBER_FIELDS
    refused = api.get("/api/v1/bots/?" + "&".join(["a"] * (limit + 1)))
    assert refused.status_code == 400, refused.content
    assert refused.json() == {
        "code": "invalid",
        "message": f"a request has at most {limit} query or form fields",
        "details": {"limit": limit},
    }
    # Elsewhere (the pages) Django's own page stays.
    assert api.get("/?" + "&".join(["a"] * (limit + 1))).status_code == 400
