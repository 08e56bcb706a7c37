"""Who may see and change what, in accounts and bots: through the real API."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from heights_platform.accounts.models import ApiToken
from heights_platform.accounts.services import api_token_issue
from heights_platform.bots.models import Bot, BotVersion
from heights_platform.bots.services import bot_version_qualification_finished

if TYPE_CHECKING:
    from rest_framework.response import _MonkeyPatchedResponse

Upload = Callable[[APIClient, Bot, str, bytes], "_MonkeyPatchedResponse"]
MAIN_PY = b"print('hello')\n"
SECRET_ERROR = "forfeit at step 12: Traceback ... secret_strategy.py line 7"


@pytest.fixture
def alice(make_user: Callable[..., User]) -> User:
    return make_user("alice")


@pytest.fixture
def mallory(make_user: Callable[..., User]) -> User:
    return make_user("mallory")


@pytest.fixture
def rejected_bot(
    alice: User,
    make_bot: Callable[..., Bot],
    client_for: Callable[[User], APIClient],
    upload_bot_file: Upload,
) -> Bot:
    """Alice's bot with version 1, rejected with an error text only she may read."""
    bot = make_bot(alice, "rocket")
    assert upload_bot_file(client_for(alice), bot, "main.py", MAIN_PY).status_code == 201
    version = BotVersion.objects.get(bot=bot, number=1)
    assert version.qualification_match is not None
    bot_version_qualification_finished(
        version=version, match=version.qualification_match, passed=False, error=SECRET_ERROR
    )
    return bot


@pytest.fixture(params=["anonymous", "other user"])
def outsider(
    request: pytest.FixtureRequest,
    api: APIClient,
    mallory: User,
    client_for: Callable[[User], APIClient],
) -> APIClient:
    """Someone who is not the bot's owner: anonymous, or another signed-in user."""
    return api if request.param == "anonymous" else client_for(mallory)


def test_source_is_404_to_anyone_but_the_owner(
    outsider: APIClient, alice: User, client_for: Callable[[User], APIClient], rejected_bot: Bot
) -> None:
    url = f"/api/v1/bots/{rejected_bot.pk}/versions/1/source/"
    response = outsider.get(url)
    assert response.status_code == 404
    assert response.json()["code"] == "not_found"
    # The same answer as for a version that does not exist.
    missing = outsider.get(f"/api/v1/bots/{rejected_bot.pk}/versions/99/source/")
    assert missing.json() == response.json()
    assert client_for(alice).get(url).content == MAIN_PY


def test_staff_may_read_source_and_errors(
    make_user: Callable[..., User], client_for: Callable[[User], APIClient], rejected_bot: Bot
) -> None:
    staff = make_user("moderator")
    staff.is_staff = True
    staff.save()
    client = client_for(staff)
    assert client.get(f"/api/v1/bots/{rejected_bot.pk}/versions/1/source/").content == MAIN_PY
    assert client.get(f"/api/v1/bots/{rejected_bot.pk}/versions/1/").json()["error"] == SECRET_ERROR


def test_public_metadata_hides_the_error_text(outsider: APIClient, rejected_bot: Bot) -> None:
    client = outsider
    base = f"/api/v1/bots/{rejected_bot.pk}"
    for url in (f"{base}/", f"{base}/versions/", f"{base}/versions/1/"):
        response = client.get(url)
        assert response.status_code == 200, url
        assert SECRET_ERROR not in response.content.decode(), url
    version = client.get(f"{base}/versions/1/").json()
    assert version["status"] == "rejected"
    assert version["error"] is None
    assert version["sha256"]


def test_owner_sees_the_error_text_in_listings(
    alice: User, client_for: Callable[[User], APIClient], rejected_bot: Bot
) -> None:
    listed = client_for(alice).get(f"/api/v1/bots/{rejected_bot.pk}/versions/").json()
    assert listed["results"][0]["error"] == SECRET_ERROR


@pytest.mark.parametrize("method", ["put", "patch", "delete"])
def test_versions_are_immutable(
    alice: User, client_for: Callable[[User], APIClient], rejected_bot: Bot, method: str
) -> None:
    client = client_for(alice)
    url = f"/api/v1/bots/{rejected_bot.pk}/versions/1/"
    response = getattr(client, method)(url, {"status": "active"})
    assert response.status_code == 405
    assert response.json()["code"] == "method_not_allowed"
    assert getattr(client, method)(f"{url}source/").status_code == 405
    assert BotVersion.objects.get(bot=rejected_bot).status == BotVersion.Status.REJECTED


def test_anonymous_writes_need_authentication(
    api: APIClient, rejected_bot: Bot, upload_bot_file: Upload
) -> None:
    for response in (
        api.post("/api/v1/bots/", {"name": "sneaky"}),
        api.patch(f"/api/v1/bots/{rejected_bot.pk}/", {"description": "pwned"}),
        upload_bot_file(api, rejected_bot, "main.py", MAIN_PY),
    ):
        assert response.status_code == 401
        assert response.json()["code"] == "not_authenticated"
    assert not Bot.objects.filter(name="sneaky").exists()
    assert BotVersion.objects.filter(bot=rejected_bot).count() == 1


def test_another_users_bot_cannot_be_changed(
    mallory: User,
    client_for: Callable[[User], APIClient],
    rejected_bot: Bot,
    upload_bot_file: Upload,
) -> None:
    client = client_for(mallory)
    edit = client.patch(f"/api/v1/bots/{rejected_bot.pk}/", {"description": "pwned"})
    upload = upload_bot_file(client, rejected_bot, "main.py", MAIN_PY)
    for response in (edit, upload):
        assert response.status_code == 403
        assert response.json()["code"] == "permission_denied"
    rejected_bot.refresh_from_db()
    assert rejected_bot.description == ""
    assert BotVersion.objects.filter(bot=rejected_bot).count() == 1


def test_another_users_token_is_out_of_reach(
    alice: User, mallory: User, client_for: Callable[[User], APIClient]
) -> None:
    alices = api_token_issue(user=alice, name="alice-ci").token
    client = client_for(mallory)
    response = client.delete(f"/api/v1/accounts/tokens/{alices.pk}/")
    assert response.status_code == 404
    assert response.json()["code"] == "not_found"
    assert client.get("/api/v1/accounts/tokens/").json()["results"] == []
    alices.refresh_from_db()
    assert alices.revoked_at is None
    assert ApiToken.objects.filter(user=alice, revoked_at__isnull=True).count() == 1
