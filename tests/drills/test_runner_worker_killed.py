"""Drill: a runner worker killed mid-match, seen from the platform.

A ladder match is created with `match_create` (as matchmaking does); a real runner
worker picks it up, an engine service plays it, and the platform's own Celery worker (a
separate process on this test's database) records the result. The runner worker is
killed with SIGKILL, pool and bots, in the middle of the game; another worker takes the
redelivered match. The match ends finished with one replay, one set of seat results and
one set of rating changes.
"""

from __future__ import annotations

import hashlib
import signal
import sys
import time
import urllib.request
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test import override_settings
from tests.drills.drill_tools import REDIS, wait_for
from tests.real_redis import redis_forget
from tests.runner.worker_stack import slow_bot

from heights_cli.stack import Stack, free_port
from heights_platform.bots.models import Bot, BotVersion
from heights_platform.bots.services import builtin_bots_ensure
from heights_platform.common.metrics import queue_depths
from heights_platform.ladders.models import LadderEntry, RatingChange
from heights_platform.ladders.services import ladder_create
from heights_platform.matches.models import Match, MatchSeat
from heights_platform.matches.services import match_create
from heights_platform.replays.models import Replay

pytestmark = pytest.mark.drill

# Slow enough that the match is surely still running when a test kills its worker (at
# 0.01 s a move a 4-round match could end, and be recorded, first).
SLOW_BOT = slow_bot(0.05)


@contextmanager
def _system(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, broker_url: str
) -> Iterator[tuple[Stack, dict[str, str]]]:
    """Engine and platform worker on this test's database; the platform app on its prefix."""
    from heights_platform import celery_app

    prefix = f"heights-drill-{uuid.uuid4().hex[:10]}:"
    monkeypatch.setenv("HEIGHTS_BROKER_PREFIX", prefix)
    app = celery_app.make_app(broker_url)  # reads the prefix from the environment
    monkeypatch.setattr(celery_app, "app", app)
    db = connection.settings_dict
    database_url = f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}"
    stack = Stack(tmp_path / "var", {"HEIGHTS_BROKER_PREFIX": prefix})
    metrics_port = free_port()
    try:
        engine = stack.engine(
            redis_url=REDIS,
            HEIGHTS_ENGINE_REDIS_PREFIX=f"{prefix}engine",
            HEIGHTS_ENGINE_LOG_LEVEL="WARNING",
        )
        stack.process(
            "platform-worker",
            [sys.executable, "-m", "heights_cli.main", "platform", "worker"],
            ready_text=" ready.",
            DJANGO_SETTINGS_MODULE="heights_platform.settings",
            DATABASE_URL=database_url,
            HEIGHTS_PLATFORM_BROKER_URL=broker_url,
            HEIGHTS_PLATFORM_METRICS_PORT=str(metrics_port),
        )
        runner_env = {
            "HEIGHTS_RUNNER_BROKER_URL": broker_url,
            "HEIGHTS_RUNNER_LEDGER_URL": REDIS,
            "HEIGHTS_RUNNER_ENGINE_ADDRESS": engine.address,
            "HEIGHTS_RUNNER_CACHE_DIR": str(tmp_path / "bots"),
            "HEIGHTS_RUNNER_CONCURRENCY": "1",
            "HEIGHTS_RUNNER_VISIBILITY_TIMEOUT": "4",
        }
        yield stack, runner_env | {"PLATFORM_METRICS": f"http://127.0.0.1:{metrics_port}/"}
    finally:
        stack.stop()
        app.close()
        redis_forget(prefix)


@pytest.fixture
def system(
    transactional_db: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[Stack, dict[str, str]]]:
    with _system(tmp_path, monkeypatch, REDIS) as running:
        yield running


@pytest.fixture
def file_system(
    transactional_db: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[Stack, dict[str, str]]]:
    """The same on the embedded file broker (which never redelivers a message)."""
    with _system(tmp_path, monkeypatch, f"file://{tmp_path / 'broker'}") as running:
        yield running


def _slow_version(owner: User) -> BotVersion:
    bot = Bot.objects.create(owner=owner, name="slow")
    version = BotVersion.objects.create(
        bot=bot,
        number=1,
        kind=BotVersion.Kind.PY,
        filename="slow.py",
        sha256=hashlib.sha256(SLOW_BOT).hexdigest(),
        size=len(SLOW_BOT),
        content=SLOW_BOT,
        status=BotVersion.Status.ACTIVE,
    )
    bot.active_version = version
    bot.save(update_fields=["active_version"])
    return version


def test_a_runner_killed_mid_match_leaves_one_recorded_result(
    system: tuple[Stack, dict[str, str]],
) -> None:
    stack, runner_env = system
    platform_metrics = runner_env.pop("PLATFORM_METRICS")
    slow = _slow_version(User.objects.create_user("drill-owner", "d@example.org", "pw-9x!kq"))
    greedy = builtin_bots_ensure()["greedy"]
    ladder = ladder_create(slug="drill-2p", name="Drill ladder", players=2)
    match = match_create(
        kind=Match.Kind.LADDER,
        seats=[slow, greedy],
        players=2,
        options={"round_cap": 4},
        ladder=ladder,
        seed=20261122,
    )

    first = stack.runner("runner-1", **runner_env)
    wait_for("runner-1 starts the match", lambda: "match started" in first.log(), 60, first.log())
    time.sleep(0.5)  # bots launched, moves being played
    first.stop(signal.SIGKILL)  # the whole worker, pool and bots
    assert Match.objects.get(pk=match.pk).status != Match.Status.FINISHED

    second = stack.runner("runner-2", **runner_env)
    recorder = stack.services[1]
    wait_for(
        "the match is finished",
        lambda: Match.objects.get(pk=match.pk).status == Match.Status.FINISHED,
        90,
        second.log() + recorder.log(),
    )
    assert "match started" in second.log()  # redelivered to the new worker
    recorded = Match.objects.get(pk=match.pk)
    time.sleep(3)  # a late duplicate (result re-sent) would land here; it must change nothing

    again = Match.objects.get(pk=match.pk)
    assert again.finished_seq == recorded.finished_seq is not None
    assert Replay.objects.filter(match=match).count() == 1
    seats = MatchSeat.objects.filter(match=match).order_by("seat")
    assert sorted(s.rank for s in seats if s.rank is not None) in ([1, 2], [1, 1])
    assert all(s.moves > 0 for s in seats), [
        (s.moves, s.forfeit_reason, s.forfeit_detail) for s in seats
    ]
    assert RatingChange.objects.filter(match=match).count() == 2  # each seat rated once
    assert [e.games for e in LadderEntry.objects.filter(ladder=ladder)] == [1, 1]
    assert f'"match_id": "{match.pk}"' in recorder.log()  # the platform's JSON log line
    assert '"game_id": "' in second.log()  # and the runner's, with the engine's game

    with override_settings(HEIGHTS_BROKER_URL=REDIS):
        assert queue_depths() == {"matches": 0, "results": 0}  # nothing left behind
    with urllib.request.urlopen(platform_metrics, timeout=5) as reply:
        scraped = reply.read().decode()
    assert 'heights_platform_match_results_total{status="finished"} 1.0' in scraped


def test_on_the_file_broker_the_reaper_brings_a_killed_match_back(
    file_system: tuple[Stack, dict[str, str]],
) -> None:
    from django.utils import timezone

    from heights_platform.matches.reaping import match_deadline_s, matches_reap_overdue

    stack, runner_env = file_system
    runner_env.pop("PLATFORM_METRICS")
    slow = _slow_version(User.objects.create_user("drill-owner", "d@example.org", "pw-9x!kq"))
    greedy = builtin_bots_ensure()["greedy"]
    ladder = ladder_create(slug="drill-file", name="Drill ladder", players=2)
    match = match_create(
        kind=Match.Kind.LADDER,
        seats=[slow, greedy],
        players=2,
        options={"round_cap": 4},
        ladder=ladder,
        seed=20261124,
    )
    first = stack.runner("runner-1", **runner_env)
    recorder = stack.services[1]
    wait_for(
        "the match is running",
        lambda: Match.objects.get(pk=match.pk).status == Match.Status.RUNNING,
        60,
        first.log() + recorder.log(),
    )
    first.stop(signal.SIGKILL)  # the file broker has handed the message out for good
    second = stack.runner("runner-2", **runner_env)
    assert matches_reap_overdue() == []  # not before its deadline

    # The beat task's next tick once the deadline has passed (the clock moved, not waited).
    deadline = match_deadline_s(match=Match.objects.get(pk=match.pk))
    later = timezone.now() + timedelta(seconds=deadline + 1)
    assert [r.action for r in matches_reap_overdue(now=later)] == ["sent_again"]
    wait_for(
        "the match is finished",
        lambda: Match.objects.get(pk=match.pk).status == Match.Status.FINISHED,
        90,
        second.log() + recorder.log(),
    )
    recorded = Match.objects.get(pk=match.pk)
    assert "match started" in second.log()
    assert matches_reap_overdue(now=later + timedelta(seconds=deadline + 1)) == []
    assert Match.objects.get(pk=match.pk).finished_seq == recorded.finished_seq
    assert Replay.objects.filter(match=match).count() == 1
    assert RatingChange.objects.filter(match=match).count() == 2  # each seat rated once
    assert [e.games for e in LadderEntry.objects.filter(ladder=ladder)] == [1, 1]
