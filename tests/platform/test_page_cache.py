"""Cached pages (common/page_cache.py): a hit serves the page a miss builds, with fewer
queries, and every write that changes a page makes the next request see the change."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib.auth.models import User
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from heights_platform.bots.models import Bot, BotVersion
from heights_platform.bots.services import bot_version_qualification_finished
from heights_platform.ladders.models import Ladder
from heights_platform.ladders.services import ladder_create, ladder_join
from heights_platform.matches.services import match_create, match_result_record
from heights_runner.contract import MatchResult

BOARD = "/api/v1/ladders/duel/leaderboard/"


def _ladder(make_user: Callable[..., User], make_active_bot: Callable[..., Bot]) -> Ladder:
    ladder = ladder_create(slug="duel", name="Duel", players=2)
    for _ in range(2):
        ladder_join(ladder=ladder, bot=make_active_bot(make_user()))
    return ladder


def _play(ladder: Ladder, play_result: Callable[..., MatchResult]) -> None:
    bots = [e.bot for e in ladder.entries.select_related("bot__active_version")[:2]]
    versions = [b.active_version for b in bots if b.active_version is not None]
    match = match_create(kind="ladder", seats=versions, players=2, options={}, ladder=ladder)
    match_result_record(result=play_result(match, ranks=[1, 2]))


def _queries(api: APIClient, url: str) -> tuple[Any, int]:
    with CaptureQueriesContext(connection) as queries:
        body = api.get(url).json()
    return body, len(queries)


def test_a_hit_is_the_page_a_miss_builds_with_fewer_queries(
    api: APIClient,
    make_user: Callable[..., User],
    make_active_bot: Callable[..., Bot],
    play_result: Callable[..., MatchResult],
    sent_tasks: list[dict[str, Any]],
) -> None:
    ladder = _ladder(make_user, make_active_bot)
    _play(ladder, play_result)
    for url in (BOARD, f"{BOARD}?order=conservative&limit=1", "/api/v1/replays/?ladder=duel"):
        built, built_queries = _queries(api, url)
        served, served_queries = _queries(api, url)
        assert served == built
        assert served_queries < built_queries
        # Other renderings of a cached page still go through DRF's renderers.
        indented = api.get(url, HTTP_ACCEPT="application/json; indent=2")
        assert indented.content.startswith(b"[\n  {") or indented.content.startswith(b"{\n")
        assert indented.json() == built
    html = api.get("/api/v1/replays/?ladder=duel", HTTP_ACCEPT="text/html")  # browsable API
    assert html.status_code == 200
    assert b"<html" in html.content
    assert api.get(f"{BOARD}?order=x").status_code == 400  # errors are never cached
    assert api.get(f"{BOARD}?order=x").status_code == 400


def test_results_joins_and_new_versions_show_at_once(
    api: APIClient,
    make_user: Callable[..., User],
    make_active_bot: Callable[..., Bot],
    play_result: Callable[..., MatchResult],
    sent_tasks: list[dict[str, Any]],
) -> None:
    ladder = _ladder(make_user, make_active_bot)
    assert [r["games"] for r in api.get(BOARD).json()] == [0, 0]
    assert api.get("/api/v1/replays/").json()["results"] == []

    _play(ladder, play_result)  # a result: ratings and a replay
    assert [r["games"] for r in api.get(BOARD).json()] == [1, 1]
    assert len(api.get("/api/v1/replays/").json()["results"]) == 1

    newcomer = make_active_bot(make_user())
    ladder_join(ladder=ladder, bot=newcomer)  # a join
    assert newcomer.pk in [r["bot"] for r in api.get(BOARD).json()]

    # A new active version: the leaderboard shows its number and the reset sigma.
    old = newcomer.active_version
    assert old is not None
    new = BotVersion.objects.create(
        bot=newcomer, number=2, kind=old.kind, filename=old.filename, sha256="1" * 64,
        size=old.size, content=bytes(old.content),
    )  # fmt: skip
    qualifier = match_create(kind="challenge", seats=[new, old], players=2, options={})
    bot_version_qualification_finished(version=new, match=qualifier, passed=True, error="")
    row = next(r for r in api.get(BOARD).json() if r["bot"] == newcomer.pk)
    assert row["version"] == 2

    # Cursor pages: the second page of one replay per page is the older replay.
    _play(ladder, play_result)
    first = api.get("/api/v1/replays/?page_size=1").json()
    second = api.get(first["next"]).json()
    assert first["results"][0]["id"] > second["results"][0]["id"]
    assert api.get(first["next"]).json() == second
