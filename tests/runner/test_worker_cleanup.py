"""A Celery worker whose pool process dies mid-match leaves no bot running and, once
the pool has replaced it, no bot cgroup behind.

The pool process is sent SIGKILL, as a hard time limit or the OOM killer ends it: it runs
no `finally`. Its bots die with it (their parent-death signal); the pool process the
worker starts in its place removes their cgroups (`tasks._sweep_dead_runners`), while
the worker's main process, which probed the sandbox before forking, is never restarted.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
import uuid
from collections.abc import Callable
from pathlib import Path

from tests.runner.worker_stack import runner_stack, slow_bot

from heights_runner.contract import BotRef, MatchSpec, SeatSpec, TimeLimits
from heights_runner.sandbox import cgroups

ROOMY = TimeLimits(move_ms=10_000, bank_ms=120_000, start_ms=60_000)
SLOW_BOT = slow_bot(0.05)  # a match long enough to be killed mid-way


def _children(pid: int) -> list[int]:
    found = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            with contextlib.suppress(OSError, IndexError):
                if int((proc / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                    found.append(int(proc.name))
    return found


def _identity(pid: int) -> tuple[int, int] | None:
    """(pid, start time) of a live process; None once it has ended (or is a zombie)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return None if fields[0] == "Z" else (pid, int(fields[19]))


def _bot_cgroup_dirs(pids: list[int]) -> set[Path]:
    """The bot cgroup directories the processes `pids` are in, in every hierarchy."""
    names = set()
    for pid in pids:
        with contextlib.suppress(OSError):
            for line in Path(f"/proc/{pid}/cgroup").read_text().splitlines():
                last = line.rsplit("/", 1)[-1]
                if "/heights-sandbox/" in line and last.startswith("bot-"):
                    names.add(last)
    dirs = set()
    for controller in ("memory", "pids", "cpu"):
        parent = cgroups.parent_dir(controller)
        if parent is not None:
            dirs |= {parent / name for name in names if (parent / name).is_dir()}
    return dirs


def _wait(what: str, condition: Callable[[], bool], timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.05)


def test_a_pool_process_killed_mid_match_leaves_no_bot_and_no_cgroup(tmp_path: Path) -> None:
    with runner_stack(tmp_path) as rs:
        worker = rs.worker("runner-cleanup")
        slow = BotRef.from_bytes("py", "slow.py", SLOW_BOT)
        seats = (SeatSpec("seat0", slow, False), SeatSpec("seat1", BotRef.builtin("greedy"), True))
        spec = MatchSpec(f"m-{uuid.uuid4().hex[:12]}", 20261126, seats, limits=ROOMY)
        rs.submit(spec)
        pool = _children(worker.proc.pid)
        # The pool process playing the match: the one whose children are the bots' bwraps.
        playing: list[int] = []

        def bots_running() -> bool:
            playing[:] = [p for p in pool if len(_children(p)) >= 2]
            return bool(playing) and len(_bot_cgroup_dirs(_children(playing[0]))) >= 2

        _wait(f"no match seen running:\n{worker.log()[-2000:]}", bots_running)
        bots = _children(playing[0])
        identities = [i for i in map(_identity, bots) if i is not None]
        assert identities
        dirs = _bot_cgroup_dirs(bots)

        os.kill(playing[0], signal.SIGKILL)  # what a hard time limit sends
        _wait(
            "a bot outlived its pool process",
            lambda: all(_identity(pid) != (pid, start) for pid, start in identities),
            timeout=20,
        )
        # The pool's new process sweeps at its start.
        _wait(
            f"bot cgroups left: {sorted(d for d in dirs if d.exists())}\n{worker.log()[-2000:]}",
            lambda: not any(d.exists() for d in dirs),
        )
