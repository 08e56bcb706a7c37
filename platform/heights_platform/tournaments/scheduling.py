"""The seam between tournament services and the pure scheduling logic.

Pairings, seat order and standings are `heights_platform.competition`'s (`pairing`,
`standings`); this module turns database facts (entry ids in seed order, played tables,
results) into its inputs and derives match seeds. Entries are `TournamentEntry.pk`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from heights_platform.competition import pairing
from heights_platform.competition.standings import (
    GameRecord,
    Standing,
    compute_standings,
    game_points,
)
from heights_platform.matches.seeds import SEED_BITS  # the platform's seed width

Table = tuple[int, ...]  # entry ids in seat order: seat 0 first
StandingRow = Standing[int]


@dataclass(frozen=True, slots=True)
class RoundPlan:
    """One round: the tables to play (seated) and the entries that sit out (byes)."""

    tables: list[Table]
    byes: list[int] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class GameResult:
    """One finished or failed match, by entry: ranks 1 = best, shared on ties."""

    round: int
    ranks: dict[int, int]
    scores: dict[int, int]
    failed: bool = False

    def record(self) -> GameRecord[int]:
        """The game for the standings: a failed match is a draw, everyone sharing first."""
        if self.failed:
            return GameRecord(ranks=dict.fromkeys(self.ranks, 1))
        return GameRecord(ranks=self.ranks, scores={e: float(s) for e, s in self.scores.items()})


def match_seed(*, tournament_seed: int, round_number: int, table: int) -> int:
    """The seed of one table of one round: the same for every duplicate of that table."""
    digest = hashlib.sha256(f"{tournament_seed}:{round_number}:{table}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> (64 - SEED_BITS)


def seeding_order(*, tournament_seed: int, entry_ids: Sequence[int]) -> list[int]:
    """Entries in seed order (top seed first): a deterministic shuffle by the seed."""
    return pairing.keyed_order(entry_ids, seed=tournament_seed, salt="seeding")


def round_robin_schedule(*, entry_ids: Sequence[int], players: int) -> list[RoundPlan]:
    """Every round at once; every pair meets, seats balanced over the schedule."""
    return [
        RoundPlan(tables=list(r.tables), byes=list(r.byes))
        for r in pairing.round_robin(list(entry_ids), players)
    ]


def swiss_round(
    *,
    ranked: Sequence[int],
    players: int,
    history: Sequence[Table],
    had_bye: set[int],
    seat_counts: Mapping[int, Sequence[int]],
) -> RoundPlan:
    """The next Swiss round by the standings, seated where each entry sat least so far."""
    found = pairing.swiss_round(list(ranked), players, history=history, had_bye=had_bye)
    tables, _ = pairing.balance_seats(found.tables, seat_counts)
    return RoundPlan(tables=tables, byes=list(found.byes))


def elimination_round(
    *, seeds: Sequence[int], players: int, survivors_after: Sequence[set[int]]
) -> RoundPlan:
    """The next knockout round, rebuilt from the bracket of `seeds` (best first).

    `survivors_after[i]` are the entries still in after round i + 1; the round returned
    is round `len(survivors_after) + 1`. Byes go to the top seeds (round 1 only).
    """
    bracket = pairing.elimination_bracket(list(seeds), players)
    for survivors in survivors_after:
        bracket = pairing.next_elimination_round(bracket, survivors)
    return RoundPlan(tables=list(bracket.tables), byes=list(bracket.byes))


def elimination_rounds(*, entries: int, players: int) -> int:
    """Rounds to a champion: the bracket is the next power of `players`."""
    rounds, size = 0, 1
    while size < entries:
        size *= players
        rounds += 1
    return rounds


def table_winner(*, games: Sequence[GameResult], seed_order: Sequence[int]) -> int:
    """Who advances from one table (all its duplicate matches): most points over them,
    then the higher total score, then the better seed."""
    points: dict[int, Fraction] = {}
    score: dict[int, int] = {}
    for game in games:
        for entry, got in game_points(game.record().ranks).items():
            points[entry] = points.get(entry, Fraction(0)) + got
            score[entry] = score.get(entry, 0) + (0 if game.failed else game.scores.get(entry, 0))
    ranks = {
        e: 1 + sum(1 for o in points if (points[o], score[o]) > (points[e], score[e]))
        for e in points
    }
    return pairing.elimination_winner(ranks, [e for e in seed_order if e in ranks])


def seat_rotations(*, table: Table) -> list[Table]:
    """Every rotation of a table's seats, the table itself first (duplicate matches)."""
    return pairing.rotations(table)


def standings(
    *,
    entry_ids: Sequence[int],
    games: Sequence[GameResult],
    byes: Mapping[int, int],
    use_buchholz: bool = True,
) -> list[StandingRow]:
    """Rows best first (competition.standings: points, average rank, Buchholz, head to
    head, total score; `entry_ids` in seed order settle the rest, sharing the place)."""
    return compute_standings(
        list(entry_ids),
        [g.record() for g in games],
        byes=byes,
        bye_points=1.0,
        use_buchholz=use_buchholz,
    )
