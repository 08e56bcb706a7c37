"""Matches: creation and enqueueing, qualification, challenges, the matches API."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest
import redis
from django.contrib.auth.models import User
from django.utils import timezone
from rest_framework import serializers
from rest_framework.test import APIClient

from heights_platform.bots.models import Bot, BotVersion
from heights_platform.bots.services import bot_create
from heights_platform.matches.apis import _when
from heights_platform.matches.models import Match, MatchSeat
from heights_platform.matches.services import (
    match_create,
    match_create_for_qualification,
    match_result_record,
    seed_commitment,
)
from heights_runner.contract import (
    QUEUE_MATCHES,
    TASK_PLAY_MATCH,
    MatchResult,
    MatchSpec,
)

BROKER_URL = os.environ.get("HEIGHTS_TEST_BROKER_URL", "redis://127.0.0.1:6379/15")


def _versions(make_active_bot: Callable[..., Bot], *owners: User) -> list[BotVersion]:
    versions = []
    for owner in owners:
        version = make_active_bot(owner).active_version
        assert version is not None
        versions.append(version)
    return versions


def test_match_create_enqueues_the_spec_after_commit(
    make_user: Callable[..., User],
    make_active_bot: Callable[..., Bot],
    builtin_versions: dict[str, BotVersion],
    sent_tasks: list[dict[str, Any]],
    django_capture_on_commit_callbacks: Any,
) -> None:
    alice = make_user("alice")
    (mine,) = _versions(make_active_bot, alice)
    with django_capture_on_commit_callbacks(execute=True):
        match = match_create(
            kind=Match.Kind.CHALLENGE,
            seats=[mine, builtin_versions["greedy"]],
            players=2,
            options={"round_cap": 30},
            seed=12345,
        )
        assert sent_tasks == []  # nothing leaves before the commit
    assert match.seed_commitment == hashlib.sha256(b"rolling-heights-seed-v1:12345").hexdigest()
    assert match.seed_commitment == seed_commitment(12345)
    assert list(MatchSeat.objects.filter(match=match).values_list("seat", "bot_version")) == [
        (0, mine.pk),
        (1, builtin_versions["greedy"].pk),
    ]
    (task,) = sent_tasks
    assert task["name"] == TASK_PLAY_MATCH
    assert task["queue"] == QUEUE_MATCHES
    assert task["task_id"] == str(match.pk)
    spec = MatchSpec.from_dict(task["args"][0])
    assert spec.match_id == str(match.pk)
    assert spec.seed == 12345
    assert spec.options == {"round_cap": 30}
    user_seat, builtin_seat = spec.seats
    assert user_seat.name == f"alice/{mine.bot.name} v1"
    assert not user_seat.trusted
    assert user_seat.bot.kind == "py"
    assert user_seat.bot.content() == bytes(mine.content)
    assert builtin_seat.name == "arena/greedy v1"
    assert builtin_seat.trusted
    assert builtin_seat.bot.kind == "builtin"
    assert builtin_seat.bot.name == "greedy"


def test_random_seeds_and_seed_validation(
    make_user: Callable[..., User], make_active_bot: Callable[..., Bot]
) -> None:
    versions = _versions(make_active_bot, make_user(), make_user())
    seeds = {
        match_create(kind="challenge", seats=versions, players=2, options={}).seed for _ in range(5)
    }
    assert len(seeds) == 5
    assert all(0 <= s < 2**63 for s in seeds)
    from heights_platform.common.errors import ApiError

    with pytest.raises(ApiError):
        match_create(kind="challenge", seats=versions, players=3, options={})
    with pytest.raises(ApiError):
        match_create(kind="challenge", seats=versions, players=2, options={}, seed=-1)


def test_send_task_reaches_the_redis_broker(
    make_user: Callable[..., User],
    make_active_bot: Callable[..., Bot],
    monkeypatch: pytest.MonkeyPatch,
    django_capture_on_commit_callbacks: Any,
) -> None:
    """The real path: the platform's Celery app puts the match on the `matches` queue."""
    from heights_platform import celery_app

    prefix = f"test-{uuid.uuid4().hex[:8]}:"
    monkeypatch.setenv("HEIGHTS_BROKER_PREFIX", prefix)
    app = celery_app.make_app(BROKER_URL)
    monkeypatch.setattr(celery_app, "app", app)
    versions = _versions(make_active_bot, make_user(), make_user())
    client = redis.Redis.from_url(BROKER_URL)
    try:
        with django_capture_on_commit_callbacks(execute=True):
            match = match_create(kind="challenge", seats=versions, players=2, options={})
        raw = client.lpop(f"{prefix}{QUEUE_MATCHES}")
        assert isinstance(raw, bytes)
        message = json.loads(raw)
        assert message["headers"]["task"] == TASK_PLAY_MATCH
        assert message["headers"]["id"] == str(match.pk)
        args, _kwargs, _embed = json.loads(base64.b64decode(message["body"]))
        assert MatchSpec.from_dict(args[0]).match_id == str(match.pk)
    finally:
        for key in client.scan_iter(f"{prefix}*"):
            client.delete(key)
        app.close()


def test_qualification_match_against_random_then_activation(
    make_user: Callable[..., User],
    make_bot: Callable[..., Bot],
    play_result: Callable[..., MatchResult],
    builtin_versions: dict[str, BotVersion],
) -> None:
    bot = make_bot(make_user())
    version = BotVersion.objects.create(
        bot=bot, number=1, kind="py", filename="bot.py", sha256="0" * 64, size=1, content=b"#"
    )
    match = match_create_for_qualification(version=version)
    assert match.kind == Match.Kind.QUALIFICATION
    assert [s.bot_version_id for s in match.seats.order_by("seat")] == [
        version.pk,
        builtin_versions["random"].pk,
    ]
    match_result_record(result=play_result(match))
    version.refresh_from_db()
    bot.refresh_from_db()
    assert version.status == BotVersion.Status.ACTIVE
    assert bot.active_version_id == version.pk


def test_qualification_forfeit_rejects_the_version(
    make_user: Callable[..., User],
    make_bot: Callable[..., Bot],
    play_result: Callable[..., MatchResult],
    builtin_versions: dict[str, BotVersion],
) -> None:
    bot = make_bot(make_user())
    version = BotVersion.objects.create(
        bot=bot, number=1, kind="py", filename="bot.py", sha256="0" * 64, size=1, content=b"#"
    )
    match = match_create_for_qualification(version=version)
    match_result_record(result=play_result(match, forfeit_seat=0))
    version.refresh_from_db()
    assert version.status == BotVersion.Status.REJECTED
    assert "illegal" in version.error


def test_unknown_match_result_is_dropped(play_result: Callable[..., MatchResult]) -> None:
    result = MatchResult(match_id=str(uuid.uuid4()), status="failed", seed=1, seed_commitment="")
    assert match_result_record(result=result) is None
    assert match_result_record(result=MatchResult("not-a-uuid", "failed", 1, "")) is None


def test_failed_and_corrupt_results_mark_the_match_failed(
    make_user: Callable[..., User],
    make_active_bot: Callable[..., Bot],
    play_result: Callable[..., MatchResult],
) -> None:
    versions = _versions(make_active_bot, make_user(), make_user())
    failed = match_create(kind="challenge", seats=versions, players=2, options={})
    outcome = MatchResult(str(failed.pk), "failed", failed.seed, "", error="engine down")
    recorded = match_result_record(result=outcome)
    assert recorded is not None
    assert recorded.status == Match.Status.FAILED
    assert recorded.error == "engine down"
    assert recorded.finished_seq is not None

    corrupt = match_create(kind="challenge", seats=versions, players=2, options={})
    good = play_result(corrupt)
    bad = MatchResult.from_dict({**good.to_dict(), "replay_sha256": "0" * 64})
    recorded = match_result_record(result=bad)
    assert recorded is not None
    assert recorded.status == Match.Status.FAILED
    assert "sha256" in recorded.error
    assert not MatchSeat.objects.filter(match=corrupt, rank__isnull=False).exists()

    other_seed = match_create(kind="challenge", seats=versions, players=2, options={})
    foreign = MatchResult.from_dict({**good.to_dict(), "match_id": str(other_seed.pk)})
    recorded = match_result_record(result=foreign)
    assert recorded is not None
    assert recorded.status == Match.Status.FAILED
    assert "seed" in recorded.error


def test_match_detail_hides_the_seed_until_finished(
    api: APIClient,
    make_user: Callable[..., User],
    make_active_bot: Callable[..., Bot],
    play_result: Callable[..., MatchResult],
) -> None:
    versions = _versions(make_active_bot, make_user(), make_user())
    match = match_create(kind="challenge", seats=versions, players=2, options={})
    body = api.get(f"/api/v1/matches/{match.pk}/").json()
    assert body["seed"] is None
    assert body["seed_commitment"] == seed_commitment(match.seed)
    assert body["status"] == "queued"
    assert body["replay"] is None
    assert [s["rank"] for s in body["seats"]] == [None, None]

    match_result_record(result=play_result(match, forfeit_seat=1))
    body = api.get(f"/api/v1/matches/{match.pk}/").json()
    assert body["seed"] == match.seed
    assert body["status"] == "finished"
    assert body["replay"] is not None
    assert body["seats"][1]["rank"] == 2
    assert body["seats"][1]["forfeit"] == {
        "reason": "illegal",
        "step": 7,
        "detail": "action 3 is not legal",
    }
    assert body["seats"][0]["forfeit"] is None
    assert body["seats"][0]["think_ms"] == 40
    assert body["started_at"] is not None


def test_match_list_rows_are_the_details(
    api: APIClient,
    make_user: Callable[..., User],
    make_active_bot: Callable[..., Bot],
    play_result: Callable[..., MatchResult],
) -> None:
    """The list renders its rows from plain values (apis.match_row_output), the detail
    through MatchOutputSerializer: the same fields, the same values, finished or not."""
    versions = _versions(make_active_bot, make_user(), make_user())
    finished = match_create(kind="challenge", seats=versions, players=2, options={})
    match_result_record(result=play_result(finished, forfeit_seat=1))
    match_create(kind="challenge", seats=versions, players=2, options={"round_cap": 3})
    rows = api.get("/api/v1/matches/").json()["results"]
    assert len(rows) == 2
    assert rows[1]["replay"] is not None
    assert rows[1]["seed"] is not None
    for row in rows:
        assert row == api.get(f"/api/v1/matches/{row['id']}/").json()


@pytest.mark.parametrize("zone", ["UTC", "Europe/Paris", "America/St_Johns"])
def test_list_times_render_as_drfs_datetime_field_in_any_current_zone(zone: str) -> None:
    """match_row_output's times skip DRF's per-value zone lookups, not its output."""
    field = serializers.DateTimeField()
    moments = [
        datetime(2026, 11, 26, 5, 4, 3, tzinfo=UTC),
        datetime(2026, 7, 1, 23, 59, 59, 999999, tzinfo=UTC),
        datetime(2026, 3, 29, 1, 30, tzinfo=timezone.get_fixed_timezone(-150)),
    ]
    with timezone.override(zone):
        current = timezone.get_current_timezone()
        for moment in moments:
            assert _when(moment, current) == field.to_representation(moment)
        assert _when(None, current) is None


def test_match_detail_unknown_is_not_found(api: APIClient) -> None:
    response = api.get(f"/api/v1/matches/{uuid.uuid4()}/")
    assert response.status_code == 404
    assert response.json()["code"] == "not_found"


def test_match_list_filters(
    api: APIClient,
    make_user: Callable[..., User],
    make_active_bot: Callable[..., Bot],
    builtin_versions: dict[str, BotVersion],
) -> None:
    a, b = _versions(make_active_bot, make_user(), make_user())
    challenge = match_create(kind="challenge", seats=[a, b], players=2, options={})
    qualification = match_create(
        kind="qualification", seats=[a, builtin_versions["random"]], players=2, options={}
    )

    def ids(query: str) -> list[str]:
        response = api.get(f"/api/v1/matches/?{query}")
        assert response.status_code == 200, response.json()
        return [m["id"] for m in response.json()["results"]]

    assert ids("") == [str(qualification.pk), str(challenge.pk)]
    assert ids("kind=challenge") == [str(challenge.pk)]
    assert ids(f"bot={b.bot_id}") == [str(challenge.pk)]
    assert ids(f"bot={a.bot_id}") == [str(qualification.pk), str(challenge.pk)]
    assert ids("status=finished") == []
    assert api.get("/api/v1/matches/?kind=nope").json()["code"] == "invalid"


def test_challenge_api(
    client_for: Callable[[User], APIClient],
    make_user: Callable[..., User],
    make_active_bot: Callable[..., Bot],
    sent_tasks: list[dict[str, Any]],
    django_capture_on_commit_callbacks: Any,
) -> None:
    alice, bob = make_user(), make_user()
    mine, theirs = make_active_bot(alice), make_active_bot(bob)
    payload = {"bot": mine.pk, "opponents": [theirs.pk]}
    with django_capture_on_commit_callbacks(execute=True):
        response = client_for(alice).post("/api/v1/matches/challenges/", payload)
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["kind"] == "challenge"
    assert [s["bot"] for s in body["seats"]] == [mine.pk, theirs.pk]
    assert len(sent_tasks) == 1

    refused = client_for(bob).post("/api/v1/matches/challenges/", payload)
    assert refused.status_code == 403
    assert refused.json()["code"] == "permission_denied"

    inactive = bot_create(owner=bob, name="inactive")
    conflict = client_for(alice).post(
        "/api/v1/matches/challenges/", {"bot": mine.pk, "opponents": [inactive.pk]}
    )
    assert conflict.status_code == 409
    assert conflict.json()["code"] == "conflict"

    bad_options = client_for(alice).post(
        "/api/v1/matches/challenges/", {**payload, "options": {"nope": 1}}
    )
    assert bad_options.status_code == 400
    assert bad_options.json()["code"] == "invalid"

    anonymous = APIClient().post("/api/v1/matches/challenges/", payload)
    assert anonymous.status_code == 401


def test_challenges_are_throttled(
    client_for: Callable[[User], APIClient],
    make_user: Callable[..., User],
    make_active_bot: Callable[..., Bot],
    sent_tasks: list[dict[str, Any]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from rest_framework.throttling import ScopedRateThrottle

    monkeypatch.setitem(ScopedRateThrottle.THROTTLE_RATES, "challenge", "2/hour")
    alice = make_user()
    payload = {"bot": make_active_bot(alice).pk, "opponents": [make_active_bot(make_user()).pk]}
    client = client_for(alice)
    codes = [client.post("/api/v1/matches/challenges/", payload).status_code for _ in range(3)]
    assert codes == [201, 201, 429]
    refused = client.post("/api/v1/matches/challenges/", payload).json()
    assert refused["code"] == "throttled"
