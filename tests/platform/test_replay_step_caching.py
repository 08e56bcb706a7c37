"""A replay step is immutable once recorded: an entity tag and Cache-Control on every step,
and a conditional GET answered 304 without simulating anything."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from heights_platform.bots.models import Bot, BotVersion
from heights_platform.ladders.services import ladder_create
from heights_platform.matches.services import match_create, match_result_record
from heights_platform.replays import conditional, stepping
from heights_platform.replays.models import Replay
from heights_runner.contract import MatchResult


@pytest.fixture(autouse=True)
def _fresh_step_cache() -> None:
    stepping.cache_clear()


@pytest.fixture
def replay(
    make_user: Callable[..., User],
    make_active_bot: Callable[..., Bot],
    play_result: Callable[..., MatchResult],
) -> Replay:
    a, b = make_active_bot(make_user("alice")), make_active_bot(make_user("bob"))
    va, vb = a.active_version, b.active_version
    assert isinstance(va, BotVersion)
    assert isinstance(vb, BotVersion)
    ladder = ladder_create(slug="duel", name="Duel", players=2)
    match = match_create(kind="ladder", seats=[va, vb], players=2, options={}, ladder=ladder)
    match_result_record(result=play_result(match, ranks=[1, 2]))
    return Replay.objects.get(match=match)


def _step(api: APIClient, replay: Replay, step: int, query: str = "", **headers: Any) -> Any:
    return api.get(f"/api/v1/replays/{replay.pk}/steps/{step}/{query}", headers=headers)


def test_every_step_has_its_own_tag_and_may_be_cached(api: APIClient, replay: Replay) -> None:
    tags = set()
    for step, query in ((0, ""), (1, ""), (1, "?viewer=0"), (1, "?viewer=1"), (2, "")):
        response = _step(api, replay, step, query)
        assert response.status_code == 200
        assert response["Cache-Control"] == conditional.STEP_CACHE_CONTROL
        assert response["ETag"].startswith(f'"{replay.sha256}.{step}.')
        tags.add(response["ETag"])
    assert len(tags) == 5
    again = _step(api, replay, 1, "?viewer=1")
    assert again["ETag"] == _step(api, replay, 1, "?viewer=1")["ETag"]


def test_a_conditional_get_with_the_tag_is_304_and_simulates_nothing(
    api: APIClient, replay: Replay, monkeypatch: pytest.MonkeyPatch, django_assert_num_queries: Any
) -> None:
    etag = _step(api, replay, 7, "?viewer=1")["ETag"]

    def no_simulation(**kwargs: Any) -> Any:
        raise AssertionError("a 304 must not simulate the step")

    monkeypatch.setattr(stepping, "step_view", no_simulation)
    with django_assert_num_queries(1):  # the replay's sha256
        response = _step(api, replay, 7, "?viewer=1", **{"If-None-Match": f'"x", {etag}'})
    assert response.status_code == 304
    assert response.content == b""
    assert response["ETag"] == etag
    assert response["Cache-Control"] == conditional.STEP_CACHE_CONTROL


@pytest.mark.parametrize(
    ("step", "query"), [(8, "?viewer=1"), (7, ""), (7, "?viewer=0")], ids=["step", "public", "seat"]
)
def test_another_steps_tag_gets_the_document(
    api: APIClient, replay: Replay, step: int, query: str
) -> None:
    etag = _step(api, replay, 7, "?viewer=1")["ETag"]
    fresh = _step(api, replay, step, query)
    response = _step(api, replay, step, query, **{"If-None-Match": etag})
    assert response.status_code == 200
    assert response.content == fresh.content


def test_the_tag_changes_with_the_record_and_the_code(
    replay: Replay, monkeypatch: pytest.MonkeyPatch
) -> None:
    tag = conditional.step_etag(sha256=replay.sha256, step=3, viewer="public")
    other = "0" * 64
    assert conditional.step_etag(sha256=other, step=3, viewer="public") != tag
    conditional._code_tag.cache_clear()
    monkeypatch.setattr(conditional, "ENGINE_VERSION", "9.9.9")
    try:
        assert conditional.step_etag(sha256=replay.sha256, step=3, viewer="public") != tag
    finally:
        conditional._code_tag.cache_clear()


def test_errors_carry_no_tag(api: APIClient, replay: Replay) -> None:
    too_far = _step(api, replay, replay.steps + 1)
    assert too_far.status_code == 404
    assert "ETag" not in too_far
