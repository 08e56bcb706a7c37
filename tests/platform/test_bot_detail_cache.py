"""A bot's detail (`GET /api/v1/bots/{id}/`) from the shared cache for readers not signed
in: the same bytes as a fresh reply, and every kind of write to what it shows (the bot,
its versions, its ratings), through its service, makes the next request build it afresh
(the bot's `BotPageVersion`, bumped after commit)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.contrib import admin
from django.core.cache import cache
from django.test import RequestFactory
from rest_framework.test import APIClient
from tests.platform.cache_checks import (
    active_version,
    api_bytes,
    built_afresh_after,
    fresh_api_bytes,
)

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
from heights_platform.matches.services import match_create, match_result_record
from heights_runner.contract import MatchResult


def _path(bot: Bot) -> str:
    return f"/api/v1/bots/{bot.pk}/"


def test_a_cached_reply_is_the_fresh_one_read_in_one_query(
    world: dict[str, Any], django_assert_num_queries: Any
) -> None:
    beta = world["bots"][1]
    fresh = fresh_api_bytes(_path(beta))
    with django_assert_num_queries(1):  # the bot's page version; the bytes from the cache
        assert api_bytes(_path(beta)) == fresh


def test_the_cache_serves_until_a_service_writes(world: dict[str, Any]) -> None:
    beta = world["bots"][1]
    before = api_bytes(_path(beta))
    Bot.objects.filter(pk=beta.pk).update(description="edited by hand")
    assert api_bytes(_path(beta)) == before
    assert b"edited by hand" in fresh_api_bytes(_path(beta))


def test_a_signed_in_reader_never_gets_the_cached_reply(world: dict[str, Any]) -> None:
    beta, bob = world["bots"][1], world["users"]["bob"]
    before = api_bytes(_path(beta))
    Bot.objects.filter(pk=beta.pk).update(description="edited by hand")
    client = APIClient()
    client.force_authenticate(bob)
    assert b"edited by hand" in api_bytes(_path(beta), client)
    assert api_bytes(_path(beta)) == before


def test_a_cached_reply_is_byte_for_byte_the_uncached_api(world: dict[str, Any]) -> None:
    """A signed-in reader who does not own the bot gets the public reply, built afresh."""
    beta, carol = world["bots"][1], world["users"]["carol"]
    client = APIClient()
    client.force_authenticate(carol)
    cached = api_bytes(_path(beta))
    assert api_bytes(_path(beta)) == cached
    assert api_bytes(_path(beta), client) == cached


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
            seats=[active_version(alpha), active_version(beta)],
            players=2,
            options={},
            ladder=duel,
        )
    games = LadderEntry.objects.get(bot=beta, ladder=duel).games
    result = play_result(match, ranks=[2, 1])
    after = built_afresh_after(_path(beta), committed, lambda: match_result_record(result=result))
    (entry,) = [e for e in after["ladder_entries"] if e["ladder"] == duel.slug]
    assert entry["games"] == games + 1


def test_ratings_recomputed(world: dict[str, Any], duel: Ladder, committed: Any) -> None:
    beta = world["bots"][1]
    LadderEntry.objects.filter(bot=beta).update(elo=1234.0)  # as if by another model
    assert b'"elo":1234.0' in api_bytes(_path(beta))
    after = built_afresh_after(
        _path(beta), committed, lambda: ladder_ratings_recompute(ladder=duel)
    )
    assert all(e["elo"] != 1234.0 for e in after["ladder_entries"])


def test_a_ladder_joined(world: dict[str, Any], committed: Any) -> None:
    beta = world["bots"][1]
    quad = ladder_create(slug="quad", name="Quad Ladder", players=4)
    after = built_afresh_after(_path(beta), committed, lambda: ladder_join(ladder=quad, bot=beta))
    assert "quad" in {e["ladder"] for e in after["ladder_entries"]}


def test_a_description_changed(world: dict[str, Any], committed: Any) -> None:
    beta = world["bots"][1]
    after = built_afresh_after(
        _path(beta), committed, lambda: bot_update(bot=beta, description="now with search")
    )
    assert after["description"] == "now with search"


def _upload(bot: Bot) -> BotVersion:
    return bot_version_create(bot=bot, filename="next.py", content=b"print('next')\n")


def test_a_version_uploaded(world: dict[str, Any], committed: Any) -> None:
    beta = world["bots"][1]
    after = built_afresh_after(_path(beta), committed, lambda: _upload(beta))
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
    after = built_afresh_after(
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

    after = built_afresh_after(_path(beta), committed, rename)
    assert after["name"] == "beta-prime"


@pytest.fixture(autouse=True)
def _no_leftover_pages() -> Iterator[None]:
    yield
    cache.clear()
