"""Faults land on the right party: the engine's refusals mid-game, sorted by the ErrorInfo
reason it sends (a real engine service over gRPC, its domain made to refuse one action),
and the in-process engine sorting the rules core's errors the same way."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from redis.exceptions import ConnectionError as RedisConnectionError
from tests.engine.clients import OPERATOR_TOKEN
from tests.engine.conftest import InProcessServer

from heights_engine.errors import Code, EngineError, stale
from heights_engine.games import Games
from heights_engine.settings import Settings
from heights_runner import tasks
from heights_runner.contract import BotRef, MatchResult, MatchSpec, SeatSpec
from heights_runner.engines import (
    EngineFaultError,
    EngineRefusedError,
    EngineUnavailableError,
    LocalEngine,
)
from heights_runner.grpc_engine import GrpcEngine, channel
from heights_runner.launch import LaunchPolicy
from heights_runner.ledger import FolderLedger
from heights_runner.match import play_match

FAULT_AT = 4  # the engine refuses the 4th action of the game, once

# What the engine answers -> who is blamed: the bot (a forfeit) or no one (a runner fault).
BOT_FAULTS: dict[str, Callable[[], Exception]] = {
    "ILLEGAL_ACTION": lambda: EngineError(Code.FAILED_PRECONDITION, "ILLEGAL_ACTION", "no"),
    "INVALID_ACTION": lambda: EngineError(Code.INVALID_ARGUMENT, "INVALID_ACTION", "no"),
    "NOT_YOUR_TURN": lambda: EngineError(Code.FAILED_PRECONDITION, "NOT_YOUR_TURN", "no"),
}
RUNNER_FAULTS: dict[str, Callable[[], Exception]] = {
    "STALE_SEQUENCE": lambda: stale(3, 4),
    "GAME_NOT_FOUND": lambda: EngineError(Code.NOT_FOUND, "GAME_NOT_FOUND", "no game"),
    "GAME_OVER": lambda: EngineError(Code.FAILED_PRECONDITION, "GAME_OVER", "over"),
    "BAD_VIEW_BASES": lambda: EngineError(Code.INVALID_ARGUMENT, "BAD_VIEW_BASES", "bad"),
    "BAD_SEAT_TOKEN": lambda: EngineError(Code.PERMISSION_DENIED, "BAD_SEAT_TOKEN", "bad"),
    "INTERNAL": lambda: RuntimeError("a bug in the engine"),  # UNKNOWN, no ErrorInfo
}


@pytest.fixture
def engine_refusing(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., str]]:
    """A real engine service whose domain raises `make()` on the FAULT_AT-th action
    (`times` times in a row); yields a function starting it, returning its address."""
    servers: list[InProcessServer] = []

    def start(make: Callable[[], Exception], times: int = 1) -> str:
        real = Games.apply
        calls = [0]

        async def apply(self: Games, *args: Any, **kwargs: Any) -> Any:
            calls[0] += 1
            if FAULT_AT <= calls[0] < FAULT_AT + times:
                raise make()
            return await real(self, *args, **kwargs)

        monkeypatch.setattr(Games, "apply", apply)
        servers.append(
            InProcessServer(Settings(address="127.0.0.1:0", operator_token=OPERATOR_TOKEN))
        )
        return servers[-1].address

    yield start
    for server in servers:
        server.stop()


def _spec(match_id: str) -> MatchSpec:
    seats = tuple(SeatSpec(f"s{i}", BotRef.builtin("random"), True) for i in range(2))
    return MatchSpec(match_id, 20261124, seats, options={"round_cap": 2})


def _play(address: str, tmp_path: Path) -> MatchResult:
    chan = channel(address)
    return play_match(
        _spec("faults"),
        lambda spec: GrpcEngine(spec, chan, OPERATOR_TOKEN),
        LaunchPolicy(tmp_path / "bots"),
    )


@pytest.mark.parametrize("reason", sorted(BOT_FAULTS))
def test_an_action_refused_as_the_bots_is_its_forfeit(
    reason: str, engine_refusing: Callable[..., str], tmp_path: Path
) -> None:
    result = _play(engine_refusing(BOT_FAULTS[reason]), tmp_path)
    assert result.status == "finished"
    forfeits = [s.forfeit for s in result.seats if s.forfeit is not None]
    assert len(forfeits) == 1, result.seats
    assert forfeits[0].reason == "illegal"
    assert reason in forfeits[0].detail
    assert forfeits[0].step >= FAULT_AT - 1


@pytest.mark.parametrize("reason", sorted(RUNNER_FAULTS))
def test_any_other_refusal_is_a_runner_fault_no_bot_forfeits(
    reason: str,
    engine_refusing: Callable[..., str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    address = engine_refusing(RUNNER_FAULTS[reason], times=2)
    with pytest.raises(EngineFaultError):
        _play(address, tmp_path)
    # Through the task's retries: the first attempt meets the fault again, the second
    # plays the same seed to the end, blaming no one.
    chan = channel(address)
    monkeypatch.setattr(
        tasks, "_engine_factory", lambda: lambda s: GrpcEngine(s, chan, OPERATOR_TOKEN)
    )
    monkeypatch.setattr(tasks, "_ledger", lambda: FolderLedger(tmp_path / "ledger"))
    monkeypatch.setattr(tasks, "RETRY_FIRST_S", 0.0)
    result = tasks.run_spec_retrying(_spec(f"retried-{reason.lower()}"), 2, 60)
    assert result.status == "finished"
    assert all(s.forfeit is None for s in result.seats), result.seats


def test_a_runner_fault_that_persists_ends_as_an_infrastructure_failure(
    engine_refusing: Callable[..., str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    address = engine_refusing(RUNNER_FAULTS["GAME_NOT_FOUND"], times=99)
    chan = channel(address)
    monkeypatch.setattr(
        tasks, "_engine_factory", lambda: lambda s: GrpcEngine(s, chan, OPERATOR_TOKEN)
    )
    monkeypatch.setattr(tasks, "_ledger", lambda: FolderLedger(tmp_path / "ledger"))
    monkeypatch.setattr(tasks, "RETRY_FIRST_S", 0.0)
    result = tasks.run_spec_retrying(_spec("lost-game"), 1, 60)
    assert result.status == "failed"
    assert result.error.startswith("infrastructure failure: EngineFaultError: engine")
    assert "GAME_NOT_FOUND" in result.error
    assert result.seats == ()


def test_a_store_outage_is_the_engine_unavailable(
    engine_refusing: Callable[..., str], tmp_path: Path
) -> None:
    address = engine_refusing(lambda: RedisConnectionError("store down"), times=99)
    with pytest.raises(EngineUnavailableError):
        _play(address, tmp_path)


def test_the_in_process_engine_sorts_the_rules_errors_the_same_way(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    engine = LocalEngine(_spec("local"))
    seat = engine.to_move()
    with pytest.raises(EngineRefusedError, match="not legal"):
        engine.apply(seat, 1131)
    with pytest.raises(EngineRefusedError):
        engine.apply(seat, 99_999)  # no such action: InvalidActionError
    with pytest.raises(EngineRefusedError, match="not seat"):
        engine.apply(1 - seat, engine.turn().observation()["legal"][0]["id"])

    def broken(self: object, action: int, note: str = "") -> None:
        raise KeyError("a bug in the rules core")

    monkeypatch.setattr("heights_rules.replay.Recorder.apply", broken)
    with pytest.raises(EngineFaultError, match="rules core failed"):
        engine.apply(seat, engine.turn().observation()["legal"][0]["id"])


@pytest.fixture
def engine_losing_a_reply(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[bool], str]]:
    """A real engine service that plays one action and then fails the call as a store
    outage (UNAVAILABLE), as if the reply were lost: the game moved, the runner cannot
    know. `last` picks the action that ends the game, else the FAULT_AT-th."""
    servers: list[InProcessServer] = []

    def start(last: bool) -> str:
        real = Games.apply
        calls, lost = [0], [False]

        async def apply(self: Games, *args: Any, **kwargs: Any) -> Any:
            calls[0] += 1
            applied = await real(self, *args, **kwargs)
            over = applied.live.state.is_terminal()
            if not lost[0] and (over if last else calls[0] == FAULT_AT):
                lost[0] = True
                raise RedisConnectionError("the reply was lost")
            return applied

        monkeypatch.setattr(Games, "apply", apply)
        servers.append(
            InProcessServer(Settings(address="127.0.0.1:0", operator_token=OPERATOR_TOKEN))
        )
        return servers[-1].address

    yield start
    for server in servers:
        server.stop()


@pytest.mark.parametrize("last", [False, True], ids=["mid-game", "the-games-last-action"])
def test_an_action_that_landed_though_its_reply_was_lost_is_not_played_again(
    last: bool, engine_losing_a_reply: Callable[[bool], str], tmp_path: Path
) -> None:
    # The retry is refused (STALE_SEQUENCE mid-game; GAME_OVER when the action ended the
    # game, which was a runner fault: the whole match played again) and the runner
    # catches up from the game as it is.
    result = _play(engine_losing_a_reply(last), tmp_path)
    expected = play_match(_spec("faults"), LocalEngine, LaunchPolicy(tmp_path / "local"))
    assert result.status == "finished"
    assert all(s.forfeit is None for s in result.seats), result.seats
    assert [s.score for s in result.seats] == [s.score for s in expected.seats]
