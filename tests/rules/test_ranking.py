"""heights_rules.ranking: ranks, forfeits and shared-first points (hypothesis over ties).

The oracles here are written another way than the module: a rank is one plus the number
of players with a strictly better sort key, the key being (forfeited, engine rank).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from heights_rules import (
    MAYOR_SEAT,
    GameConfig,
    final_ranks,
    new_game,
    players_ranked,
    score_ranks,
    shared_first_points,
)

# Few distinct values, so that ties (in VP, then in meeples too) are common.
_scores = st.integers(min_value=0, max_value=3)


@st.composite
def finished_games(draw: st.DrawFn, *, solo: bool = False) -> tuple[tuple[int, ...], set[int]]:
    """Engine ranks of a game (from drawn VP and meeples) and a set of forfeiting seats."""
    n = 2 if solo else draw(st.integers(min_value=2, max_value=4))
    totals = draw(st.lists(_scores, min_size=n, max_size=n))
    meeples = draw(st.lists(_scores, min_size=n, max_size=n))
    seats = [0] if solo else list(range(n))
    forfeited = draw(st.sets(st.sampled_from(seats)))
    return score_ranks(totals, meeples), forfeited


def _competition_ranks(keys: Sequence[tuple[int, ...]]) -> tuple[int, ...]:
    return tuple(1 + sum(1 for other in keys if other < key) for key in keys)


def _is_ranking(ranks: Sequence[int]) -> bool:
    """1-based, ties shared, the next rank skipping: sorted, each is 1 + its index or
    repeats the one before."""
    order = sorted(ranks)
    return all(r == i + 1 or (i > 0 and r == order[i - 1]) for i, r in enumerate(order))


@given(st.integers(2, 4).flatmap(lambda n: st.tuples(*[st.tuples(_scores, _scores)] * n)))
def test_score_ranks_order_by_vp_then_meeples_and_share_full_ties(
    keys: tuple[tuple[int, int], ...],
) -> None:
    ranks = score_ranks([k[0] for k in keys], [k[1] for k in keys])
    assert ranks == _competition_ranks([(-vp, -m) for vp, m in keys])
    assert _is_ranking(ranks)


@given(finished_games())
def test_final_ranks_put_forfeits_below_everyone_ordered_by_the_engine(
    game: tuple[tuple[int, ...], set[int]],
) -> None:
    engine, forfeited = game
    ranks = final_ranks(engine, forfeited)
    assert ranks == _competition_ranks([(p in forfeited, r) for p, r in enumerate(engine)])
    assert _is_ranking(ranks)
    clean = [ranks[p] for p in range(len(engine)) if p not in forfeited]
    lost = [ranks[p] for p in forfeited]
    assert all(c < f for c in clean for f in lost)


@given(finished_games())
def test_without_forfeits_the_final_ranks_are_the_engines(
    game: tuple[tuple[int, ...], set[int]],
) -> None:
    engine, _ = game
    assert final_ranks(engine) == engine
    assert final_ranks(engine, set()) == engine


@given(finished_games(solo=True))
def test_a_solo_game_ranks_the_mayor_like_a_player(
    game: tuple[tuple[int, ...], set[int]],
) -> None:
    engine, forfeited = game
    ranks = final_ranks(engine, forfeited, solo=True)
    if forfeited:
        assert ranks == (2, 1)  # below the Mayor whatever the score
    else:
        assert ranks == engine  # the Mayor's win makes the seat 2nd, not a failed match
    assert ranks[MAYOR_SEAT] in (1, 2)


@given(finished_games())
def test_shared_first_points_split_one_point_among_the_firsts(
    game: tuple[tuple[int, ...], set[int]],
) -> None:
    ranks = final_ranks(*game)
    points = shared_first_points(ranks)
    firsts = ranks.count(1)
    assert sum(points) == 1
    assert points == tuple(Fraction(1, firsts) if r == 1 else Fraction(0) for r in ranks)


def test_the_runners_recorded_rankings_are_kept() -> None:
    """The runner's examples (tests/runner/test_protocol.py before this module): recorded
    matches re-verify through final_ranks, so these must not change."""
    assert final_ranks((1, 2, 3, 4), {0}) == (4, 1, 2, 3)
    assert final_ranks((1, 1, 3, 4), {1}) == (1, 4, 2, 3)
    assert final_ranks((2, 1, 3, 3), {2, 3}) == (2, 1, 3, 3)
    assert final_ranks((3, 1, 2, 4), {0, 1}) == (4, 3, 1, 2)


def test_a_shared_first_with_the_mayor_is_half_a_point() -> None:
    assert shared_first_points(final_ranks((1, 1), solo=True)) == (Fraction(1, 2),) * 2
    assert shared_first_points(final_ranks((2, 1), solo=True)) == (Fraction(0), Fraction(1))


def test_the_mayor_is_the_player_after_the_seat() -> None:
    state = new_game(GameConfig.solo_game(), 3)
    assert state.n_players == players_ranked(1, solo=True) == MAYOR_SEAT + 1
    assert players_ranked(3, solo=False) == 3


@pytest.mark.parametrize(
    ("ranks", "forfeited", "solo", "message"),
    [
        ((1,), (), False, "2 to 4 players, not 1"),
        ((1, 2, 3, 4, 5), (), False, "2 to 4 players, not 5"),
        ((1, 2, 3), (), True, "solo game ranks 2 players"),
        ((1, 3), (), False, "not 1-based with ties shared"),
        ((0, 1), (), False, "not 1-based with ties shared"),
        ((1, 1, 2), (), False, "not 1-based with ties shared"),
        ((1, 2), (2,), False, "forfeited seats [2] are not seats 0..1"),
        ((1, 2), (-1,), False, "forfeited seats [-1]"),
        ((2, 1), (MAYOR_SEAT,), True, "the Mayor (player 1) cannot forfeit"),
    ],
)
def test_bad_input_is_refused_by_name(
    ranks: tuple[int, ...], forfeited: tuple[int, ...], solo: bool, message: str
) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        final_ranks(ranks, forfeited, solo=solo)


@pytest.mark.parametrize("ranks", [(), (2, 3), (0, 1)])
def test_points_need_a_first_place(ranks: tuple[int, ...]) -> None:
    with pytest.raises(ValueError, match="need a first place"):
        shared_first_points(ranks)


def test_score_ranks_refuses_unpaired_counts() -> None:
    with pytest.raises(ValueError, match="3 totals but 2 meeple counts"):
        score_ranks([1, 2, 3], [0, 0])
