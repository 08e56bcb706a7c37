"""Where the platform's tests find their real Redis (HEIGHTS_TEST_REDIS_URL): one place
for the tests that talk to it directly and for conftest's `redis_backend` fixture."""

from __future__ import annotations

import os

TEST_REDIS_URL = os.environ.get("HEIGHTS_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")
