"""Ratings, pairings, matchmaking and standings: pure Python, no Django.

The platform's apps (ladders, tournaments, matches) turn database rows into the plain
values these functions take (ids, ranks, counts) and store what they return; keeping
this package free of Django keeps it fast to test and usable from Celery tasks alike.
"""

from heights_platform.competition.elo import (
    DEFAULT_K,
    INITIAL_RATING,
    EloUpdate,
    actual_score,
    apply_in_order,
    elo_deltas,
    elo_update,
    expected_score,
)
from heights_platform.competition.matchmaking import Candidate, choose_game, choose_games, priority
from heights_platform.competition.pairing import (
    EliminationRound,
    Round,
    assign_seats,
    balance_seats,
    bracket_positions,
    elimination_bracket,
    elimination_winner,
    keyed_order,
    next_elimination_round,
    pair_counts,
    rotations,
    round_robin,
    swiss_round,
)
from heights_platform.competition.plackett_luce import (
    DEFAULT_MU,
    DEFAULT_SIGMA,
    Rating,
    conservative,
    fresh_uncertainty,
    pl_update,
)
from heights_platform.competition.standings import (
    GameRecord,
    Standing,
    compute_standings,
    game_points,
)

__all__ = [
    "DEFAULT_K",
    "DEFAULT_MU",
    "DEFAULT_SIGMA",
    "INITIAL_RATING",
    "Candidate",
    "EliminationRound",
    "EloUpdate",
    "GameRecord",
    "Rating",
    "Round",
    "Standing",
    "actual_score",
    "apply_in_order",
    "assign_seats",
    "balance_seats",
    "bracket_positions",
    "choose_game",
    "choose_games",
    "compute_standings",
    "conservative",
    "elimination_bracket",
    "elimination_winner",
    "elo_deltas",
    "elo_update",
    "expected_score",
    "fresh_uncertainty",
    "game_points",
    "keyed_order",
    "next_elimination_round",
    "pair_counts",
    "pl_update",
    "priority",
    "rotations",
    "round_robin",
    "swiss_round",
]
