"""Plackett-Luce skill ratings: a typed wrapper around openskill's model.

Elo answers "who is ahead"; Plackett-Luce also carries an uncertainty (sigma) per bot,
which the ladder uses twice: to rank by a conservative estimate, and to give new or
changed bots more games (matchmaking prefers high sigma). Only this module imports
openskill, so a model change or library upgrade touches one place.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from typing import TypeVar

from openskill.models import PlackettLuce

P = TypeVar("P", bound=Hashable)

DEFAULT_MU = 25.0
DEFAULT_SIGMA = DEFAULT_MU / 3.0
# mu - 3 sigma: with ~99.7% confidence the bot is at least this good, so a bot with few
# games cannot top the ladder by one lucky win; it climbs as its sigma shrinks.
CONSERVATIVE_SIGMAS = 3.0

# openskill's defaults (beta = sigma / 2, tau = mu / 300 added to sigma before each game so
# it never collapses to zero). One shared, stateless model: `rate` keeps no history.
_MODEL = PlackettLuce(mu=DEFAULT_MU, sigma=DEFAULT_SIGMA)


@dataclass(frozen=True, slots=True)
class Rating:
    """A skill estimate: mean `mu` and standard deviation `sigma`."""

    mu: float = DEFAULT_MU
    sigma: float = DEFAULT_SIGMA

    def __post_init__(self) -> None:
        if not self.sigma > 0:
            raise ValueError(f"sigma must be positive, got {self.sigma}")


def conservative(rating: Rating) -> float:
    """The ladder's sort key: mu - 3 sigma (starts at 0 for a new bot)."""
    return rating.mu - CONSERVATIVE_SIGMAS * rating.sigma


def fresh_uncertainty(rating: Rating) -> Rating:
    """The rating for a new version of a bot: the same mu, sigma back to the default.

    A new version is probably close to its predecessor (keep mu, so it is matched
    sensibly from its first game) but may be much better or worse (reset sigma, so it
    moves fast and matchmaking gives it games until the ladder is sure again).
    """
    return Rating(mu=rating.mu, sigma=DEFAULT_SIGMA)


def pl_update(ratings: Mapping[P, Rating], ranks: Mapping[P, int]) -> dict[P, Rating]:
    """New ratings after one game: `ranks` names the players (1 = best, ties share a rank).

    A player missing from `ratings` is new and starts at the default. Each bot is a team
    of one. The result is deterministic; the order of `ranks` changes it by float rounding at most.
    """
    if len(ranks) < 2:
        raise ValueError(f"a game needs at least two players, got {len(ranks)}")
    if any(r < 1 for r in ranks.values()):
        raise ValueError(f"ranks start at 1, got {sorted(ranks.values())}")
    ids = list(ranks)
    teams = [
        [_MODEL.rating(mu=r.mu, sigma=r.sigma)] for r in (ratings.get(p, Rating()) for p in ids)
    ]
    rated = _MODEL.rate(teams, ranks=[float(ranks[p]) for p in ids])
    return {
        p: Rating(mu=team[0].mu, sigma=team[0].sigma) for p, team in zip(ids, rated, strict=True)
    }
