"""Kendall's tau against a true order with ties (several bots of one kind)."""

from __future__ import annotations

import pytest

from heights_cli.rank_correlation import kendall_tau


def test_the_same_order_is_one_and_the_reverse_minus_one() -> None:
    assert kendall_tau([1, 2, 3, 4], [10, 20, 30, 40]) == 1.0
    assert kendall_tau([1, 2, 3, 4], [40, 30, 20, 10]) == -1.0


def test_one_swapped_pair_of_four() -> None:
    # 6 pairs, 5 concordant and 1 discordant: (5 - 1) / 6.
    assert kendall_tau([1, 2, 3, 4], [1, 3, 2, 4]) == pytest.approx(4 / 6)


def test_pairs_tied_in_truth_do_not_count() -> None:
    # Two copies of each of two kinds: any order of the copies is right.
    assert kendall_tau([0, 0, 1, 1], [2, 1, 4, 3]) == 1.0
    assert kendall_tau([0, 0, 1, 1], [1, 3, 2, 4]) == pytest.approx((3 - 1) / 4)


def test_a_measured_tie_counts_neither_way() -> None:
    assert kendall_tau([1, 2, 3], [5, 5, 9]) == pytest.approx(2 / 3)


def test_nothing_to_order_is_zero_and_lengths_must_match() -> None:
    assert kendall_tau([1, 1, 1], [1, 2, 3]) == 0.0
    with pytest.raises(ValueError, match="the lists differ in length: 2 and 3"):
        kendall_tau([1, 2], [1, 2, 3])
