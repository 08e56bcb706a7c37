"""The batch rating paths give exactly the ratings of the one-at-a-time path.

Two ladders with the same bots get the same games (same seats, same ranks, in the same
order): one records them one at a time (`match_result_record`, rated in each result's
transaction), the other in one batch (`match_results_record`); then the first ladder's
whole history is rated again (`ladder_ratings_recompute`). Floats are compared with
`==`: the paths must agree to the last bit, not approximately.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from django.contrib.auth.models import User

from heights_platform.bots.models import Bot, BotVersion
from heights_platform.bots.services import bot_version_qualification_finished
from heights_platform.ladders.models import Ladder, LadderEntry, RatingChange
from heights_platform.ladders.services import (
    ladder_create,
    ladder_join,
    ladder_ratings_recompute,
    ratings_apply_pending,
)
from heights_platform.matches.models import Match
from heights_platform.matches.services import (
    match_create,
    match_result_record,
    match_results_record,
)
from heights_runner.contract import MatchResult

SHORT = {"round_cap": 1}  # one-round games: the ratings, not the games, are under test
ENTRY_FIELDS = ("bot_id", "elo", "mu", "sigma", "games", "wins", "seat_counts")
CHANGE_FIELDS = (
    "entry__bot_id",
    "rank",
    *("elo_before", "elo_after", "mu_before", "mu_after", "sigma_before", "sigma_after"),
)


def _ladder(slug: str, bots: list[Bot]) -> Ladder:
    ladder = ladder_create(slug=slug, name=slug, players=4, options=SHORT)
    for bot in bots:
        ladder_join(ladder=ladder, bot=bot)
    return ladder


def _games(bots: list[Bot], count: int) -> list[tuple[list[Bot], list[int]]]:
    rng = random.Random(11)
    played = []
    for _ in range(count):
        ranks = rng.sample([1, 2, 3, 4], 4)
        if rng.random() < 0.3:  # a shared first place now and then
            ranks = [1 if r == 2 else r for r in ranks]
        played.append((rng.sample(bots, 4), ranks))
    return played


def _results(
    ladder: Ladder, games: list[tuple[list[Bot], list[int]]], play: Callable[..., MatchResult]
) -> list[MatchResult]:
    results = []
    for seated, ranks in games:
        versions = [b.active_version for b in seated if b.active_version is not None]
        match = match_create(kind="ladder", seats=versions, players=4, options=SHORT, ladder=ladder)
        results.append(play(match, ranks=ranks))
    return results


def _entries(ladder: Ladder) -> list[tuple[Any, ...]]:
    return list(
        LadderEntry.objects.filter(ladder=ladder).order_by("bot_id").values_list(*ENTRY_FIELDS)
    )


def _changes(ladder: Ladder) -> list[tuple[Any, ...]]:
    changes = RatingChange.objects.filter(entry__ladder=ladder)
    ordered = changes.order_by("match__finished_seq", "entry__bot_id")
    return list(ordered.values_list(*CHANGE_FIELDS))


def test_batch_and_recompute_equal_one_at_a_time(
    make_user: Callable[..., User],
    make_active_bot: Callable[..., Bot],
    play_result: Callable[..., MatchResult],
    sent_tasks: list[dict[str, Any]],
) -> None:
    bots = [make_active_bot(make_user()) for _ in range(6)]
    games = _games(bots, 16)
    single, batch = _ladder("single", bots), _ladder("batch", bots)
    for result in _results(single, games, play_result):
        match_result_record(result=result)
    batch_results = _results(batch, games, play_result)
    recorded = match_results_record(results=batch_results)
    assert all(m is not None and m.status == Match.Status.FINISHED for m in recorded)

    expected = _entries(single)
    assert [e[1:] for e in _entries(batch)] == [e[1:] for e in expected]
    assert _changes(batch) == _changes(single)
    assert len(_changes(single)) == 16 * 4
    batch.refresh_from_db()
    assert batch.rated_seq == max(m.finished_seq for m in recorded if m and m.finished_seq)

    # Recomputing rates the same history again: the same ratings, the same changes.
    seq_before = Ladder.objects.get(pk=single.pk).rated_seq
    changes_before = _changes(single)
    assert ladder_ratings_recompute(ladder=single) == 16
    assert _entries(single) == expected
    assert _changes(single) == changes_before
    assert Ladder.objects.get(pk=single.pk).rated_seq == seq_before

    # Exactly once: nothing is pending, and a redelivered batch changes nothing.
    assert ratings_apply_pending(ladder=batch) == 0
    match_results_record(results=batch_results[:5])
    assert RatingChange.objects.filter(entry__ladder=batch).count() == 16 * 4
    assert [e[1:] for e in _entries(batch)] == [e[1:] for e in expected]


def test_pending_rates_only_after_rated_seq_and_in_match_order(
    make_user: Callable[..., User],
    make_active_bot: Callable[..., Bot],
    play_result: Callable[..., MatchResult],
    sent_tasks: list[dict[str, Any]],
) -> None:
    bots = [make_active_bot(make_user()) for _ in range(4)]
    games = _games(bots, 6)
    single, batch = _ladder("single", bots), _ladder("batch", bots)
    for result in _results(single, games, play_result):
        match_result_record(result=result)
    results = _results(batch, games, play_result)
    # The first two one at a time, the rest as a batch: the batch continues from them.
    for result in results[:2]:
        match_result_record(result=result)
    match_results_record(results=results[2:])
    assert [e[1:] for e in _entries(batch)] == [e[1:] for e in _entries(single)]
    assert _changes(batch) == _changes(single)


def test_recompute_resets_sigma_where_a_new_version_starts(
    make_user: Callable[..., User],
    make_active_bot: Callable[..., Bot],
    play_result: Callable[..., MatchResult],
    sent_tasks: list[dict[str, Any]],
) -> None:
    bots = [make_active_bot(make_user()) for _ in range(4)]
    ladder = _ladder("versions", bots)
    games = _games(bots, 6)
    for result in _results(ladder, games[:3], play_result):
        match_result_record(result=result)
    # bots[0] gets a new version between games: its sigma goes back to the default.
    old = bots[0].active_version
    assert old is not None
    new = BotVersion.objects.create(
        bot=bots[0], number=2, kind=old.kind, filename=old.filename, sha256="0" * 64,
        size=old.size, content=bytes(old.content),
    )  # fmt: skip
    qualifier = match_create(kind="challenge", seats=[new, old], players=2, options=SHORT)
    bot_version_qualification_finished(version=new, match=qualifier, passed=True, error="")
    for bot in bots:
        bot.refresh_from_db()
    for result in _results(ladder, games[3:], play_result):
        match_result_record(result=result)
    live_entries, live_changes = _entries(ladder), _changes(ladder)
    assert ladder_ratings_recompute(ladder=ladder) == 6
    assert _entries(ladder) == live_entries
    assert _changes(ladder) == live_changes
