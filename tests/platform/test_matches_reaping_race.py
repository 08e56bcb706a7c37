"""The reaper failing an overdue match and the runner's late result, at the same time, on
real PostgreSQL: exactly one outcome is recorded, ratings change at most once, and the
match's rows agree with that outcome.

Each side runs in a thread of its own (its own database connection). The interleaving is
forced, not hoped for: whichever side is to go first holds the match's row lock inside
its recording transaction until PostgreSQL shows the other side waiting for a lock.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.utils import timezone

from heights_platform.bots.models import Bot, BotVersion
from heights_platform.ladders.models import LadderEntry, RatingChange
from heights_platform.ladders.services import ladder_create, ladder_join
from heights_platform.matches import recording
from heights_platform.matches.models import Match, MatchSeat
from heights_platform.matches.reaping import Reaped, match_deadline_s, matches_reap_overdue
from heights_platform.matches.services import match_create, match_result_record
from heights_platform.replays.models import Replay
from heights_runner.contract import INFRASTRUCTURE_FAILURE, MatchResult

WAIT_S = 60.0  # generous: a loaded 2-core machine; a failure names what it waited for


@dataclass
class Race:
    """Who goes first, and what each side saw."""

    first: str  # "reaper" or "result"
    # Set once the first side holds the match's row lock, uncommitted.
    holding: threading.Event = field(default_factory=threading.Event)
    reaped: list[Reaped] = field(default_factory=list)
    recorded: Match | None = None
    errors: list[BaseException] = field(default_factory=list)


def _others_waiting_for_a_lock() -> bool:
    with connection.cursor() as cursor:  # pg_locks is live, not a per-transaction snapshot
        cursor.execute("SELECT count(*) FROM pg_locks WHERE NOT granted")
        row = cursor.fetchone()
    return bool(row and row[0])


def _hold_until_the_other_waits(race: Race, monkeypatch: pytest.MonkeyPatch) -> None:
    """The first side to take the results lock (after the row lock) keeps both until the
    other side is blocked on the row; the second side passes straight through."""
    real = recording._results_lock

    def results_lock() -> None:
        real()
        if threading.current_thread().name != race.first:
            return
        race.holding.set()
        deadline = time.monotonic() + WAIT_S
        while not _others_waiting_for_a_lock():
            if time.monotonic() > deadline:
                raise AssertionError(f"the other side never waited for the {race.first}'s lock")
            time.sleep(0.02)

    monkeypatch.setattr(recording, "_results_lock", results_lock)


def _side(race: Race, name: str, work: Callable[[], None]) -> threading.Thread:
    def run() -> None:
        try:
            if name != race.first and not race.holding.wait(WAIT_S):
                raise AssertionError(f"the {race.first} never took the match's lock")
            work()
        except BaseException as err:  # reported by the test, not lost in the thread
            race.errors.append(err)
        finally:
            connection.close()  # this thread's own connection

    return threading.Thread(target=run, name=name)


def _overdue_ladder_match(
    make_user: Callable[..., User], make_active_bot: Callable[..., Bot]
) -> Match:
    """A running ladder match, sent again by the reaper, now past its deadline again."""
    ladder = ladder_create(slug="raced", name="Raced", players=2)
    bots = [make_active_bot(make_user()), make_active_bot(make_user())]
    for bot in bots:
        ladder_join(ladder=ladder, bot=bot)
    versions: list[BotVersion] = [b.active_version for b in bots if b.active_version]
    match = match_create(kind="ladder", seats=versions, players=2, options={}, ladder=ladder)
    Match.objects.filter(pk=match.pk).update(status=Match.Status.RUNNING, started_at=timezone.now())
    deadline = match_deadline_s(match=match)
    _age(match, deadline + 1)
    assert [r.action for r in matches_reap_overdue()] == ["sent_again"]
    _age(match, deadline + 1)
    return Match.objects.get(pk=match.pk)


def _age(match: Match, seconds: float) -> None:
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


@pytest.mark.usefixtures("transactional_db", "sent_tasks")  # threads see committed rows
@pytest.mark.parametrize("first", ["reaper", "result"])
def test_the_reaper_and_a_late_result_racing_record_one_outcome(
    first: str,
    make_user: Callable[..., User],
    make_active_bot: Callable[..., Bot],
    play_result: Callable[..., MatchResult],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    match = _overdue_ladder_match(make_user, make_active_bot)
    late = play_result(match)  # the runner's result, simulated before the race
    before = _ratings()
    race = Race(first)
    _hold_until_the_other_waits(race, monkeypatch)

    def reap() -> None:
        race.reaped = matches_reap_overdue()

    def record() -> None:
        race.recorded = match_result_record(result=late)

    sides = [_side(race, "reaper", reap), _side(race, "result", record)]
    started = time.monotonic()
    for side in sides:
        side.start()
    for side in sides:
        side.join(WAIT_S * 2)
    assert not any(side.is_alive() for side in sides), "a side is still running"
    assert race.errors == []
    print(f"\nRESOLVED race, {first} first: {time.monotonic() - started:.2f} s")
    _assert_one_outcome(race, match, before)


def _assert_one_outcome(race: Race, match: Match, before: tuple[object, ...]) -> None:
    final = Match.objects.get(pk=match.pk)
    assert race.recorded is not None
    assert race.recorded.status == final.status
    assert final.finished_seq is not None
    assert Match.objects.filter(finished_seq=final.finished_seq).count() == 1
    if race.first == "reaper":  # the reaper's failure stands; the result changes nothing
        assert [(r.match_id, r.action) for r in race.reaped] == [(str(match.pk), "failed")]
        assert final.status == Match.Status.FAILED
        assert final.error.startswith(INFRASTRUCTURE_FAILURE), final.error
        assert not Replay.objects.filter(match=match).exists()
        assert not MatchSeat.objects.filter(match=match, rank__isnull=False).exists()
        assert _ratings() == before
    else:  # the result stands; the reaper fails nothing
        assert race.reaped == []
        assert (final.status, final.error) == (Match.Status.FINISHED, "")
        assert Replay.objects.filter(match=match).count() == 1
        assert RatingChange.objects.filter(match=match).count() == 2  # each seat once
        assert [e.games for e in LadderEntry.objects.order_by("pk")] == [1, 1]
    assert not MatchSeat.objects.filter(match=match).exclude(forfeit_reason="").exists()
    assert matches_reap_overdue(now=timezone.now() + timedelta(hours=2)) == []
    assert Match.objects.get(pk=match.pk).finished_seq == final.finished_seq
