"""Server CPU a request of the load test's mix, in one process, without HTTP or locust.

The locust users' requests (2 leaderboard : 1 bot : 1 bot page : 2 matches by bot :
1 replay list : 3 replay step, the same random choices as `locustfile.py`, bots by the
same Zipf popularity, `--zipf`) sent one
after another through Django's test client to a seeded database: `--requests` to warm
the process's caches as a long-running worker has them, then as many measured, each
timed in process CPU time. Latency under load
depends on what else runs on the machine; this much less, so it compares two versions
of the platform run alternately in the same minutes.

    LOADTEST_KEEP_DATABASE=1 make loadtest-platform   # leaves heights_loadtest seeded
    export DATABASE_URL=postgres://postgres@127.0.0.1:5432/heights_loadtest
    PYTHONPATH=platform:build/compiled .venv/bin/python loadtests/platform/cpu.py \\
        --manifest loadtests/results/platform-manifest.json
"""

from __future__ import annotations

import argparse
import cProfile
import importlib
import json
import os
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

THROTTLE = "1000000/min"
sys.path.insert(0, str(Path(__file__).resolve().parent))
popularity = importlib.import_module("popularity")  # the sibling module, as locustfile.py


def _setup() -> Any:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "heights_platform.settings")
    os.environ.setdefault("HEIGHTS_PLATFORM_LOG_LEVEL", "WARNING")
    os.environ["HEIGHTS_PLATFORM_THROTTLE_ANON"] = THROTTLE
    os.environ["HEIGHTS_PLATFORM_THROTTLE_USER"] = THROTTLE
    import django

    django.setup()
    from django.test import Client

    return Client()


def _requests(manifest: dict[str, Any], rng: random.Random, zipf: float) -> list[Callable[[], str]]:
    ladder, owners = manifest["ladder"], manifest["owners"]
    bots = popularity.Zipf(manifest["bots"], exponent=zipf)

    def pick() -> int:
        drawn: int = bots.draw(rng)
        return drawn

    def leaderboard() -> str:
        return f"/api/v1/ladders/{ladder}/leaderboard/?order={rng.choice(('elo', 'conservative'))}"

    def bot() -> str:
        return f"/api/v1/bots/{pick()}/"

    def bot_page() -> str:
        return f"/bots/{pick()}/"

    def matches_by_bot() -> str:
        return f"/api/v1/matches/?bot={pick()}"

    def replay_list() -> str:
        queries = ["", f"?ladder={ladder}", f"?bot={pick()}"]
        queries += [f"?winner={pick()}", f"?owner={rng.choice(owners)}&kind=ladder"]
        return f"/api/v1/replays/{rng.choice(queries)}"

    def replay_step() -> str:
        replay_id, steps = rng.choice(manifest["replays"])
        viewer = rng.choice(("public", "public", "0", "1", "2", "3"))
        return f"/api/v1/replays/{replay_id}/steps/{rng.randint(0, steps)}/?viewer={viewer}"

    return (
        [leaderboard] * 2
        + [bot, bot_page]
        + [matches_by_bot] * 2
        + [replay_list]
        + [replay_step] * 3
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--manifest", type=Path, required=True, help="the seed's manifest")
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--zipf",
        type=float,
        default=float(popularity.DEFAULT_EXPONENT),
        help="the bots' popularity exponent (0: uniform)",
    )
    parser.add_argument(
        "--bot-pages",
        type=int,
        default=0,
        help="then this many bots' pages, details and match lists twice each: built "
        "afresh (Django's cache cleared first) and served from the cache; CPU ms and "
        "queries of each",
    )
    parser.add_argument(
        "--profile",
        type=Path,
        default=None,
        help="write cProfile's statistics (in process CPU time) of the measured requests here",
    )
    parser.add_argument("--only", default=None, help="only this kind, e.g. bot_page")
    args = parser.parse_args()
    client = _setup()
    rng = random.Random(args.seed)
    manifest = json.loads(args.manifest.read_text())
    mix = _requests(manifest, rng, args.zipf)
    if args.only is not None:
        mix = [kind for kind in mix if kind.__name__ == args.only]
        if not mix:
            raise SystemExit(f"--only: no request kind {args.only!r}")
    profile = cProfile.Profile(time.process_time)
    for warm_then_measured in range(2):
        spent: dict[str, list[float]] = {}
        if warm_then_measured and args.profile is not None:
            profile.enable()
        for _ in range(args.requests):
            kind = rng.choice(mix)
            start = time.process_time()
            response = client.get(kind())
            spent.setdefault(kind.__name__, []).append(time.process_time() - start)
            if response.status_code != 200:
                raise SystemExit(f"{kind.__name__}: HTTP {response.status_code}")
    profile.disable()
    if args.profile is not None:
        profile.dump_stats(args.profile)
    times = [t for row in spent.values() for t in row]
    row = {name: round(sum(t) * 1000 / len(t), 2) for name, t in sorted(spent.items())}
    row["mix"] = round(sum(times) * 1000 / len(times), 2)
    print("CPU ms a request: " + "  ".join(f"{k}={v}" for k, v in row.items()))
    print(json.dumps({"cpu_ms_per_request": row, "requests": args.requests}))
    if args.bot_pages:
        _bot_pages_cached(client, rng.sample(manifest["bots"], args.bot_pages))
    return 0


# The reads cached by the bot's page version: (name, path of a bot's).
CACHED_BY_BOT = (
    ("bot page", "/bots/{}/"),
    ("bot", "/api/v1/bots/{}/"),
    ("matches by bot", "/api/v1/matches/?bot={}"),
)


def _bot_pages_cached(client: Any, bots: list[int]) -> None:
    """Each bot's page, detail and match list read with the cache empty, then again (a
    hit): the CPU and the queries of each, and whether the bytes are the same. Which backend is the
    settings' (Redis when HEIGHTS_PLATFORM_REDIS_URL is set, which clear() empties: give
    it a database of its own)."""
    from django.conf import settings
    from django.core.cache import cache
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    backend = settings.CACHES["default"]["BACKEND"].rsplit(".", 1)[-1]
    for name, path in CACHED_BY_BOT:
        spent: dict[str, list[float]] = {"miss": [], "hit": []}
        queries: dict[str, list[int]] = {"miss": [], "hit": []}
        for bot in bots:
            pages = []
            for kind in ("miss", "hit"):
                # The queries are counted in a request of their own, not timed (capturing
                # them costs CPU); a miss's cache is emptied before each of its two.
                if kind == "miss":
                    cache.clear()
                with CaptureQueriesContext(connection) as captured:
                    client.get(path.format(bot))
                queries[kind].append(len(captured))
                if kind == "miss":
                    cache.clear()
                start = time.process_time()
                response = client.get(path.format(bot))
                spent[kind].append(time.process_time() - start)
                if response.status_code != 200:
                    raise SystemExit(f"{name} {bot}: HTTP {response.status_code}")
                pages.append(response.content)
            if pages[0] != pages[1]:
                raise SystemExit(f"{name} {bot}: the cached reply differs from the fresh one")
        row = {kind: round(sum(t) * 1000 / len(t), 2) for kind, t in spent.items()}
        counted = {kind: round(sum(n) / len(n), 1) for kind, n in queries.items()}
        print(
            f"{name}, {backend}, {len(bots)} bots: CPU ms miss={row['miss']} hit={row['hit']}; "
            f"queries miss={counted['miss']} hit={counted['hit']}"
        )


if __name__ == "__main__":
    sys.exit(main())
