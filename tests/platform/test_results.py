"""Recording results: exactly once under duplicate delivery, in arrival order."""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable

import pytest
from django.contrib.auth.models import User
from django.db import connection

from heights_platform.bots.models import Bot, BotVersion
from heights_platform.ladders.models import Ladder, LadderEntry, RatingChange
from heights_platform.ladders.services import ladder_create, ladder_join
from heights_platform.matches.models import Match, MatchSeat
from heights_platform.matches.services import match_create, match_result_record
from heights_platform.matches.tasks import record_match_result
from heights_platform.replays.models import Replay
from heights_platform.replays.selectors import replay_verify
from heights_runner.contract import TASK_RECORD_RESULT, MatchResult


def _ladder_match(
    make_user: Callable[..., User], make_active_bot: Callable[..., Bot]
) -> tuple[Ladder, Match, list[Bot]]:
    ladder = ladder_create(slug="duel", name="Duel", players=2)
    bots = [make_active_bot(make_user()), make_active_bot(make_user())]
    for bot in bots:
        ladder_join(ladder=ladder, bot=bot)
    versions: list[BotVersion] = [b.active_version for b in bots if b.active_version]
    match = match_create(kind="ladder", seats=versions, players=2, options={}, ladder=ladder)
    return ladder, match, bots


def _snapshot(match: Match) -> tuple[object, ...]:
    match.refresh_from_db()
    entries = tuple(
        LadderEntry.objects.order_by("pk").values_list("elo", "mu", "sigma", "games", "wins")
    )
    seats = tuple(MatchSeat.objects.filter(match=match).order_by("seat").values_list())
    return (
        match.status,
        match.finished_seq,
        match.finished_at,
        Replay.objects.filter(match=match).count(),
        RatingChange.objects.filter(match=match).count(),
        entries,
        seats,
    )


def test_duplicate_delivery_changes_nothing(
    make_user: Callable[..., User],
    make_active_bot: Callable[..., Bot],
    play_result: Callable[..., MatchResult],
) -> None:
    _ladder, match, _bots = _ladder_match(make_user, make_active_bot)
    result = play_result(match)
    match_result_record(result=result)
    first = _snapshot(match)
    assert first[0] == "finished"
    assert first[3] == 1
    assert first[4] == 2
    match_result_record(result=result)  # the service again
    record_match_result(result.to_dict())  # and the Celery task, twice
    record_match_result(result.to_dict())
    assert _snapshot(match) == first
    # Another result for the same match (a re-played duplicate) changes nothing either.
    other = MatchResult.from_dict({**result.to_dict(), "status": "failed", "error": "late"})
    match_result_record(result=other)
    assert _snapshot(match) == first


def test_the_task_is_registered_under_the_contract_name() -> None:
    assert record_match_result.name == TASK_RECORD_RESULT
    assert record_match_result.acks_late


def test_the_task_drops_a_malformed_message() -> None:
    record_match_result({"match_id": "x"})  # no status, no seed: logged and dropped
    record_match_result({"match_id": "x", "status": "failed", "seed": 1, "extra": 2})
    assert not Match.objects.exists()


def test_finished_seq_follows_arrival_order(
    make_user: Callable[..., User],
    make_active_bot: Callable[..., Bot],
    play_result: Callable[..., MatchResult],
) -> None:
    ladder, first, bots = _ladder_match(make_user, make_active_bot)
    versions = [b.active_version for b in bots if b.active_version]
    second = match_create(kind="ladder", seats=versions, players=2, options={}, ladder=ladder)
    # The second match's result arrives first: it is rated first.
    match_result_record(result=play_result(second))
    match_result_record(result=play_result(first))
    first.refresh_from_db()
    second.refresh_from_db()
    assert second.finished_seq is not None
    assert first.finished_seq is not None
    assert first.finished_seq > second.finished_seq
    entry = LadderEntry.objects.get(ladder=ladder, bot=bots[0])
    history = list(RatingChange.objects.filter(entry=entry).order_by("match__finished_seq"))
    assert [h.match_id for h in history] == [second.pk, first.pk]
    assert history[1].elo_before == history[0].elo_after
    assert history[1].mu_before == history[0].mu_after
    assert entry.elo == history[1].elo_after


@pytest.mark.django_db(transaction=True)
def test_concurrent_results_get_unique_sequence_numbers(
    make_user: Callable[..., User],
    make_active_bot: Callable[..., Bot],
    play_result: Callable[..., MatchResult],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Results of one ladder arriving at once: one at a time, each rated once, in order."""
    from heights_platform.matches import services as match_services

    monkeypatch.setattr(match_services, "match_enqueue", lambda *, match: None)  # no broker
    ladder, first, bots = _ladder_match(make_user, make_active_bot)
    versions = [b.active_version for b in bots if b.active_version]
    matches = [first] + [
        match_create(kind="ladder", seats=versions, players=2, options={}, ladder=ladder)
        for _ in range(3)
    ]
    results = [play_result(m) for m in matches]
    barrier = threading.Barrier(len(results))
    errors: list[BaseException] = []

    def record(result: MatchResult) -> None:
        try:
            barrier.wait(timeout=10)
            match_result_record(result=result)
        except BaseException as err:  # reported below, in the test's thread
            errors.append(err)
        finally:
            connection.close()

    threads = [threading.Thread(target=record, args=(r,)) for r in results]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert errors == []
    seqs = Match.objects.filter(ladder=ladder).values_list("finished_seq", flat=True)
    assert None not in seqs
    assert len(set(seqs)) == 4
    entry = LadderEntry.objects.get(ladder=ladder, bot=bots[0])
    history = list(RatingChange.objects.filter(entry=entry).order_by("match__finished_seq"))
    assert len(history) == 4
    for earlier, later in itertools.pairwise(history):
        assert later.elo_before == earlier.elo_after
    assert entry.games == 4


@pytest.mark.parametrize("forfeit_seat", [None, 0])
def test_a_solo_game_the_mayor_wins_is_recorded_as_finished(
    make_user: Callable[..., User],
    make_active_bot: Callable[..., Bot],
    play_result: Callable[..., MatchResult],
    forfeit_seat: int | None,
) -> None:
    """The seat the Mayor beats ranks 2nd of 2 players (heights_rules.ranking); the match
    used to be marked failed because 2 is beyond its one seat."""
    version = make_active_bot(make_user()).active_version
    assert version is not None
    match = match_create(kind="challenge", seats=[version], players=1, options={}, seed=5)
    result = play_result(match, forfeit_seat=forfeit_seat)
    assert result.outcome["ranks"] == [2, 1] or forfeit_seat is not None  # the Mayor won
    match_result_record(result=result)
    match.refresh_from_db()
    assert (match.status, match.error) == ("finished", "")
    assert list(MatchSeat.objects.filter(match=match).values_list("rank", flat=True)) == [2]
    verified = replay_verify(replay=Replay.objects.get(match=match))
    assert verified.checks["ranks"], verified.message
