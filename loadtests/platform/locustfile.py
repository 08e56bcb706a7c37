"""Locust users of the platform's public read API: leaderboard, replay lists, replay steps.

`ViewerUser` is a spectator: it opens the ladder's leaderboard, lists replays (newest
first, or filtered by ladder, bot, winner or owner), and browses steps of random replays
at random steps (public view, or a seat's), with think time between requests.

Environment (`loadtests/platform/run.py` sets it; see loadtests/README.md):
  LOADTEST_PLATFORM_MANIFEST  the seed's manifest (JSON: ladder slug, bot ids, owners,
                              [replay id, steps] pairs)
  LOADTEST_WAIT               think time in seconds between a user's requests, "lo,hi"
                              (uniform); default "0.5,1.5"
The host (`--host`) must be http://127.0.0.1:<port>.
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from locust import HttpUser, between, events, task
from locust.env import Environment


def _manifest() -> dict[str, Any]:
    path = os.environ.get("LOADTEST_PLATFORM_MANIFEST", "")
    if not path:
        raise SystemExit("LOADTEST_PLATFORM_MANIFEST is not set (run loadtests/platform/run.py)")
    found: dict[str, Any] = json.loads(Path(path).read_text())
    return found


def _wait() -> tuple[float, float]:
    lo, _, hi = os.environ.get("LOADTEST_WAIT", "0.5,1.5").partition(",")
    return float(lo), float(hi or lo)


MANIFEST = _manifest()
WAIT = _wait()


def _local_only(environment: Environment, **kwargs: Any) -> None:
    host = urlsplit(environment.host or "").hostname
    if host != "127.0.0.1":
        raise SystemExit(f"--host must be http://127.0.0.1:<port>, not {environment.host!r}")


events.init.add_listener(_local_only)  # type: ignore[no-untyped-call]


class ViewerUser(HttpUser):
    """A spectator of the ladder: leaderboard, replay lists, replay steps."""

    wait_time = between(*WAIT)

    def on_start(self) -> None:
        self._rng = random.Random()
        self._ladder: str = MANIFEST["ladder"]
        self._bots: list[int] = MANIFEST["bots"]
        self._owners: list[str] = MANIFEST["owners"]
        self._replays: list[list[int]] = MANIFEST["replays"]

    @task(2)
    def leaderboard(self) -> None:
        order = self._rng.choice(("elo", "conservative"))
        self.client.get(
            f"/api/v1/ladders/{self._ladder}/leaderboard/?order={order}",
            name="leaderboard",
        )

    @task(2)
    def replay_list(self) -> None:
        query = self._rng.choice(
            (
                "",
                f"?ladder={self._ladder}",
                f"?bot={self._rng.choice(self._bots)}",
                f"?winner={self._rng.choice(self._bots)}",
                f"?owner={self._rng.choice(self._owners)}&kind=ladder",
            )
        )
        self.client.get(f"/api/v1/replays/{query}", name="replay list")

    @task(6)
    def replay_step(self) -> None:
        replay_id, steps = self._rng.choice(self._replays)
        step = self._rng.randint(0, steps)
        viewer = self._rng.choice(("public", "public", "0", "1", "2", "3"))
        self.client.get(
            f"/api/v1/replays/{replay_id}/steps/{step}/?viewer={viewer}", name="replay step"
        )
