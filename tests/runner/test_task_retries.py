"""A match the runner could not play (the engine unavailable, or any other fault of ours)
is played again inside its task, with growing waits, and never past its deadline (the
broker would hand it to a second worker); then it fails, blaming no bot."""

from __future__ import annotations

from pathlib import Path

import pytest
from celery.exceptions import SoftTimeLimitExceeded

from heights_runner import tasks
from heights_runner.contract import BotRef, MatchResult, MatchSpec, SeatSpec
from heights_runner.engines import EngineUnavailableError
from heights_runner.ledger import FolderLedger

SPEC = MatchSpec("retry-1", 7, tuple(SeatSpec(f"s{i}", BotRef.builtin("random")) for i in (0, 1)))


class Clock:
    """time.monotonic and time.sleep for the task module: sleeping moves the clock."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.waits: list[float] = []

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.waits.append(seconds)
        self.now += seconds


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Clock:
    fake = Clock()
    monkeypatch.setattr(tasks, "time", fake)
    monkeypatch.setattr(tasks, "_ledger", lambda: FolderLedger(tmp_path))
    return fake


def _engine_down_for(monkeypatch: pytest.MonkeyPatch, failures: int, clock: Clock) -> list[float]:
    """run_spec fails `failures` times (each attempt takes 1 s), then plays; returns the
    clock's times of the attempts."""
    attempts: list[float] = []

    def run_spec(spec: MatchSpec) -> MatchResult:
        attempts.append(clock.now)
        clock.now += 1.0
        if len(attempts) <= failures:
            raise EngineUnavailableError("engine service: connection refused")
        return MatchResult(spec.match_id, "finished", spec.seed, "c")

    monkeypatch.setattr(tasks, "run_spec", run_spec)
    return attempts


def test_the_match_is_played_again_after_growing_waits(
    monkeypatch: pytest.MonkeyPatch, clock: Clock
) -> None:
    attempts = _engine_down_for(monkeypatch, 3, clock)
    result = tasks.run_spec_retrying(SPEC, retries=5, within_s=1800)
    assert result.status == "finished"
    assert clock.waits == [2.0, 4.0, 8.0]
    assert len(attempts) == 4


def test_after_its_retries_the_match_fails_blaming_no_bot(
    monkeypatch: pytest.MonkeyPatch, clock: Clock
) -> None:
    _engine_down_for(monkeypatch, 99, clock)
    result = tasks.run_spec_retrying(SPEC, retries=7, within_s=1800)
    assert (result.status, result.error) == (
        "failed",
        "infrastructure failure: engine service unavailable",
    )
    assert result.seats == ()
    assert clock.waits == [2.0, 4.0, 8.0, 16.0, 32.0, 60.0, 60.0]  # capped at a minute


def test_no_attempt_starts_after_the_deadline(
    monkeypatch: pytest.MonkeyPatch, clock: Clock
) -> None:
    start = clock.now
    attempts = _engine_down_for(monkeypatch, 99, clock)
    result = tasks.run_spec_retrying(SPEC, retries=50, within_s=100)
    assert result.status == "failed"
    assert clock.waits == [2.0, 4.0, 8.0, 16.0, 32.0]  # the next, 60 s, would pass 100 s
    assert max(attempts) - start <= 100


def test_any_runner_fault_is_retried_then_named_in_the_failure(
    monkeypatch: pytest.MonkeyPatch, clock: Clock, tmp_path: Path
) -> None:
    calls: list[float] = []

    def run_spec(spec: MatchSpec) -> MatchResult:
        calls.append(clock.now)
        raise OSError(36, "File name too long")

    monkeypatch.setattr(tasks, "run_spec", run_spec)
    result = tasks.run_spec_retrying(SPEC, retries=2, within_s=120)
    assert len(calls) == 3
    assert result.status == "failed"
    assert result.error == "infrastructure failure: OSError: [Errno 36] File name too long"
    assert result.seats == ()
    # Stored like any result: a redelivered task re-sends this failure, it plays nothing.
    assert FolderLedger(tmp_path).get(SPEC.match_id) == result


def test_a_game_past_its_decision_cap_is_a_runner_fault(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Every seat's time is bounded, so a game that outlasts `max_decisions` is the
    engine's or the runner's doing: played again, then failed, with no forfeit."""
    from dataclasses import replace

    from heights_runner.contract import TimeLimits
    from heights_runner.engines import LocalEngine
    from heights_runner.launch import LaunchPolicy
    from heights_runner.match import MatchOverrunError, play_match

    capped = replace(SPEC, match_id="overrun-1", limits=TimeLimits(max_decisions=20))
    policy = LaunchPolicy((tmp_path / "bots").resolve())
    with pytest.raises(MatchOverrunError, match="over 20 decisions"):
        play_match(capped, LocalEngine, policy)

    monkeypatch.setattr(tasks, "_ledger", lambda: FolderLedger(tmp_path / "ledger"))
    monkeypatch.setattr(tasks, "_engine_factory", lambda: LocalEngine)
    monkeypatch.setattr(tasks, "RETRY_FIRST_S", 0.0)
    result = tasks.run_spec_retrying(capped, retries=1, within_s=60.0)
    assert result.status == "failed"
    assert "over 20 decisions" in result.error
    assert result.seats == ()


def test_a_soft_time_limit_ends_the_match_without_another_attempt(
    monkeypatch: pytest.MonkeyPatch, clock: Clock
) -> None:
    """A Celery soft time limit is followed by the hard one (SIGKILL): an attempt begun
    after it would be killed mid-match, so the match fails there, blaming no bot."""
    attempts: list[float] = []

    def run_spec(spec: MatchSpec) -> MatchResult:
        attempts.append(clock.now)
        raise SoftTimeLimitExceeded()

    monkeypatch.setattr(tasks, "run_spec", run_spec)
    result = tasks.run_spec_retrying(SPEC, retries=5, within_s=1800)
    assert (result.status, result.error) == (
        "failed",
        "infrastructure failure: the task's soft time limit",
    )
    assert len(attempts) == 1
    assert clock.waits == []


def test_a_soft_time_limit_in_the_wait_between_attempts_ends_the_match(
    monkeypatch: pytest.MonkeyPatch, clock: Clock
) -> None:
    """With the engine down, nearly all of the retry window is waits: a soft limit lands
    there most often, outside any attempt, and must still end the match as a result."""
    attempts = _engine_down_for(monkeypatch, 5, clock)

    def sleep(seconds: float) -> None:
        raise SoftTimeLimitExceeded()

    monkeypatch.setattr(clock, "sleep", sleep)
    result = tasks.run_spec_retrying(SPEC, retries=5, within_s=1800)
    assert (result.status, result.error) == (
        "failed",
        "infrastructure failure: the task's soft time limit",
    )
    assert len(attempts) == 1


def _wrapped_soft_limit() -> None:
    """A soft limit that another error replaced on its way out: a close that raised
    while the match was being closed, or the in-process engine's fault wrapping it."""
    try:
        raise SoftTimeLimitExceeded()
    except SoftTimeLimitExceeded:
        raise RuntimeError("a seat's close failed") from None


def test_a_soft_time_limit_behind_another_error_is_not_played_again(
    monkeypatch: pytest.MonkeyPatch, clock: Clock
) -> None:
    attempts: list[float] = []

    def run_spec(spec: MatchSpec) -> MatchResult:
        attempts.append(clock.now)
        _wrapped_soft_limit()
        raise AssertionError("unreachable")

    monkeypatch.setattr(tasks, "run_spec", run_spec)
    result = tasks.run_spec_retrying(SPEC, retries=5, within_s=1800)
    assert result.error == "infrastructure failure: the task's soft time limit"
    assert len(attempts) == 1
    assert clock.waits == []
