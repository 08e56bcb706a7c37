"""The graded bot population of `heights ladder-sim` and `heights tournament-sim`.

Each kind's true strength is its place in `STRENGTH` (weakest first): random, then
greedy with decreasing noise, greedy, search, mcts. That order holds by construction
and is measured in docs/ranking.md (pairwise win rates with their confidence, kept as
data in `population_order.json` beside this module).

Games are real: the rules core in process, the built-in bots at their seats. Every
game is a pure function of the kinds at its seats and its game seed (bots take their
seeds from it with `seat_seed`), so results are cached by that key: configurations that
ask for the same table and seed share one game, which both saves time and pairs the
comparison (every configuration sees the same luck).
"""

from __future__ import annotations

import hashlib
import json
import math
import statistics
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from heights_bots import make_bot, play_game, seat_seed
from heights_rules import GameConfig, outcome

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
# The searching bots' budgets in the simulator: the defaults (search 24, mcts 0.6 s).
SEARCH_BUDGET: dict[str, Any] = {"iterations": 24, "mcts_seconds": 0.6}


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


@dataclass(slots=True)
class GamePool:
    """Real games between kinds, played on demand and kept by (seat kinds, seed).

    `played` counts the games actually played (cache misses), `asked` every request.
    """

    players: int = 2
    budget: dict[str, Any] = field(default_factory=lambda: dict(SEARCH_BUDGET))
    played: int = 0
    asked: int = 0
    _ranks: dict[tuple[tuple[str, ...], int], tuple[int, ...]] = field(default_factory=dict)

    def ranks(self, kinds: tuple[str, ...], seed: int) -> tuple[int, ...]:
        """Each seat's rank (1 = best, shared on a tie) in the game of `kinds` on `seed`."""
        if len(kinds) != self.players:
            raise ValueError(f"a table of {self.players} kinds, got {kinds}")
        self.asked += 1
        key = (kinds, seed)
        found = self._ranks.get(key)
        if found is None:
            found = self._ranks[key] = self._play(kinds, seed)
            self.played += 1
        return found

    def _play(self, kinds: tuple[str, ...], seed: int) -> tuple[int, ...]:
        bots = [
            make_bot(kind, seat_seed(seed, seat), **self.budget) for seat, kind in enumerate(kinds)
        ]
        state, _ = play_game(GameConfig(players=self.players), seed, bots)
        return outcome(state).ranks[: self.players]


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
    scores = []
    for n in range(pairs):
        gseed = game_seed("order", seed, weaker, stronger, n)
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
