"""A bot's detail (`GET /api/v1/bots/{id}/`) from the shared cache for readers not signed
in: the same bytes as a fresh reply, and every kind of write to what it shows (the bot,
its versions, its ratings), through its service, makes the next request build it afresh
(the bot's `BotPageVersion`, bumped after commit)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.contrib import admin
from django.core.cache import cache
from django.test import RequestFactory
from rest_framework.test import APIClient

from heights_platform.bots.admin import BotAdmin
from heights_platform.bots.models import Bot, BotVersion
from heights_platform.bots.services import (
    bot_update,
    bot_version_create,
    bot_version_qualification_finished,
)
from heights_platform.ladders.models import Ladder, LadderEntry
from heights_platform.ladders.services import (
    ladder_create,
    ladder_join,
    ladder_ratings_recompute,
)
from heights_platform.matches.models import Match
from heights_platform.matches.services import match_create, match_result_record
from heights_runner.contract import MatchResult


@pytest.fixture
def committed(django_capture_on_commit_callbacks: Any) -> Callable[[], Any]:
    """A block whose on-commit callbacks run at its end, as after a real commit."""
    return lambda: django_capture_on_commit_callbacks(execute=True)


def _get(path: str, client: APIClient | None = None) -> bytes:
    response = (client or APIClient()).get(path)
    assert response.status_code == 200, (path, response.status_code, response.content)
    assert response["Content-Type"] == "application/json"
    content: bytes = response.content
    return content


def _fresh(path: str) -> bytes:
    cache.clear()
    return _get(path)


def _path(bot: Bot) -> str:
    return f"/api/v1/bots/{bot.pk}/"


def _built_afresh_after(path: str, committed: Callable[[], Any], write: Callable[[], Any]) -> Any:
    """The reply before `write` comes from the cache; after it, it shows the change and is
    byte for byte a fresh one. Returns the reply after, parsed."""
    before = _get(path)
    assert _get(path) == before
    with committed():
        write()
    after = _get(path)
    assert after != before
    assert after == _fresh(path)
    return json.loads(after)


@pytest.fixture
def duel(world: dict[str, Any]) -> Ladder:
    ladder = Match.objects.get(pk=world["matches"][0].pk).ladder
    assert ladder is not None
    return ladder


def _version(bot: Bot) -> BotVersion:
    bot.refresh_from_db()
    assert isinstance(bot.active_version, BotVersion)
    return bot.active_version


def test_a_cached_reply_is_the_fresh_one_read_in_one_query(
    world: dict[str, Any], django_assert_num_queries: Any
) -> None:
    beta = world["bots"][1]
    fresh = _fresh(_path(beta))
    with django_assert_num_queries(1):  # the bot's page version; the bytes from the cache
        assert _get(_path(beta)) == fresh


def test_the_cache_serves_until_a_service_writes(world: dict[str, Any]) -> None:
    beta = world["bots"][1]
    before = _get(_path(beta))
    Bot.objects.filter(pk=beta.pk).update(description="edited by hand")
    assert _get(_path(beta)) == before
    assert b"edited by hand" in _fresh(_path(beta))


def test_a_signed_in_reader_never_gets_the_cached_reply(world: dict[str, Any]) -> None:
    beta, bob = world["bots"][1], world["users"]["bob"]
    before = _get(_path(beta))
    Bot.objects.filter(pk=beta.pk).update(description="edited by hand")
    client = APIClient()
    client.force_authenticate(bob)
    assert b"edited by hand" in _get(_path(beta), client)
    assert _get(_path(beta)) == before


def test_a_cached_reply_is_byte_for_byte_the_uncached_api(world: dict[str, Any]) -> None:
    """A signed-in reader who does not own the bot gets the public reply, built afresh."""
    beta, carol = world["bots"][1], world["users"]["carol"]
    client = APIClient()
    client.force_authenticate(carol)
    cached = _get(_path(beta))
    assert _get(_path(beta)) == cached
    assert _get(_path(beta), client) == cached


def test_an_unknown_bot_is_not_stored() -> None:
    assert APIClient().get("/api/v1/bots/999999/").status_code == 404
    assert APIClient().get("/api/v1/bots/999999/").status_code == 404


def test_a_match_finished_and_rated(
    world: dict[str, Any],
    duel: Ladder,
    committed: Any,
    play_result: Callable[..., MatchResult],
) -> None:
    alpha, beta = world["bots"][0], world["bots"][1]
    with committed():
        match = match_create(
            kind="ladder",
            seats=[_version(alpha), _version(beta)],
            players=2,
            options={},
            ladder=duel,
        )
    games = LadderEntry.objects.get(bot=beta, ladder=duel).games
    result = play_result(match, ranks=[2, 1])
    after = _built_afresh_after(_path(beta), committed, lambda: match_result_record(result=result))
    (entry,) = [e for e in after["ladder_entries"] if e["ladder"] == duel.slug]
    assert entry["games"] == games + 1


def test_ratings_recomputed(world: dict[str, Any], duel: Ladder, committed: Any) -> None:
    beta = world["bots"][1]
    LadderEntry.objects.filter(bot=beta).update(elo=1234.0)  # as if by another model
    assert b'"elo":1234.0' in _get(_path(beta))
    after = _built_afresh_after(
        _path(beta), committed, lambda: ladder_ratings_recompute(ladder=duel)
    )
    assert all(e["elo"] != 1234.0 for e in after["ladder_entries"])


def test_a_ladder_joined(world: dict[str, Any], committed: Any) -> None:
    beta = world["bots"][1]
    quad = ladder_create(slug="quad", name="Quad Ladder", players=4)
    after = _built_afresh_after(_path(beta), committed, lambda: ladder_join(ladder=quad, bot=beta))
    assert "quad" in {e["ladder"] for e in after["ladder_entries"]}


def test_a_description_changed(world: dict[str, Any], committed: Any) -> None:
    beta = world["bots"][1]
    after = _built_afresh_after(
        _path(beta), committed, lambda: bot_update(bot=beta, description="now with search")
    )
    assert after["description"] == "now with search"


def _upload(bot: Bot) -> BotVersion:
    return bot_version_create(bot=bot, filename="next.py", content=b"print('next')\n")


def test_a_version_uploaded(world: dict[str, Any], committed: Any) -> None:
    beta = world["bots"][1]
    after = _built_afresh_after(_path(beta), committed, lambda: _upload(beta))
    assert after["versions"][0]["filename"] == "next.py"


@pytest.mark.parametrize(("passed", "status"), [(True, "active"), (False, "rejected")])
def test_a_version_activated_or_rejected(
    world: dict[str, Any], committed: Any, passed: bool, status: str
) -> None:
    beta = world["bots"][1]
    with committed():
        version = _upload(beta)
    qualification = version.qualification_match
    assert qualification is not None
    after = _built_afresh_after(
        _path(beta),
        committed,
        lambda: bot_version_qualification_finished(
            version=version, match=qualification, passed=passed, error="no"
        ),
    )
    assert after["versions"][0]["status"] == status
    assert after["versions"][0]["error"] is None  # the owner's only


def test_a_bot_renamed_in_the_admin(world: dict[str, Any], committed: Any) -> None:
    beta = world["bots"][1]
    staff = world["users"]["alice"]
    staff.is_staff = staff.is_superuser = True
    request = RequestFactory().post("/admin/")
    request.user = staff

    def rename() -> None:
        beta.name = "beta-prime"
        BotAdmin(Bot, admin.site).save_model(request, beta, None, True)

    after = _built_afresh_after(_path(beta), committed, rename)
    assert after["name"] == "beta-prime"


@pytest.fixture(autouse=True)
def _no_leftover_pages() -> Iterator[None]:
    yield
    cache.clear()
