"""Tournaments of the graded population, through the platform's pairing and standings.

Round robin (`competition.pairing.round_robin`), Swiss (`swiss_round`, standings from
`compute_standings` after every round) and single elimination (`elimination_bracket`,
`next_elimination_round`), each table playing `games` games: one, or with `duplicate`
every rotation of the table on one game seed. Measured over many tournaments: how often
a bot of the strongest kind wins, and Kendall's tau between the final standings and
the true order (elimination: by the round each bot went out in).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from heights_cli.rank_correlation import kendall_tau
from heights_cli.ranking_population import GamePool, game_seed, strength
from heights_platform.competition.pairing import (
    balance_seats,
    elimination_bracket,
    keyed_order,
    next_elimination_round,
    rotations,
    round_robin,
    swiss_round,
)
from heights_platform.competition.standings import GameRecord, compute_standings

FORMATS = ("round-robin", "swiss", "elimination")


@dataclass(frozen=True, slots=True)
class TournamentResult:
    """One tournament: whether the strongest kind won, tau, and games played per bot."""

    strongest_won: bool
    tau: float
    games_per_bot: float


def play_tournament(
    fmt: str, bots: Sequence[str], pool: GamePool, *, duplicate: bool, seed: int
) -> TournamentResult:
    """One tournament of `bots` (named `kind#i`), seeded in a keyed random order."""
    field = keyed_order(bots, seed=seed, salt="field")
    scores: dict[str, float] = {}
    if fmt == "round-robin":
        tables = [t for r in round_robin(field, pool.players) for t in r.tables]
        records = _play(tables, pool, duplicate, seed)
        order = [s.player for s in compute_standings(field, records, use_buchholz=False)]
    elif fmt == "swiss":
        records, order = _swiss(field, pool, duplicate, seed)
    elif fmt == "elimination":
        records, order, scores = _elimination(field, pool, duplicate, seed)
    else:
        raise ValueError(f"unknown format {fmt!r}; formats: {', '.join(FORMATS)}")
    top = max(strength(_kind(b)) for b in bots)
    n = len(order)
    place = scores or {p: float(n - i) for i, p in enumerate(order)}
    tau = kendall_tau([float(strength(_kind(b))) for b in order], [place[p] for p in order])
    per_bot = sum(len(r.ranks) for r in records) / len(bots)
    return TournamentResult(strength(_kind(order[0])) == top, tau, per_bot)


def _kind(bot: str) -> str:
    return bot.split("#", 1)[0]


def _play(
    tables: Sequence[Sequence[str]], pool: GamePool, duplicate: bool, seed: int
) -> list[GameRecord[str]]:
    seated, _ = balance_seats(tables)
    records = []
    for number, table in enumerate(seated):
        gseed = game_seed("tournament", seed, number)
        for game in rotations(table) if duplicate else [table]:
            ranks = pool.ranks(tuple(_kind(b) for b in game), gseed)
            records.append(GameRecord(ranks=dict(zip(game, ranks, strict=True))))
    return records


def swiss_rounds(n: int) -> int:
    """ceil(log2 n) + 1 rounds: enough to separate the top from a field of n."""
    return max(1, math.ceil(math.log2(n))) + 1


def _swiss(
    field: list[str], pool: GamePool, duplicate: bool, seed: int
) -> tuple[list[GameRecord[str]], list[str]]:
    records: list[GameRecord[str]] = []
    history: list[tuple[str, ...]] = []
    byes: dict[str, int] = {}
    ranked = list(field)
    for number in range(swiss_rounds(len(field))):
        r = swiss_round(ranked, pool.players, history=history, had_bye=list(byes))
        records += _play(r.tables, pool, duplicate, seed * 100 + number)
        history += r.tables
        for p in r.byes:
            byes[p] = byes.get(p, 0) + 1
        ranked = [s.player for s in compute_standings(field, records, byes=byes)]
    return records, ranked


def _elimination(
    field: list[str], pool: GamePool, duplicate: bool, seed: int
) -> tuple[list[GameRecord[str]], list[str], dict[str, float]]:
    current = elimination_bracket(field, pool.players)
    records: list[GameRecord[str]] = []
    out_in: dict[str, int] = {}
    while current.champion is None:
        winners = []
        for number, table in enumerate(current.tables):
            games = _play([table], pool, duplicate, seed * 1000 + current.number * 50 + number)
            records += games
            # The table's winner: its best over the table's games (points, then ranks).
            winner = compute_standings(list(table), games, use_buchholz=False)[0].player
            winners.append(winner)
            out_in.update((p, current.number) for p in table if p != winner)
        current = next_elimination_round(current, winners)
    champion = current.champion
    assert champion is not None  # the loop ends with one
    out_in[champion] = current.number + 1
    # Standings: the champion, then by the round each bot went out in (later is better;
    # bots out in the same round are tied, as `scores` says).
    order = sorted(field, key=lambda p: -out_in[p])
    return records, order, {p: float(r) for p, r in out_in.items()}
