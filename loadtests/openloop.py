"""An open-loop load generator: calls sent at a fixed arrival rate, timed from when they
were due.

A closed loop (N users, each waiting for its reply before the next call) slows down with
the server and so never sees the queue it would build: coordinated omission. Here the
i-th call of a step is due at start + i / rate whatever the replies do, and its latency
is measured from that due time, so a late send (the generator behind, or a game of the
game phase still busy) counts against the latency as a real client's wait would. How
late the sends went out is reported apart (`send_lag_p99_ms`), so a step the generator
itself could not keep up with is visible as such.

Each step also reads the CPU time of the servers, Redis and this process from /proc
over its measured window, the machine's steal and the load average.
"""

from __future__ import annotations

import asyncio
import math
import os
import resource
import time
from collections import defaultdict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from heights_cli.cpu_usage import busy_seconds, process_seconds, stolen_seconds

# Calls still unanswered past this many are not sent: the step fails (the server is far
# past its capacity) instead of the generator queueing without bound.
MAX_IN_FLIGHT = 2000
DRAIN_SECONDS = 15.0  # a step waits this long at most for its last replies


class Driver(Protocol):
    """What a step drives: one call per arrival, of whatever kind comes next."""

    def arrive(self, due: float, done: Callable[[str, float, bool], None]) -> bool:
        """Start the next call, due at `due` (loop time); False if none can start now.

        `done(name, due, ok)` is called once the call ends.
        """
        ...

    def abandon(self) -> int:
        """Drop the arrivals still waiting to start (a step that did not drain in time),
        so the next step does not serve this one's backlog first; how many."""
        ...


@dataclass
class Window:
    """What one step saw: latencies from the due time, by RPC, and what it cost."""

    measure_from: float
    measure_until: float
    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    errors: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    lags: list[float] = field(default_factory=list)
    dropped: int = 0

    def record(self, name: str, due: float, ok: bool, now: float) -> None:
        if not self.measure_from <= due < self.measure_until:
            return  # warm-up, or a call due after the window
        if ok:
            self.latencies[name].append((now - due) * 1000.0)
        else:
            self.errors[name] += 1


@dataclass(frozen=True)
class Pids:
    servers: list[int]
    redis: list[int]


def _percentile(ordered: list[float], q: float) -> float:
    """The nearest-rank percentile of a sorted list (0.0 when it is empty)."""
    if not ordered:
        return 0.0
    rank = max(1, math.ceil(q / 100.0 * len(ordered)))
    return ordered[rank - 1]


def _cpu_sample(pids: Pids) -> tuple[float, ...]:
    own = resource.getrusage(resource.RUSAGE_SELF)
    return (
        time.monotonic(),
        process_seconds(pids.servers),
        process_seconds(pids.redis),
        own.ru_utime + own.ru_stime,
        busy_seconds(),
        stolen_seconds(),
    )


async def run_step(
    driver: Driver, rate: float, seconds: float, warmup: float, pids: Pids
) -> dict[str, Any]:
    """Send calls at `rate` a second for `warmup` + `seconds`; statistics of the latter."""
    loop = asyncio.get_running_loop()
    start = loop.time() + 0.01
    window = Window(start + warmup, start + warmup + seconds)
    total = int(rate * (warmup + seconds))
    in_flight = 0
    drained = asyncio.Event()
    drained.set()

    def done(name: str, due: float, ok: bool) -> None:
        nonlocal in_flight
        window.record(name, due, ok, loop.time())
        in_flight -= 1
        if in_flight == 0:
            drained.set()

    before: tuple[float, ...] | None = None
    for i in range(total):
        due = start + i / rate
        if due > loop.time():
            await asyncio.sleep(due - loop.time())
        elif i % 64 == 0:
            await asyncio.sleep(0)  # behind: still take replies in now and then
        if before is None and due >= window.measure_from:
            before = _cpu_sample(pids)
        if due >= window.measure_from:
            window.lags.append((loop.time() - due) * 1000.0)
        if in_flight >= MAX_IN_FLIGHT:
            window.dropped += due >= window.measure_from
            continue
        in_flight += 1
        drained.clear()
        if not driver.arrive(due, done):
            in_flight -= 1
            window.dropped += due >= window.measure_from
    # The window ends when its last call is due: CPU is read then, not after the drain.
    await asyncio.sleep(max(0.0, window.measure_until - loop.time()))
    after = _cpu_sample(pids)
    try:
        await asyncio.wait_for(drained.wait(), DRAIN_SECONDS)
    except TimeoutError:
        window.dropped += in_flight
        driver.abandon()
    return _summary(window, rate, seconds, before or after, after)


def _summary(
    window: Window, rate: float, seconds: float, before: tuple[float, ...], after: tuple[float, ...]
) -> dict[str, Any]:
    wall, server, redis_cpu, own, busy, stolen = (b - a for a, b in zip(before, after, strict=True))
    wall = max(wall, 1e-9)
    rpcs: dict[str, dict[str, Any]] = {}
    calls = 0
    for name in sorted(set(window.latencies) | set(window.errors)):
        ordered = sorted(window.latencies[name])
        calls += len(ordered)
        rpcs[name] = {
            "calls": len(ordered),
            "errors": window.errors[name],
            "rate": round(len(ordered) / seconds, 1),
            "p50_ms": round(_percentile(ordered, 50), 2),
            "p99_ms": round(_percentile(ordered, 99), 2),
            "max_ms": round(ordered[-1], 2) if ordered else 0.0,
        }
    lags = sorted(window.lags)
    return {
        "rate": round(rate, 1),
        "seconds": seconds,
        "calls": calls,
        "dropped": window.dropped,
        "rpcs": rpcs,
        "send_lag_p99_ms": round(_percentile(lags, 99), 2),
        "cpu": {
            "server_cores": round(server / wall, 3),
            "redis_cores": round(redis_cpu / wall, 3),
            "generator_cores": round(own / wall, 3),
            "other_cores": round(max(busy - server - redis_cpu - own, 0.0) / wall, 3),
            "stolen_cores": round(stolen / wall, 3),
            "load_average_1m": round(os.getloadavg()[0], 2),
            # CPU per call, which moves much less with the rest of the machine than rates.
            "server_ms_per_call": round(1000.0 * server / calls, 4) if calls else 0.0,
            "redis_ms_per_call": round(1000.0 * redis_cpu / calls, 4) if calls else 0.0,
        },
    }


def call_when_done(
    call: Awaitable[Any], on_reply: Callable[[Any, BaseException | None], None]
) -> None:
    """Run `call` as a task and hand its reply (or error) to `on_reply`."""

    def finished(task: asyncio.Future[Any]) -> None:
        _running.discard(task)
        if task.cancelled():  # a channel closed under it: an error, never a lost reply
            on_reply(None, asyncio.CancelledError())
            return
        error = task.exception()
        on_reply(None if error else task.result(), error)

    task = asyncio.ensure_future(call)
    _running.add(task)  # the loop holds tasks weakly: keep each until it ends
    task.add_done_callback(finished)


_running: set[asyncio.Future[Any]] = set()
