"""Matches that waited too long for the runner are sent again, at most once a period;
running matches past their deadline are sent again once, then failed, by the reaper."""

from __future__ import annotations

import importlib
from datetime import timedelta
from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command
from django.utils import timezone
from kombu.exceptions import OperationalError

from heights_platform.bots.models import BotVersion
from heights_platform.celery_app import app
from heights_platform.matches import sending
from heights_platform.matches.models import Match
from heights_platform.matches.services import match_create, matches_resend_stalled
from heights_platform.matches.tasks import resend_stalled_matches
from heights_runner.contract import TASK_PLAY_MATCH, MatchSpec


def _create(versions: dict[str, BotVersion], capture: Any) -> Match:
    seats = [versions["random"], versions["greedy"]]
    with capture(execute=True):
        match = match_create(kind="challenge", seats=seats, players=2, options={"round_cap": 2})
    match.refresh_from_db()
    return match


def _age(match: Match, **fields: timedelta) -> None:
    now = timezone.now()
    Match.objects.filter(pk=match.pk).update(**{k: now - v for k, v in fields.items()})


def test_a_match_the_broker_never_took_is_sent_a_minute_later(
    sent_tasks: list[dict[str, Any]],
    builtin_versions: dict[str, BotVersion],
    django_capture_on_commit_callbacks: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def broker_away(*args: Any, **kwargs: Any) -> None:
        raise OperationalError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    with monkeypatch.context() as away:
        away.setattr(app, "send_task", broker_away)
        match = _create(builtin_versions, django_capture_on_commit_callbacks)
    assert match.status == Match.Status.QUEUED  # the request that created it succeeded
    assert match.sent_at is None
    assert matches_resend_stalled() == []  # not yet a minute old

    _age(match, created_at=timedelta(minutes=2))
    assert [m.pk for m in matches_resend_stalled()] == [match.pk]
    (task,) = sent_tasks
    assert task["name"] == TASK_PLAY_MATCH
    assert task["task_id"] == str(match.pk)  # the runner's idempotency key
    assert MatchSpec.from_dict(task["args"][0]).seed == match.seed
    assert Match.objects.get(pk=match.pk).sent_at is not None
    assert matches_resend_stalled() == []  # once a period, not once a tick


def test_sent_matches_go_again_only_after_their_period(
    sent_tasks: list[dict[str, Any]],
    builtin_versions: dict[str, BotVersion],
    django_capture_on_commit_callbacks: Any,
) -> None:
    fresh = _create(builtin_versions, django_capture_on_commit_callbacks)
    assert fresh.sent_at is not None
    queued = _create(builtin_versions, django_capture_on_commit_callbacks)
    backlog = _create(builtin_versions, django_capture_on_commit_callbacks)
    running = _create(builtin_versions, django_capture_on_commit_callbacks)
    running_recently = _create(builtin_versions, django_capture_on_commit_callbacks)
    finished = _create(builtin_versions, django_capture_on_commit_callbacks)
    long_ago = timedelta(hours=8)
    _age(queued, created_at=long_ago, sent_at=timedelta(hours=7))
    _age(backlog, created_at=long_ago, sent_at=timedelta(hours=2))  # a long queue, healthy
    _age(running, created_at=long_ago, sent_at=long_ago, started_at=long_ago)
    _age(running_recently, created_at=long_ago, sent_at=long_ago, started_at=timedelta(hours=1))
    _age(finished, created_at=long_ago, sent_at=long_ago, started_at=long_ago)
    Match.objects.filter(pk__in=[running.pk, running_recently.pk]).update(status="running")
    Match.objects.filter(pk=finished.pk).update(status="finished")
    sent_tasks.clear()

    assert resend_stalled_matches() == 1  # the beat task; running ones are the reaper's
    assert {t["task_id"] for t in sent_tasks} == {str(queued.pk)}


def test_the_command_lists_what_it_sent(
    sent_tasks: list[dict[str, Any]],
    builtin_versions: dict[str, BotVersion],
    django_capture_on_commit_callbacks: Any,
) -> None:
    match = _create(builtin_versions, django_capture_on_commit_callbacks)
    out = StringIO()
    call_command("matches_resend_stalled", stdout=out)
    assert out.getvalue().endswith("0 match(es) sent again\n")
    call_command("matches_resend_stalled", "--queued-after", "0", stdout=out)
    assert f"{match.pk} queued\n1 match(es) sent again\n" in out.getvalue()


def test_a_match_that_cannot_be_sent_does_not_hold_up_the_rest(
    sent_tasks: list[dict[str, Any]],
    builtin_versions: dict[str, BotVersion],
    django_capture_on_commit_callbacks: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    broken = _create(builtin_versions, django_capture_on_commit_callbacks)
    fine = _create(builtin_versions, django_capture_on_commit_callbacks)
    _age(broken, created_at=timedelta(hours=9), sent_at=timedelta(hours=8))
    _age(fine, created_at=timedelta(hours=8), sent_at=timedelta(hours=7))
    real_spec = sending.match_spec

    def match_spec(*, match: Match) -> MatchSpec:
        if match.pk == broken.pk:
            raise ValueError("a seat's bot file is gone")
        return real_spec(match=match)

    monkeypatch.setattr(sending, "match_spec", match_spec)
    sent_tasks.clear()
    assert [m.pk for m in matches_resend_stalled()] == [fine.pk]  # the older one is skipped
    assert [t["task_id"] for t in sent_tasks] == [str(fine.pk)]


def test_the_migration_counts_old_matches_as_sent_when_created(
    builtin_versions: dict[str, BotVersion],
    django_capture_on_commit_callbacks: Any,
    sent_tasks: list[dict[str, Any]],
) -> None:
    from django.apps import apps

    migration = importlib.import_module("heights_platform.matches.migrations.0002_match_sent_at")
    old = _create(builtin_versions, django_capture_on_commit_callbacks)
    Match.objects.filter(pk=old.pk).update(sent_at=None)  # as before the field existed
    migration.matches_sent_at_creation(apps, None)
    old.refresh_from_db()
    assert old.sent_at == old.created_at
