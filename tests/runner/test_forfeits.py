"""Hostile and broken bots in whole matches: each forfeits with the right reason, the
greedy stand-in finishes its seat, it ranks last, and nothing it started survives."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from heights_rules.replay import Replay, verify
from heights_runner.contract import BotRef, MatchResult, MatchSpec, SeatSpec, TimeLimits
from heights_runner.engines import LocalEngine
from heights_runner.launch import LaunchPolicy
from heights_runner.match import play_match
from heights_runner.sandbox import Limits, probe

pytestmark = pytest.mark.skipif(not probe().bwrap, reason="bubblewrap is not available")

MARKER = "1000.4242"  # a child process's argument, to find survivors in /proc

PLAYS = """
from heights_sdk import Bot, run
import sys, time
class B(Bot):
    seen = []
    def choose(self, d):
{body}
run(B(name="hostile"))
"""

CASES: dict[str, tuple[str, str]] = {
    # name: (body of choose(), expected forfeit reason)
    "garbage": (
        "        print('I think I will build a tower', flush=True); time.sleep(5)",
        "garbage",
    ),
    "not_json_object": ("        print('[1, 2, 3]', flush=True); time.sleep(5)", "garbage"),
    "illegal_id": ("        return 1131", "illegal"),
    "out_of_range_id": ("        return 99999", "illegal"),
    "another_decisions_action": (
        "        ids = [a.id for a in d.legal]\n"
        "        stale = [i for i in B.seen if i not in ids]\n"
        "        B.seen.extend(ids)\n"
        "        return stale[0] if stale else ids[0]",
        "illegal",
    ),
    "sleeps_past_deadline": ("        time.sleep(3); return d.legal[0].id", "timeout"),
    "floods_stdout": ("        sys.stdout.write('x' * (3 * 2**20)); sys.stdout.flush()", "flood"),
    "crashes_mid_game": ("        raise SystemExit(3)", "crash"),
    "allocates_without_end": (
        "        hoard = []\n        while True: hoard.append(bytearray(2**24))",
        "memory",
    ),
}

START_CASES: dict[str, tuple[str, str]] = {
    "crashes_at_start": ("raise RuntimeError('broken on purpose')\n", "crash"),
    "never_ready": ("import time\ntime.sleep(30)\n", "start_timeout"),
    "garbage_instead_of_ready": (
        "print('hello?', flush=True)\nimport time\ntime.sleep(30)\n",
        "garbage",
    ),
}

OUTLIVER = f"""
import os, subprocess, sys
from heights_sdk import Bot, run
# A child in its own session that tries to outlive the bot (its own interpreter: a
# Python bot's sandbox has no other program).
subprocess.Popen(
    [sys.executable, "-c", "import time; time.sleep(600)", "{MARKER}"], start_new_session=True
)
class B(Bot):
    def choose(self, d):
        return d.legal[0].id
run(B(name="outliver"))
"""


# Time limits are generous wherever time is not what a case tests: on a loaded CI machine
# a bot's start-up took past 4 s and its answers past 0.3 s + the 0.5 s bank, and the bot
# forfeited for that instead of the fault under test. Filling 256 MiB took longer still.
ROOMY_MOVE_MS = 10_000
ROOMY_START_MS = 30_000
TIMEOUT_MOVE_MS = 300  # the cases that time out on purpose: 0.3 s + the 0.5 s bank
MOVE_MS = {"sleeps_past_deadline": TIMEOUT_MOVE_MS, "allocates_without_end": 20_000}
START_MS = {"never_ready": 4000}  # it sleeps 30 s before it would be ready


def _match(
    source: str,
    tmp: Path,
    move_ms: int = ROOMY_MOVE_MS,
    game_ms: int = 120_000,
    start_ms: int = ROOMY_START_MS,
) -> MatchResult:
    bot = BotRef.from_bytes("py", "main.py", source.encode())
    spec = MatchSpec(
        f"forfeit-{tmp.name}",
        4242,
        (SeatSpec("hostile", bot), SeatSpec("greedy", BotRef.builtin("greedy"), True)),
        options={"round_cap": 2},
        limits=TimeLimits(move_ms=move_ms, bank_ms=500, start_ms=start_ms, game_ms=game_ms),
    )
    # A smaller memory limit so the allocation case ends quickly.
    policy = LaunchPolicy(tmp / "bots", limits=Limits(memory_bytes=256 * 2**20))
    return play_match(spec, LocalEngine, policy)


def _survivors() -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as f:
                    if MARKER.encode() in f.read():
                        found.append(int(entry))
            except OSError:
                continue
    return found


def _check_forfeit(result: MatchResult, reason: str) -> None:
    hostile, other = result.seats
    assert hostile.forfeit is not None, "the hostile bot did not forfeit"
    assert hostile.forfeit.reason == reason, hostile.forfeit
    assert hostile.rank == 2  # last, whatever the score
    assert other.forfeit is None
    assert other.rank == 1
    replay = Replay.from_bytes(result.replay_bytes())
    assert replay.forfeits == [
        {
            "seat": 0,
            "reason": reason,
            "step": hostile.forfeit.step,
            "detail": hostile.forfeit.detail,
        }
    ]
    assert verify(replay).ok  # the stand-in's moves are part of a valid game
    assert any("stand-in" in note for note in replay.debug.values()) or hostile.forfeit.step == 0


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_misbehaving_bot_forfeits_mid_game(case: str, tmp_path: Path) -> None:
    body, reason = CASES[case]
    result = _match(PLAYS.format(body=body), tmp_path, MOVE_MS.get(case, ROOMY_MOVE_MS))
    assert result.status == "finished"
    _check_forfeit(result, reason)


def test_the_seat_result_carries_the_end_of_the_bots_log(tmp_path: Path) -> None:
    # 100 KiB of log a move: the result keeps the last 64 KiB, and says what it dropped.
    body = "        sys.stderr.write('x' * 102400 + '\\nmove done\\n'); return d.legal[0].id"
    result = _match(PLAYS.format(body=body), tmp_path)
    hostile, builtin = result.seats
    assert hostile.forfeit is None
    first, rest = hostile.log.split("\n", 1)
    assert first.startswith("[")
    assert first.endswith(" earlier bytes dropped]")
    assert len(rest.encode()) == 64 * 2**10
    assert rest.endswith("x\nmove done\n")
    assert "move done" not in builtin.log


def test_a_timeout_detail_names_the_whole_time_the_bot_had(tmp_path: Path) -> None:
    # It used to name the allowance left after the bank was charged: "within 0.3 s".
    body, _ = CASES["sleeps_past_deadline"]
    result = _match(PLAYS.format(body=body), tmp_path, TIMEOUT_MOVE_MS)
    forfeit = result.seats[0].forfeit
    assert forfeit is not None
    assert forfeit.detail == "no answer within 0.8 s (0.3 s move + 0.5 s bank)"


@pytest.mark.parametrize("case", sorted(START_CASES))
def test_a_bot_that_fails_to_start_forfeits_at_step_zero(case: str, tmp_path: Path) -> None:
    source, reason = START_CASES[case]
    result = _match(source, tmp_path, start_ms=START_MS.get(case, ROOMY_START_MS))
    _check_forfeit(result, reason)
    assert result.seats[0].forfeit is not None
    assert result.seats[0].forfeit.step == 0
    assert result.seats[0].moves == 0


def test_a_bot_file_that_fails_validation_forfeits_without_running(tmp_path: Path) -> None:
    result = _match("def broken(:\n", tmp_path)
    _check_forfeit(result, "sandbox")


def test_nothing_a_bot_started_survives_the_match(tmp_path: Path) -> None:
    result = _match(OUTLIVER, tmp_path)
    assert all(seat.forfeit is None for seat in result.seats)
    assert _survivors() == []


def test_a_crash_forfeit_carries_the_bots_last_words(tmp_path: Path) -> None:
    result = _match(START_CASES["crashes_at_start"][0], tmp_path)
    forfeit = result.seats[0].forfeit
    assert forfeit is not None
    assert forfeit.detail.endswith("stderr: RuntimeError: broken on purpose"), forfeit.detail
    assert "exited with status 1" in forfeit.detail


def test_a_mid_game_exit_says_how_it_ended_once(tmp_path: Path) -> None:
    result = _match(PLAYS.format(body="        raise SystemExit(3)"), tmp_path)
    forfeit = result.seats[0].forfeit
    assert forfeit is not None
    assert forfeit.detail.count("exited with status 3") == 1, forfeit.detail


def test_thinking_past_the_whole_game_budget_is_a_timeout(tmp_path: Path) -> None:
    # Each move well within move_ms, but the game's budget (0.5 s) runs out after a few.
    result = _match(
        PLAYS.format(body="        time.sleep(0.15); return d.legal[0].id"), tmp_path, game_ms=500
    )
    _check_forfeit(result, "timeout")
    forfeit = result.seats[0].forfeit
    assert forfeit is not None
    assert "game budget" in forfeit.detail, forfeit.detail
    assert result.seats[0].moves >= 1  # moves it made within the budget count in it
