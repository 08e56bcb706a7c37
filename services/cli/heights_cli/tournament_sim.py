"""Tournaments of the graded population, through the platform's pairing and standings.

Round robin (`competition.pairing.round_robin`), Swiss (`swiss_round`, standings from
`compute_standings` after every round) and single elimination (`elimination_bracket`,
`next_elimination_round`), each table playing `games` games: one, or with `duplicate`
every rotation of the table on one game seed. Measured over many tournaments: how often
a bot of the strongest kind in the field wins, and Kendall's tau between the final
standings and the true order (elimination: by the round each bot went out in).

A tournament is a generator: before each round it yields the games the round needs
(the kinds at the seats, the game seed), then reads their results from the pool. So
`play_tournaments` can ask the pool for the round's games of many tournaments at once,
which it plays in its worker processes; a game depends only on its key, so the results
are the ones of playing the tournaments one by one.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Generator, Sequence
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

Request = tuple[tuple[str, ...], int]  # the kinds at a game's seats, the game seed
# A table's games: the bots at the seats of each, and the game seed they share.
TableGames = tuple[list[tuple[str, ...]], int]
Tournament = Generator[list[Request], None, "TournamentResult"]


@dataclass(frozen=True, slots=True)
class TournamentResult:
    """One tournament: its winner's kind, whether that is the field's strongest kind,
    tau, and games played per bot."""

    winner: str
    strongest_won: bool
    tau: float
    games_per_bot: float


def tournament(
    fmt: str, bots: Sequence[str], pool: GamePool, *, duplicate: bool, seed: int
) -> Tournament:
    """One tournament of `bots` (named `kind#i`), seeded in a keyed random order: yields
    each round's games before reading them from `pool`, returns the result."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; formats: {', '.join(FORMATS)}")
    field = keyed_order(bots, seed=seed, salt="field")
    scores: dict[str, float] = {}
    if fmt == "round-robin":
        tables = [t for r in round_robin(field, pool.players) for t in r.tables]
        schedule = _schedule(tables, duplicate, seed)
        yield _requests(schedule)
        records = [g for table in _results(schedule, pool) for g in table]
        order = [s.player for s in compute_standings(field, records, use_buchholz=False)]
    elif fmt == "swiss":
        records, order = yield from _swiss(field, pool, duplicate, seed)
    else:
        records, order, scores = yield from _elimination(field, pool, duplicate, seed)
    # The strongest kind of this field (mcts when it is in), not of the population.
    top = max(strength(_kind(b)) for b in bots)
    n = len(order)
    place = scores or {p: float(n - i) for i, p in enumerate(order)}
    tau = kendall_tau([float(strength(_kind(b))) for b in order], [place[p] for p in order])
    per_bot = sum(len(r.ranks) for r in records) / len(bots)
    winner = _kind(order[0])
    return TournamentResult(winner, strength(winner) == top, tau, per_bot)


def play_tournament(
    fmt: str, bots: Sequence[str], pool: GamePool, *, duplicate: bool, seed: int
) -> TournamentResult:
    """One tournament, played through to its result."""
    return play_tournaments([tournament(fmt, bots, pool, duplicate=duplicate, seed=seed)], pool)[0]


def play_tournaments(
    tournaments: Sequence[Tournament],
    pool: GamePool,
    *,
    on_round: Callable[[int], None] | None = None,
) -> list[TournamentResult]:
    """Play the tournaments in step: each round, the pool plays the missing games of
    every unfinished tournament's next round (in parallel if it has workers), then each
    reads its own. `on_round` gets the number of tournaments finished so far."""
    results: dict[int, TournamentResult] = {}
    asking: dict[int, list[Request]] = {}

    def advance(i: int) -> None:
        try:
            asking[i] = next(tournaments[i])
        except StopIteration as stop:
            results[i] = stop.value

    for i in range(len(tournaments)):
        advance(i)
    while asking:
        pool.prefetch(request for requests in asking.values() for request in requests)
        waiting = list(asking)
        asking.clear()
        for i in waiting:
            advance(i)
        if on_round is not None:
            on_round(len(results))
    return [results[i] for i in range(len(tournaments))]


def _kind(bot: str) -> str:
    return bot.split("#", 1)[0]


def _schedule(tables: Sequence[Sequence[str]], duplicate: bool, seed: int) -> list[TableGames]:
    """Each table's games, seats balanced, on the table's game seed."""
    seated, _ = balance_seats(tables)
    return [
        (list(rotations(table)) if duplicate else [tuple(table)], game_seed("tournament", seed, n))
        for n, table in enumerate(seated)
    ]


def _requests(schedule: Sequence[TableGames]) -> list[Request]:
    return [(tuple(_kind(b) for b in game), gseed) for games, gseed in schedule for game in games]


def _results(schedule: Sequence[TableGames], pool: GamePool) -> list[list[GameRecord[str]]]:
    """Each table's game records, the results read from the pool."""
    return [[_record(game, pool, gseed) for game in games] for games, gseed in schedule]


def _record(game: tuple[str, ...], pool: GamePool, gseed: int) -> GameRecord[str]:
    ranks = pool.ranks(tuple(_kind(b) for b in game), gseed)
    return GameRecord(ranks=dict(zip(game, ranks, strict=True)))


def swiss_rounds(n: int) -> int:
    """ceil(log2 n) + 1 rounds: enough to separate the top from a field of n."""
    return max(1, math.ceil(math.log2(n))) + 1


def _swiss(
    field: list[str], pool: GamePool, duplicate: bool, seed: int
) -> Generator[list[Request], None, tuple[list[GameRecord[str]], list[str]]]:
    records: list[GameRecord[str]] = []
    history: list[tuple[str, ...]] = []
    byes: dict[str, int] = {}
    ranked = list(field)
    for number in range(swiss_rounds(len(field))):
        r = swiss_round(ranked, pool.players, history=history, had_bye=list(byes))
        schedule = _schedule(r.tables, duplicate, seed * 100 + number)
        yield _requests(schedule)
        records += [g for table in _results(schedule, pool) for g in table]
        history += r.tables
        for p in r.byes:
            byes[p] = byes.get(p, 0) + 1
        ranked = [s.player for s in compute_standings(field, records, byes=byes)]
    return records, ranked


def _elimination(
    field: list[str], pool: GamePool, duplicate: bool, seed: int
) -> Generator[list[Request], None, tuple[list[GameRecord[str]], list[str], dict[str, float]]]:
    current = elimination_bracket(field, pool.players)
    records: list[GameRecord[str]] = []
    out_in: dict[str, int] = {}
    while current.champion is None:
        schedule = [
            _schedule([table], duplicate, seed * 1000 + current.number * 50 + number)[0]
            for number, table in enumerate(current.tables)
        ]
        yield _requests(schedule)
        winners = []
        for table, games in zip(current.tables, _results(schedule, pool), strict=True):
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
