"""Standings: points, each tie-break in turn, shared places."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from heights_platform.competition.standings import (
    GameRecord,
    Standing,
    compute_standings,
    game_points,
)
from heights_rules import score_ranks


def duel(winner: str, loser: str) -> GameRecord[str]:
    return GameRecord(ranks={winner: 1, loser: 2})


def order(rows: list[Standing[str]]) -> list[tuple[str, int]]:
    return [(r.player, r.place) for r in rows]


def test_game_points_split_a_shared_first() -> None:
    assert game_points({"a": 1, "b": 2, "c": 3}) == {"a": 1, "b": 0, "c": 0}
    assert game_points({"a": 1, "b": 1, "c": 3}) == {
        "a": Fraction(1, 2),
        "b": Fraction(1, 2),
        "c": 0,
    }


def test_a_three_way_shared_first_adds_up_exactly() -> None:
    games = [GameRecord(ranks=dict.fromkeys("abc", 1))] * 3 + [duel("d", "e")]
    rows = compute_standings(list("abcde"), games, use_buchholz=False)
    assert rows[0].points == 1.0
    # Equal points, average rank 1 each; shared games are worth nothing head to head.
    assert {r.player for r in rows if r.place == 1} == {"a", "b", "c", "d"}


def test_points_order_the_table() -> None:
    rows = compute_standings(["c", "b", "a"], [duel("a", "b"), duel("b", "c"), duel("a", "c")])
    assert order(rows) == [("a", 1), ("b", 2), ("c", 3)]
    assert [r.points for r in rows] == [2.0, 1.0, 0.0]
    assert rows[0].games == 2
    assert rows[0].average_rank == 1.0


def test_average_rank_separates_seconds_from_lasts() -> None:
    games = [
        GameRecord(ranks={"w": 1, "a": 2, "b": 3}),
        GameRecord(ranks={"w": 1, "b": 2, "a": 3}),
        GameRecord(ranks={"w": 1, "a": 2, "b": 3}),
    ]
    rows = compute_standings(["b", "a", "w"], games)
    assert order(rows) == [("w", 1), ("a", 2), ("b", 3)]
    assert rows[1].average_rank == pytest.approx(7 / 3)


def test_buchholz_rewards_stronger_opponents() -> None:
    # a and b both won once; a beat x, who also beat y, b beat z, who won nothing.
    games = [duel("a", "x"), duel("b", "z"), duel("x", "y")]
    rows = compute_standings(["b", "a", "x", "y", "z"], games)
    assert order(rows)[:2] == [("a", 1), ("b", 2)]
    assert rows[0].buchholz == 1.0
    assert rows[1].buchholz == 0.0


def test_buchholz_can_be_switched_off() -> None:
    games = [duel("a", "x"), duel("b", "z"), duel("x", "y")]
    rows = compute_standings(["b", "a", "x", "y", "z"], games, use_buchholz=False)
    assert order(rows)[:2] == [("b", 1), ("a", 1)]
    assert all(r.buchholz == 0 for r in rows)


def test_head_to_head_breaks_a_tie_on_points() -> None:
    # x: 1 point in 1 game (average rank 1); a and b: 1 point in 2 games each, but a
    # beat b directly.
    games = [duel("a", "b"), duel("x", "a"), duel("b", "y")]
    rows = compute_standings(["b", "a", "x", "y"], games, use_buchholz=False)
    assert order(rows) == [("x", 1), ("a", 2), ("b", 3), ("y", 4)]
    assert (rows[1].head_to_head, rows[2].head_to_head) == (0.5, -0.5)


def test_a_cycle_stays_tied_head_to_head() -> None:
    games = [duel("a", "b"), duel("b", "x"), duel("y", "a"), duel("x", "y")]
    rows = compute_standings(["b", "a", "x", "y"], games, use_buchholz=False)
    # Everyone: 1 point, average rank 1.5, and a net zero inside the tied group.
    assert all(r.head_to_head == 0 for r in rows)
    assert order(rows) == [("b", 1), ("a", 1), ("x", 1), ("y", 1)]


def test_total_score_is_the_last_tie_break() -> None:
    games = [
        GameRecord(ranks={"a": 1, "x": 2}, scores={"a": 40, "x": 10}),
        GameRecord(ranks={"b": 1, "y": 2}, scores={"b": 55, "y": 10}),
    ]
    rows = compute_standings(["a", "b", "x", "y"], games, use_buchholz=False)
    assert order(rows) == [("b", 1), ("a", 2), ("x", 3), ("y", 3)]
    assert rows[0].score == 55


def test_fully_tied_players_share_a_place_in_seed_order() -> None:
    rows = compute_standings(["q", "p", "r"], [GameRecord(ranks={"p": 1, "q": 1, "r": 3})])
    assert order(rows) == [("q", 1), ("p", 1), ("r", 3)]


def test_byes_score_points_but_not_games() -> None:
    rows = compute_standings(["a", "b", "c"], [duel("a", "b")], byes={"c": 1})
    assert [(r.player, r.points, r.games, r.byes) for r in rows] == [
        ("a", 1.0, 1, 0),
        ("c", 1.0, 0, 1),
        ("b", 0.0, 1, 0),
    ]
    assert rows[1].average_rank is None
    half = compute_standings(["a", "c"], [], byes={"c": 1}, bye_points=0.5)
    assert half[0].points == 0.5


def test_unknown_players_are_rejected() -> None:
    with pytest.raises(ValueError, match="not in the tournament"):
        compute_standings(["a"], [duel("a", "b")])


game_lists = st.lists(
    st.lists(st.integers(min_value=0, max_value=3), min_size=2, max_size=4)
    .map(lambda scores: score_ranks(scores, [0] * len(scores)))  # a game's ranks, ties shared
    .flatmap(
        lambda ranks: st.permutations(range(6)).map(
            lambda players: GameRecord(ranks=dict(zip(players, ranks, strict=False)))
        )
    ),
    max_size=12,
)


@given(game_lists)
def test_table_is_consistent_and_independent_of_game_order(games: list[GameRecord[int]]) -> None:
    players = list(range(6))
    rows = compute_standings(players, games)
    assert sorted(r.player for r in rows) == players
    assert [r.points for r in rows] == sorted((r.points for r in rows), reverse=True)
    for i, row in enumerate(rows):
        assert row.place == i + 1 or row.place == rows[i - 1].place
    assert sum(r.points for r in rows) == pytest.approx(len(games))
    assert compute_standings(players, list(reversed(games))) == rows
