"""The graded bot population of `heights ladder-sim` and `heights tournament-sim`.

Each kind's true strength is its place in `STRENGTH` (weakest first): random, then
greedy with decreasing noise, greedy, search, mcts. That order holds by construction
and is measured in docs/ranking.md (pairwise win rates with their confidence, kept as
data in `population_order.json` beside this module).

Games are real: the rules core in process, the built-in bots at their seats, played
and kept by a `GamePool` (`game_pool`, re-exported here).
"""

from __future__ import annotations

import hashlib
import json
import math
import statistics
from importlib import resources
from typing import Any

from heights_cli.game_pool import GamePool

STRENGTH: tuple[str, ...] = (
    "random",
    "noisy-greedy-50",
    "noisy-greedy-25",
    "noisy-greedy-10",
    "greedy",
    "search",
    "mcts",
)
# Cheap enough to play thousands of games live in a few minutes on one core.
CHEAP_KINDS: tuple[str, ...] = STRENGTH[:5]

__all__ = [
    "CHEAP_KINDS",
    "STRENGTH",
    "GamePool",
    "game_seed",
    "measure_pair",
    "measured_order",
    "strength",
]


def strength(kind: str) -> int:
    """The kind's true strength level (0 = weakest)."""
    try:
        return STRENGTH.index(kind)
    except ValueError:
        raise ValueError(f"unknown bot kind {kind!r}; kinds: {', '.join(STRENGTH)}") from None


def measured_order() -> dict[str, Any]:
    """The measured pairwise results behind `STRENGTH` (docs/ranking.md)."""
    text = resources.files("heights_cli").joinpath("population_order.json").read_text()
    data: dict[str, Any] = json.loads(text)
    return data


def game_seed(*parts: object) -> int:
    """A game seed from labels (run, table, count): SHA-256, so runs never collide."""
    digest = hashlib.sha256(":".join(map(str, parts)).encode()).digest()
    return int.from_bytes(digest[:8], "little") >> 1


def measure_pair(
    pool: GamePool, weaker: str, stronger: str, *, pairs: int, seed: int
) -> dict[str, Any]:
    """`stronger`'s win share over `pairs` duplicate pairs of two-player games against
    `weaker` (both seatings on one seed), with a 95% interval and the one-sided p-value
    of "not stronger" (normal approximation over the pairs' scores, which are
    independent; the two games of a pair are not)."""
    seeds = [game_seed("order", seed, weaker, stronger, n) for n in range(pairs)]
    pool.prefetch(t for g in seeds for t in (((stronger, weaker), g), ((weaker, stronger), g)))
    scores = []
    for gseed in seeds:
        first = pool.ranks((stronger, weaker), gseed)
        second = pool.ranks((weaker, stronger), gseed)
        scores.append((_points(first, 0) + _points(second, 1)) / 2)
    mean = statistics.fmean(scores)
    spread = statistics.stdev(scores) if pairs > 1 else 0.5
    error = spread / math.sqrt(pairs)
    z = (mean - 0.5) / error if error else math.inf
    return {
        "weaker": weaker,
        "stronger": stronger,
        "games": 2 * pairs,
        "win_share": round(mean, 4),
        "ci95": [round(mean - 1.96 * error, 4), round(mean + 1.96 * error, 4)],
        # The normal tail means little far out: floored at 1e-12.
        "p_not_stronger": float(f"{max(1e-12, 0.5 * math.erfc(z / math.sqrt(2))):.3g}"),
    }


def _points(ranks: tuple[int, ...], seat: int) -> float:
    """1 for a sole win, 1/k for a win shared by k, else 0."""
    if ranks[seat] != 1:
        return 0.0
    return 1.0 / sum(1 for r in ranks if r == 1)
