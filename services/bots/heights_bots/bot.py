"""The bot interface and the registry of built-in bots.

A bot is handed a state and the seat it plays, and returns one legal action id. The
state may be the true game or any determinization of the seat's information set
(`heights_rules.observation`), so a bot reads only what the seat may know: the public
state and `state.targets[seat]`. It never reads the draw piles' order, other seats'
Targets, or the seed and generator of the game.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

from heights_rules import SEED_BITS, GameState, KeyedRng

# What a time-budgeted bot's `seconds` are measured on: "wall" is the runner's move
# limit's clock; "cpu" (the thread's CPU time) gives the same search on a busy machine
# as on a quiet one, for measuring strength (`heights selfplay --bot-clock cpu`).
BOT_CLOCKS: dict[str, Callable[[], float]] = {"wall": time.perf_counter, "cpu": time.thread_time}


@runtime_checkable
class Bot(Protocol):
    """Chooses actions for one seat."""

    name: str

    def act(self, state: GameState, seat: int) -> int:
        """A legal action id for `seat`, which must be the player to decide."""
        ...

    def act_with_note(self, state: GameState, seat: int) -> tuple[int, str]:
        """The same action as `act`, with a short note on why (for replays and logs)."""
        ...


def _random(seed: int, **budget: Any) -> Bot:
    from heights_bots.random_bot import RandomBot

    return RandomBot(seed)


def _greedy(seed: int, **budget: Any) -> Bot:
    from heights_bots.greedy import GreedyBot

    return GreedyBot(seed)


def _search(seed: int, **budget: Any) -> Bot:
    from heights_bots.search import SearchBot

    # Only its own knobs: one budget is passed to every seat of a match.
    known = {k: v for k, v in budget.items() if k in ("iterations", "seconds", "horizon", "margin")}
    return SearchBot(seed, **known)


def _mcts(seed: int, **budget: Any) -> Bot:
    from heights_bots.mcts import ITERATIONS, SECONDS, WIDEN, MctsBot

    # `iterations` is the search bot's budget too; mcts reads only its own knobs.
    known = {
        k: v
        for k, v in budget.items()
        if k in ("mcts_seconds", "mcts_iterations", "mcts_widen", "mcts_clock")
    }
    return MctsBot(
        seed,
        seconds=known.get("mcts_seconds", SECONDS),
        iterations=known.get("mcts_iterations", ITERATIONS),
        widen=known.get("mcts_widen", WIDEN),
        clock=_clock(known.get("mcts_clock", "wall")),
    )


def _clock(name: str) -> Callable[[], float]:
    try:
        return BOT_CLOCKS[name]
    except KeyError:
        raise ValueError(f"unknown bot clock {name!r}; clocks: {', '.join(BOT_CLOCKS)}") from None


def _noisy(name: str) -> Callable[..., Bot]:
    def factory(seed: int, **budget: Any) -> Bot:
        from heights_bots.noisy_greedy import NOISY_EPSILONS, NoisyGreedyBot

        return NoisyGreedyBot(seed, NOISY_EPSILONS[name], name)

    return factory


def seat_seed(seed: int, seat: int) -> int:
    """A built-in bot's own seed for one seat of the match with `seed`.

    Distinct per seat, so two seats of one match play differently, and the same on every
    run, so a re-run match replays identically. One-way (a keyed BLAKE2b of the match
    seed, as the rules draw): a bot, or anyone who reads its seed, learns nothing of the
    match seed, from which every roll, draw pile and hidden Target follows.
    """
    digest = KeyedRng(seed % (1 << SEED_BITS)).digest(b"builtin-bot-seed", seat)
    return int.from_bytes(digest[:8], "little")


# Weakest to strongest by construction (measured: docs/ranking.md). The noisy names
# are `heights_bots.noisy_greedy.NOISY_EPSILONS`, spelled here to keep this import light.
_REGISTRY: dict[str, Callable[..., Bot]] = {
    "random": _random,
    "noisy-greedy-50": _noisy("noisy-greedy-50"),
    "noisy-greedy-25": _noisy("noisy-greedy-25"),
    "noisy-greedy-10": _noisy("noisy-greedy-10"),
    "greedy": _greedy,
    "search": _search,
    "mcts": _mcts,
}
BOT_NAMES: tuple[str, ...] = tuple(_REGISTRY)


def make_bot(name: str, seed: int, **budget: Any) -> Bot:
    """A built-in bot by name (one of `BOT_NAMES`).

    `budget` is read by bots that search (`iterations=`, `seconds=` for `SearchBot`;
    `mcts_seconds=`, `mcts_iterations=`, `mcts_widen=`, `mcts_clock=` (a `BOT_CLOCKS`
    name) for `MctsBot`) and ignored by the
    others, so one budget can be passed to every seat of a match.
    """
    try:
        factory = _REGISTRY[name]
    except KeyError:
        raise ValueError(f"unknown bot {name!r}; built-in bots: {', '.join(BOT_NAMES)}") from None
    return factory(seed, **budget)
