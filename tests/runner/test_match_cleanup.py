"""The runner raising mid-match ends every seat's bot, even when closing one is cut short.

A Celery soft time limit is an exception raised wherever the runner happens to be,
`play_match`'s own `finally` included. Here the engine raises mid-game and a SIGALRM
(standing for the soft limit) lands while the first seat is being closed: its bot, and
the other seat's, must still be gone, with their cgroups, and the soft limit is what
the caller sees (the task ends the match on it instead of playing it again).
"""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from heights_runner.contract import BotRef, MatchSpec, SeatSpec, TimeLimits
from heights_runner.engines import EngineFaultError, LocalEngine
from heights_runner.launch import LaunchPolicy
from heights_runner.match import play_match
from heights_runner.sandbox import cgroups, probe
from heights_runner.sandbox.cgroups import Owner
from heights_runner.sandbox.process import BotProcess

pytestmark = pytest.mark.skipif(not probe().bwrap, reason="bubblewrap is not usable here")

# Plays, then ignores the end of its input and SIGTERM: only a SIGKILL ends it, so each
# close waits its whole grace (0.2 s) first, and the alarm lands inside it.
STUBBORN_PLAYER = """
import signal, time
from heights_sdk import Bot, run
signal.signal(signal.SIGTERM, signal.SIG_IGN)
class B(Bot):
    def choose(self, d):
        return d.legal[0].id
run(B(name="stubborn"))
time.sleep(3600)
"""
BREAK_AT = 6  # the engine fails on the 6th action


class SoftTimeLimitError(Exception):
    pass


class BreaksMidGame(LocalEngine):
    """The in-process engine, failing mid-game; the alarm goes off during the clean-up."""

    def __init__(self, spec: MatchSpec) -> None:
        super().__init__(spec)
        self.applied = 0

    def apply(self, seat: int, action: int) -> None:
        self.applied += 1
        if self.applied == BREAK_AT:
            raise EngineFaultError("injected: the engine failed mid-game")
        super().apply(seat, action)


def _bwrap_children() -> list[int]:
    found = []
    me = os.getpid()
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            with contextlib.suppress(OSError):
                fields = (proc / "stat").read_text().rsplit(")", 1)[1].split()
                live_child = int(fields[1]) == me and fields[0] != "Z"
                if live_child and (proc / "cmdline").read_bytes().startswith(b"/usr/bin/bwrap"):
                    found.append(int(proc.name))
    return found


def _my_bot_cgroups() -> list[Path]:
    """This process's bot cgroups (their names record their owner)."""
    prefix = Owner.this_process().name().rsplit("-", 1)[0] + "-"
    dirs = []
    for controller in ("memory", "pids", "cpu"):
        parent = cgroups.parent_dir(controller)
        if parent is not None and parent.is_dir():
            dirs += [d for d in parent.iterdir() if d.name.startswith(prefix)]
    return dirs


@pytest.fixture
def soft_time_limit(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """SIGALRM raises, armed as the first bot's close begins: it lands in that close's
    grace wait (0.2 s, the bot ignores the end of its input), whatever the machine's load
    did to the time between the engine's fault and the clean-up."""

    def raise_soft_limit(*_: object) -> None:
        raise SoftTimeLimitError("soft time limit")

    original = BotProcess.close
    armed: list[bool] = []

    def close(self: BotProcess, grace: float = 0.2) -> None:
        if not armed:
            armed.append(True)
            signal.setitimer(signal.ITIMER_REAL, 0.05)
        original(self, grace)

    monkeypatch.setattr(BotProcess, "close", close)
    previous = signal.signal(signal.SIGALRM, raise_soft_limit)
    yield
    signal.setitimer(signal.ITIMER_REAL, 0)
    signal.signal(signal.SIGALRM, previous)


def test_a_soft_limit_during_the_clean_up_still_ends_every_seat(
    tmp_path: Path, soft_time_limit: None
) -> None:
    bot = BotRef.from_bytes("py", "main.py", STUBBORN_PLAYER.encode())
    spec = MatchSpec(
        "cleanup-mid-match",
        4242,
        (SeatSpec("first", bot), SeatSpec("second", bot)),
        options={"round_cap": 2},
        limits=TimeLimits(move_ms=5000, bank_ms=5000, start_ms=30_000),
    )
    assert _bwrap_children() == []
    with pytest.raises((SoftTimeLimitError, EngineFaultError)) as raised:
        play_match(spec, BreaksMidGame, LaunchPolicy(tmp_path / "bots"))
    assert isinstance(raised.value, SoftTimeLimitError), "the alarm missed the clean-up"
    assert _bwrap_children() == []
    assert _my_bot_cgroups() == []


class _Closes:
    def __init__(self, name: str, closed: list[str], fails: bool) -> None:
        self.name, self.closed, self.fails = name, closed, fails

    def close(self) -> None:
        self.closed.append(self.name)
        if self.fails:
            raise RuntimeError(f"{self.name} failed to close")


def test_every_part_is_closed_and_the_first_failure_is_raised() -> None:
    from typing import Any, cast

    from heights_runner.match import _close_all

    closed: list[str] = []
    seats = [_Closes("seat 0", closed, True), _Closes("seat 1", closed, False)]
    engine = _Closes("engine", closed, True)
    with pytest.raises(RuntimeError, match="seat 0 failed"):
        _close_all(cast(Any, seats), cast(Any, engine))
    assert closed == ["seat 0", "seat 1", "engine"]
