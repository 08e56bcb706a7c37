"""The Plackett-Luce wrapper: direction of updates, ties, determinism."""

from __future__ import annotations

import pytest

from heights_platform.competition.plackett_luce import (
    DEFAULT_MU,
    DEFAULT_SIGMA,
    Rating,
    conservative,
    fresh_uncertainty,
    pl_update,
)


def test_defaults() -> None:
    assert Rating() == Rating(mu=25.0, sigma=25.0 / 3)
    assert conservative(Rating()) == pytest.approx(0.0)
    assert conservative(Rating(mu=30, sigma=2)) == 24.0


def test_sigma_must_be_positive() -> None:
    with pytest.raises(ValueError, match="sigma"):
        Rating(mu=25, sigma=0)


def test_winner_rises_loser_falls_and_both_grow_surer() -> None:
    after = pl_update({}, {"a": 1, "b": 2})
    assert after["a"].mu > DEFAULT_MU > after["b"].mu
    assert after["a"].sigma < DEFAULT_SIGMA
    assert after["b"].sigma < DEFAULT_SIGMA
    assert conservative(after["a"]) > conservative(after["b"])


def test_a_tie_between_equals_keeps_them_equal() -> None:
    after = pl_update({}, {"a": 1, "b": 1})
    assert after["a"] == after["b"]
    assert after["a"].mu == pytest.approx(DEFAULT_MU)
    assert after["a"].sigma < DEFAULT_SIGMA


def test_tied_players_in_a_three_player_game() -> None:
    after = pl_update({}, {"a": 1, "b": 2, "c": 2})
    assert after["b"] == after["c"]
    assert after["a"].mu > DEFAULT_MU > after["b"].mu


def test_four_player_game_orders_mu_by_rank() -> None:
    after = pl_update({}, {"d": 4, "b": 2, "a": 1, "c": 3})
    mus = [after[p].mu for p in "abcd"]
    assert mus == sorted(mus, reverse=True)
    assert sum(mus) == pytest.approx(4 * DEFAULT_MU)


def test_upset_moves_more_than_expected_result() -> None:
    ratings = {"strong": Rating(mu=35, sigma=3), "weak": Rating(mu=15, sigma=3)}
    expected = pl_update(ratings, {"strong": 1, "weak": 2})
    upset = pl_update(ratings, {"strong": 2, "weak": 1})
    gain = expected["strong"].mu - 35
    loss = 35 - upset["strong"].mu
    assert 0 < gain < loss


def test_update_is_deterministic_and_pure() -> None:
    ratings = {"a": Rating(27, 6), "b": Rating(24, 7), "c": Rating(20, 8)}
    ranks = {"a": 2, "b": 1, "c": 3}
    assert pl_update(ratings, ranks) == pl_update(dict(ratings), dict(ranks))
    assert ratings["a"] == Rating(27, 6)
    reordered = pl_update(ratings, {"c": 3, "a": 2, "b": 1})
    for p, rating in pl_update(ratings, ranks).items():
        assert reordered[p].mu == pytest.approx(rating.mu)
        assert reordered[p].sigma == pytest.approx(rating.sigma)


def test_fresh_uncertainty_keeps_mu_and_resets_sigma() -> None:
    assert fresh_uncertainty(Rating(mu=31.5, sigma=1.2)) == Rating(mu=31.5, sigma=DEFAULT_SIGMA)


@pytest.mark.parametrize("ranks", [{"a": 1}, {"a": 0, "b": 1}])
def test_invalid_games_are_rejected(ranks: dict[str, int]) -> None:
    with pytest.raises(ValueError, match=r"player|ranks"):
        pl_update({}, ranks)
