"""Tournament scheduling for games of two to four players.

Round robin, Swiss and single elimination produce tables (tuples of players); seat order
is a separate concern handled by `rotations`, `assign_seats` and `balance_seats`, because
seat 0 moves first in Rolling Heights and must be spread evenly. Everything here is a
pure function of its inputs: the order of the players passed in is the seed order, and
where an arbitrary order is needed it comes from `keyed_order` (SHA-256 of a seed and the
player), never from `random`, so a schedule can be recomputed and audited.
"""

from __future__ import annotations

import hashlib
import itertools
import math
from collections import Counter
from collections.abc import Callable, Collection, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

P = TypeVar("P", bound=Hashable)
_Score = Callable[[Sequence[P]], tuple[int, int]]  # higher is a better table

MIN_GAME_SIZE = 2
MAX_GAME_SIZE = 4
# Above this many candidate groups a round robin table is built player by player.
_ENUMERATION_LIMIT = 2000
# Search nodes per rematch allowance in Swiss pairing before allowing one more rematch.
_SWISS_NODE_BUDGET = 20_000


@dataclass(frozen=True, slots=True)
class Round(Generic[P]):
    """One round: the tables to play, and the players sitting out."""

    tables: tuple[tuple[P, ...], ...]
    byes: tuple[P, ...] = ()


def keyed_order(items: Iterable[P], *, seed: int, salt: str = "") -> list[P]:
    """A deterministic shuffle: items sorted by SHA-256 of (seed, salt, repr(item))."""
    return sorted(items, key=lambda p: hashlib.sha256(f"{seed}:{salt}:{p!r}".encode()).digest())


def pair_counts(tables: Iterable[Sequence[P]]) -> Counter[frozenset[P]]:
    """How often each unordered pair of players shared a table."""
    counts: Counter[frozenset[P]] = Counter()
    for table in tables:
        counts.update(frozenset(pair) for pair in itertools.combinations(table, 2))
    return counts


def check_game_size(game_size: int) -> None:
    if not MIN_GAME_SIZE <= game_size <= MAX_GAME_SIZE:
        raise ValueError(f"games have 2 to 4 players, got {game_size}")


# --- round robin ---------------------------------------------------------------------


def round_robin(players: Sequence[P], game_size: int) -> list[Round[P]]:
    """A complete round robin, each table seated (seat 0 first).

    Two players: the circle method, n - 1 rounds (n rounded up to even, the odd one out
    has a bye); every pair meets exactly once. Three or four players: every round seats
    all but `len(players) % game_size` players (byes go to those with the fewest so far),
    and tables greedily cover pairs that have not met yet, then pairs that met least.
    Guarantee: every pair meets at least once, no player twice in a round, and byes
    differ by at most one between players (two in rare endgames where a pair that has
    not met yet must be seated); some pairs meet more than once.
    Seat counts differ by at most one per player for two players (by construction), and
    by at most two for three or four in every case tested (3 to 20 players; greedy
    `balance_seats`, round by round, so not a proof).
    """
    check_game_size(game_size)
    if len(players) < game_size or len(set(players)) != len(players):
        raise ValueError(f"need {game_size} or more distinct players, got {list(players)}")
    if game_size == 2:
        return _circle_rounds(players)
    counts: dict[P, list[int]] = {}
    seated = []
    for r in _covering_rounds(players, game_size):
        tables, counts = balance_seats(r.tables, counts)
        seated.append(Round(tables=tuple(tables), byes=r.byes))
    return seated


def _circle_rounds(players: Sequence[P]) -> list[Round[P]]:
    """The circle method: one player fixed, the others turn one place per round.

    Seats come with it: the top row (positions 1 .. n/2 - 1) sits first, the bottom row
    second, and the fixed player alternates by round. Every turning player spends as
    many rounds in the top row as in the bottom one, plus one game against the fixed
    player, so seat counts differ by at most one for everyone.
    """
    ring: list[P | None] = [*players, None] if len(players) % 2 else list(players)
    n = len(ring)
    rounds = []
    for number in range(n - 1):
        first = (ring[0], ring[-1]) if number % 2 == 0 else (ring[-1], ring[0])
        pairs = [first, *((ring[i], ring[n - 1 - i]) for i in range(1, n // 2))]
        tables = tuple((a, b) for a, b in pairs if a is not None and b is not None)
        byes = tuple(p for pair in pairs if None in pair for p in pair if p is not None)
        rounds.append(Round(tables=tables, byes=byes))
        ring = [ring[0], ring[-1], *ring[1:-1]]
    return rounds


def _covering_rounds(players: Sequence[P], game_size: int) -> list[Round[P]]:
    index = {p: i for i, p in enumerate(players)}
    uncovered = {frozenset(pair) for pair in itertools.combinations(players, 2)}
    met: Counter[frozenset[P]] = Counter()
    byes: Counter[P] = Counter()
    rounds: list[Round[P]] = []
    while uncovered:
        for protect in (False, True):
            sitting = _round_robin_byes(
                players, game_size, uncovered=uncovered, byes=byes, index=index, protect=protect
            )
            pool = [p for p in players if p not in sitting]
            tables = _cover_tables(pool, game_size, uncovered, met)
            if any(
                frozenset(pair) in uncovered
                for t in tables
                for pair in itertools.combinations(t, 2)
            ):
                break  # progress; the protected retry is only for the rare stuck round
        for table in tables:
            pairs = [frozenset(pair) for pair in itertools.combinations(table, 2)]
            uncovered.difference_update(pairs)
            met.update(pairs)
        byes.update(sitting)
        rounds.append(Round(tables=tuple(tables), byes=tuple(sitting)))
    return rounds


def _round_robin_byes(
    players: Sequence[P],
    game_size: int,
    *,
    uncovered: set[frozenset[P]],
    byes: Counter[P],
    index: Mapping[P, int],
    protect: bool,
) -> list[P]:
    """Who sits out: fewest byes first, then those with the fewest unmet opponents.

    With `protect`, both players of the first unmet pair play, which guarantees the
    round covers a new pair (so the schedule always ends).
    """
    need = len(players) % game_size
    first = min(uncovered, key=lambda pair: sorted(index[p] for p in pair))
    unmet = Counter(p for pair in uncovered for p in pair)

    def key(p: P) -> tuple[int, int, int, int]:
        return (int(protect and p in first), byes[p], unmet[p], -index[p])

    return sorted(sorted(players, key=key)[:need], key=index.__getitem__)


def _cover_tables(
    pool: Sequence[P], game_size: int, uncovered: set[frozenset[P]], met: Counter[frozenset[P]]
) -> list[tuple[P, ...]]:
    """Split `pool` into tables, each the group covering the most urgent unmet pairs.

    A pair's urgency is how many unmet opponents its two players have left: plain "most
    new pairs" greedily strands one group that has met itself in round 1 as the forced
    last table of every round, while urgency pulls the players still owed most games
    apart. Among equals, the group with fewest repeated meetings wins.
    """
    unmet = Counter(p for pair in uncovered for p in pair)

    def score(group: Sequence[P]) -> tuple[int, int]:
        pairs = [frozenset(pair) for pair in itertools.combinations(group, 2)]
        urgency = sum(unmet[a] + unmet[b] for a, b in (tuple(q) for q in pairs if q in uncovered))
        return (urgency, -sum(met[pair] for pair in pairs))

    left = list(pool)
    tables: list[tuple[P, ...]] = []
    while left:
        if math.comb(len(left), game_size) <= _ENUMERATION_LIMIT:
            group = max(itertools.combinations(left, game_size), key=score)
        else:
            group = _build_group(left, game_size, score)
        tables.append(tuple(group))
        left = [p for p in left if p not in group]
    return tables


def _build_group(left: Sequence[P], game_size: int, score: _Score[P]) -> tuple[P, ...]:
    """For large pools: grow a group one player at a time from the neediest player.

    Starting from the player with the best single pairs (most unmet, then least met)
    keeps the forced last table of a round from being the same players every time.
    """
    first = max(left, key=lambda p: max(score((p, q)) for q in left if q != p))
    group: tuple[P, ...] = (first,)
    while len(group) < game_size:
        rest = [p for p in left if p not in group]
        group = max(((*group, p) for p in rest), key=score)
    return group


# --- Swiss ---------------------------------------------------------------------------


def swiss_round(
    ranked: Sequence[P],
    game_size: int,
    *,
    history: Iterable[Sequence[P]] = (),
    had_bye: Collection[P] = (),
) -> Round[P]:
    """The next Swiss round. `ranked` is the current standings, best first.

    Byes (`len(ranked) % game_size` of them) go to the lowest ranked players without a
    previous bye (everyone had one: the lowest ranked). Two players: each player, best
    first, meets the next best still free, backtracking so that no pair meets twice when
    any such pairing exists (otherwise as few rematches as the search finds). Three or
    four: the best ranked free player takes the group from the next 3 * game_size players
    with the fewest repeated pairs (greedy; rematches reduced, not always avoided).
    Tables list players in the order they were picked (best ranked first); seat them
    with `balance_seats` or `rotations`.
    """
    check_game_size(game_size)
    if len(set(ranked)) != len(ranked):
        raise ValueError(f"players repeat in {list(ranked)}")
    byes = _swiss_byes(ranked, len(ranked) % game_size, had_bye)
    pool = [p for p in ranked if p not in byes]
    met = pair_counts(history)
    tables = _swiss_pairs(pool, met) if game_size == 2 else _swiss_groups(pool, game_size, met)
    return Round(tables=tuple(tables), byes=tuple(byes))


def _swiss_byes(ranked: Sequence[P], need: int, had_bye: Collection[P]) -> list[P]:
    bottom_up = list(reversed(ranked))
    fresh = [p for p in bottom_up if p not in had_bye]
    chosen = (fresh + [p for p in bottom_up if p in had_bye])[:need]
    return [p for p in ranked if p in chosen]


def _swiss_pairs(pool: Sequence[P], met: Counter[frozenset[P]]) -> list[tuple[P, ...]]:
    # Allow 0 rematches, then 1, ...; with len/2 allowed the first branch always succeeds.
    for allowed in range(len(pool) // 2 + 1):
        budget = [_SWISS_NODE_BUDGET]
        found = _pair_search(list(pool), met, allowed, budget)
        if found is not None:
            return found
    raise AssertionError("unreachable: every pairing is allowed at the last level")


def _pair_search(
    left: list[P], met: Counter[frozenset[P]], allowed: int, budget: list[int]
) -> list[tuple[P, ...]] | None:
    if not left:
        return []
    first, rest = left[0], left[1:]
    for i, other in enumerate(rest):
        budget[0] -= 1
        if budget[0] < 0:
            return None
        cost = int(met[frozenset((first, other))] > 0)
        if cost > allowed:
            continue
        found = _pair_search(rest[:i] + rest[i + 1 :], met, allowed - cost, budget)
        if found is not None:
            return [(first, other), *found]
    return None


def _swiss_groups(
    pool: Sequence[P], game_size: int, met: Counter[frozenset[P]]
) -> list[tuple[P, ...]]:
    """Best ranked free player first, joined by the freshest group from a window below.

    The window (the next 3 * game_size players) keeps tables within or near a score
    group; inside it, fewest repeated pairs win, then the best ranks.
    """
    left = list(pool)
    tables: list[tuple[P, ...]] = []
    while left:
        table = _freshest_table(left[0], left[1 : 1 + 3 * game_size], game_size, met)
        tables.append(table)
        left = [p for p in left if p not in table]
    return _swap_neighbours(tables, met)


def _freshest_table(
    head: P, window: Sequence[P], game_size: int, met: Counter[frozenset[P]]
) -> tuple[P, ...]:
    position = {p: i for i, p in enumerate(window)}

    def cost(rest: tuple[P, ...]) -> tuple[int, int]:
        group = (head, *rest)
        repeats = sum(met[frozenset(pair)] for pair in itertools.combinations(group, 2))
        return (repeats, sum(position[p] for p in rest))

    return (head, *min(itertools.combinations(window, game_size - 1), key=cost))


def _swap_neighbours(
    tables: list[tuple[P, ...]], met: Counter[frozenset[P]]
) -> list[tuple[P, ...]]:
    """Swap players between adjacent tables while that strictly cuts repeated pairs.

    Greedy filling forces the last tables of a round; this repairs much of that, and
    between adjacent tables only, so nobody moves far from their place in the standings.
    Every swap lowers a non-negative total, so the loop ends.
    """
    improved = True
    while improved:
        improved = False
        for i in range(len(tables) - 1):
            swapped = _first_better_swap(tables[i], tables[i + 1], met)
            if swapped is not None:
                tables[i], tables[i + 1] = swapped
                improved = True
    return tables


def _first_better_swap(
    a: tuple[P, ...], b: tuple[P, ...], met: Counter[frozenset[P]]
) -> tuple[tuple[P, ...], tuple[P, ...]] | None:
    def repeats(table: Sequence[P]) -> int:
        return sum(met[frozenset(pair)] for pair in itertools.combinations(table, 2))

    before = repeats(a) + repeats(b)
    for x, y in itertools.product(a, b):
        new_a = tuple(y if p == x else p for p in a)
        new_b = tuple(x if p == y else p for p in b)
        if repeats(new_a) + repeats(new_b) < before:
            return new_a, new_b
    return None


# --- single elimination --------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class EliminationRound(Generic[P]):
    """One knockout round: `slots` in bracket order, cut into groups of `game_size`.

    A group with two or more players is a table whose winner (top 1) advances; a group
    with one player is a bye; `None` is an empty slot. Tables may be short (2 or 3 of 4)
    where the bracket has byes. One slot left: the champion.
    """

    number: int
    game_size: int
    slots: tuple[P | None, ...]

    def groups(self) -> list[tuple[P, ...]]:
        """The round's groups in bracket order; none once the champion is known."""
        if self.champion is not None:
            return []
        size = self.game_size
        chunks = [self.slots[i : i + size] for i in range(0, len(self.slots), size)]
        return [tuple(p for p in chunk if p is not None) for chunk in chunks]

    @property
    def tables(self) -> tuple[tuple[P, ...], ...]:
        return tuple(g for g in self.groups() if len(g) >= 2)

    @property
    def byes(self) -> tuple[P, ...]:
        return tuple(g[0] for g in self.groups() if len(g) == 1)

    @property
    def champion(self) -> P | None:
        return self.slots[0] if len(self.slots) == 1 else None


def bracket_positions(size: int, game_size: int) -> list[int]:
    """Seeds (1 = top) in bracket order for `size` slots, a power of `game_size`.

    Each round of expansion replaces seed s (of m so far) by the group s, 2m+1-s, 2m+s,
    4m+1-s, ...: for two players the standard 1-8-4-5-2-7-3-6 bracket, where the top two
    seeds can only meet in the final and seed i plays seed size+1-i first.
    """
    positions = [1]
    while len(positions) < size:
        m = len(positions)
        positions = [
            (j * m + s) if j % 2 == 0 else ((j + 1) * m + 1 - s)
            for s in positions
            for j in range(game_size)
        ]
    return positions


def elimination_bracket(seeds: Sequence[P], game_size: int) -> EliminationRound[P]:
    """Round 1 for `seeds` (best first): the bracket is the next power of `game_size`.

    The missing seeds are empty slots, and they fall next to the top seeds, so byes go
    to the top seeds.
    """
    check_game_size(game_size)
    if len(seeds) < 2 or len(set(seeds)) != len(seeds):
        raise ValueError(f"need two or more distinct entrants, got {list(seeds)}")
    size = game_size
    while size < len(seeds):
        size *= game_size
    slots = tuple(
        seeds[s - 1] if s <= len(seeds) else None for s in bracket_positions(size, game_size)
    )
    return EliminationRound(number=1, game_size=game_size, slots=slots)


def next_elimination_round(
    current: EliminationRound[P], winners: Collection[P]
) -> EliminationRound[P]:
    """The next round: the bye of each group, or the one table player among `winners`."""
    if current.champion is not None:
        raise ValueError("the tournament is over")
    advancing: list[P | None] = []
    for group in current.groups():
        won = [p for p in group if len(group) == 1 or p in winners]
        if len(won) != 1:
            raise ValueError(f"need exactly one winner of {group}, got {won}")
        advancing.append(won[0])
    return EliminationRound(
        number=current.number + 1, game_size=current.game_size, slots=tuple(advancing)
    )


def elimination_winner(ranks: Mapping[P, int], seed_order: Sequence[P]) -> P:
    """The player who advances from one table: best rank, a shared first to the better seed."""
    seed = {p: i for i, p in enumerate(seed_order)}
    return min(ranks, key=lambda p: (ranks[p], seed[p]))


# --- seats ---------------------------------------------------------------------------


def rotations(seats: Sequence[P]) -> list[tuple[P, ...]]:
    """Every rotation of a table, itself first: the games of one duplicate match.

    Played with the same game seed, each player sits once in each seat, so the luck of
    the setup and of the seat order cancels out.
    """
    n = len(seats)
    return [tuple(seats[(i + r) % n] for i in range(n)) for r in range(n)]


def assign_seats(table: Sequence[P], seat_counts: Mapping[P, Sequence[int]]) -> tuple[P, ...]:
    """The seat order giving each player its least-played seat as far as possible.

    `seat_counts[p][s]` is how often p sat in seat s (missing entries count 0). The cost
    of an order is how far each player's seat is above that player's least-played seat
    (then the plain total, then the worst seat): measuring against each player's own
    minimum lets a bot who is behind in a seat catch up even when it has more games
    than its table mates. At most 4! orders are tried; ties keep the earliest order,
    starting with `table` itself.
    """
    width = len(table)

    def row(p: P) -> list[int]:
        counts = list(seat_counts.get(p, ()))[:width]
        return counts + [0] * (width - len(counts))

    rows = {p: row(p) for p in table}

    def cost(order: tuple[P, ...]) -> tuple[int, int, int]:
        seen = [rows[p][s] for s, p in enumerate(order)]
        excess = sum(rows[p][s] - min(rows[p]) for s, p in enumerate(order))
        return (excess, sum(seen), max(seen))

    return min(itertools.permutations(table), key=cost)


def balance_seats(
    tables: Iterable[Sequence[P]], seat_counts: Mapping[P, Sequence[int]] | None = None
) -> tuple[list[tuple[P, ...]], dict[P, list[int]]]:
    """Seat tables in turn with `assign_seats`; returns them and the updated counts."""
    counts: dict[P, list[int]] = {p: list(c) for p, c in (seat_counts or {}).items()}
    seated = []
    for table in tables:
        order = assign_seats(table, counts)
        for seat, p in enumerate(order):
            row = counts.setdefault(p, [])
            row.extend([0] * (seat + 1 - len(row)))
            row[seat] += 1
        seated.append(order)
    return seated, counts
