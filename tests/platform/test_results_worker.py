"""The result path through a real Celery worker: Redis broker, `results` queue, JSON."""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Callable

import pytest
import redis
from celery.contrib.testing.worker import start_worker
from django.contrib.auth.models import User

from heights_platform.bots.models import Bot
from heights_platform.matches.models import Match
from heights_platform.matches.services import match_create
from heights_platform.replays.models import Replay
from heights_runner.contract import QUEUE_RESULTS, TASK_RECORD_RESULT, MatchResult

BROKER_URL = os.environ.get("HEIGHTS_TEST_BROKER_URL", "redis://127.0.0.1:6379/15")


@pytest.mark.django_db(transaction=True)
def test_a_result_sent_to_the_results_queue_is_recorded_once(
    make_user: Callable[..., User],
    make_active_bot: Callable[..., Bot],
    play_result: Callable[..., MatchResult],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from heights_platform import celery_app
    from heights_platform.matches import services as match_services

    monkeypatch.setattr(match_services, "match_enqueue", lambda *, match: None)  # no runner
    prefix = f"test-{uuid.uuid4().hex[:8]}:"
    monkeypatch.setenv("HEIGHTS_BROKER_PREFIX", prefix)
    app = celery_app.make_app(BROKER_URL)
    app.loader.import_default_modules()
    versions = [make_active_bot(make_user()).active_version for _ in range(2)]
    match = match_create(kind="challenge", seats=[v for v in versions if v], players=2, options={})
    result = play_result(match).to_dict()
    with start_worker(
        app, pool="solo", queues=[QUEUE_RESULTS], perform_ping_check=False, shutdown_timeout=10
    ):
        for _ in range(2):  # delivered twice: recorded once
            app.send_task(TASK_RECORD_RESULT, args=[result])
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            match.refresh_from_db()
            if match.status == Match.Status.FINISHED:
                break
            time.sleep(0.1)
        time.sleep(0.5)  # let the duplicate run too
    app.close()
    client = redis.Redis.from_url(BROKER_URL)
    for key in client.scan_iter(f"{prefix}*"):
        client.delete(key)
    assert match.status == Match.Status.FINISHED
    assert Replay.objects.filter(match=match).count() == 1


def test_celery_app_configuration() -> None:
    from heights_platform import celery_app

    app = celery_app.make_app(BROKER_URL)
    conf = app.conf
    assert app.main == "heights_platform"
    assert conf.task_routes[TASK_RECORD_RESULT] == {"queue": QUEUE_RESULTS}
    assert conf.task_routes["heights_runner.play_match"] == {"queue": "matches"}
    assert conf.task_default_queue == "platform"  # beat's tasks never reach a runner
    assert conf.task_acks_late
    assert conf.worker_prefetch_multiplier == 1
    assert conf.accept_content == ["json"]
    assert conf.task_serializer == "json"
    schedule = conf.beat_schedule["ladder-matchmake"]
    assert schedule["task"] == "heights_platform.ladder_matchmake"
    assert schedule["schedule"] == 30.0
    app.loader.import_default_modules()  # conf.imports: the platform's task modules
    for entry in conf.beat_schedule.values():  # beat only schedules tasks a worker knows
        assert entry["task"] in app.tasks, entry
    app.close()
