"""Round robin, Swiss, single elimination and seat assignment."""

from __future__ import annotations

import hashlib
import itertools
from collections import Counter
from collections.abc import Sequence

import pytest

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
from heights_platform.competition.standings import GameRecord, compute_standings


def _check_round(r: Round[int], players: Sequence[int], game_size: int) -> None:
    seated = [p for t in r.tables for p in t]
    assert len(seated) == len(set(seated)), "a player sits twice in one round"
    assert sorted(seated + list(r.byes)) == sorted(players)
    assert all(2 <= len(t) <= game_size for t in r.tables)


def _seat_spread(tables: Sequence[Sequence[int]], game_size: int) -> int:
    counts: dict[int, list[int]] = {}
    for table in tables:
        for seat, p in enumerate(table):
            counts.setdefault(p, [0] * game_size)[seat] += 1
    return max(max(c) - min(c) for c in counts.values())


# --- round robin ---------------------------------------------------------------------


@pytest.mark.parametrize("n", [2, 3, 4, 5, 8, 9, 16])
def test_two_player_round_robin_meets_every_pair_exactly_once(n: int) -> None:
    players = list(range(n))
    rounds = round_robin(players, 2)
    assert len(rounds) == (n - 1 if n % 2 == 0 else n)
    for r in rounds:
        _check_round(r, players, 2)
        assert all(len(t) == 2 for t in r.tables)
    counts = pair_counts(t for r in rounds for t in r.tables)
    assert set(counts) == {frozenset(p) for p in itertools.combinations(players, 2)}
    assert set(counts.values()) == {1}
    assert _seat_spread([t for r in rounds for t in r.tables], 2) <= 1


@pytest.mark.parametrize("n", [3, 5, 7, 11])
def test_odd_two_player_round_robin_gives_everyone_one_bye(n: int) -> None:
    rounds = round_robin(list(range(n)), 2)
    assert all(len(r.byes) == 1 for r in rounds)
    assert sorted(b for r in rounds for b in r.byes) == list(range(n))


@pytest.mark.parametrize(("n", "game_size"), [(n, g) for g in (3, 4) for n in range(g, 18)])
def test_multiplayer_round_robin_covers_every_pair(n: int, game_size: int) -> None:
    players = list(range(n))
    rounds = round_robin(players, game_size)
    byes: Counter[int] = Counter()
    for r in rounds:
        _check_round(r, players, game_size)
        assert all(len(t) == game_size for t in r.tables)
        assert len(r.byes) == n % game_size
        byes.update(r.byes)
    counts = pair_counts(t for r in rounds for t in r.tables)
    assert set(counts) == {frozenset(p) for p in itertools.combinations(players, 2)}
    assert max(byes[p] for p in players) - min(byes[p] for p in players) <= 1
    assert _seat_spread([t for r in rounds for t in r.tables], game_size) <= 2


def test_round_robin_reaches_known_optimal_designs() -> None:
    # 9 players in threes and 16 in fours admit schedules where every pair meets once.
    for n, size, rounds in [(9, 3, 4), (16, 4, 5)]:
        schedule = round_robin(list(range(n)), size)
        assert len(schedule) == rounds
        assert set(pair_counts(t for r in schedule for t in r.tables).values()) == {1}


def test_round_robin_is_deterministic_and_uses_given_ids() -> None:
    names = ["ada", "bob", "cy", "dee", "eve"]
    assert round_robin(names, 3) == round_robin(list(names), 3)
    assert {p for r in round_robin(names, 3) for t in r.tables for p in t} == set(names)


@pytest.mark.parametrize(("players", "size"), [([1], 2), ([1, 2], 3), ([1, 1, 2], 2), ([1, 2], 5)])
def test_round_robin_rejects_bad_input(players: list[int], size: int) -> None:
    with pytest.raises(ValueError, match="players"):
        round_robin(players, size)


# --- Swiss ---------------------------------------------------------------------------


def _strength(p: int) -> bytes:
    return hashlib.sha256(f"strength:{p}".encode()).digest()


def _play(table: Sequence[int]) -> GameRecord[int]:
    order = sorted(table, key=_strength)
    return GameRecord(ranks={p: i + 1 for i, p in enumerate(order)})


def _simulate_swiss(
    n: int, game_size: int, rounds: int, *, use_history: bool = True
) -> tuple[list[Round[int]], list[GameRecord[int]]]:
    players = list(range(n))
    played: list[Round[int]] = []
    games: list[GameRecord[int]] = []
    byes: Counter[int] = Counter()
    for _ in range(rounds):
        table = compute_standings(players, games, byes=byes)
        ranked = [row.player for row in table]
        history = [t for p in played for t in p.tables] if use_history else []
        r = swiss_round(ranked, game_size, history=history, had_bye=byes)
        _check_round(r, players, game_size)
        played.append(r)
        games.extend(_play(t) for t in r.tables)
        byes.update(r.byes)
    return played, games


def test_swiss_five_rounds_of_eight_never_rematch() -> None:
    played, _ = _simulate_swiss(8, 2, 5)
    counts = pair_counts(t for r in played for t in r.tables)
    assert max(counts.values()) == 1
    assert len(counts) == 5 * 4


def test_swiss_pairs_neighbours_in_the_standings() -> None:
    r = swiss_round([1, 2, 3, 4, 5, 6], 2)
    assert r == Round(tables=((1, 2), (3, 4), (5, 6)), byes=())


def test_swiss_avoids_a_rematch_by_swapping() -> None:
    r = swiss_round(["a", "b", "c", "d"], 2, history=[("a", "b")])
    assert r.tables == (("a", "c"), ("b", "d"))


def test_swiss_backtracks_when_the_greedy_pairing_dead_ends() -> None:
    # a-b looks fine, but then c has met everyone else still free: a-c is needed.
    history = [("c", "d"), ("c", "e"), ("c", "f")]
    r = swiss_round(list("abcdef"), 2, history=history)
    assert r.tables == (("a", "c"), ("b", "d"), ("e", "f"))


def test_swiss_rematches_only_when_unavoidable() -> None:
    r = swiss_round([1, 2, 3, 4], 2, history=[(1, 2), (3, 4), (1, 3), (2, 4), (1, 4), (2, 3)])
    assert r.tables == ((1, 2), (3, 4))


def test_swiss_bye_goes_to_the_lowest_ranked_without_one() -> None:
    assert swiss_round([1, 2, 3, 4, 5], 2).byes == (5,)
    assert swiss_round([1, 2, 3, 4, 5], 2, had_bye={5}).byes == (4,)
    assert swiss_round([1, 2, 3], 2, had_bye={1, 2, 3}).byes == (3,)


def test_swiss_spreads_byes_over_a_tournament() -> None:
    played, _ = _simulate_swiss(7, 2, 7)
    assert sorted(b for r in played for b in r.byes) == list(range(7))


def test_multiplayer_swiss_rounds_are_valid_and_limit_rematches() -> None:
    played, _ = _simulate_swiss(13, 4, 4)
    assert all(len(r.byes) == 1 for r in played)
    assert len({b for r in played for b in r.byes}) == 4
    counts = pair_counts(t for r in played for t in r.tables)
    assert sum(counts.values()) == 4 * 3 * 6
    naive, _ = _simulate_swiss(13, 4, 4, use_history=False)
    naive_counts = pair_counts(t for r in naive for t in r.tables)
    # Greedy does not promise zero rematches for tables of 4, only far fewer.
    assert len(counts) >= len(naive_counts) + 10


def test_multiplayer_swiss_prefers_unmet_players() -> None:
    r = swiss_round(list(range(6)), 3, history=[(0, 1, 2)])
    assert r.tables == ((0, 3, 4), (1, 2, 5))


# --- single elimination --------------------------------------------------------------


def test_standard_bracket_positions() -> None:
    assert bracket_positions(8, 2) == [1, 8, 4, 5, 2, 7, 3, 6]
    assert bracket_positions(16, 4)[:4] == [1, 8, 9, 16]
    for size, g in [(16, 2), (27, 3), (64, 4)]:
        assert sorted(bracket_positions(size, g)) == list(range(1, size + 1))


def test_eight_entrants_first_round() -> None:
    first = elimination_bracket(list("ABCDEFGH"), 2)
    assert first.tables == (("A", "H"), ("D", "E"), ("B", "G"), ("C", "F"))
    assert first.byes == ()


def test_five_entrants_byes_go_to_top_seeds() -> None:
    first = elimination_bracket([1, 2, 3, 4, 5], 2)
    assert first.tables == ((4, 5),)
    assert first.byes == (1, 2, 3)


def _run_bracket(n: int, game_size: int) -> list[EliminationRound[int]]:
    seeds = list(range(1, n + 1))
    rounds = [elimination_bracket(seeds, game_size)]
    while rounds[-1].champion is None:
        current = rounds[-1]
        alive = [p for g in current.groups() for p in g]
        assert sorted(alive) == sorted({*alive}), "an entrant appears twice"
        winners = {elimination_winner(dict.fromkeys(t, 1), seeds) for t in current.tables}
        rounds.append(next_elimination_round(current, winners))
    return rounds


@pytest.mark.parametrize(
    ("n", "game_size"),
    [(n, 2) for n in (2, 5, 6, 7, 8, 13)] + [(n, g) for g in (3, 4) for n in (3, 4, 5, 7, 13, 17)],
)
def test_bracket_runs_to_one_champion(n: int, game_size: int) -> None:
    rounds = _run_bracket(n, game_size)
    assert rounds[-1].champion == 1  # the better seed always wins here
    tables = [t for r in rounds for t in r.tables]
    # Every table eliminates all but one player.
    assert sum(len(t) - 1 for t in tables) == n - 1
    first = rounds[0]
    assert sorted(p for g in first.groups() for p in g) == list(range(1, n + 1))
    # Byes (if any) go to the top seeds, and after round 1 nobody has a bye.
    assert sorted(first.byes) == list(range(1, len(first.byes) + 1))
    assert all(r.byes == () for r in rounds[1:])


@pytest.mark.parametrize(
    ("n", "byes", "rounds"), [(5, 3, 3), (6, 2, 3), (7, 1, 3), (8, 0, 3), (13, 3, 4)]
)
def test_two_player_bracket_shape(n: int, byes: int, rounds: int) -> None:
    played = _run_bracket(n, 2)
    assert len(played[0].byes) == byes
    assert len(played) - 1 == rounds


def test_upsets_advance_the_named_winner() -> None:
    first = elimination_bracket([1, 2, 3, 4], 2)
    second = next_elimination_round(first, {4, 3})
    assert second.tables == ((4, 3),)
    final = next_elimination_round(second, {3})
    assert final.champion == 3
    with pytest.raises(ValueError, match="over"):
        next_elimination_round(final, {3})


def test_next_round_needs_exactly_one_winner_per_table() -> None:
    first = elimination_bracket([1, 2, 3, 4], 2)
    with pytest.raises(ValueError, match="exactly one winner"):
        next_elimination_round(first, {1})
    with pytest.raises(ValueError, match="exactly one winner"):
        next_elimination_round(first, {1, 4, 2})


def test_shared_first_place_advances_the_better_seed() -> None:
    assert elimination_winner({"x": 1, "y": 1, "z": 3}, ["y", "x", "z"]) == "y"
    assert elimination_winner({"x": 2, "y": 1}, ["x", "y"]) == "y"


def test_bracket_rejects_a_single_entrant() -> None:
    with pytest.raises(ValueError, match="entrants"):
        elimination_bracket([1], 2)


# --- seats ---------------------------------------------------------------------------


@pytest.mark.parametrize("table", [("a", "b"), ("a", "b", "c"), ("a", "b", "c", "d")])
def test_rotations_seat_everyone_once_in_every_seat(table: tuple[str, ...]) -> None:
    games = rotations(table)
    assert games[0] == table
    assert len(games) == len(table)
    for seat in range(len(table)):
        assert sorted(g[seat] for g in games) == sorted(table)


def test_assign_seats_gives_least_played_seats() -> None:
    counts = {"a": [3, 0, 3], "b": [0, 3, 3], "c": [3, 3, 0]}
    assert assign_seats(["a", "b", "c"], counts) == ("b", "a", "c")
    assert assign_seats(["x", "y"], {}) == ("x", "y")


def test_balance_seats_spreads_a_repeated_table_evenly() -> None:
    tables, counts = balance_seats([("a", "b", "c", "d")] * 8)
    assert all(c == [2, 2, 2, 2] for c in counts.values())
    assert len(set(tables)) == 4


def test_balance_seats_does_not_mutate_counts() -> None:
    start = {"a": [1, 0]}
    _, counts = balance_seats([("a", "b")], start)
    assert start == {"a": [1, 0]}
    assert counts == {"a": [1, 1], "b": [1]}


def test_keyed_order_is_a_deterministic_seeded_shuffle() -> None:
    items = list(range(20))
    assert keyed_order(items, seed=7) == keyed_order(reversed(items), seed=7)
    assert keyed_order(items, seed=7) != keyed_order(items, seed=8)
    assert sorted(keyed_order(items, seed=7)) == items
