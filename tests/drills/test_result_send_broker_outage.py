"""Drill: the broker goes away while the runner sends a match's result.

A ladder match is played by a real runner worker against a real engine service; the
platform's own Celery worker records results in this test's database. On Redis, the
broker (a private `redis-server` with an append-only file; the engine's store and the
runner's ledger stay on the shared Redis) is killed mid-game and is still down when the
result is stored in the ledger and sent; it comes back within the publish retries. On
the embedded file broker, the folder messages are staged in is made unusable during the
game, so the result cannot be written: when it is usable again within the publish
retries (about two minutes), the result goes through them, seconds later; when the
outage outlasts them, the reaper sends the match again and the ledger's result goes
back. Either way the match is recorded exactly once, rated once.
"""

from __future__ import annotations

import shutil
import signal
import time
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
import redis
from django.contrib.auth.models import User
from django.utils import timezone
from tests.drills.drill_tools import REDIS, PrivateRedis, wait_for
from tests.drills.test_runner_worker_killed import _slow_version, _system

from heights_cli.stack import Service, free_port
from heights_platform.bots.services import builtin_bots_ensure
from heights_platform.ladders.models import LadderEntry, RatingChange
from heights_platform.ladders.services import ladder_create
from heights_platform.matches.models import Match
from heights_platform.matches.reaping import match_deadline_s, matches_reap_overdue
from heights_platform.matches.services import match_create
from heights_platform.replays.models import Replay

pytestmark = pytest.mark.drill

LEDGER_KEY = "heights:runner:result:"  # heights_runner.ledger.RedisLedger's prefix
# The deadline's order (minutes): a match whose worker died is not redelivered meanwhile.
VISIBILITY_TIMEOUT = "600"


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[PrivateRedis]:
    store = PrivateRedis(free_port(), tmp_path / "redis")
    store.start()
    try:
        yield store
    finally:
        store.stop()


def _ladder_match(slug: str) -> Match:
    slow = _slow_version(User.objects.create_user("drill-owner", "d@example.org", "pw-9x!kq"))
    greedy = builtin_bots_ensure()["greedy"]
    ladder = ladder_create(slug=slug, name="Drill ladder", players=2)
    return match_create(
        kind=Match.Kind.LADDER,
        seats=[slow, greedy],
        players=2,
        # Long enough (seconds) that the outage begins while the game is still played.
        options={"round_cap": 14},
        ladder=ladder,
        seed=20261124,
    )


def _status(match: Match) -> str:
    return str(Match.objects.get(pk=match.pk).status)


def _in_ledger(match: Match) -> bool:
    return bool(redis.Redis.from_url(REDIS).exists(f"{LEDGER_KEY}{match.pk}"))


def _assert_recorded_once(match: Match, *logs: Service) -> None:
    story = "".join(s.log()[-1500:] for s in logs)
    wait_for("the match is finished", lambda: _status(match) == Match.Status.FINISHED, 90, story)
    recorded = Match.objects.get(pk=match.pk)
    time.sleep(3)  # a late duplicate (the result re-sent) would land here; it must change nothing
    assert Match.objects.get(pk=match.pk).finished_seq == recorded.finished_seq is not None
    assert Replay.objects.filter(match=match).count() == 1
    assert RatingChange.objects.filter(match=match).count() == 2  # each seat rated once
    assert [e.games for e in LadderEntry.objects.filter(ladder=match.ladder)] == [1, 1]


def test_redis_down_while_the_result_is_sent_the_match_is_recorded_once(
    transactional_db: None,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    broker: PrivateRedis,
) -> None:
    with _system(tmp_path, monkeypatch, broker.url) as (stack, runner_env):
        runner_env.pop("PLATFORM_METRICS")
        runner_env["HEIGHTS_RUNNER_VISIBILITY_TIMEOUT"] = VISIBILITY_TIMEOUT
        started = time.monotonic()
        match = _ladder_match("drill-outage-redis")
        runner = stack.runner("runner", **runner_env)
        recorder = stack.services[1]
        wait_for("the match is running", lambda: _status(match) == "running", 60, runner.log())
        broker.stop(signal.SIGKILL)  # mid-game; the game itself goes on (engine, ledger)
        wait_for("the result is in the ledger", lambda: _in_ledger(match), 60, runner.log())
        # The runner is sending now, into a broker that is away: Celery's default policy
        # would have given up after ~0.6 s and acknowledged the match unrecorded.
        time.sleep(3)
        assert _status(match) == Match.Status.RUNNING
        broker.start()  # from its append-only file, on the same port
        _assert_recorded_once(match, runner, recorder)
        resolved_s = time.monotonic() - started
        print(f"\nRESOLVED broker down at send  redis  finished {resolved_s:6.1f} s")
        assert "could not send the result" not in runner.log()
        assert resolved_s < match_deadline_s(match=match)


def test_a_file_broker_unusable_for_a_moment_takes_the_result_through_the_retries(
    transactional_db: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "broker"
    staging = folder / "queue.staging"  # heights_runner.broker: every message is staged here
    with _system(tmp_path, monkeypatch, f"file://{folder}") as (stack, runner_env):
        runner_env.pop("PLATFORM_METRICS")
        match = _ladder_match("drill-blip-file")
        runner = stack.runner("runner", **runner_env)
        recorder = stack.services[1]
        wait_for("the match is running", lambda: _status(match) == "running", 60, runner.log())
        _block(staging)  # mid-game: no message can be written (a full or broken disk)
        wait_for("the result is in the ledger", lambda: _in_ledger(match), 60, runner.log())
        # The runner is sending now, into a folder it cannot write: before the file
        # broker's failed writes were retried, it gave up at once and only the reaper,
        # past the match's deadline (minutes), brought the result back.
        time.sleep(3)
        assert _status(match) == Match.Status.RUNNING
        staging.unlink()  # the disk is back
        back = time.monotonic()
        wait_for("the match is finished", lambda: _status(match) == "finished", 90, runner.log())
        after_s = time.monotonic() - back
        print(f"\nRESOLVED broker unwritable 3 s  file  finished {after_s:6.1f} s after it is back")
        _assert_recorded_once(match, runner, recorder)
        assert "could not send the result" not in runner.log()
        assert "match already played" not in runner.log()  # never sent again by the reaper


def test_a_file_broker_that_cannot_take_the_result_is_recorded_once_via_the_reaper(
    transactional_db: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "broker"
    staging = folder / "queue.staging"  # heights_runner.broker: every message is staged here
    with _system(tmp_path, monkeypatch, f"file://{folder}") as (stack, runner_env):
        runner_env.pop("PLATFORM_METRICS")
        started = time.monotonic()
        match = _ladder_match("drill-outage-file")
        runner = stack.runner("runner", **runner_env)
        recorder = stack.services[1]
        wait_for("the match is running", lambda: _status(match) == "running", 60, runner.log())
        _block(staging)  # mid-game: no message can be written (a full or broken disk)
        wait_for("the result is in the ledger", lambda: _in_ledger(match), 60, runner.log())
        wait_for(  # after the publish retries: about two minutes
            "the runner gives up sending",
            lambda: "could not send the result" in runner.log(),
            240,
            runner.log(),
        )
        assert _status(match) == Match.Status.RUNNING
        staging.unlink()  # the disk is back

        # The beat task's next tick once the deadline has passed (the clock moved, not waited).
        later = timezone.now() + timedelta(seconds=match_deadline_s(match=match) + 1)
        assert [r.action for r in matches_reap_overdue(now=later)] == ["sent_again"]
        _assert_recorded_once(match, runner, recorder)
        resolved_s = time.monotonic() - started
        print(f"\nRESOLVED broker unwritable   file   finished {resolved_s:6.1f} s (+ deadline)")
        assert runner.log().count("match already played; re-sending its result") == 1
        assert matches_reap_overdue(now=later + timedelta(hours=1)) == []


def _block(staging: Path) -> None:
    """A file where the staging folder should be: writing any message fails (OSError)."""
    if staging.is_dir():
        shutil.rmtree(staging)
    staging.write_text("")
