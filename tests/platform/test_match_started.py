"""The runner's start hint: queued -> running, never backwards, then the result."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from heights_platform.bots.models import BotVersion
from heights_platform.matches.models import Match
from heights_platform.matches.services import match_create, match_result_record
from heights_platform.matches.tasks import record_match_started
from heights_runner.contract import MatchResult


def test_a_started_match_shows_as_running_until_its_result(
    sent_tasks: list[dict[str, Any]],
    builtin_versions: dict[str, BotVersion],
    play_result: Callable[..., MatchResult],
) -> None:
    seats = [builtin_versions["random"], builtin_versions["greedy"]]
    match = match_create(kind="challenge", seats=seats, players=2, options={"round_cap": 2})
    assert match.status == Match.Status.QUEUED

    record_match_started(str(match.pk))
    match.refresh_from_db()
    assert match.status == Match.Status.RUNNING
    assert match.started_at is not None

    match_result_record(result=play_result(match))
    record_match_started(str(match.pk))  # a late, repeated hint changes nothing
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED


def test_a_hint_for_an_unknown_or_malformed_id_is_ignored() -> None:
    record_match_started("not-a-uuid")
    record_match_started("00000000-0000-0000-0000-000000000000")
    assert not Match.objects.exists()
