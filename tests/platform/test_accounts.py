"""Accounts through the real API: registration, log-in, tokens, profile, password."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient
from rest_framework.throttling import SimpleRateThrottle

from heights_platform.accounts.authentication import token_digest
from heights_platform.accounts.models import ApiToken

PASSWORD = "correct-horse-battery-9"


def _log_in(api: APIClient, username: str, password: str = PASSWORD, **extra: str) -> str:
    response = api.post(
        "/api/v1/accounts/login/", {"username": username, "password": password, **extra}
    )
    assert response.status_code == 201, response.json()
    key = response.json()["key"]
    assert isinstance(key, str)
    return key


def _token_client(key: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


# Registration


def test_register_creates_an_account_with_a_hashed_password(api: APIClient) -> None:
    response = api.post(
        "/api/v1/accounts/register/",
        {"username": "alice", "email": "alice@example.org", "password": PASSWORD},
    )
    assert response.status_code == 201
    body = response.json()
    assert body["username"] == "alice"
    assert "password" not in body
    user = User.objects.get(username="alice")
    assert user.password != PASSWORD
    assert user.check_password(PASSWORD)


@pytest.mark.parametrize(
    "password",
    ["short1", "password123", "12345678901", "alice-example"],
    ids=["too-short", "common", "numeric", "like-username"],
)
def test_register_refuses_a_weak_password(api: APIClient, password: str) -> None:
    response = api.post(
        "/api/v1/accounts/register/",
        {"username": "alice-example", "email": "alice@example.org", "password": password},
    )
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "invalid"
    assert body["details"]["fields"]["password"]
    assert not User.objects.filter(username="alice-example").exists()


@pytest.mark.parametrize("username", ["bob", "BOB", "arena", "Admin"])
def test_register_refuses_a_taken_or_reserved_username(
    api: APIClient, make_user: Callable[..., User], username: str
) -> None:
    make_user("bob")
    response = api.post(
        "/api/v1/accounts/register/",
        {"username": username, "email": "x@example.org", "password": PASSWORD},
    )
    assert response.status_code == 409
    assert response.json()["code"] == "conflict"
    assert response.json()["details"] == {"field": "username"}
    assert User.objects.count() == 1


@pytest.mark.parametrize(
    "payload",
    [
        {"username": "a b", "email": "x@example.org", "password": PASSWORD},
        {"username": "carol", "email": "not-an-email", "password": PASSWORD},
        {"username": "carol", "email": "x@example.org"},
    ],
    ids=["bad-username", "bad-email", "no-password"],
)
def test_register_validates_its_input(api: APIClient, payload: dict[str, str]) -> None:
    response = api.post("/api/v1/accounts/register/", payload)
    assert response.status_code == 400
    assert response.json()["code"] == "invalid"
    assert not User.objects.exists()


# Log-in


def test_log_in_issues_a_named_token_shown_once(
    api: APIClient, make_user: Callable[..., User]
) -> None:
    user = make_user("alice")
    response = api.post(
        "/api/v1/accounts/login/",
        {"username": "alice", "password": PASSWORD, "token_name": "laptop"},
    )
    assert response.status_code == 201
    body = response.json()
    key = body["key"]
    assert key.startswith("hk_")
    assert len(key) > 40
    assert body["token"]["name"] == "laptop"
    assert body["token"]["prefix"] == key[:8]
    token = ApiToken.objects.get(user=user)
    assert token.key_sha256 == token_digest(key)
    assert key not in {token.name, token.prefix, token.key_sha256}

    me = _token_client(key).get("/api/v1/accounts/me/")
    assert me.status_code == 200
    assert me.json()["username"] == "alice"
    user.refresh_from_db()
    assert user.last_login is not None


def test_two_log_ins_give_two_distinct_tokens(
    api: APIClient, make_user: Callable[..., User]
) -> None:
    make_user("alice")
    assert _log_in(api, "alice") != _log_in(api, "alice")
    assert ApiToken.objects.count() == 2


@pytest.mark.parametrize(
    ("username", "password"), [("alice", "wrong-password-1"), ("nobody", PASSWORD)]
)
def test_log_in_failure_is_401_and_changes_nothing(
    api: APIClient, make_user: Callable[..., User], username: str, password: str
) -> None:
    user = make_user("alice")
    response = api.post("/api/v1/accounts/login/", {"username": username, "password": password})
    assert response.status_code == 401
    assert response.json() == {
        "code": "authentication_failed",
        "message": "wrong username or password",
        "details": {},
    }
    assert not ApiToken.objects.exists()
    user.refresh_from_db()
    assert user.last_login is None


def test_inactive_user_cannot_log_in(api: APIClient, make_user: Callable[..., User]) -> None:
    user = make_user("alice")
    user.is_active = False
    user.save()
    response = api.post("/api/v1/accounts/login/", {"username": "alice", "password": PASSWORD})
    assert response.status_code == 401


def test_log_in_is_throttled_per_address(
    api: APIClient, make_user: Callable[..., User], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(SimpleRateThrottle.THROTTLE_RATES, "login", "3/min")
    make_user("alice")
    for i in range(3):
        response = api.post("/api/v1/accounts/login/", {"username": f"u{i}", "password": "x"})
        assert response.status_code == 401
    response = api.post("/api/v1/accounts/login/", {"username": "alice", "password": PASSWORD})
    assert response.status_code == 429
    body = response.json()
    assert body["code"] == "throttled"
    assert body["details"]["retry_after_seconds"] > 0
    assert not ApiToken.objects.exists()
    # Another address is not affected.
    other = api.post(
        "/api/v1/accounts/login/",
        {"username": "alice", "password": PASSWORD},
        REMOTE_ADDR="10.1.2.3",
    )
    assert other.status_code == 201


def test_log_in_is_throttled_per_username_across_addresses(
    api: APIClient, make_user: Callable[..., User], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(SimpleRateThrottle.THROTTLE_RATES, "login", "3/min")
    make_user("alice")
    for i in range(3):
        response = api.post(
            "/api/v1/accounts/login/",
            {"username": "alice", "password": f"guess-{i}"},
            REMOTE_ADDR=f"10.0.0.{i}",
        )
        assert response.status_code == 401
    response = api.post(
        "/api/v1/accounts/login/",
        {"username": "ALICE", "password": PASSWORD},
        REMOTE_ADDR="10.0.0.99",
    )
    assert response.status_code == 429


# Tokens


def test_token_list_shows_metadata_never_keys(
    api: APIClient, make_user: Callable[..., User]
) -> None:
    make_user("alice")
    first = _log_in(api, "alice", token_name="ci")
    second = _log_in(api, "alice", token_name="laptop")
    response = _token_client(first).get("/api/v1/accounts/tokens/")
    assert response.status_code == 200
    results = response.json()["results"]
    assert [t["name"] for t in results] == ["laptop", "ci"]
    assert set(results[0]) == {"id", "name", "prefix", "created_at", "last_used_at"}
    text = response.content.decode()
    assert first not in text
    assert second not in text
    assert ApiToken.objects.get(name="ci").key_sha256 not in text
    assert results[1]["last_used_at"] is not None  # the request itself used it


def test_revoked_token_no_longer_authenticates(
    api: APIClient, make_user: Callable[..., User]
) -> None:
    make_user("alice")
    keep = _token_client(_log_in(api, "alice", token_name="keep"))
    doomed_key = _log_in(api, "alice", token_name="doomed")
    doomed_id = ApiToken.objects.get(name="doomed").pk

    assert keep.delete(f"/api/v1/accounts/tokens/{doomed_id}/").status_code == 204
    response = _token_client(doomed_key).get("/api/v1/accounts/me/")
    assert response.status_code == 401
    assert response.json()["code"] == "authentication_failed"
    names = [t["name"] for t in keep.get("/api/v1/accounts/tokens/").json()["results"]]
    assert names == ["keep"]
    assert keep.delete(f"/api/v1/accounts/tokens/{doomed_id}/").status_code == 404


def test_a_token_can_revoke_itself(api: APIClient, make_user: Callable[..., User]) -> None:
    make_user("alice")
    key = _log_in(api, "alice")
    client = _token_client(key)
    token_id = ApiToken.objects.get().pk
    assert client.delete(f"/api/v1/accounts/tokens/{token_id}/").status_code == 204
    assert client.get("/api/v1/accounts/tokens/").status_code == 401


def test_tokens_need_authentication(api: APIClient) -> None:
    response = api.get("/api/v1/accounts/tokens/")
    assert response.status_code == 401
    assert response.json()["code"] == "not_authenticated"
    assert api.get("/api/v1/accounts/me/").status_code == 401


def test_garbage_token_is_refused(api: APIClient) -> None:
    response = _token_client("hk_not-a-real-key").get("/api/v1/accounts/me/")
    assert response.status_code == 401
    assert response.json()["code"] == "authentication_failed"


# Profile


def test_profile_read_and_update(
    make_user: Callable[..., User], client_for: Callable[[User], APIClient]
) -> None:
    client = client_for(make_user("alice"))
    assert client.get("/api/v1/accounts/me/").json()["display_name"] == ""
    response = client.patch(
        "/api/v1/accounts/me/", {"display_name": "Alice L.", "email": "new@example.org"}
    )
    assert response.status_code == 200
    assert response.json()["display_name"] == "Alice L."
    assert response.json()["email"] == "new@example.org"
    assert User.objects.get(username="alice").email == "new@example.org"
    response = client.patch("/api/v1/accounts/me/", {"email": "nope"})
    assert response.status_code == 400
    # The username is not writable through the profile.
    client.patch("/api/v1/accounts/me/", {"username": "mallory"})
    assert User.objects.filter(username="alice").exists()


def test_public_profile_shows_username_and_bots_only(
    api: APIClient, make_user: Callable[..., User], client_for: Callable[[User], APIClient]
) -> None:
    alice = make_user("alice")
    client_for(alice).post("/api/v1/bots/", {"name": "rocket", "description": "fast"})
    response = api.get("/api/v1/accounts/users/alice/")
    assert response.status_code == 200
    body = response.json()
    assert body["username"] == "alice"
    assert "email" not in body
    assert [b["name"] for b in body["bots"]] == ["rocket"]
    assert body["bots"][0]["active_version"] is None
    assert api.get("/api/v1/accounts/users/nobody/").status_code == 404


# Password


def test_change_password_revokes_every_other_token(
    api: APIClient, make_user: Callable[..., User]
) -> None:
    make_user("alice")
    current = _token_client(_log_in(api, "alice", token_name="current"))
    other_key = _log_in(api, "alice", token_name="other")
    new_password = "a-much-better-secret-7"

    response = current.post(
        "/api/v1/accounts/me/password/",
        {"old_password": PASSWORD, "new_password": new_password},
    )
    assert response.status_code == 200
    assert response.json() == {"revoked_tokens": 1}
    assert current.get("/api/v1/accounts/me/").status_code == 200
    assert _token_client(other_key).get("/api/v1/accounts/me/").status_code == 401
    failed = api.post("/api/v1/accounts/login/", {"username": "alice", "password": PASSWORD})
    assert failed.status_code == 401
    _log_in(api, "alice", password=new_password)


@pytest.mark.parametrize(
    ("old", "new", "field"),
    [("wrong-old-password", "a-much-better-secret-7", "old_password"), (PASSWORD, "123", None)],
    ids=["wrong-old", "weak-new"],
)
def test_change_password_refusals_change_nothing(
    api: APIClient, make_user: Callable[..., User], old: str, new: str, field: str | None
) -> None:
    make_user("alice")
    client = _token_client(_log_in(api, "alice"))
    other_key = _log_in(api, "alice")
    response = client.post(
        "/api/v1/accounts/me/password/", {"old_password": old, "new_password": new}
    )
    assert response.status_code == 400
    assert response.json()["code"] == "invalid"
    assert field is None or field in response.json()["details"]["fields"]
    assert User.objects.get(username="alice").check_password(PASSWORD)
    assert _token_client(other_key).get("/api/v1/accounts/me/").status_code == 200
