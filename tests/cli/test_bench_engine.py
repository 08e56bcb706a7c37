"""`heights bench-engine-handler`: random games through the real handler and store."""

from __future__ import annotations

import asyncio

from tests.real_redis import TEST_REDIS_URL

from heights_cli.bench_engine import play


def test_a_game_through_the_handler_verifies_and_repeats_for_its_seed() -> None:
    first = asyncio.run(play(1, 3, seed=5))
    again = asyncio.run(play(1, 3, seed=5))
    assert first.verified
    # Every request is a seat's decision; chance steps and forced decisions add steps.
    assert 0 < first.decisions < first.steps
    assert (again.decisions, again.steps) == (first.decisions, first.steps)
    assert first.cpu_us_per_decision > 0


def test_the_redis_store_plays_the_same_game() -> None:
    url = TEST_REDIS_URL
    memory = asyncio.run(play(1, 2, seed=9))
    redis = asyncio.run(play(1, 2, seed=9, redis_url=url))
    assert redis.verified
    assert (redis.decisions, redis.steps) == (memory.decisions, memory.steps)


def test_the_load_tests_lean_requests_play_whole_games() -> None:
    lean = asyncio.run(play(1, 2, seed=9, lean=True))
    again = asyncio.run(play(1, 2, seed=9, lean=True))
    assert lean.verified
    assert 0 < lean.decisions < lean.steps  # the service rolls the chance steps
    assert (again.decisions, again.steps) == (lean.decisions, lean.steps)
