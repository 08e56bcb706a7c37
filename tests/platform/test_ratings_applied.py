"""Ratings applied through recorded results: known Elo values, Plackett-Luce, counters."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.contrib.auth.models import User

from heights_platform.bots.models import Bot, BotVersion
from heights_platform.competition.plackett_luce import Rating, pl_update
from heights_platform.ladders.models import Ladder, LadderEntry, RatingChange
from heights_platform.ladders.services import ladder_create, ladder_join, ratings_apply
from heights_platform.matches.models import Match
from heights_platform.matches.services import match_create, match_result_record
from heights_runner.contract import MatchResult


def _setup(
    players: int, make_user: Callable[..., User], make_active_bot: Callable[..., Bot]
) -> tuple[Ladder, list[Bot], list[BotVersion]]:
    ladder = ladder_create(slug=f"ladder-{players}", name=f"{players}p", players=players)
    bots = [make_active_bot(make_user()) for _ in range(players)]
    for bot in bots:
        ladder_join(ladder=ladder, bot=bot)
    return ladder, bots, [b.active_version for b in bots if b.active_version]


def _entry(ladder: Ladder, bot: Bot) -> LadderEntry:
    return LadderEntry.objects.get(ladder=ladder, bot=bot)


def test_two_player_elo_known_values(
    make_user: Callable[..., User],
    make_active_bot: Callable[..., Bot],
    play_result: Callable[..., MatchResult],
) -> None:
    ladder, bots, versions = _setup(2, make_user, make_active_bot)
    match = match_create(kind="ladder", seats=versions, players=2, options={}, ladder=ladder)
    winner, loser = 1, 0  # forced: a real 2-player game can end in a shared victory
    match_result_record(result=play_result(match, ranks=[2, 1]))
    won, lost = _entry(ladder, bots[winner]), _entry(ladder, bots[loser])
    assert won.elo == pytest.approx(1516.0)
    assert lost.elo == pytest.approx(1484.0)
    expected = pl_update({0: Rating(), 1: Rating()}, {winner: 1, loser: 2})
    assert won.mu == pytest.approx(expected[winner].mu)
    assert lost.sigma == pytest.approx(expected[loser].sigma)
    assert won.mu > 25.0 > lost.mu
    assert (won.games, won.wins, lost.games, lost.wins) == (1, 1.0, 1, 0.0)
    assert won.seat_counts[winner] == 1
    assert sum(won.seat_counts) == 1
    assert won.last_match_at is not None
    change = RatingChange.objects.get(entry=won, match=match)
    assert (change.elo_before, change.elo_after, change.rank) == (1500.0, won.elo, 1)


def test_second_game_uses_the_first_games_ratings(
    make_user: Callable[..., User],
    make_active_bot: Callable[..., Bot],
    play_result: Callable[..., MatchResult],
) -> None:
    ladder, bots, versions = _setup(2, make_user, make_active_bot)
    first = match_create(kind="ladder", seats=versions, players=2, options={}, ladder=ladder)
    match_result_record(result=play_result(first, ranks=[1, 2]))
    second = match_create(kind="ladder", seats=versions[::-1], players=2, options={}, ladder=ladder)
    # Seat 0 is bots[1] now, and wins: 1484 beats 1516.
    match_result_record(result=play_result(second, ranks=[1, 2]))
    a, b = _entry(ladder, bots[0]), _entry(ladder, bots[1])
    expected_gain = 32 * (1 - 1 / (1 + 10 ** ((1516 - 1484) / 400)))
    assert b.elo == pytest.approx(1484 + expected_gain)
    assert a.elo == pytest.approx(1516 - expected_gain)
    assert a.seat_counts == [1, 1]
    assert a.games == b.games == 2


def test_multiplayer_pairwise_decomposition(
    make_user: Callable[..., User],
    make_active_bot: Callable[..., Bot],
    play_result: Callable[..., MatchResult],
) -> None:
    ladder, bots, versions = _setup(3, make_user, make_active_bot)
    match = match_create(kind="ladder", seats=versions, players=3, options={}, ladder=ladder)
    match_result_record(result=play_result(match, ranks=[2, 3, 1]))
    elos = [_entry(ladder, bot).elo for bot in bots]
    # K = 32 split over 2 opponents: the winner +16, the middle 0, the last -16.
    assert elos == pytest.approx([1500.0, 1484.0, 1516.0])
    assert sum(elos) == pytest.approx(4500.0)


def test_shared_victory_counts_a_fraction(
    make_user: Callable[..., User],
    make_active_bot: Callable[..., Bot],
    play_result: Callable[..., MatchResult],
) -> None:
    ladder, bots, versions = _setup(3, make_user, make_active_bot)
    match = match_create(kind="ladder", seats=versions, players=3, options={}, ladder=ladder)
    match_result_record(result=play_result(match, ranks=[1, 1, 3]))
    entries = [_entry(ladder, bot) for bot in bots]
    assert [e.wins for e in entries] == [0.5, 0.5, 0.0]
    assert entries[0].elo == pytest.approx(entries[1].elo)
    assert entries[0].elo > 1500 > entries[2].elo


def test_a_forfeiting_seat_ranks_last_and_loses_rating(
    make_user: Callable[..., User],
    make_active_bot: Callable[..., Bot],
    play_result: Callable[..., MatchResult],
) -> None:
    ladder, bots, versions = _setup(2, make_user, make_active_bot)
    match = match_create(kind="ladder", seats=versions, players=2, options={}, ladder=ladder)
    match_result_record(result=play_result(match, forfeit_seat=0))
    assert _entry(ladder, bots[0]).elo == pytest.approx(1484.0)
    assert _entry(ladder, bots[1]).elo == pytest.approx(1516.0)


def test_unrated_kinds_and_failed_matches_change_no_rating(
    make_user: Callable[..., User],
    make_active_bot: Callable[..., Bot],
    play_result: Callable[..., MatchResult],
) -> None:
    ladder, _bots, versions = _setup(2, make_user, make_active_bot)
    challenge = match_create(kind="challenge", seats=versions, players=2, options={})
    match_result_record(result=play_result(challenge))
    failed = match_create(kind="ladder", seats=versions, players=2, options={}, ladder=ladder)
    match_result_record(result=MatchResult(str(failed.pk), "failed", failed.seed, "", error="x"))
    assert not RatingChange.objects.exists()
    assert set(LadderEntry.objects.values_list("elo", "games")) == {(1500.0, 0)}


def test_ratings_apply_is_exactly_once_and_in_order(
    make_user: Callable[..., User],
    make_active_bot: Callable[..., Bot],
    play_result: Callable[..., MatchResult],
) -> None:
    ladder, bots, versions = _setup(2, make_user, make_active_bot)
    older = match_create(kind="ladder", seats=versions, players=2, options={}, ladder=ladder)
    newer = match_create(kind="ladder", seats=versions, players=2, options={}, ladder=ladder)
    match_result_record(result=play_result(older))
    match_result_record(result=play_result(newer))
    before = list(LadderEntry.objects.order_by("pk").values_list("elo", "games"))
    assert ratings_apply(match=Match.objects.get(pk=newer.pk)) == []  # already applied
    # An older match whose ratings were lost (e.g. deleted by hand) is not re-applied
    # after a newer one: ratings would depend on the order of repair.
    RatingChange.objects.filter(match=older).delete()
    assert ratings_apply(match=Match.objects.get(pk=older.pk)) == []
    assert list(LadderEntry.objects.order_by("pk").values_list("elo", "games")) == before
    assert RatingChange.objects.count() == 2
    assert {e.games for e in LadderEntry.objects.filter(bot__in=bots)} == {2}
