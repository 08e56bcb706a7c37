"""Elo by pairwise decomposition: hand-computed values and invariants."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from heights_platform.competition.elo import (
    EloUpdate,
    apply_in_order,
    elo_deltas,
    elo_update,
    expected_score,
)

# 1 / (1 + 10 ** (-200 / 400)) and 1 / (1 + 10 ** (-100 / 400)), worked out by hand
E_200 = 0.7597469266479578
E_100 = 0.6400649998028851


def test_expected_score_of_equal_ratings_is_a_half() -> None:
    assert expected_score(1500, 1500) == 0.5


def test_expected_score_with_a_200_point_gap() -> None:
    assert expected_score(1600, 1400) == pytest.approx(E_200, abs=1e-12)
    assert expected_score(1400, 1600) == pytest.approx(1 - E_200, abs=1e-12)


def test_equal_ratings_winner_gains_half_of_k() -> None:
    assert elo_deltas({"a": 1500, "b": 1500}, {"a": 1, "b": 2}) == {"a": 16.0, "b": -16.0}


def test_favourite_wins_little_and_underdog_wins_much() -> None:
    favourite = elo_deltas({"a": 1600, "b": 1400}, {"a": 1, "b": 2})
    upset = elo_deltas({"a": 1600, "b": 1400}, {"a": 2, "b": 1})
    assert favourite["a"] == pytest.approx(32 * (1 - E_200))  # +7.688
    assert upset["b"] == pytest.approx(32 * E_200)  # +24.312
    assert upset["a"] == pytest.approx(-32 * E_200)


def test_draw_moves_ratings_towards_each_other() -> None:
    deltas = elo_deltas({"a": 1600, "b": 1400}, {"a": 1, "b": 1})
    assert deltas["a"] == pytest.approx(32 * (0.5 - E_200))  # -8.312
    assert deltas["b"] == pytest.approx(-deltas["a"])
    assert elo_deltas({1: 1500, 2: 1500}, {1: 1, 2: 1}) == {1: 0.0, 2: 0.0}


def test_four_equal_players_decompose_into_six_duels() -> None:
    deltas = elo_deltas(dict.fromkeys("abcd", 1500.0), {"a": 1, "b": 2, "c": 3, "d": 4})
    # K / (N - 1) = 32 / 3 per duel; each duel is worth +-0.5 at equal ratings.
    assert deltas["a"] == pytest.approx(32 / 3 * 1.5)
    assert deltas["b"] == pytest.approx(32 / 3 * 0.5)
    assert deltas["c"] == pytest.approx(-32 / 3 * 0.5)
    assert deltas["d"] == pytest.approx(-32 / 3 * 1.5)


def test_four_unequal_players_with_a_tie() -> None:
    ratings = {"a": 1600.0, "b": 1500.0, "c": 1500.0, "d": 1400.0}
    deltas = elo_deltas(ratings, {"a": 1, "b": 2, "c": 2, "d": 4})
    w = 32 / 3
    assert deltas["a"] == pytest.approx(w * ((1 - E_100) * 2 + (1 - E_200)))
    assert deltas["b"] == pytest.approx(w * ((0 - (1 - E_100)) + (0.5 - 0.5) + (1 - E_100)))
    assert deltas["c"] == pytest.approx(deltas["b"])
    assert deltas["d"] == pytest.approx(w * ((0 - (1 - E_200)) + 2 * (0 - (1 - E_100))))


def test_k_and_initial_rating_are_configurable() -> None:
    assert elo_deltas({}, {"new": 1, "old": 2}, k=10) == {"new": 5.0, "old": -5.0}
    update = elo_update({"old": 1500}, {"new": 1, "old": 2}, initial=1500)
    assert update.before == (1500.0, 1500.0)


def test_update_record_is_aligned() -> None:
    update = elo_update({"a": 1500, "b": 1500}, {"b": 1, "a": 2})
    assert update == EloUpdate(
        player_ids=("b", "a"), before=(1500.0, 1500.0), after=(1516.0, 1484.0), delta=(16.0, -16.0)
    )
    assert update.ratings_after() == {"b": 1516.0, "a": 1484.0}


@pytest.mark.parametrize("ranks", [{}, {"a": 1}, {"a": 0, "b": 1}])
def test_invalid_games_are_rejected(ranks: dict[str, int]) -> None:
    with pytest.raises(ValueError, match=r"player|ranks"):
        elo_deltas({}, ranks)


games = st.integers(min_value=2, max_value=4).flatmap(
    lambda n: st.tuples(
        st.lists(st.floats(min_value=0, max_value=3000), min_size=n, max_size=n),
        st.lists(st.integers(min_value=1, max_value=n), min_size=n, max_size=n),
    )
)


@given(games)
def test_deltas_sum_to_zero(game: tuple[list[float], list[int]]) -> None:
    ratings, ranks = game
    deltas = elo_deltas(dict(enumerate(ratings)), dict(enumerate(ranks)))
    assert math.fsum(deltas.values()) == pytest.approx(0, abs=1e-9)


@given(games, st.data())
def test_relabelling_players_relabels_deltas(
    game: tuple[list[float], list[int]], data: st.DataObject
) -> None:
    ratings, ranks = game
    order = data.draw(st.permutations(range(len(ratings))))  # new id i is old id order[i]
    deltas = elo_deltas(dict(enumerate(ratings)), dict(enumerate(ranks)))
    relabelled = elo_deltas(
        {i: ratings[old] for i, old in enumerate(order)},
        {i: ranks[old] for i, old in enumerate(order)},
    )
    for i, old in enumerate(order):
        assert relabelled[i] == pytest.approx(deltas[old], abs=1e-9)


def test_results_apply_in_match_order_and_order_matters() -> None:
    first = {"a": 1, "b": 2}
    second = {"b": 1, "c": 2}
    ratings, updates = apply_in_order([first, second])
    assert [u.player_ids for u in updates] == [("a", "b"), ("b", "c")]
    assert ratings["a"] == 1516.0
    # b meets c already rated 1484, so b's win is worth less than 16.
    assert ratings["b"] == pytest.approx(1484 + 32 * (1 - expected_score(1484, 1500)))
    reversed_ratings, _ = apply_in_order([second, first])
    assert reversed_ratings != ratings
    assert math.fsum(ratings.values()) == pytest.approx(3 * 1500)


def test_apply_in_order_does_not_mutate_the_input() -> None:
    start = {"a": 1500.0, "b": 1500.0}
    after, _ = apply_in_order([{"a": 1, "b": 2}], start)
    assert start == {"a": 1500.0, "b": 1500.0}
    assert after == {"a": 1516.0, "b": 1484.0}
