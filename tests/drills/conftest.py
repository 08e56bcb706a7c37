"""Failure drills: real processes are killed, cut off or restarted, and nothing is lost.

Every drill is marked `drill` (`pytest -m drill` selects them; the normal suite runs them
too). They share the machine's Redis under key prefixes of their own, except the Redis
restart drill, which starts a private `redis-server` with an append-only file.
"""

from __future__ import annotations

import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "drill: a failure drill with real processes (tests/drills)")
