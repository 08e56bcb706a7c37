"""A ladder of the graded population, through the platform's own rating and matchmaking.

The simulator keeps each bot's ladder entry as the platform does (Elo; Plackett-Luce mu
and sigma; games, seat counts, when it last played) and calls the platform's pure
competition code on it: `competition.matchmaking.choose_games` picks the tables (the
`current` policy), `competition.elo.elo_update` and `competition.plackett_luce.pl_update`
rate every game as `ladders.services._ratings_compute` does. Games come from a shared
`GamePool`, so configurations with the same seed share games and their luck.

After every batch it records Kendall's tau between the true strengths and each
leaderboard order: Elo, mu, and the conservative mu - 3 sigma.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from heights_cli.rank_correlation import kendall_tau
from heights_cli.ranking_population import GamePool, game_seed, strength
from heights_platform.competition.elo import INITIAL_RATING, elo_update
from heights_platform.competition.matchmaking import Candidate, choose_games
from heights_platform.competition.pairing import assign_seats, keyed_order, rotations
from heights_platform.competition.plackett_luce import Rating, conservative, pl_update

MATCHMAKING = ("current", "random", "least-met")
ORDERS = ("elo", "mu", "conservative")
DEFAULT_IN_FLIGHT = 2  # the platform's ladder: matches queued or running at once


@dataclass(frozen=True, slots=True)
class LadderConfig:
    """One way to run the ladder."""

    matchmaking: str = "current"
    duplicate: bool = False  # a table plays every rotation on one game seed

    @property
    def label(self) -> str:
        return f"{self.matchmaking}{' duplicate' if self.duplicate else ''}"


@dataclass(slots=True)
class Entry:
    """One bot on the simulated ladder (the fields of `ladders.models.LadderEntry`)."""

    bot: str
    kind: str
    elo: float = INITIAL_RATING
    rating: Rating = field(default_factory=Rating)
    games: int = 0
    last_played: int = 0
    seat_counts: list[int] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Checkpoint:
    """The leaderboards' rank correlations after `games_per_bot` games per bot."""

    games_per_bot: float
    tau: dict[str, float]


def population(kinds: Sequence[str], copies: int) -> list[Entry]:
    """`copies` bots of each kind, named `kind#i`."""
    return [Entry(f"{kind}#{i}", kind) for kind in kinds for i in range(copies)]


Request = tuple[tuple[str, ...], int]  # the kinds at a table's seats, the game seed


@dataclass(slots=True)
class Ladder:
    """One ladder, played a batch at a time: `plan` picks the next batch's tables (and
    says which games they need), `play` rates them. Splitting the two lets a driver ask
    the pool for the games of many ladders' batches at once (`run_ladders`)."""

    config: LadderConfig
    entries: list[Entry]
    games_per_bot: int
    seed: int
    players: int = 2
    in_flight: int = DEFAULT_IN_FLIGHT
    checkpoints: list[Checkpoint] = field(default_factory=list)
    _played: int = 0
    _tick: int = 0
    _met: dict[frozenset[str], int] = field(default_factory=dict)
    _table_count: dict[tuple[str, ...], int] = field(default_factory=dict)
    _batch: list[tuple[list[tuple[str, ...]], int]] = field(default_factory=list)

    @property
    def games_target(self) -> int:
        """The games the ladder plays before it stops (at least)."""
        return -(-self.games_per_bot * len(self.entries) // self.players)

    @property
    def games_played(self) -> int:
        return self._played

    @property
    def done(self) -> bool:
        return self._played >= self.games_target

    def plan(self) -> list[Request]:
        """Choose the next batch of tables; the games it will ask the pool for."""
        by_name = {e.bot: e for e in self.entries}
        tables = _tables(
            self.config.matchmaking,
            self.entries,
            players=self.players,
            limit=self.in_flight,
            seed=self.seed,
            tick=self._tick,
            met=self._met,
        )
        self._batch = []
        for table in tables:
            kinds = tuple(by_name[b].kind for b in table)
            n = self._table_count.get(kinds, 0)
            self._table_count[kinds] = n + 1
            games = rotations(table) if self.config.duplicate else [tuple(table)]
            self._batch.append((games, game_seed(self.seed, kinds, n)))
        return [
            (tuple(by_name[b].kind for b in seated), gseed)
            for games, gseed in self._batch
            for seated in games
        ]

    def play(self, pool: GamePool) -> None:
        """Rate the planned batch and record the leaderboards' correlations."""
        by_name = {e.bot: e for e in self.entries}
        for games, gseed in self._batch:
            self._tick += 1
            for seated in games:
                _rate([by_name[b] for b in seated], pool, gseed, self._tick)
                self._played += 1
            for pair in itertools.combinations(games[0], 2):
                key = frozenset(pair)
                self._met[key] = self._met.get(key, 0) + len(games)
        self._batch = []
        truth = [float(strength(e.kind)) for e in self.entries]
        done = self._played * self.players / len(self.entries)
        self.checkpoints.append(Checkpoint(done, _taus(self.entries, truth)))


def run_ladders(
    ladders: Sequence[Ladder],
    pool: GamePool,
    *,
    on_batch: Callable[[int], None] | None = None,
) -> None:
    """Play the ladders in step: each round, every unfinished ladder plans a batch, the
    pool plays the round's missing games (in parallel if it has workers), then each
    ladder rates its batch. A ladder's tables depend only on its own games, and a game
    only on its key, so the result is the one of playing the ladders one by one.
    `on_batch` gets the games rated so far over all ladders."""
    while True:
        active = [ladder for ladder in ladders if not ladder.done]
        if not active:
            return
        requests = [request for ladder in active for request in ladder.plan()]
        pool.prefetch(requests)
        for ladder in active:
            ladder.play(pool)
        if on_batch is not None:
            on_batch(sum(ladder.games_played for ladder in ladders))


def run_ladder(
    config: LadderConfig,
    entries: list[Entry],
    pool: GamePool,
    *,
    games_per_bot: int,
    seed: int,
    in_flight: int = DEFAULT_IN_FLIGHT,
) -> list[Checkpoint]:
    """Play until the bots average `games_per_bot` games; a checkpoint after each batch."""
    ladder = Ladder(config, entries, games_per_bot, seed, pool.players, in_flight)
    run_ladders([ladder], pool)
    return ladder.checkpoints


def _rate(seated: list[Entry], pool: GamePool, gseed: int, tick: int) -> None:
    """One game: ranks from the pool, both ratings updated from the pre-game values."""
    ranks_list = pool.ranks(tuple(e.kind for e in seated), gseed)
    ranks = dict(enumerate(ranks_list))
    elo = elo_update({s: e.elo for s, e in enumerate(seated)}, ranks).ratings_after()
    pl = pl_update({s: e.rating for s, e in enumerate(seated)}, ranks)
    for s, e in enumerate(seated):
        e.elo, e.rating = elo[s], pl[s]
        e.games += 1
        e.last_played = tick
        e.seat_counts.extend([0] * (s + 1 - len(e.seat_counts)))
        e.seat_counts[s] += 1


def _taus(entries: list[Entry], truth: list[float]) -> dict[str, float]:
    scores = {
        "elo": [e.elo for e in entries],
        "mu": [e.rating.mu for e in entries],
        "conservative": [conservative(e.rating) for e in entries],
    }
    return {order: kendall_tau(truth, values) for order, values in scores.items()}


def _tables(
    policy: str,
    entries: list[Entry],
    *,
    players: int,
    limit: int,
    seed: int,
    tick: int,
    met: dict[frozenset[str], int],
) -> list[tuple[str, ...]]:
    if policy == "current":
        candidates = [
            Candidate(
                bot_id=e.bot,
                owner_id=e.bot,  # one owner per bot: the owner rule never bites here
                mu=e.rating.mu,
                sigma=e.rating.sigma,
                games_played=e.games,
                last_played=e.last_played,
                seat_counts=tuple(e.seat_counts),
            )
            for e in entries
        ]
        return choose_games(candidates, players, seed=seed + tick, limit=limit)
    counts = {e.bot: e.seat_counts for e in entries}
    order = keyed_order([e.bot for e in entries], seed=seed, salt=str(tick))
    if policy == "random":
        chunks = [order[i : i + players] for i in range(0, limit * players, players)]
        return [assign_seats(c, counts) for c in chunks if len(c) == players]
    if policy == "least-met":
        return _least_met(order, entries, players=players, limit=limit, met=met, counts=counts)
    raise ValueError(f"unknown matchmaking {policy!r}; policies: {', '.join(MATCHMAKING)}")


def _least_met(
    order: list[str],
    entries: list[Entry],
    *,
    players: int,
    limit: int,
    met: dict[frozenset[str], int],
    counts: dict[str, list[int]],
) -> list[tuple[str, ...]]:
    """Fewest games first; the table filled with the bots it has met least (a slow
    round robin: every pair gets information, whatever the ratings say)."""
    games = {e.bot: e.games for e in entries}
    free = sorted(order, key=lambda b: games[b])  # stable: keyed order among equals
    tables: list[tuple[str, ...]] = []
    while len(tables) < limit and len(free) >= players:
        table = [free.pop(0)]
        while len(table) < players:
            pick = min(free, key=lambda b: sum(met.get(frozenset((b, t)), 0) for t in table))
            free.remove(pick)
            table.append(pick)
        tables.append(assign_seats(table, counts))
    return tables
