"""A sandbox process's lifetime tied to its runner's: a parent-death signal, set before exec.

A runner killed mid-match (SIGKILL from a Celery hard time limit, the OOM killer, an
operator) runs no `close()`. bubblewrap's `--die-with-parent` asks for the same signal,
but only once bwrap has parsed its arguments: a runner that dies between fork and that
point leaves an outer bwrap running under init, in its bot cgroup. A bot started without
bubblewrap (trusted, or the local escape hatch) has no such option at all.

The kernel sends the signal when the *thread* that forked the child ends, not the
process: a bot must be started and closed by one thread (the match's: `play_match` does
both), as every pool here does.
"""

from __future__ import annotations

import ctypes
import functools
import os
import signal
from collections.abc import Callable

_PR_SET_PDEATHSIG = 1


@functools.cache
def _prctl() -> Callable[..., int]:
    prctl: Callable[..., int] = ctypes.CDLL(None, use_errno=True).prctl
    return prctl


def parent_death_kill() -> Callable[[], None]:
    """A preexec step: SIGKILL this child when its parent ends, and end it at once if the
    parent already has. Prepared before the fork (ctypes loads libc here, not after it).

    Run it after any change of uid: the kernel clears the signal when credentials change.
    """
    prctl = _prctl()
    parent = os.getpid()

    def run() -> None:
        if prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "PR_SET_PDEATHSIG failed")
        if os.getppid() != parent:  # the runner died before the line above: nobody to serve
            raise OSError("the runner ended while the bot was starting")

    return run
