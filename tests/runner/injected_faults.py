"""Real service processes with one fault injected, for the worker-level fault tests.

Test code only: nothing here is reachable from production entry points.

    python -m tests.runner.injected_faults engine   # the engine service, refusing
    python -m tests.runner.injected_faults worker   # a runner worker, sandbox unstartable

The engine reads HEIGHTS_TEST_ENGINE_FAULT, `REASON:AT:TIMES`: its domain refuses the
AT-th action it is sent (counted over the process's life, one match at a time) and the
TIMES-1 after it with the error the real engine raises for REASON, so the refusal
travels the real gRPC mapping (status, ErrorInfo) to the worker. The worker's sandbox
cannot start a process (fork refused with EAGAIN, as when the runner's own pids limit
is reached): `sandbox.start` turns that into `SandboxUnavailable`, the runner's fault.
"""

from __future__ import annotations

import errno
import os
import sys
from collections.abc import Callable
from typing import Any

from heights_engine.errors import Code, EngineError, stale

FAULT_ENV = "HEIGHTS_TEST_ENGINE_FAULT"

# The engine's own errors for each reason (heights_engine.errors); INTERNAL is a bug in
# the engine: an exception it does not map, which gRPC sends as UNKNOWN with no ErrorInfo.
ENGINE_ERRORS: dict[str, Callable[[], Exception]] = {
    "ILLEGAL_ACTION": lambda: EngineError(
        Code.FAILED_PRECONDITION, "ILLEGAL_ACTION", "injected: that action is not legal now"
    ),
    "STALE_SEQUENCE": lambda: stale(3, 4),
    "INTERNAL": lambda: RuntimeError("injected: a bug in the engine"),
}


def engine_fault(reason: str, at: int, times: int) -> str:
    """The HEIGHTS_TEST_ENGINE_FAULT value for a refusal."""
    if reason not in ENGINE_ERRORS:
        raise ValueError(f"unknown injected reason {reason!r}; known: {sorted(ENGINE_ERRORS)}")
    return f"{reason}:{at}:{times}"


def _refusing_engine() -> int:
    from heights_engine import main
    from heights_engine.games import Games

    reason, at, times = os.environ[FAULT_ENV].split(":")
    make, first, last = ENGINE_ERRORS[reason], int(at), int(at) + int(times)
    real = Games.apply
    calls = [0]

    async def apply(self: Games, *args: Any, **kwargs: Any) -> Any:
        calls[0] += 1
        if first <= calls[0] < last:
            raise make()
        return await real(self, *args, **kwargs)

    Games.apply = apply  # type: ignore[method-assign]
    return main()


def _worker_without_sandbox() -> int:
    from heights_cli.main import main
    from heights_runner.sandbox import start

    def popen(*args: Any, **kwargs: Any) -> Any:
        raise OSError(errno.EAGAIN, os.strerror(errno.EAGAIN))

    # Patched before Celery forks its pool: every pool process inherits it.
    start._popen = popen
    return main(["runner", "worker", "--loglevel", "INFO"])


if __name__ == "__main__":
    role = sys.argv[1:2]
    if role == ["engine"]:
        sys.exit(_refusing_engine())
    if role == ["worker"]:
        sys.exit(_worker_without_sandbox())
    sys.exit("usage: python -m tests.runner.injected_faults engine|worker")
