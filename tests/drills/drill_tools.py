"""Helpers shared by the drills: polling with a useful failure, a private Redis."""

from __future__ import annotations

import signal
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
import redis
from tests.real_redis import TEST_REDIS_URL

REDIS = TEST_REDIS_URL


def wait_for(what: str, ready: Callable[[], bool], timeout: float, log: str = "") -> None:
    """Poll `ready` until it holds; fail naming `what` (with a log tail) after `timeout` s."""
    deadline = time.monotonic() + timeout
    while not ready():
        if time.monotonic() > deadline:
            pytest.fail(f"{what}: not within {timeout:.0f} s\n{log[-3000:]}")
        time.sleep(0.1)


@dataclass
class PrivateRedis:
    """A `redis-server` of the test's own, every write fsynced to its append-only file."""

    port: int
    folder: Path
    proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        argv = ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1"]
        argv += ["--appendonly", "yes", "--appendfsync", "always", "--save", ""]
        argv += ["--dir", str(self.folder)]
        with open(self.folder / "redis.log", "ab") as log:
            self.proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT)
        wait_for("private Redis answers", self._answers, 10)

    def _answers(self) -> bool:
        try:
            return bool(redis.Redis.from_url(self.url, socket_connect_timeout=0.2).ping())
        except redis.RedisError:
            return False

    def stop(self, sig: int = signal.SIGTERM) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(sig)
            self.proc.wait(timeout=10)
        self.proc = None
