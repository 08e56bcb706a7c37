"""A bot's match list (`GET /api/v1/matches/?bot=`) from the shared cache: the same bytes as
a fresh list, and every kind of write to what it shows, through its service, makes the
next request build it afresh (the bot's `BotPageVersion`, bumped after commit). Writes
run with their on-commit callbacks (the bump)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import timedelta
from typing import Any

import pytest
from django.contrib import admin
from django.core.cache import cache
from django.utils import timezone
from rest_framework.test import APIClient
from tests.platform.cache_checks import (
    active_version,
    admin_request,
    api_bytes,
    built_afresh_after,
    fresh_api_bytes,
)

from heights_platform.bots.admin import BotAdmin
from heights_platform.bots.models import Bot
from heights_platform.ladders.admin import LadderAdmin
from heights_platform.ladders.models import Ladder
from heights_platform.matches.models import Match
from heights_platform.matches.reaping import matches_reap_overdue
from heights_platform.matches.services import (
    match_create,
    match_mark_running,
    match_result_record,
    match_results_record,
)
from heights_runner.contract import MatchResult


def _path(bot: Bot, query: str = "") -> str:
    return f"/api/v1/matches/?bot={bot.pk}{query}"


def _new_match(world: dict[str, Any], duel: Ladder) -> Match:
    alpha, beta = world["bots"][0], world["bots"][1]
    return match_create(
        kind="ladder",
        seats=[active_version(alpha), active_version(beta)],
        players=2,
        options={},
        ladder=duel,
    )


def _status_of(found: Any, match: Match) -> str:
    (row,) = [r for r in found["results"] if r["id"] == str(match.pk)]
    return str(row["status"])


def test_a_cached_list_is_the_fresh_one_read_in_one_query(
    world: dict[str, Any], django_assert_num_queries: Any
) -> None:
    beta = world["bots"][1]
    for path in (_path(beta), _path(beta, "&page_size=1"), _path(beta, "&status=finished")):
        fresh = fresh_api_bytes(path)
        with django_assert_num_queries(1):  # the bot's page version; the bytes from the cache
            assert api_bytes(path) == fresh


def test_the_cache_serves_until_a_service_writes(world: dict[str, Any]) -> None:
    """An edit outside the services bumps nothing (MATCHES_BY_BOT_SECONDS bounds it)."""
    beta = world["bots"][1]
    before = api_bytes(_path(beta))
    Match.objects.filter(seats__bot_version__bot=beta).update(error="edited by hand")
    assert api_bytes(_path(beta)) == before
    assert b"edited by hand" in fresh_api_bytes(_path(beta))


def test_a_signed_in_reader_never_gets_the_cached_list(world: dict[str, Any]) -> None:
    beta, bob = world["bots"][1], world["users"]["bob"]
    before = api_bytes(_path(beta))
    Match.objects.filter(seats__bot_version__bot=beta).update(error="edited by hand")
    client = APIClient()
    client.force_authenticate(bob)
    assert b"edited by hand" in api_bytes(_path(beta), client)
    assert api_bytes(_path(beta)) == before


def test_a_cached_list_is_byte_for_byte_the_uncached_api(world: dict[str, Any]) -> None:
    """A signed-in reader's list never touches the cache: the same bytes."""
    beta, bob = world["bots"][1], world["users"]["bob"]
    client = APIClient()
    client.force_authenticate(bob)
    for query in ("", "&page_size=1", "&status=finished"):
        cached = api_bytes(_path(beta, query))
        assert api_bytes(_path(beta, query)) == cached
        assert api_bytes(_path(beta, query), client) == cached


def test_lists_are_per_query(world: dict[str, Any]) -> None:
    alpha, beta = world["bots"][0], world["bots"][1]
    assert api_bytes(_path(alpha)) == fresh_api_bytes(_path(alpha))
    assert api_bytes(_path(beta, "&page_size=1")) == fresh_api_bytes(_path(beta, "&page_size=1"))
    assert api_bytes(_path(beta)) == fresh_api_bytes(_path(beta))
    assert api_bytes(_path(beta, "&status=queued")) == fresh_api_bytes(
        _path(beta, "&status=queued")
    )


def test_a_match_created(world: dict[str, Any], duel: Ladder, committed: Any) -> None:
    alpha, beta = world["bots"][0], world["bots"][1]
    api_bytes(_path(alpha))
    created: list[Match] = []
    after = built_afresh_after(
        _path(beta), committed, lambda: created.append(_new_match(world, duel))
    )
    assert _status_of(after, created[0]) == "queued"
    assert api_bytes(_path(alpha)) == fresh_api_bytes(_path(alpha))  # every seated bot's list


def test_a_match_started(world: dict[str, Any], duel: Ladder, committed: Any) -> None:
    with committed():
        match = _new_match(world, duel)
    after = built_afresh_after(
        _path(world["bots"][1]), committed, lambda: match_mark_running(match_id=str(match.pk))
    )
    assert _status_of(after, match) == "running"


@pytest.mark.parametrize("batch", [False, True])
def test_a_match_finished(
    world: dict[str, Any],
    duel: Ladder,
    committed: Any,
    play_result: Callable[..., MatchResult],
    batch: bool,
) -> None:
    """One at a time or in a batch: the status, ranks, seed and replay all show."""
    with committed():
        match = _new_match(world, duel)
    result = play_result(match, ranks=[2, 1])

    def record() -> None:
        if batch:
            match_results_record(results=[result])
        else:
            match_result_record(result=result)

    after = built_afresh_after(_path(world["bots"][1]), committed, record)
    (row,) = [r for r in after["results"] if r["id"] == str(match.pk)]
    assert row["status"] == "finished"
    assert row["seed"] == match.seed
    assert row["replay"] is not None
    assert [seat["rank"] for seat in row["seats"]] == [2, 1]


def test_a_match_failed(world: dict[str, Any], duel: Ladder, committed: Any) -> None:
    with committed():
        match = _new_match(world, duel)
    failed = MatchResult(str(match.pk), "failed", match.seed, "", error="engine gone")
    after = built_afresh_after(
        _path(world["bots"][1]), committed, lambda: match_result_record(result=failed)
    )
    assert _status_of(after, match) == "failed"


def test_a_match_reaped(world: dict[str, Any], duel: Ladder, committed: Any) -> None:
    with committed():
        match = _new_match(world, duel)
        match_mark_running(match_id=str(match.pk))
    # Sent again a day ago, after it started: the reaper's next step fails it.
    now = timezone.now()
    Match.objects.filter(pk=match.pk).update(
        started_at=now - timedelta(days=2), sent_at=now - timedelta(days=1)
    )
    after = built_afresh_after(_path(world["bots"][1]), committed, matches_reap_overdue)
    assert _status_of(after, match) == "failed"


def test_a_bot_renamed_in_the_admin(world: dict[str, Any], committed: Any) -> None:
    """Its name shows in the seats of the matches of the bots it played: here beta's."""
    alpha, beta = world["bots"][0], world["bots"][1]

    def rename() -> None:
        alpha.name = "alpha-prime"
        BotAdmin(Bot, admin.site).save_model(admin_request(world), alpha, None, True)

    after = built_afresh_after(_path(beta), committed, rename)
    names = {seat["bot_name"] for row in after["results"] for seat in row["seats"]}
    assert "alpha-prime" in names


def test_a_ladder_renamed_in_the_admin(world: dict[str, Any], duel: Ladder, committed: Any) -> None:
    def rename() -> None:
        duel.name, duel.slug = "Duel Royale", "duel-royale"
        LadderAdmin(Ladder, admin.site).save_model(admin_request(world), duel, None, True)

    after = built_afresh_after(_path(world["bots"][1]), committed, rename)
    assert "duel-royale" in {row["ladder"] for row in after["results"]}


@pytest.fixture(autouse=True)
def _no_leftover_pages() -> Iterator[None]:
    yield
    cache.clear()
