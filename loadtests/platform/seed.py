"""Seed a platform database for the load test: a 4-player ladder with real finished matches.

Against DATABASE_URL (PostgreSQL on 127.0.0.1 only): migrate, then create LOADTEST users,
each with one bot and an active version, put every bot on a 4-player ladder, and record
`--matches` ladder matches. Each match is created with `match_create` (never sent to a
runner: the enqueue hook is replaced for this process) and its game is played for real,
in-process, with the built-in greedy or random bot at each seat (`heights_bots.play`);
the result goes through `match_result_record`, so the replay rows, ranks and ratings are
what the runner's results would have written.

Writes a manifest (JSON) the locust users read: the ladder's slug, the bot ids and every
replay's id and step count.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/heights_load \\
        python loadtests/platform/seed.py --create --matches 300 --manifest out.json
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import os
import random
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

HOST = "127.0.0.1"  # never anything else
LADDER_SLUG = "load-4p"
BOTS = 12
POLICIES = ("greedy", "random")


def check_url(url: str) -> str:
    """The database name of a postgres://…@127.0.0.1 URL; anything else is refused."""
    parts = urlsplit(url)
    if parts.scheme not in ("postgres", "postgresql") or parts.hostname != HOST:
        raise SystemExit(f"DATABASE_URL must be postgres://…@{HOST}:<port>/<name>")
    name = parts.path.lstrip("/")
    if not name or name in ("postgres", "template0", "template1", "heights"):
        raise SystemExit(f"DATABASE_URL: refusing to seed database {name!r}")
    return name


def database_recreate(url: str) -> None:
    """Drop and create the database of `url` (connecting to the `postgres` database)."""
    import psycopg
    from psycopg import sql

    name = check_url(url)
    admin = urlunsplit(urlsplit(url)._replace(path="/postgres"))
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(
            sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
        )
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))


def database_drop(url: str) -> None:
    import psycopg
    from psycopg import sql

    name = check_url(url)
    admin = urlunsplit(urlsplit(url)._replace(path="/postgres"))
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(
            sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
        )


def django_setup() -> None:
    os.environ["DJANGO_SETTINGS_MODULE"] = "heights_platform.settings"
    os.environ.setdefault("HEIGHTS_PLATFORM_LOG_LEVEL", "WARNING")
    import django

    django.setup()


def migrate() -> None:
    from django.core.management import call_command

    call_command("migrate", interactive=False, verbosity=0)


def bots_create(count: int) -> list[Any]:
    """`count` users with one bot each, its version 1 active, all on the ladder."""
    from django.contrib.auth.models import User

    from heights_platform.bots.models import BotVersion
    from heights_platform.bots.services import bot_create
    from heights_platform.ladders.services import ladder_create, ladder_join

    ladder = ladder_create(slug=LADDER_SLUG, name="Load test, 4 players", players=4)
    versions = []
    for i in range(count):
        policy = POLICIES[i % len(POLICIES)]
        owner = User.objects.create_user(f"load{i:02d}", f"load{i:02d}@example.org", None)
        bot = bot_create(owner=owner, name=f"{policy}-{i:02d}", description=policy)
        content = f"# plays like the built-in {policy} bot\n".encode()
        version = BotVersion.objects.create(
            bot=bot,
            number=1,
            kind=BotVersion.Kind.PY,
            filename="bot.py",
            sha256=hashlib.sha256(content + bot.name.encode()).hexdigest(),
            size=len(content),
            content=content,
            status=BotVersion.Status.ACTIVE,
        )
        bot.active_version = version
        bot.save(update_fields=["active_version"])
        ladder_join(ladder=ladder, bot=bot)
        versions.append(version)
    return versions


def result_played(match: Any, versions: list[Any]) -> Any:
    """Play the match's game in-process (each seat's bot by its policy) and return the
    runner's result for it (as tests/platform/conftest.py `match_result_played` does)."""
    from heights_bots.bot import make_bot
    from heights_bots.play import play_game
    from heights_platform.matches.services import seat_name
    from heights_rules import final_ranks
    from heights_rules.final import outcome
    from heights_rules.options import GameConfig, RuleOptions
    from heights_runner.contract import MatchResult, SeatResult

    n = match.players
    config = GameConfig(players=n, options=RuleOptions.from_dict(match.options))
    bots = [make_bot(v.bot.description, match.seed % 100_000 + s) for s, v in enumerate(versions)]
    start = time.perf_counter()
    state, replay = play_game(config, match.seed, bots)
    seconds = time.perf_counter() - start
    result = outcome(state)
    final = final_ranks(result.ranks)  # ladder games: no solo, no forfeits
    blob = replay.to_bytes()
    return MatchResult(
        match_id=str(match.pk),
        status="finished",
        seed=match.seed,
        seed_commitment=match.seed_commitment,
        seats=tuple(
            SeatResult(
                seat=s,
                name=seat_name(versions[s]),
                rank=final[s],
                score=result.totals[s],
                forfeit=None,
                moves=len(replay.actions) // n,
                think_ms=int(seconds * 1000 / n),
                max_move_ms=1,
            )
            for s in range(n)
        ),
        termination=result.termination.value,
        rounds=result.rounds,
        outcome=result.to_dict(),
        replay_b64=base64.b64encode(blob).decode("ascii"),
        replay_sha256=hashlib.sha256(blob).hexdigest(),
        seconds=seconds,
    )


def matches_record(versions: list[Any], count: int, seed: int, options: dict[str, Any]) -> None:
    from heights_platform.ladders.models import Ladder
    from heights_platform.matches import services
    from heights_platform.matches.models import Match

    # Seeded matches are played here, never by a runner: nothing is sent to a broker.
    services.match_enqueue = lambda *, match: None
    ladder = Ladder.objects.get(slug=LADDER_SLUG)
    rng = random.Random(seed)
    for i in range(count):
        seats = rng.sample(versions, ladder.players)
        match = services.match_create(
            kind=Match.Kind.LADDER,
            seats=seats,
            players=ladder.players,
            options=options,
            ladder=ladder,
            seed=rng.randrange(2**62),
        )
        services.match_result_record(result=result_played(match, seats))
        if (i + 1) % 50 == 0:
            print(f"seed: {i + 1}/{count} matches recorded", file=sys.stderr, flush=True)


def manifest() -> dict[str, Any]:
    from heights_platform.ladders.models import LadderEntry
    from heights_platform.replays.models import Replay

    return {
        "ladder": LADDER_SLUG,
        "bots": sorted(LadderEntry.objects.values_list("bot_id", flat=True)),
        "owners": sorted(LadderEntry.objects.values_list("bot__owner__username", flat=True)),
        "replays": [[pk, steps] for pk, steps in Replay.objects.values_list("pk", "steps")],
    }


def seed(*, matches: int, bots: int, rng_seed: int, round_cap: int | None) -> dict[str, Any]:
    """Migrate and fill the (empty) database of DATABASE_URL; the manifest."""
    django_setup()
    migrate()
    versions = bots_create(bots)
    options = {} if round_cap is None else {"round_cap": round_cap}
    matches_record(versions, matches, rng_seed, options)
    return manifest()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=300)
    parser.add_argument("--bots", type=int, default=BOTS)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--round-cap", type=int, default=None, help="shorter games (rule option)")
    parser.add_argument("--create", action="store_true", help="drop and create the database")
    parser.add_argument("--manifest", type=Path, required=True)
    args = parser.parse_args(argv)
    url = os.environ.get("DATABASE_URL", "")
    check_url(url)
    if args.create:
        database_recreate(url)
    start = time.perf_counter()
    found = seed(matches=args.matches, bots=args.bots, rng_seed=args.seed, round_cap=args.round_cap)
    args.manifest.write_text(json.dumps(found) + "\n")
    steps = [s for _, s in found["replays"]]
    print(
        f"seed: {len(steps)} replays (mean {sum(steps) / max(1, len(steps)):.0f} steps), "
        f"{len(found['bots'])} bots in {time.perf_counter() - start:.1f} s",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
