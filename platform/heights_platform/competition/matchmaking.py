"""Ladder matchmaking: which bots play the next game, and in which seats.

The ladder plays continuously, so the question is only ever "who next". Bots the ladder
knows least about (few games, high sigma) go first, so a new bot finds its level fast;
their opponents are the closest in rating, so games are informative; two bots of one
owner never share a table, so an owner cannot feed wins to a favourite; and each bot is
seated where it sat least. Ties are broken by a seeded hash, never `random`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from heights_platform.competition.pairing import assign_seats, check_game_size
from heights_platform.competition.plackett_luce import DEFAULT_SIGMA

P = TypeVar("P", bound=Hashable)

# A bot with no games gets one default sigma of extra priority, fading as 1 / (1 + games):
# sigma alone shrinks slowly after a version reset, and the first few games matter most.
NEW_BOT_WEIGHT = DEFAULT_SIGMA


@dataclass(frozen=True, slots=True)
class Candidate(Generic[P]):
    """A bot that may be scheduled now (the caller leaves out bots already in a game)."""

    bot_id: P
    owner_id: Hashable
    mu: float
    sigma: float
    games_played: int = 0
    last_played: int = 0  # a tick or timestamp; smaller is longer ago
    seat_counts: tuple[int, ...] = field(default=())  # games played in seat 0, 1, ...


def priority(candidate: Candidate[P]) -> float:
    """How urgently a bot needs a game: its uncertainty plus a bonus while it is new."""
    return candidate.sigma + NEW_BOT_WEIGHT / (1 + candidate.games_played)


def choose_game(
    candidates: Sequence[Candidate[P]], game_size: int, *, seed: int
) -> tuple[P, ...] | None:
    """The next game, seated (seat 0 first), or None when no legal table exists.

    The most urgent bot (priority, then longest idle, then a seeded hash) anchors the
    table; each further seat takes the bot of a new owner closest in mu to the table's
    mean. If the anchor cannot fill a table (too few other owners), the next bot tries.
    """
    check_game_size(game_size)
    ordered = _by_urgency(candidates, seed)
    for anchor in ordered:
        table = _fill(anchor, ordered, game_size)
        if table is not None:
            counts = {c.bot_id: c.seat_counts for c in table}
            return assign_seats([c.bot_id for c in table], counts)
    return None


def choose_games(
    candidates: Sequence[Candidate[P]], game_size: int, *, seed: int, limit: int | None = None
) -> list[tuple[P, ...]]:
    """Up to `limit` games (all that fit when None), each bot in at most one."""
    games: list[tuple[P, ...]] = []
    left = list(candidates)
    while limit is None or len(games) < limit:
        game = choose_game(left, game_size, seed=seed)
        if game is None:
            break
        games.append(game)
        left = [c for c in left if c.bot_id not in game]
    return games


def _by_urgency(candidates: Sequence[Candidate[P]], seed: int) -> list[Candidate[P]]:
    def key(c: Candidate[P]) -> tuple[float, int, bytes]:
        tiebreak = hashlib.sha256(f"{seed}:{c.bot_id!r}".encode()).digest()
        return (-priority(c), c.last_played, tiebreak)

    return sorted(candidates, key=key)


def _fill(
    anchor: Candidate[P], ordered: Sequence[Candidate[P]], game_size: int
) -> list[Candidate[P]] | None:
    table = [anchor]
    while len(table) < game_size:
        owners = {c.owner_id for c in table}
        mean = sum(c.mu for c in table) / len(table)
        # min() keeps the most urgent of equally close bots: `ordered` is by urgency.
        pick = min(
            (c for c in ordered if c.owner_id not in owners),
            key=lambda c: abs(c.mu - mean),
            default=None,
        )
        if pick is None:
            return None
        table.append(pick)
    return table
