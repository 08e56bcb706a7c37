"""Elo for games of two to four players, by pairwise decomposition.

A game of N players is read as the N * (N - 1) / 2 two-player games it contains: each
pair scores 1 / 0.5 / 0 by rank, against the classic logistic expectation. Each player's
K is divided by N - 1 so one multiplayer game moves a rating about as far as one duel,
whatever the table size. Every delta comes from the pre-game ratings, so the update is
simultaneous, zero-sum and independent of the order the players are listed in.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass
from typing import Generic, TypeVar

P = TypeVar("P", bound=Hashable)

DEFAULT_K = 32.0
INITIAL_RATING = 1500.0
SCALE = 400.0  # a 400-point gap means 10:1 odds, as in chess


@dataclass(frozen=True, slots=True)
class EloUpdate(Generic[P]):
    """One game's effect on the ratings; the tuples are aligned with `player_ids`."""

    player_ids: tuple[P, ...]
    before: tuple[float, ...]
    after: tuple[float, ...]
    delta: tuple[float, ...]

    def ratings_after(self) -> dict[P, float]:
        return dict(zip(self.player_ids, self.after, strict=True))


def expected_score(rating: float, opponent: float) -> float:
    """The chance that `rating` beats `opponent` (a draw counting half)."""
    return 1.0 / (1.0 + math.pow(10.0, (opponent - rating) / SCALE))


def actual_score(rank: int, opponent_rank: int) -> float:
    """1 for the better rank (1 = best), 0.5 for a shared rank, 0 for the worse."""
    if rank == opponent_rank:
        return 0.5
    return 1.0 if rank < opponent_rank else 0.0


def elo_deltas(
    ratings: Mapping[P, float],
    ranks: Mapping[P, int],
    *,
    k: float = DEFAULT_K,
    initial: float = INITIAL_RATING,
) -> dict[P, float]:
    """Each player's rating change for one game (exact floats; round only for display).

    `ranks` names the players (1 = best, ties share a rank); a player missing from
    `ratings` is new and starts at `initial`.
    """
    _check_ranks(ranks)
    before = {p: ratings.get(p, initial) for p in ranks}
    weight = k / (len(ranks) - 1)
    deltas = dict.fromkeys(ranks, 0.0)
    for a, b in itertools.combinations(ranks, 2):
        # One pair term, applied with opposite signs, keeps the sum exactly balanced.
        term = weight * (actual_score(ranks[a], ranks[b]) - expected_score(before[a], before[b]))
        deltas[a] += term
        deltas[b] -= term
    return deltas


def elo_update(
    ratings: Mapping[P, float],
    ranks: Mapping[P, int],
    *,
    k: float = DEFAULT_K,
    initial: float = INITIAL_RATING,
) -> EloUpdate[P]:
    """One game's update for the players in `ranks`, in the order `ranks` lists them."""
    deltas = elo_deltas(ratings, ranks, k=k, initial=initial)
    ids = tuple(ranks)
    before = tuple(ratings.get(p, initial) for p in ids)
    return EloUpdate(
        player_ids=ids,
        before=before,
        after=tuple(b + deltas[p] for p, b in zip(ids, before, strict=True)),
        delta=tuple(deltas[p] for p in ids),
    )


def apply_in_order(
    results: Iterable[Mapping[P, int]],
    ratings: Mapping[P, float] | None = None,
    *,
    k: float = DEFAULT_K,
    initial: float = INITIAL_RATING,
) -> tuple[dict[P, float], list[EloUpdate[P]]]:
    """Apply game results one after another, in match order.

    Elo is path dependent: the same games in another order give other ratings, so the
    caller must pass results in the order the matches finished (e.g. by finish tick, then
    match id) and recompute from scratch with the same order.
    """
    current: dict[P, float] = dict(ratings or {})
    updates: list[EloUpdate[P]] = []
    for ranks in results:
        update = elo_update(current, ranks, k=k, initial=initial)
        current.update(update.ratings_after())
        updates.append(update)
    return current, updates


def _check_ranks(ranks: Mapping[P, int]) -> None:
    if len(ranks) < 2:
        raise ValueError(f"a game needs at least two players, got {len(ranks)}")
    bad = [r for r in ranks.values() if r < 1]
    if bad:
        raise ValueError(f"ranks start at 1, got {bad}")
