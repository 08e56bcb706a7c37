"""The test stack itself: what a runner test leaves in the shared Redis."""

from __future__ import annotations

from pathlib import Path

import redis
from tests.real_redis import TEST_REDIS_URL
from tests.runner.worker_stack import runner_stack


def test_a_stack_deletes_its_keys_when_it_stops(tmp_path: Path) -> None:
    client = redis.Redis.from_url(TEST_REDIS_URL)
    try:
        with runner_stack(tmp_path) as stack:
            # What a match leaves: a broker binding, an engine record, under the prefix.
            client.set(f"{stack.prefix}_kombu.binding.matches", "x")
            client.set(f"{stack.prefix}engine:game:g:record", "x")
            prefix = stack.prefix
        assert list(client.scan_iter(f"{prefix}*")) == []
    finally:
        client.close()
