"""Locust users of the platform's public reads: the four of issue 19 and the replay list.

`ViewerUser` is a spectator with think time between requests. Per ten requests:

- 2 `leaderboard`: the ladder's leaderboard (`/api/v1/ladders/{slug}/leaderboard/`);
- 1 `bot`: a random bot's detail in the API (`/api/v1/bots/{id}/`), and 1 `bot page`:
  its page on the site (`/bots/{id}/`, HTML: versions, rating charts, latest matches);
- 2 `matches by bot`: the match list filtered by a random bot (`/api/v1/matches/?bot=`);
- 1 `replay list`: replays, newest first or filtered by ladder, bot, winner or owner;
- 3 `replay step`: a random step of a random replay, as the public or a seat.

Bots are drawn by Zipf popularity (`popularity.py`, exponent LOADTEST_ZIPF), the same
ranking in every user; replays and steps uniformly (the step costs the same hit or miss
of the bot pages' cache: it is never cached whole).

Environment (`loadtests/platform/run.py` sets it; see loadtests/README.md):
  LOADTEST_PLATFORM_MANIFEST  the seed's manifest (JSON: ladder slug, bot ids, owners,
                              [replay id, steps] pairs)
  LOADTEST_WAIT               think time in seconds between a user's requests, "lo,hi"
                              (uniform); default "0.5,1.5"
  LOADTEST_ZIPF               the exponent of the bots' popularity (default 0.8; 0 draws
                              them uniformly)
The host (`--host`) must be http://127.0.0.1:<port>.
"""

from __future__ import annotations

import importlib
import json
import os
import random
import sys
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from locust import HttpUser, between, events, task
from locust.env import Environment

sys.path.insert(0, str(Path(__file__).resolve().parent))
popularity = importlib.import_module("popularity")  # the sibling module


def _manifest() -> dict[str, Any]:
    path = os.environ.get("LOADTEST_PLATFORM_MANIFEST", "")
    if not path:
        raise SystemExit("LOADTEST_PLATFORM_MANIFEST is not set (run loadtests/platform/run.py)")
    found: dict[str, Any] = json.loads(Path(path).read_text())
    return found


def _wait() -> tuple[float, float]:
    lo, _, hi = os.environ.get("LOADTEST_WAIT", "0.5,1.5").partition(",")
    return float(lo), float(hi or lo)


def _exponent() -> float:
    text = os.environ.get("LOADTEST_ZIPF", "").strip()
    try:
        return float(text) if text else float(popularity.DEFAULT_EXPONENT)
    except ValueError:
        raise SystemExit(f"LOADTEST_ZIPF must be a number, not {text!r}") from None


MANIFEST = _manifest()
WAIT = _wait()
BOTS = popularity.Zipf(MANIFEST["bots"], exponent=_exponent())


def _local_only(environment: Environment, **kwargs: Any) -> None:
    host = urlsplit(environment.host or "").hostname
    if host != "127.0.0.1":
        raise SystemExit(f"--host must be http://127.0.0.1:<port>, not {environment.host!r}")


events.init.add_listener(_local_only)  # type: ignore[no-untyped-call]


class ViewerUser(HttpUser):
    """A spectator of the ladder: leaderboard, bots, their matches, replays and steps."""

    wait_time = between(*WAIT)

    def on_start(self) -> None:
        self._rng = random.Random()
        self._ladder: str = MANIFEST["ladder"]
        self._owners: list[str] = MANIFEST["owners"]
        self._replays: list[list[int]] = MANIFEST["replays"]

    def _bot(self) -> int:
        drawn: int = BOTS.draw(self._rng)
        return drawn

    @task(2)
    def leaderboard(self) -> None:
        order = self._rng.choice(("elo", "conservative"))
        self.client.get(
            f"/api/v1/ladders/{self._ladder}/leaderboard/?order={order}",
            name="leaderboard",
        )

    @task(1)
    def bot(self) -> None:
        self.client.get(f"/api/v1/bots/{self._bot()}/", name="bot")

    @task(1)
    def bot_page(self) -> None:
        self.client.get(f"/bots/{self._bot()}/", name="bot page")

    @task(2)
    def matches_by_bot(self) -> None:
        self.client.get(f"/api/v1/matches/?bot={self._bot()}", name="matches by bot")

    @task(1)
    def replay_list(self) -> None:
        query = self._rng.choice(
            (
                "",
                f"?ladder={self._ladder}",
                f"?bot={self._bot()}",
                f"?winner={self._bot()}",
                f"?owner={self._rng.choice(self._owners)}&kind=ladder",
            )
        )
        self.client.get(f"/api/v1/replays/{query}", name="replay list")

    @task(3)
    def replay_step(self) -> None:
        replay_id, steps = self._rng.choice(self._replays)
        step = self._rng.randint(0, steps)
        viewer = self._rng.choice(("public", "public", "0", "1", "2", "3"))
        self.client.get(
            f"/api/v1/replays/{replay_id}/steps/{step}/?viewer={viewer}", name="replay step"
        )
