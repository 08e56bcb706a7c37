"""An API that says what it wants: the token scheme, the content types, the trailing
slash, each refusal in the one error shape naming what is accepted, changing nothing."""

from __future__ import annotations

from collections.abc import Callable

from django.contrib.auth.models import User
from rest_framework.test import APIClient

from heights_platform.bots.models import Bot

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
