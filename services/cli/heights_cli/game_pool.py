"""Real games between kinds of the graded population, played once and kept.

Every game is a pure function of its `GameKey` (bots take their seeds from the game seed
with `seat_seed`), so `GamePool` keeps each result: configurations and repetitions that
ask for the same table and seed share one game, which both saves time and pairs the
comparison (every configuration sees the same luck). With a file (`pool_file`) the
games outlive the run; with `jobs` > 1 the games a caller announces (`prefetch`) are
played in worker processes, each result the one serial play gives.

The timed mcts bot is the exception to "a pure function": on a CPU-time clock its
result does not depend on the machine's load but does on the build's speed, so the
build (compiled or pure Python) is part of its budget.
"""

from __future__ import annotations

import multiprocessing
import time
from collections.abc import Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from heights_bots import make_bot, mcts, play_game, search, seat_seed
from heights_cli.pool_file import (
    Budget,
    GameKey,
    code_version,
    open_for_append,
    read_pool,
    to_line,
)
from heights_rules import DEFAULT_CATALOGUE, GameConfig, outcome

# The searching bots' defaults, mcts on the CPU-time clock so a busy machine does not
# weaken it.
SEARCH_ITERATIONS = search.ITERATIONS
MCTS_SECONDS, MCTS_ITERATIONS = mcts.SECONDS, mcts.ITERATIONS
DEFAULT_BUDGET: dict[str, Any] = {
    "iterations": SEARCH_ITERATIONS,
    "mcts_seconds": MCTS_SECONDS,
    "mcts_iterations": MCTS_ITERATIONS,
    "mcts_clock": "cpu",
}
# The knobs each kind reads: a table's key holds only its own kinds' knobs, so a game
# of cheap kinds is shared by runs whatever their searching kinds' budgets.
KNOBS: dict[str, tuple[str, ...]] = {
    "search": ("iterations",),
    "mcts": ("mcts_seconds", "mcts_iterations", "mcts_clock"),
}
# Slowest first when playing ahead, so the long games do not finish last alone.
_COST = {"mcts": 100, "search": 10}


def table_budget(kinds: Iterable[str], budget: dict[str, Any]) -> Budget:
    """The knobs of `budget` that the kinds at this table read (sorted pairs)."""
    knobs: dict[str, Any] = {}
    for kind in kinds:
        knobs.update({k: budget[k] for k in KNOBS.get(kind, ()) if k in budget})
    if "mcts" in kinds and knobs.get("mcts_seconds") is not None:
        knobs["mcts_build"] = _mcts_build()
    return tuple(sorted(knobs.items()))


def _mcts_build() -> str:
    return "python" if str(mcts.__file__).endswith(".py") else "compiled"


def heaviest(kinds: Iterable[str]) -> str:
    """The dearest kind at a table ("cheap" if no searching kind): what its game costs."""
    return max(kinds, key=lambda kind: _COST.get(kind, 1)) if set(kinds) & set(_COST) else "cheap"


def play_timed(key: GameKey) -> tuple[tuple[int, ...], float]:
    """`play_ranks`, and the CPU seconds the game took (in the process that played it)."""
    start = time.process_time()
    ranks = play_ranks(key)
    return ranks, time.process_time() - start


def play_ranks(key: GameKey) -> tuple[int, ...]:
    """Play the game of `key`: each seat's rank (1 = best, shared on a tie)."""
    knobs = {k: v for k, v in key.budget if k != "mcts_build"}
    bots = [
        make_bot(kind, seat_seed(key.seed, seat), **knobs) for seat, kind in enumerate(key.kinds)
    ]
    config = GameConfig(players=key.players, catalogue_id=key.catalogue)
    state, _ = play_game(config, key.seed, bots)
    return tuple(outcome(state).ranks[: key.players])


@dataclass(slots=True)
class GamePool:
    """Games played on demand, kept by key, optionally in a file and in parallel.

    `played` counts the games this pool played, `loaded` those read from its file,
    `asked` every request; `cpu` the CPU seconds of the games played, by `heaviest`
    kind. Use it as a context manager when it has a file or workers.
    """

    players: int = 2
    budget: dict[str, Any] = field(default_factory=lambda: dict(DEFAULT_BUDGET))
    catalogue: str = DEFAULT_CATALOGUE
    path: Path | None = None
    jobs: int = 1
    played: int = 0
    asked: int = 0
    loaded: int = 0
    cpu: dict[str, list[float]] = field(default_factory=dict)
    _ranks: dict[GameKey, tuple[int, ...]] = field(default_factory=dict)
    _version: str = ""
    _out: TextIO | None = None
    _workers: ProcessPoolExecutor | None = None

    def __post_init__(self) -> None:
        if self.jobs < 1:
            raise ValueError(f"jobs must be at least 1, got {self.jobs}")
        if self.path is not None:
            self._version = code_version()
            self._ranks.update(read_pool(self.path, self._version))
            self.loaded = len(self._ranks)

    def __enter__(self) -> GamePool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._workers is not None:
            self._workers.shutdown(cancel_futures=True)
            self._workers = None
        if self._out is not None:
            self._out.close()
            self._out = None

    def key(self, kinds: tuple[str, ...], seed: int) -> GameKey:
        if len(kinds) != self.players:
            raise ValueError(f"a table of {self.players} kinds, got {kinds}")
        return GameKey(kinds, seed, self.catalogue, table_budget(kinds, self.budget))

    def ranks(self, kinds: tuple[str, ...], seed: int) -> tuple[int, ...]:
        """Each seat's rank (1 = best, shared on a tie) in the game of `kinds` on `seed`."""
        key = self.key(kinds, seed)
        self.asked += 1
        found = self._ranks.get(key)
        if found is None:
            found = self._keep(key, *play_timed(key))
        return found

    def prefetch(self, tables: Iterable[tuple[tuple[str, ...], int]]) -> None:
        """Play the missing games of these (kinds, seed) tables, in `jobs` processes."""
        missing = list(
            dict.fromkeys(k for k in (self.key(*t) for t in tables) if k not in self._ranks)
        )
        if self.jobs == 1 or len(missing) < 2:
            for key in missing:
                self._keep(key, *play_timed(key))
            return
        missing.sort(key=lambda k: -sum(_COST.get(kind, 1) for kind in k.kinds))
        for key, (ranks, cpu) in self._in_parallel(missing):
            self._keep(key, ranks, cpu)

    def _in_parallel(
        self, keys: list[GameKey]
    ) -> Iterator[tuple[GameKey, tuple[tuple[int, ...], float]]]:
        if self._workers is None:
            # spawn, not fork: the parent may hold threads (the progress bar's, a test
            # runner's) that a forked child would inherit half-way.
            context = multiprocessing.get_context("spawn")
            self._workers = ProcessPoolExecutor(self.jobs, mp_context=context)
        pending: dict[Future[tuple[tuple[int, ...], float]], GameKey] = {
            self._workers.submit(play_timed, key): key for key in keys
        }
        while pending:
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                yield pending.pop(future), future.result()

    def cpu_report(self) -> dict[str, dict[str, float]]:
        """Per heaviest kind: games played, their mean and total CPU seconds."""
        return {
            kind: {
                "games": len(times),
                "mean_cpu_s": round(sum(times) / len(times), 3),
                "total_cpu_s": round(sum(times), 1),
            }
            for kind, times in sorted(self.cpu.items())
        }

    def _keep(self, key: GameKey, ranks: tuple[int, ...], cpu: float) -> tuple[int, ...]:
        self._ranks[key] = ranks
        self.played += 1
        self.cpu.setdefault(heaviest(key.kinds), []).append(cpu)
        if self.path is not None:
            if self._out is None:
                self._out = open_for_append(self.path)
            # One write and a flush a game: a killed run loses only games in progress.
            self._out.write(to_line(key, ranks, self._version) + "\n")
            self._out.flush()
        return ranks
