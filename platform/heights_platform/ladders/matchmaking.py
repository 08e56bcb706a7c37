"""From ladder entries to the games to play next: the ladder's side of matchmaking.

The policy is `competition.matchmaking` (pure, tested there): bots with few games or a
high sigma first; the others of a table closest in mu; never two bots of one owner at a
table; each bot seated where it sat least; ties broken by a seeded hash. This module
only turns entries into its candidates (keyed by entry id) and back.
"""

from __future__ import annotations

from collections.abc import Sequence

from heights_platform.competition.matchmaking import Candidate, choose_games
from heights_platform.ladders.models import LadderEntry


def candidate(entry: LadderEntry) -> Candidate[int]:
    last = entry.last_match_at
    return Candidate(
        bot_id=entry.pk,
        owner_id=entry.bot.owner_id,
        mu=entry.mu,
        sigma=entry.sigma,
        games_played=entry.games,
        last_played=int(last.timestamp()) if last is not None else 0,
        seat_counts=tuple(int(c) for c in (entry.seat_counts or [])),
    )


def games_pick(
    *, candidates: Sequence[Candidate[int]], players: int, games: int, seed: int
) -> list[tuple[int, ...]]:
    """Up to `games` tables of `players` entry ids, in seat order; a bot plays once."""
    if games <= 0:
        return []
    return choose_games(candidates, players, seed=seed, limit=games)
