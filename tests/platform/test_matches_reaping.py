"""The reaper: a running match past its deadline is sent again once, then recorded as
an infrastructure failure (no forfeit, not rated), exactly once, whatever arrives late."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

from django.contrib.auth.models import User
from django.utils import timezone

from heights_platform.bots.models import Bot, BotVersion
from heights_platform.ladders.models import LadderEntry, RatingChange
from heights_platform.ladders.services import ladder_create, ladder_join
from heights_platform.matches.models import Match, MatchSeat
from heights_platform.matches.reaping import match_deadline_s, matches_reap_overdue
from heights_platform.matches.services import match_create, match_result_record
from heights_platform.matches.tasks import reap_overdue_matches
from heights_runner.contract import (
    TASK_PLAY_MATCH,
    MatchResult,
    MatchSpec,
    largest_match_deadline_seconds,
    match_deadline_seconds,
)


def _running_ladder_match(
    make_user: Callable[..., User], make_active_bot: Callable[..., Bot], capture: Any
) -> Match:
    ladder = ladder_create(slug="reaped", name="Reaped", players=2)
    bots = [make_active_bot(make_user()), make_active_bot(make_user())]
    for bot in bots:
        ladder_join(ladder=ladder, bot=bot)
    versions: list[BotVersion] = [b.active_version for b in bots if b.active_version]
    with capture(execute=True):
        match = match_create(kind="ladder", seats=versions, players=2, options={}, ladder=ladder)
    Match.objects.filter(pk=match.pk).update(status=Match.Status.RUNNING, started_at=timezone.now())
    match.refresh_from_db()
    return match


def _age(match: Match, seconds: float) -> None:
    """Move the match's start and send back by `seconds` (the clock is the database's)."""
    match.refresh_from_db()
    back = timedelta(seconds=seconds)
    assert match.started_at is not None
    assert match.sent_at is not None
    Match.objects.filter(pk=match.pk).update(
        started_at=match.started_at - back, sent_at=match.sent_at - back
    )


def _ratings() -> tuple[object, ...]:
    entries = LadderEntry.objects.order_by("pk").values_list("elo", "mu", "games")
    return (tuple(entries), RatingChange.objects.count())


def test_the_deadline_is_the_runners_contract_for_the_match(
    make_user: Callable[..., User],
    make_active_bot: Callable[..., Bot],
    sent_tasks: list[dict[str, Any]],
    django_capture_on_commit_callbacks: Any,
) -> None:
    match = _running_ladder_match(make_user, make_active_bot, django_capture_on_commit_callbacks)
    spec = MatchSpec.from_dict(sent_tasks[0]["args"][0])  # what the runner was sent
    assert match_deadline_s(match=match) == match_deadline_seconds(spec) + 30.0
    # Bounded, and in minutes: the largest default match (4 seats) is due within 13.
    assert match_deadline_seconds(spec) < largest_match_deadline_seconds() < 13 * 60


def test_an_overdue_match_is_sent_again_then_failed_once_without_blame(
    make_user: Callable[..., User],
    make_active_bot: Callable[..., Bot],
    sent_tasks: list[dict[str, Any]],
    django_capture_on_commit_callbacks: Any,
) -> None:
    match = _running_ladder_match(make_user, make_active_bot, django_capture_on_commit_callbacks)
    deadline = match_deadline_s(match=match)
    before = _ratings()
    sent_tasks.clear()

    _age(match, deadline - 5)
    assert matches_reap_overdue() == []  # not yet due
    _age(match, 10)
    [reaped] = matches_reap_overdue()
    assert (reaped.match_id, reaped.action) == (str(match.pk), "sent_again")
    assert [(t["name"], t["task_id"]) for t in sent_tasks] == [(TASK_PLAY_MATCH, str(match.pk))]
    assert Match.objects.get(pk=match.pk).status == Match.Status.RUNNING
    assert matches_reap_overdue() == []  # a new deadline from the new send

    _age(match, deadline + 1)
    assert reap_overdue_matches() == 1  # the beat task
    failed = Match.objects.get(pk=match.pk)
    assert failed.status == Match.Status.FAILED
    assert failed.error.startswith("infrastructure failure: no result within the match's")
    assert failed.finished_seq is not None
    assert not MatchSeat.objects.filter(match=match).exclude(forfeit_reason="").exists()
    assert _ratings() == before  # no rating change, no game counted
    assert len(sent_tasks) == 1  # nothing sent again after the failure
    _age(match, deadline + 1)
    assert matches_reap_overdue() == []  # and counted once


def test_a_late_result_after_the_reaper_changes_nothing(
    make_user: Callable[..., User],
    make_active_bot: Callable[..., Bot],
    sent_tasks: list[dict[str, Any]],
    django_capture_on_commit_callbacks: Any,
    play_result: Callable[..., MatchResult],
) -> None:
    match = _running_ladder_match(make_user, make_active_bot, django_capture_on_commit_callbacks)
    deadline = match_deadline_s(match=match)
    _age(match, deadline + 1)
    matches_reap_overdue()  # sent again
    _age(match, deadline + 1)
    assert [r.action for r in matches_reap_overdue()] == ["failed"]
    reaped = Match.objects.get(pk=match.pk)
    before = _ratings()

    match_result_record(result=play_result(match))  # the runner's result, at last
    late = Match.objects.get(pk=match.pk)
    assert (late.status, late.finished_seq, late.error) == (
        reaped.status,
        reaped.finished_seq,
        reaped.error,
    )
    assert _ratings() == before


def test_a_result_before_the_reaper_leaves_nothing_to_reap(
    make_user: Callable[..., User],
    make_active_bot: Callable[..., Bot],
    sent_tasks: list[dict[str, Any]],
    django_capture_on_commit_callbacks: Any,
    play_result: Callable[..., MatchResult],
) -> None:
    match = _running_ladder_match(make_user, make_active_bot, django_capture_on_commit_callbacks)
    deadline = match_deadline_s(match=match)
    _age(match, deadline + 1)
    matches_reap_overdue()  # sent again; the re-sent match's result arrives
    match_result_record(result=play_result(match))
    finished = Match.objects.get(pk=match.pk)
    assert finished.status == Match.Status.FINISHED
    assert RatingChange.objects.filter(match=match).count() == 2  # rated once
    _age(match, 2 * deadline)
    assert matches_reap_overdue() == []
    assert Match.objects.get(pk=match.pk).finished_seq == finished.finished_seq


def test_a_qualification_that_fails_for_infrastructure_is_played_again_not_rejected(
    make_user: Callable[..., User],
    sent_tasks: list[dict[str, Any]],
    django_capture_on_commit_callbacks: Any,
) -> None:
    from heights_platform.bots.services import bot_version_create

    bot = Bot.objects.create(owner=make_user(), name="fresh")
    with django_capture_on_commit_callbacks(execute=True):
        version = bot_version_create(bot=bot, filename="b.py", content=b"print('hi')\n")
    for attempt in range(3):
        version.refresh_from_db()
        assert version.status == BotVersion.Status.QUALIFYING
        assert version.qualification_match is not None
        first = version.qualification_match
        failure = MatchResult(
            str(first.pk), "failed", first.seed, "", error="infrastructure failure: OSError: x"
        )
        with django_capture_on_commit_callbacks(execute=True):
            match_result_record(result=failure)
        version.refresh_from_db()
        if attempt < 2:
            assert version.qualification_match_id != first.pk  # a new match for it
    assert version.status == BotVersion.Status.REJECTED  # after three attempts, named
    assert "infrastructure failure: OSError: x" in version.error
    assert len([t for t in sent_tasks if t["name"] == TASK_PLAY_MATCH]) == 3
