"""Where the tests find their real Redis: HEIGHTS_TEST_REDIS_URL, or db 0 of the machine's.

One place for every test that talks to Redis (the engine's store, the runner's ledger and
broker stacks, the platform's cache, the drills, the load test's run), so that pointing
the tests at another Redis or db moves all of them; each test keeps to a key prefix of
its own there.
"""

from __future__ import annotations

import os

import redis

TEST_REDIS_URL = os.environ.get("HEIGHTS_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")


def redis_forget(prefix: str, url: str = TEST_REDIS_URL) -> None:
    """Delete every key under a test's prefix (its broker's, its engine store's)."""
    client = redis.Redis.from_url(url)
    try:
        keys = list(client.scan_iter(f"{prefix}*"))
        if keys:
            client.delete(*keys)
    finally:
        client.close()
