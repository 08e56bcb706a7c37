"""When a ladder rating is settled: before that, leaderboards mark the entry provisional.

Elo carries no uncertainty of its own, so the mark is by games played: `heights
ladder-sim` (docs/ranking.md) measures how many games per bot the ladder needs before
its order stays at a rank correlation of 0.9 with the true order, and a bot with fewer
games than that is provisional. Plackett-Luce's sigma is the uncertainty of mu; the
interval mu +- 2 sigma holds the skill with about 95% probability.
"""

from __future__ import annotations

# From the ladder simulator's best configuration (docs/ranking.md): games per bot until
# the order stays at tau >= 0.9, rounded up.
PROVISIONAL_GAMES = 12
INTERVAL_SIGMAS = 2.0


def is_provisional(games: int) -> bool:
    """True while a bot has played too few rated games for its place to mean much."""
    return games < PROVISIONAL_GAMES


def uncertainty(sigma: float) -> float:
    """The half-width of the ~95% interval of mu: mu +- this."""
    return INTERVAL_SIGMAS * sigma
