"""A bot's page from the cache (site/bot_page.py): the same bytes as a fresh rendering,
and every kind of write to what the page shows, through its service, makes the next
request render afresh. Writes run with their on-commit callbacks (the bump)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import timedelta
from typing import Any

import pytest
from django.contrib import admin
from django.contrib.auth.models import User
from django.core.cache import cache
from django.test import Client
from django.utils import timezone
from tests.platform.cache_checks import active_version, admin_request
from tests.platform.site_world import SECRET_REJECTION

from heights_platform.bots.admin import BotAdmin
from heights_platform.bots.models import Bot, BotVersion
from heights_platform.bots.services import (
    bot_create,
    bot_update,
    bot_version_create,
    bot_version_qualification_finished,
)
from heights_platform.ladders.admin import LadderAdmin
from heights_platform.ladders.models import Ladder, LadderEntry
from heights_platform.ladders.services import (
    ladder_create,
    ladder_join,
    ladder_ratings_recompute,
)
from heights_platform.matches.models import Match
from heights_platform.matches.reaping import matches_reap_overdue
from heights_platform.matches.services import (
    challenge_create,
    match_create,
    match_mark_running,
    match_result_record,
    match_results_record,
)
from heights_runner.contract import MatchResult


def _page(path: str, client: Client | None = None) -> bytes:
    response = (client or Client()).get(path)
    assert response.status_code == 200, (path, response.status_code)
    assert response["Content-Type"] == "text/html; charset=utf-8"
    return response.content


def _fresh(path: str) -> bytes:
    cache.clear()
    return _page(path)


def _path(bot: Bot) -> str:
    return f"/bots/{bot.pk}/"


def _renders_afresh_after(
    path: str, committed: Callable[[], Any], write: Callable[[], Any]
) -> bytes:
    """The page before `write` comes from the cache; after it, the page shows the change
    and is byte for byte a fresh rendering. Returns the page after."""
    before = _page(path)
    assert _page(path) == before
    with committed():
        write()
    after = _page(path)
    assert after != before
    assert after == _fresh(path)
    return after


def test_a_cached_page_is_the_fresh_rendering_read_in_one_query(
    world: dict[str, Any], django_assert_num_queries: Any
) -> None:
    beta = world["bots"][1]
    for path in (_path(beta), f"{_path(beta)}?page=1"):
        fresh = _fresh(path)
        with django_assert_num_queries(1):  # its page version; the bytes from the cache
            assert _page(path) == fresh


def test_the_cache_serves_until_a_service_writes(world: dict[str, Any]) -> None:
    """An edit outside the services bumps nothing (CACHE_SECONDS bounds it): what shows
    that the second page came from the cache."""
    beta = world["bots"][1]
    before = _page(_path(beta))
    Bot.objects.filter(pk=beta.pk).update(description="edited by hand")
    assert _page(_path(beta)) == before
    assert b"edited by hand" in _fresh(_path(beta))


def test_a_signed_in_reader_never_gets_the_cached_page(world: dict[str, Any]) -> None:
    draft = world["draft"]  # carol's, rejected: its page is hers only
    carol = world["users"]["carol"]
    beta, bob = world["bots"][1], world["users"]["bob"]
    public = _page(_path(beta))
    client = Client()
    client.force_login(bob)
    mine = _page(_path(beta), client)
    assert mine != public
    assert b"Sign out bob" in mine
    assert b"Sign out" not in _page(_path(beta))
    owner = Client()
    owner.force_login(carol)
    assert SECRET_REJECTION.encode() in _page(_path(draft), owner)
    assert Client().get(_path(draft)).status_code == 404  # nothing was stored for it


def _new_match(world: dict[str, Any], duel: Any) -> Match:
    alpha, beta = world["bots"][0], world["bots"][1]
    return match_create(
        kind="ladder",
        seats=[active_version(alpha), active_version(beta)],
        players=2,
        options={},
        ladder=duel,
    )


def test_a_match_created(world: dict[str, Any], duel: Any, committed: Any) -> None:
    alpha, beta = world["bots"][0], world["bots"][1]
    _page(_path(alpha))
    after = _renders_afresh_after(_path(beta), committed, lambda: _new_match(world, duel))
    assert b">queued</a>" in after
    assert _page(_path(alpha)) == _fresh(_path(alpha))  # every seated bot's page


def test_a_match_started(world: dict[str, Any], duel: Any, committed: Any) -> None:
    with committed():
        match = _new_match(world, duel)
    after = _renders_afresh_after(
        _path(world["bots"][1]), committed, lambda: match_mark_running(match_id=str(match.pk))
    )
    assert b">running</a>" in after


@pytest.mark.parametrize("batch", [False, True])
def test_a_match_finished_and_rated(
    world: dict[str, Any],
    duel: Any,
    committed: Any,
    play_result: Callable[..., MatchResult],
    batch: bool,
) -> None:
    """One at a time (`ratings_apply`) or in a batch (`ratings_apply_pending`)."""
    with committed():
        match = _new_match(world, duel)
    beta = world["bots"][1]
    games = LadderEntry.objects.get(bot=beta).games
    result = play_result(match, ranks=[2, 1])

    def record() -> None:
        if batch:
            match_results_record(results=[result])
        else:
            match_result_record(result=result)

    after = _renders_afresh_after(_path(beta), committed, record)
    assert LadderEntry.objects.get(bot=beta).games == games + 1
    assert f"{games + 1} games".encode() in after


def test_a_match_failed(world: dict[str, Any], duel: Any, committed: Any) -> None:
    with committed():
        match = _new_match(world, duel)
    failed = MatchResult(str(match.pk), "failed", match.seed, "", error="engine gone")
    after = _renders_afresh_after(
        _path(world["bots"][1]), committed, lambda: match_result_record(result=failed)
    )
    assert b">failed</a>" in after


def test_a_match_reaped(world: dict[str, Any], duel: Any, committed: Any) -> None:
    with committed():
        match = _new_match(world, duel)
        match_mark_running(match_id=str(match.pk))
    # Sent again a day ago, after it started: the reaper's next step fails it.
    now = timezone.now()
    Match.objects.filter(pk=match.pk).update(
        started_at=now - timedelta(days=2), sent_at=now - timedelta(days=1)
    )
    after = _renders_afresh_after(_path(world["bots"][1]), committed, matches_reap_overdue)
    assert Match.objects.get(pk=match.pk).status == Match.Status.FAILED
    assert b">failed</a>" in after


def test_ratings_recomputed(world: dict[str, Any], duel: Any, committed: Any) -> None:
    beta = world["bots"][1]
    LadderEntry.objects.filter(bot=beta).update(elo=1234.0)  # as if by another model
    assert b"<strong>1234.0</strong>" in _page(_path(beta))
    after = _renders_afresh_after(
        _path(beta), committed, lambda: ladder_ratings_recompute(ladder=duel)
    )
    assert b"<strong>1234.0</strong>" not in after


def test_a_ladder_joined(world: dict[str, Any], committed: Any) -> None:
    beta = world["bots"][1]
    quad = ladder_create(slug="quad", name="Quad Ladder", players=4)
    after = _renders_afresh_after(
        _path(beta), committed, lambda: ladder_join(ladder=quad, bot=beta)
    )
    assert b"Quad Ladder" in after


def test_a_description_changed(world: dict[str, Any], committed: Any) -> None:
    beta = world["bots"][1]
    after = _renders_afresh_after(
        _path(beta), committed, lambda: bot_update(bot=beta, description="now with search")
    )
    assert b"now with search" in after


def _upload(bot: Bot) -> BotVersion:
    return bot_version_create(bot=bot, filename="next.py", content=b"print('next')\n")


def test_a_version_uploaded(world: dict[str, Any], committed: Any) -> None:
    beta = world["bots"][1]
    after = _renders_afresh_after(_path(beta), committed, lambda: _upload(beta))
    assert b"next.py" in after
    assert b"status-qualifying" in after


@pytest.mark.parametrize(("passed", "status"), [(True, b"active"), (False, b"rejected")])
def test_a_version_activated_or_rejected(
    world: dict[str, Any], committed: Any, passed: bool, status: bytes
) -> None:
    beta = world["bots"][1]
    with committed():
        version = _upload(beta)
    qualification = version.qualification_match
    assert qualification is not None
    after = _renders_afresh_after(
        _path(beta),
        committed,
        lambda: bot_version_qualification_finished(
            version=version, match=qualification, passed=passed, error="no"
        ),
    )
    assert b"<td>v2</td>" in after
    assert b'<span class="status-' + status + b'">' + status in after


def test_an_opponent_becoming_public_is_linked(
    world: dict[str, Any], make_user: Callable[..., User], committed: Any
) -> None:
    """A bot's first active version makes its seats links on the pages of the bots it
    played: here beta's, which it challenged while still qualifying."""
    beta = world["bots"][1]
    dave = make_user("dave")
    with committed():
        newbie = bot_create(owner=dave, name="newbie")
        version = _upload(newbie)
        challenge_create(user=dave, bot_version=version, opponents=[active_version(beta)])
    assert f'href="/bots/{newbie.pk}/"'.encode() not in _page(_path(beta))
    qualification = version.qualification_match
    assert qualification is not None
    after = _renders_afresh_after(
        _path(beta),
        committed,
        lambda: bot_version_qualification_finished(
            version=version, match=qualification, passed=True, error=""
        ),
    )
    assert f'href="/bots/{newbie.pk}/"'.encode() in after


def test_a_bot_renamed_in_the_admin(world: dict[str, Any], committed: Any) -> None:
    """Its name shows on the pages of the bots it played: here alpha's on beta's."""
    alpha, beta = world["bots"][0], world["bots"][1]

    def rename() -> None:
        alpha.name = "alpha-prime"
        BotAdmin(Bot, admin.site).save_model(admin_request(world), alpha, None, True)

    after = _renders_afresh_after(_path(beta), committed, rename)
    assert b"alpha-prime" in after


def test_a_ladder_renamed_in_the_admin(world: dict[str, Any], duel: Any, committed: Any) -> None:
    def rename() -> None:
        duel.name, duel.slug = "Duel Royale", "duel-royale"
        LadderAdmin(Ladder, admin.site).save_model(admin_request(world), duel, None, True)

    after = _renders_afresh_after(_path(world["bots"][1]), committed, rename)
    assert b"Duel Royale" in after
    assert b"/ladders/duel-royale/" in after


def test_cached_pages_are_per_page_number(world: dict[str, Any]) -> None:
    gamma = world["bots"][2]
    first = _page(_path(gamma))
    assert _page(f"{_path(gamma)}?page=1") == first
    Client().get(f"{_path(gamma)}?page=2")  # past the last page: a 404, not stored
    assert Client().get(f"{_path(gamma)}?page=2").status_code == 404


@pytest.fixture(autouse=True)
def _no_leftover_pages() -> Iterator[None]:
    yield
    cache.clear()
