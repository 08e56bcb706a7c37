"""Bots through the real API, and the qualification outcome service."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.test import Client
from rest_framework.test import APIClient

from heights_bots import BOT_NAMES
from heights_platform.accounts.services import api_token_issue
from heights_platform.bots.models import Bot, BotVersion
from heights_platform.bots.services import (
    ARENA_USERNAME,
    bot_version_qualification_finished,
    builtin_bots_ensure,
)
from heights_platform.competition.plackett_luce import DEFAULT_SIGMA
from heights_platform.ladders.models import Ladder, LadderEntry
from heights_platform.matches.models import Match

GOOD_PY = b"import sys\n\nfor line in sys.stdin:\n    print(line)\n"

if TYPE_CHECKING:
    from rest_framework.response import _MonkeyPatchedResponse

Upload = Callable[[APIClient, Bot, str, bytes], "_MonkeyPatchedResponse"]


def _version(
    client: APIClient, bot: Bot, upload_bot_file: Upload, text: str = "x = 1"
) -> BotVersion:
    response = upload_bot_file(client, bot, "main.py", GOOD_PY + text.encode())
    assert response.status_code == 201, response.json()
    return BotVersion.objects.get(bot=bot, number=response.json()["number"])


def _match_of(version: BotVersion) -> Match:
    match = version.qualification_match
    assert match is not None
    return match


# Bots


def test_create_bot(
    make_user: Callable[..., User], client_for: Callable[[User], APIClient]
) -> None:
    client = client_for(make_user("alice"))
    response = client.post("/api/v1/bots/", {"name": "rocket", "description": "Fast."})
    assert response.status_code == 201
    body = response.json()
    assert body["owner"] == "alice"
    assert body["name"] == "rocket"
    assert body["active_version"] is None
    assert Bot.objects.get(pk=body["id"]).owner.username == "alice"


def test_bot_name_is_unique_per_owner(
    make_user: Callable[..., User], client_for: Callable[[User], APIClient]
) -> None:
    alice, bob = client_for(make_user("alice")), client_for(make_user("bob"))
    assert alice.post("/api/v1/bots/", {"name": "rocket"}).status_code == 201
    response = alice.post("/api/v1/bots/", {"name": "rocket"})
    assert response.status_code == 409
    assert response.json()["code"] == "conflict"
    assert response.json()["details"] == {"field": "name"}
    assert bob.post("/api/v1/bots/", {"name": "rocket"}).status_code == 201
    assert Bot.objects.count() == 2


@pytest.mark.parametrize("name", ["Rocket", "has space", "-dash", "", "x" * 41, "a/b"])
def test_bot_name_must_be_a_lower_case_slug(
    make_user: Callable[..., User], client_for: Callable[[User], APIClient], name: str
) -> None:
    response = client_for(make_user()).post("/api/v1/bots/", {"name": name})
    assert response.status_code == 400
    assert response.json()["code"] == "invalid"
    assert "name" in response.json()["details"]["fields"]
    assert not Bot.objects.exists()


def test_list_filters_by_owner_and_orders(
    api: APIClient, make_user: Callable[..., User], make_bot: Callable[..., Bot]
) -> None:
    alice, bob = make_user("alice"), make_user("bob")
    for name in ("zeta", "alpha", "mid"):
        make_bot(alice, name)
    make_bot(bob, "other")

    newest_first = api.get("/api/v1/bots/").json()["results"]
    assert [b["name"] for b in newest_first] == ["other", "mid", "alpha", "zeta"]
    mine = api.get("/api/v1/bots/", {"owner": "ALICE", "ordering": "name"}).json()["results"]
    assert [b["name"] for b in mine] == ["alpha", "mid", "zeta"]
    assert api.get("/api/v1/bots/", {"owner": "nobody"}).json()["results"] == []
    assert api.get("/api/v1/bots/", {"active": "true"}).json()["results"] == []
    assert len(api.get("/api/v1/bots/", {"active": "false"}).json()["results"]) == 4
    assert api.get("/api/v1/bots/", {"active": "maybe"}).status_code == 400


def test_list_pages_with_a_cursor(
    api: APIClient, make_user: Callable[..., User], make_bot: Callable[..., Bot]
) -> None:
    owner = make_user()
    for _ in range(5):
        make_bot(owner)
    first = api.get("/api/v1/bots/", {"page_size": 3}).json()
    assert len(first["results"]) == 3
    second = api.get(first["next"]).json()
    assert len(second["results"]) == 2
    seen = {b["id"] for b in first["results"] + second["results"]}
    assert len(seen) == 5


def test_bot_detail_shows_versions_and_ratings(
    api: APIClient,
    make_user: Callable[..., User],
    make_bot: Callable[..., Bot],
    client_for: Callable[[User], APIClient],
    upload_bot_file: Upload,
) -> None:
    alice = make_user("alice")
    bot = make_bot(alice, "rocket", "Fast.")
    version = _version(client_for(alice), bot, upload_bot_file)
    bot_version_qualification_finished(
        version=version, match=_match_of(version), passed=True, error=""
    )
    ladder = Ladder.objects.create(slug="duel", name="Duel", players=2)
    LadderEntry.objects.create(ladder=ladder, bot=bot, elo=1612.5, mu=27.0, sigma=4.0, games=9)

    response = api.get(f"/api/v1/bots/{bot.pk}/")
    assert response.status_code == 200
    body = response.json()
    assert body["owner"] == "alice"
    assert body["description"] == "Fast."
    assert body["active_version"] == 1
    assert body["version_count"] == 1
    assert body["versions"][0]["status"] == "active"
    assert body["versions"][0]["sha256"] == version.sha256
    assert body["ladder_entries"] == [
        {
            "ladder": "duel",
            "elo": 1612.5,
            "mu": 27.0,
            "sigma": 4.0,
            "games": 9,
            "wins": 0.0,
            "last_match_at": None,
        }
    ]
    assert api.get("/api/v1/bots/999999/").status_code == 404


def test_owner_edits_the_description(
    make_user: Callable[..., User],
    make_bot: Callable[..., Bot],
    client_for: Callable[[User], APIClient],
) -> None:
    alice = make_user()
    bot = make_bot(alice)
    response = client_for(alice).patch(f"/api/v1/bots/{bot.pk}/", {"description": "Now smarter."})
    assert response.status_code == 200
    assert response.json()["description"] == "Now smarter."
    bot.refresh_from_db()
    assert bot.description == "Now smarter."


# Built-in bots


def test_builtin_bots_ensure_is_idempotent() -> None:
    first = builtin_bots_ensure()
    second = builtin_bots_ensure()
    assert set(first) == set(BOT_NAMES)  # every built-in of the bots package
    assert {n: v.pk for n, v in first.items()} == {n: v.pk for n, v in second.items()}
    arena = User.objects.get(username=ARENA_USERNAME)
    assert not arena.has_usable_password()
    assert Bot.objects.filter(owner=arena).count() == len(BOT_NAMES)
    for name, version in first.items():
        assert version.kind == BotVersion.Kind.BUILTIN
        assert version.status == BotVersion.Status.ACTIVE
        assert version.filename == name
        assert bytes(version.content) == b""
        assert version.sha256 == hashlib.sha256(name.encode()).hexdigest()
        assert version.bot.active_version_id == version.pk
    assert BotVersion.objects.count() == len(BOT_NAMES)


def test_builtin_bots_are_public_without_source(api: APIClient) -> None:
    random = builtin_bots_ensure()["random"]
    response = api.get("/api/v1/bots/", {"owner": "arena", "ordering": "name"})
    assert [b["name"] for b in response.json()["results"]] == sorted(BOT_NAMES)
    source = api.get(f"/api/v1/bots/{random.bot_id}/versions/1/source/")
    assert source.status_code == 404


# Qualification outcomes


def test_passing_activates_the_version_and_retires_the_previous(
    make_user: Callable[..., User],
    make_bot: Callable[..., Bot],
    client_for: Callable[[User], APIClient],
    upload_bot_file: Upload,
) -> None:
    owner = make_user()
    client = client_for(owner)
    bot = make_bot(owner)
    ladder = Ladder.objects.create(slug="duel", name="Duel", players=2)
    entry = LadderEntry.objects.create(ladder=ladder, bot=bot, mu=31.5, sigma=1.25, elo=1700.0)
    v1 = _version(client, bot, upload_bot_file, "a = 1")
    bot_version_qualification_finished(version=v1, match=_match_of(v1), passed=True, error="")
    v2 = _version(client, bot, upload_bot_file, "a = 2")
    assert v2.number == 2
    entry.refresh_from_db()
    entry.sigma = 1.25
    entry.save()

    bot_version_qualification_finished(version=v2, match=_match_of(v2), passed=True, error="")

    v1.refresh_from_db()
    v2.refresh_from_db()
    bot.refresh_from_db()
    entry.refresh_from_db()
    assert v1.status == BotVersion.Status.RETIRED
    assert v2.status == BotVersion.Status.ACTIVE
    assert bot.active_version_id == v2.pk
    assert entry.sigma == pytest.approx(DEFAULT_SIGMA)
    assert (entry.mu, entry.elo) == (31.5, 1700.0)  # only the uncertainty is reset


def test_failing_rejects_with_the_error_and_keeps_the_active_version(
    make_user: Callable[..., User],
    make_bot: Callable[..., Bot],
    client_for: Callable[[User], APIClient],
    upload_bot_file: Upload,
) -> None:
    owner = make_user()
    client = client_for(owner)
    bot = make_bot(owner)
    v1 = _version(client, bot, upload_bot_file, "a = 1")
    bot_version_qualification_finished(version=v1, match=_match_of(v1), passed=True, error="")
    v2 = _version(client, bot, upload_bot_file, "a = 2")

    bot_version_qualification_finished(
        version=v2, match=_match_of(v2), passed=False, error="forfeit: illegal action 99"
    )

    v2.refresh_from_db()
    bot.refresh_from_db()
    assert v2.status == BotVersion.Status.REJECTED
    assert v2.error == "forfeit: illegal action 99"
    assert bot.active_version_id == v1.pk
    shown = client.get(f"/api/v1/bots/{bot.pk}/versions/2/").json()
    assert shown["status"] == "rejected"
    assert shown["error"] == "forfeit: illegal action 99"


def test_a_repeated_result_changes_nothing(
    make_user: Callable[..., User],
    make_bot: Callable[..., Bot],
    client_for: Callable[[User], APIClient],
    upload_bot_file: Upload,
) -> None:
    owner = make_user()
    bot = make_bot(owner)
    version = _version(client_for(owner), bot, upload_bot_file)
    match = _match_of(version)
    bot_version_qualification_finished(version=version, match=match, passed=False, error="crash")
    # Redelivered, even with a different verdict: the first one stands.
    bot_version_qualification_finished(version=version, match=match, passed=True, error="")
    version.refresh_from_db()
    bot.refresh_from_db()
    assert version.status == BotVersion.Status.REJECTED
    assert version.error == "crash"
    assert bot.active_version_id is None


def test_a_passed_result_is_applied_once(
    make_user: Callable[..., User],
    make_bot: Callable[..., Bot],
    client_for: Callable[[User], APIClient],
    upload_bot_file: Upload,
) -> None:
    owner = make_user()
    bot = make_bot(owner)
    ladder = Ladder.objects.create(slug="duel", name="Duel", players=2)
    entry = LadderEntry.objects.create(ladder=ladder, bot=bot)
    version = _version(client_for(owner), bot, upload_bot_file)
    match = _match_of(version)
    bot_version_qualification_finished(version=version, match=match, passed=True, error="")
    LadderEntry.objects.filter(pk=entry.pk).update(sigma=2.0)  # the ladder has learned since
    bot_version_qualification_finished(version=version, match=match, passed=True, error="")
    entry.refresh_from_db()
    assert entry.sigma == 2.0


def test_a_result_of_another_match_is_ignored(
    make_user: Callable[..., User],
    make_bot: Callable[..., Bot],
    client_for: Callable[[User], APIClient],
    upload_bot_file: Upload,
) -> None:
    owner = make_user()
    bot = make_bot(owner)
    version = _version(client_for(owner), bot, upload_bot_file)
    stranger = Match.objects.create(kind=Match.Kind.QUALIFICATION, players=2, seed=7)
    bot_version_qualification_finished(version=version, match=stranger, passed=True, error="")
    version.refresh_from_db()
    assert version.status == BotVersion.Status.QUALIFYING


def test_an_older_version_passing_late_does_not_replace_a_newer_one(
    make_user: Callable[..., User],
    make_bot: Callable[..., Bot],
    client_for: Callable[[User], APIClient],
    upload_bot_file: Upload,
) -> None:
    owner = make_user()
    client = client_for(owner)
    bot = make_bot(owner)
    v1 = _version(client, bot, upload_bot_file, "a = 1")
    v2 = _version(client, bot, upload_bot_file, "a = 2")
    bot_version_qualification_finished(version=v2, match=_match_of(v2), passed=True, error="")
    bot_version_qualification_finished(version=v1, match=_match_of(v1), passed=True, error="")
    v1.refresh_from_db()
    bot.refresh_from_db()
    assert v1.status == BotVersion.Status.RETIRED
    assert bot.active_version_id == v2.pk


def test_builtin_bots_command(capsys: pytest.CaptureFixture[str]) -> None:
    call_command("builtin_bots_ensure")
    call_command("builtin_bots_ensure")
    assert BotVersion.objects.filter(kind=BotVersion.Kind.BUILTIN).count() == len(BOT_NAMES)
    assert "random: arena/random v1 (active)" in capsys.readouterr().out


# Admin


def test_admin_lists_bots_versions_and_tokens_without_secrets(
    make_user: Callable[..., User],
    make_bot: Callable[..., Bot],
    client_for: Callable[[User], APIClient],
    upload_bot_file: Upload,
) -> None:
    owner = make_user("alice")
    bot = make_bot(owner, "rocket")
    _version(client_for(owner), bot, upload_bot_file)
    issued = api_token_issue(user=owner, name="ci")
    admin = User.objects.create_superuser("root-admin", "root@example.org", "x-very-long-secret-1")
    browser = Client()
    browser.force_login(admin)
    for url, expected in (
        ("/admin/bots/bot/?q=rocket", "rocket"),
        ("/admin/bots/botversion/?status__exact=qualifying", "rocket"),
        (f"/admin/bots/botversion/{bot.versions.get().pk}/change/", "main.py"),
        ("/admin/accounts/apitoken/", issued.token.prefix),
        (f"/admin/accounts/apitoken/{issued.token.pk}/change/", issued.token.prefix),
    ):
        page = browser.get(url)
        assert page.status_code == 200, url
        html = page.content.decode()
        assert expected in html, url
        assert issued.token.key_sha256 not in html, url
        assert issued.key not in html, url
    assert browser.get("/admin/accounts/apitoken/add/").status_code == 403


@pytest.mark.parametrize("case", [(3, 4), (20, 5), (21, 5)], ids=["3", "20", "21"])
def test_bot_detail_counts_its_versions_past_the_twenty_it_lists(
    api: APIClient,
    make_user: Callable[..., User],
    make_bot: Callable[..., Bot],
    django_assert_num_queries: Any,
    case: tuple[int, int],
) -> None:
    """The count is read only when the 20 listed may not be all (a query fewer for most
    bots): page version, bot, versions, ladders (+ the count)."""
    uploaded, queries = case
    bot = make_bot(make_user("alice"), "many")
    for number in range(1, uploaded + 1):
        BotVersion.objects.create(
            bot=bot, number=number, kind="py", filename="b.py", sha256="0" * 64, size=1
        )
    with django_assert_num_queries(queries):
        body = api.get(f"/api/v1/bots/{bot.pk}/").json()
    assert body["version_count"] == uploaded
    assert [v["number"] for v in body["versions"]] == list(range(uploaded, 0, -1))[:20]
