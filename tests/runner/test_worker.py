"""Matches through a real Celery worker, a real engine service and real Redis."""

from __future__ import annotations

import signal
import time
import uuid
from pathlib import Path

import pytest
from tests.runner.worker_stack import runner_stack, slow_bot

from heights_cli.stack import free_port
from heights_runner.contract import (
    BotRef,
    MatchResult,
    MatchSpec,
    SeatSpec,
    TimeLimits,
    match_deadline_seconds,
)

SHORT = {"round_cap": 3}  # whole games in about a second
# Time limits are not under test here: generous, so a loaded CI machine forfeits no one.
ROOMY = TimeLimits(move_ms=10_000, bank_ms=120_000, start_ms=60_000)

SLOW_BOT = slow_bot()


def _spec(*bots: BotRef, options: dict[str, object] | None = None) -> MatchSpec:
    seats = tuple(
        SeatSpec(f"seat{i}", bot, trusted=bot.kind == "builtin") for i, bot in enumerate(bots)
    )
    return MatchSpec(
        f"m-{uuid.uuid4().hex[:12]}", 20261122, seats, options=options or SHORT, limits=ROOMY
    )


def test_a_match_is_played_and_its_result_sent_once(tmp_path: Path) -> None:
    with runner_stack(tmp_path) as rs:
        rs.worker()
        spec = _spec(BotRef.builtin("greedy"), BotRef.builtin("random"), BotRef.builtin("greedy"))
        rs.submit(spec)
        results = rs.results(1, timeout=60)
        assert len(results) == 1
        result = MatchResult.from_dict(results[0])
        assert result.match_id == spec.match_id
        assert result.status == "finished"
        assert sorted(s.rank for s in result.seats)[0] == 1
        assert all(s.forfeit is None and s.moves > 0 for s in result.seats), result.seats
        assert result.seed == spec.seed  # revealed after the end
        assert len(result.seed_commitment) == 64
        replay = result.replay_bytes()
        assert replay[:2] == b"\x1f\x8b"

        # A redelivered task (same id) re-sends the recorded result; nothing is replayed.
        rs.submit(spec)
        again = rs.results(1, timeout=30)
        assert [MatchResult.from_dict(r).replay_sha256 for r in again] == [result.replay_sha256]
        assert rs.results(1, timeout=3) == []


# Slow enough that the match is surely still running half a second after it started (at
# 0.01 s a move a 4-round match took 0.45 s, was sent, and was sent again when redelivered).
KILLED_SLOW_BOT = slow_bot(0.1)


def test_a_worker_killed_mid_match_leads_to_exactly_one_result(tmp_path: Path) -> None:
    # The visibility timeout is short so the killed worker's match comes back soon, and
    # well past the second worker's ~2 s replay of it, which no third delivery may meet.
    with runner_stack(tmp_path, HEIGHTS_RUNNER_VISIBILITY_TIMEOUT="8") as rs:
        first = rs.worker("runner-1")
        slow = BotRef.from_bytes("py", "slow.py", KILLED_SLOW_BOT)
        spec = _spec(slow, BotRef.builtin("greedy"), options={"round_cap": 4})
        rs.submit(spec)
        deadline = time.monotonic() + 60
        while "match started" not in first.log():
            assert time.monotonic() < deadline, first.log()[-2000:]
            time.sleep(0.05)
        time.sleep(0.5)
        first.stop(signal.SIGKILL)  # the whole worker, pool and bots, mid-match
        assert "match done" not in first.log(), "the match ended before the kill"

        rs.worker("runner-2")
        results = rs.results(1, timeout=90)
        assert len(results) == 1, "the match was not redelivered"
        assert MatchResult.from_dict(results[0]).status == "finished"
        assert rs.results(1, timeout=6) == []  # and recorded exactly once


def test_solo_matches_against_the_mayor(tmp_path: Path) -> None:
    with runner_stack(tmp_path) as rs:
        rs.worker()
        spec = MatchSpec(
            f"m-{uuid.uuid4().hex[:12]}",
            5,
            (SeatSpec("me", BotRef.builtin("greedy"), True),),
            solo=True,
            options=SHORT,
        )
        rs.submit(spec)
        [result] = rs.results(1, timeout=60)
        seats = MatchResult.from_dict(result).seats
        assert len(seats) == 1
        assert seats[0].rank in (1, 2)


def test_an_unreachable_engine_is_retried_then_reported_as_a_failed_match(tmp_path: Path) -> None:
    with runner_stack(tmp_path, HEIGHTS_RUNNER_MAX_RETRIES="1") as rs:
        # The worker is told of an engine where nothing listens.
        rs.worker(HEIGHTS_RUNNER_ENGINE_ADDRESS=f"127.0.0.1:{free_port()}")
        spec = _spec(BotRef.builtin("random"), BotRef.builtin("random"))
        rs.submit(spec)
        [result] = rs.results(1, timeout=90)
        failed = MatchResult.from_dict(result)
        assert failed.status == "failed"
        assert "engine service unavailable" in failed.error
        assert failed.seats == ()  # no bot is blamed for the outage


@pytest.mark.parametrize("broker", ["redis", "file"])
def test_a_runner_fault_at_unpacking_ends_the_match_as_an_infrastructure_failure(
    tmp_path: Path, broker: str
) -> None:
    # The worker's bot cache cannot be made (a file where its folder should be): the
    # OSError of unpacking (or of starting a built-in's sandbox) is the runner's fault.
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("")
    with runner_stack(tmp_path, broker, HEIGHTS_RUNNER_MAX_RETRIES="1") as rs:
        worker = rs.worker(HEIGHTS_RUNNER_CACHE_DIR=str(blocked / "bots"))
        slow = BotRef.from_bytes("py", "slow.py", SLOW_BOT)
        spec = _spec(slow, BotRef.builtin("random"))
        started = time.monotonic()
        rs.submit(spec)
        [result] = rs.results(1, timeout=90)
        resolved_s = time.monotonic() - started
        failed = MatchResult.from_dict(result)
        assert failed.status == "failed", failed
        assert failed.error.startswith("infrastructure failure: NotADirectoryError"), failed.error
        assert failed.seats == ()  # no forfeit: no bot is blamed
        assert worker.log().count("match attempt failed") == 2  # retried once, same seed
        assert resolved_s < match_deadline_seconds(spec)
        print(f"unpacking fault on the {broker} broker: recorded in {resolved_s:.1f} s")
        assert rs.results(1, timeout=3) == []  # one result


def _children(pid: int) -> list[tuple[int, str]]:
    """A process's children: (pid, command name)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                head, tail = (entry / "stat").read_text().rsplit(")", 1)
            except OSError:
                continue
            if int(tail.split()[1]) == pid:
                found.append((int(entry.name), head.split("(", 1)[1]))
    return found


def test_a_threads_pool_worker_plays_two_matches_at_once_in_its_one_process(
    tmp_path: Path,
) -> None:
    slow = BotRef.from_bytes("py", "slow.py", slow_bot(0.03))
    with runner_stack(tmp_path) as rs:
        worker = rs.worker(HEIGHTS_RUNNER_POOL="threads", HEIGHTS_RUNNER_CONCURRENCY="2")
        specs = [_spec(slow, slow, slow) for _ in range(2)]
        for spec in specs:
            rs.submit(spec)
        # The sandboxes are the worker's own children (under a prefork pool they would
        # be its pool processes'), both matches' at some moment.
        most = 0
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and most < 6:
            children = _children(worker.proc.pid)
            most = max(most, sum(1 for _, name in children if name == "bwrap"))
            time.sleep(0.02)
        results = [MatchResult.from_dict(r) for r in rs.results(2, timeout=120)]
    assert sorted(r.match_id for r in results) == sorted(s.match_id for s in specs)
    assert all(r.status == "finished" for r in results), [r.error for r in results]
    assert most == 6, most  # 3 seats a match, 2 matches


def test_a_worker_pool_that_is_not_known_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    from heights_runner.settings import RunnerSettings

    monkeypatch.setenv("HEIGHTS_RUNNER_POOL", "gevent")
    with pytest.raises(ValueError, match="HEIGHTS_RUNNER_POOL must be one of prefork, threads"):
        RunnerSettings.from_env()
