"""Python's cyclic garbage collector in the server: its thresholds, and its pauses.

Every collection stops the event loop, so every call in flight waits for it. A full
collection walks every live object, the cached game states included (65-110 ms with a
few hundred games, measured under `make loadtest`): start-up objects are frozen
(`gc.freeze`) and full collections made 100 times rarer than the interpreter's default.

The first two generations keep the interpreter's defaults (700, 10), after measuring
larger ones (loadtests/README.md, "The collector under load"). grpcio's method look-up
left a small reference cycle behind on every call, so under load generation 0 was
collected every ~100 calls, and each collection walked the game states cloned since
the last one: ~20-25 us of CPU a game call below saturation. A first threshold of 5,000
cut the collector's CPU 15-20 times there, but near and past saturation, where the
calls waiting in line are young objects too, its collections walked them all at once:
pauses of 9-14 ms (generation 0) and up to 29-36 ms of CPU (generation 1) against 3-6
and 6-12 ms, the kind of stall that decides a p99 at the capacity bound; the capacity
did not move measurably. HEIGHTS_ENGINE_GC_THRESHOLDS sets them for a quiet re-run.
The server now looks methods up without the cycle (`method_lookup`), so what sets off
a collection is what the service keeps (new games, the cache filling, calls queueing
past saturation), not how many calls it answered.

`PauseLog` counts each generation's collections and pauses while serving; the server
logs them when it stops.
"""

from __future__ import annotations

import bisect
import gc
import time
from dataclasses import dataclass, field
from typing import Any

# (generation 0, 1, 2): see the module's docstring. HEIGHTS_ENGINE_GC_THRESHOLDS sets them.
GC_THRESHOLDS = (700, 10, 1000)
GENERATIONS = 3
# Upper edges (ms) of the pause histogram's buckets; the last bucket is open.
PAUSE_EDGES_MS = (0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 200.0, 500.0)


def settle_gc(thresholds: tuple[int, int, int] = GC_THRESHOLDS) -> None:
    """Freeze what start-up built and set the thresholds for serving.

    Start-up objects (modules, protobuf descriptors, the rules' catalogue) live as long
    as the process: frozen, no collection walks them again.
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(*thresholds)


@dataclass(slots=True)
class _Generation:
    collections: int = 0
    cpu_ms: float = 0.0
    max_wall_ms: float = 0.0
    wall_buckets: list[int] = field(default_factory=lambda: [0] * (len(PAUSE_EDGES_MS) + 1))

    def quantile_ms(self, q: float) -> float:
        """The upper edge of the bucket holding the q-quantile (the longest for the last)."""
        rank = q * self.collections
        seen = 0
        for edge, count in zip(PAUSE_EDGES_MS, self.wall_buckets, strict=False):
            seen += count
            if seen >= rank:
                return min(edge, self.max_wall_ms)
        return self.max_wall_ms


class PauseLog:
    """How often each generation was collected and how long the loop stood still.

    Bounded: counts, sums and a fixed histogram per generation, whatever the run's length.
    Wall time is the pause the calls in flight saw; CPU time (the collecting thread's)
    is the collector's own cost, which neighbours on a shared core do not inflate.
    """

    def __init__(self) -> None:
        self._generations = [_Generation() for _ in range(GENERATIONS)]
        self._started = (0.0, 0.0)

    def install(self) -> None:
        if self._callback not in gc.callbacks:
            gc.callbacks.append(self._callback)

    def remove(self) -> None:
        if self._callback in gc.callbacks:
            gc.callbacks.remove(self._callback)

    def _callback(self, phase: str, info: dict[str, Any]) -> None:
        # Runs inside the collection: no allocation beyond floats, and no locks.
        if phase == "start":
            self._started = (time.perf_counter(), time.thread_time())
            return
        wall_ms = (time.perf_counter() - self._started[0]) * 1000.0
        cpu_ms = (time.thread_time() - self._started[1]) * 1000.0
        generation = self._generations[info["generation"]]
        generation.collections += 1
        generation.cpu_ms += cpu_ms
        generation.max_wall_ms = max(generation.max_wall_ms, wall_ms)
        generation.wall_buckets[bisect.bisect_left(PAUSE_EDGES_MS, wall_ms)] += 1

    def summary(self) -> dict[str, dict[str, float]]:
        """Per generation (`gen0`...): collections, CPU ms in all, wall p50/p99/max ms."""
        return {
            f"gen{i}": {
                "collections": g.collections,
                "cpu_ms": round(g.cpu_ms, 1),
                "wall_p50_ms": round(g.quantile_ms(0.5), 2),
                "wall_p99_ms": round(g.quantile_ms(0.99), 2),
                "wall_max_ms": round(g.max_wall_ms, 2),
            }
            for i, g in enumerate(self._generations)
        }

    def describe(self) -> str:
        parts = []
        for name, s in self.summary().items():
            parts.append(
                f"{name} {s['collections']:g} collections, {s['cpu_ms']:g} ms CPU, pauses "
                f"p50 <= {s['wall_p50_ms']:g} p99 <= {s['wall_p99_ms']:g} "
                f"max {s['wall_max_ms']:g} ms"
            )
        return "; ".join(parts)
