"""Seed a platform database for the load test at the scale of issue 19: bots, a ladder's
history, replays.

Against DATABASE_URL (PostgreSQL on 127.0.0.1 only): migrate, then bulk-write `--bots`
users, each with one bot and an active version, all on one 4-player ladder, and
`--matches` finished ladder matches with their seats (COPY), of which the newest
`--replays` have a replay with its checkpoints. Ratings are then applied by the
platform's own batch (`ratings_apply_pending`), so the ladder's entries and rating
changes are what the platform computes from those results.

The games are real, but fewer than the matches: `--games` games of the built-in random
bot are played in-process by the rules core (`heights_bots.play`), and match i replays
game i mod `--games` (its seed, ranks, scores, rounds and termination). Each replay row
is that game's record with its own match's seat names, so every replay's bytes and
sha256 are its own (the step caches, keyed by sha256, treat them as distinct replays);
its checkpoints are the game's states every 64 steps, which hold no seat names.
`heights verify` and the verify endpoint accept every one of them.

Writes a manifest (JSON) the locust users read: the ladder's slug, the bot ids, their
owners, and every replay's id and step count.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/heights_loadtest \\
        python loadtests/platform/seed.py --create --manifest out.json
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import sys
import time
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

HOST = "127.0.0.1"  # never anything else
LADDER_SLUG = "load-4p"
PLAYERS = 4
BOTS = 1000
MATCHES = 100_000
REPLAYS = 10_000
GAMES = 200
# Matches finished this far apart, the newest a minute before seeding.
MATCH_SPACING = timedelta(seconds=30)


def check_url(url: str) -> str:
    """The database name of a postgres://…@127.0.0.1 URL; anything else is refused."""
    parts = urlsplit(url)
    if parts.scheme not in ("postgres", "postgresql") or parts.hostname != HOST:
        raise SystemExit(f"DATABASE_URL must be postgres://…@{HOST}:<port>/<name>")
    name = parts.path.lstrip("/")
    if not name or name in ("postgres", "template0", "template1", "heights"):
        raise SystemExit(f"DATABASE_URL: refusing to seed database {name!r}")
    return name


def _admin(url: str) -> Any:
    import psycopg

    return psycopg.connect(urlunsplit(urlsplit(url)._replace(path="/postgres")), autocommit=True)


def database_recreate(url: str, template: str | None = None) -> None:
    """Drop and create the database of `url` (empty, or a copy of database `template`)."""
    from psycopg import sql

    name = check_url(url)
    create = sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name))
    if template is not None:
        create = sql.SQL("{} TEMPLATE {}").format(create, sql.Identifier(template))
    with _admin(url) as conn:
        conn.execute(
            sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
        )
        conn.execute(create)


def database_drop(url: str) -> None:
    from psycopg import sql

    name = check_url(url)
    with _admin(url) as conn:
        conn.execute(
            sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
        )


def databases_named(url: str, prefix: str) -> list[str]:
    """The databases on `url`'s server whose names start with `prefix`."""
    with _admin(url) as conn:
        rows = conn.execute(
            "SELECT datname FROM pg_database WHERE starts_with(datname, %s)", [prefix]
        ).fetchall()
    return [str(r[0]) for r in rows]


def django_setup() -> None:
    os.environ["DJANGO_SETTINGS_MODULE"] = "heights_platform.settings"
    os.environ.setdefault("HEIGHTS_PLATFORM_LOG_LEVEL", "WARNING")
    import django

    django.setup()


def migrate() -> None:
    from django.core.management import call_command

    call_command("migrate", interactive=False, verbosity=0)


@dataclass(frozen=True, slots=True)
class Seated:
    """A bot as its seats are written: ids and the name replays give the seat."""

    bot_id: int
    version_id: int
    label: str  # `owner/bot v1`


def bots_create(count: int) -> list[Seated]:
    """`count` users with one bot each, its version 1 active, all on the ladder."""
    from django.contrib.auth.models import User

    from heights_platform.bots.models import Bot, BotVersion
    from heights_platform.ladders.models import LadderEntry
    from heights_platform.ladders.services import ladder_create
    from heights_platform.matches.services import seat_label

    ladder = ladder_create(slug=LADDER_SLUG, name="Load test, 4 players", players=PLAYERS)
    users = User.objects.bulk_create(
        [User(username=f"load{i:04d}", email=f"load{i:04d}@example.org") for i in range(count)]
    )
    bots = Bot.objects.bulk_create(
        [Bot(owner=u, name=f"bot-{i:04d}", description="random") for i, u in enumerate(users)]
    )
    content = b"# plays like the built-in random bot\n"
    versions = BotVersion.objects.bulk_create(
        [
            BotVersion(
                bot=bot,
                number=1,
                kind=BotVersion.Kind.PY,
                filename="bot.py",
                sha256=hashlib.sha256(content + bot.name.encode()).hexdigest(),
                size=len(content),
                content=content,
                status=BotVersion.Status.ACTIVE,
            )
            for bot in bots
        ]
    )
    for bot, version in zip(bots, versions, strict=True):
        bot.active_version = version
    Bot.objects.bulk_update(bots, ["active_version"], batch_size=1000)
    LadderEntry.objects.bulk_create(
        [LadderEntry(ladder=ladder, bot=bot, seat_counts=[0] * PLAYERS) for bot in bots]
    )
    return [
        Seated(bot.pk, version.pk, seat_label(user.username, bot.name, 1))
        for user, bot, version in zip(users, bots, versions, strict=True)
    ]


@dataclass(frozen=True, slots=True)
class Game:
    """One real game and what its matches record."""

    record: Any  # heights_rules.Replay
    ranks: tuple[int, ...]
    scores: tuple[int, ...]
    rounds: int
    termination: str
    checkpoints: list[tuple[int, bytes]]


def games_play(count: int, rng: random.Random, options: dict[str, Any]) -> list[Game]:
    """`count` 4-player games of the built-in random bot, played by the rules core."""
    from heights_bots.bot import make_bot
    from heights_bots.play import play_game
    from heights_platform.replays.stepping import checkpoints_of
    from heights_rules import final_ranks
    from heights_rules.final import outcome
    from heights_rules.options import GameConfig, RuleOptions

    config = GameConfig(players=PLAYERS, options=RuleOptions.from_dict(options))
    found = []
    for i in range(count):
        seed = rng.randrange(2**62)
        bots = [make_bot("random", seed % 100_000 + s) for s in range(PLAYERS)]
        state, record = play_game(config, seed, bots)
        result = outcome(state)
        found.append(
            Game(
                record=record,
                ranks=tuple(final_ranks(result.ranks)),
                scores=tuple(result.totals[:PLAYERS]),
                rounds=result.rounds,
                termination=result.termination.value,
                checkpoints=checkpoints_of(record),
            )
        )
        if (i + 1) % 50 == 0:
            print(f"seed: {i + 1}/{count} games played", file=sys.stderr, flush=True)
    return found


def _copy(table: str, columns: tuple[str, ...], rows: Any) -> None:
    """COPY `rows` into `table`: bulk_create would spend most of the time quoting."""
    from django.db import connection

    with (
        connection.cursor() as cursor,
        cursor.cursor.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy,
    ):
        for row in rows:
            copy.write_row(row)


_MATCH_COLUMNS = (
    "id",
    "kind",
    "status",
    "ladder_id",
    "players",
    "solo",
    "options",
    "catalogue",
    "seed",
    "seed_commitment",
    "seed_chosen",
    "termination",
    "rounds",
    "error",
    "finished_seq",
    "created_at",
    "sent_at",
    "started_at",
    "finished_at",
)
_SEAT_COLUMNS = (
    "match_id",
    "seat",
    "bot_version_id",
    "rank",
    "score",
    "forfeit_reason",
    "forfeit_detail",
    "moves",
    "think_ms",
    "max_move_ms",
)


def matches_write(
    seated: list[Seated], games: list[Game], count: int, replays: int, rng: random.Random
) -> None:
    """`count` finished ladder matches, their seats, and the newest `replays` replays."""
    from heights_platform.ladders.models import Ladder
    from heights_platform.matches.models import Match, MatchSeat
    from heights_platform.matches.seeds import seed_commitment
    from heights_platform.replays.models import Replay, ReplayCheckpoint
    from heights_rules import DEFAULT_CATALOGUE

    ladder = Ladder.objects.get(slug=LADDER_SLUG)
    options = json.dumps(ladder.options)
    newest = datetime.now(UTC) - timedelta(minutes=1)
    first = newest - MATCH_SPACING * count
    tables: list[tuple[uuid.UUID, int, list[Seated], datetime]] = []
    for i in range(count):
        match_id = uuid.UUID(int=rng.getrandbits(128), version=4)
        tables.append(
            (match_id, i % len(games), rng.sample(seated, PLAYERS), first + MATCH_SPACING * i)
        )

    def match_rows() -> Any:
        for seq, (match_id, g, _, at) in enumerate(tables, start=1):
            game = games[g]
            seed = game.record.seed
            yield (
                *(match_id, Match.Kind.LADDER, Match.Status.FINISHED, ladder.pk, PLAYERS),
                *(False, options, DEFAULT_CATALOGUE, seed, seed_commitment(seed), False),
                *(game.termination, game.rounds, "", seq, at - timedelta(seconds=20)),
                *(at - timedelta(seconds=20), at - timedelta(seconds=19), at),
            )

    def seat_rows() -> Any:
        for match_id, g, seats, _ in tables:
            game = games[g]
            moves = len(game.record.actions) // PLAYERS
            for s, bot in enumerate(seats):
                yield (
                    match_id,
                    s,
                    bot.version_id,
                    game.ranks[s],
                    game.scores[s],
                    "",
                    "",
                    moves,
                    900,
                    40,
                )

    _copy(Match._meta.db_table, _MATCH_COLUMNS, match_rows())
    print(f"seed: {count} matches written", file=sys.stderr, flush=True)
    _copy(MatchSeat._meta.db_table, _SEAT_COLUMNS, seat_rows())
    print(f"seed: {count * PLAYERS} seats written", file=sys.stderr, flush=True)

    with_replay = tables[len(tables) - replays :] if replays else []

    def replay_rows() -> Any:
        for match_id, g, seats, at in with_replay:
            record = games[g].record
            record.seats = [bot.label for bot in seats]
            blob = record.to_bytes()
            yield (
                match_id,
                blob,
                hashlib.sha256(blob).hexdigest(),
                len(blob),
                len(record.actions),
                at,
            )

    _copy(
        Replay._meta.db_table,
        ("match_id", "data", "sha256", "size", "steps", "created_at"),
        replay_rows(),
    )
    game_of = {match_id: g for match_id, g, _, _ in with_replay}
    ids = list(Replay.objects.values_list("pk", "match_id"))  # read before the COPY starts

    def checkpoint_rows() -> Any:
        for pk, match_id in ids:
            for step, state in games[game_of[match_id]].checkpoints:
                yield (pk, step, state)

    _copy(ReplayCheckpoint._meta.db_table, ("replay_id", "step", "state"), checkpoint_rows())
    print(f"seed: {len(with_replay)} replays written", file=sys.stderr, flush=True)


def ratings_apply() -> int:
    from heights_platform.ladders.models import Ladder
    from heights_platform.ladders.services import ratings_apply_pending

    return ratings_apply_pending(ladder=Ladder.objects.get(slug=LADDER_SLUG))


def vacuum() -> None:
    """Statistics for the planner, and the visibility map that index-only scans need: the
    state autovacuum keeps a long-lived database in, which a fresh bulk load is not."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")


def manifest() -> dict[str, Any]:
    from heights_platform.ladders.models import LadderEntry
    from heights_platform.replays.models import Replay

    entries = LadderEntry.objects.filter(ladder__slug=LADDER_SLUG).order_by("bot_id")
    return {
        "ladder": LADDER_SLUG,
        "bots": list(entries.values_list("bot_id", flat=True)),
        "owners": list(entries.values_list("bot__owner__username", flat=True)),
        "replays": [list(r) for r in Replay.objects.order_by("pk").values_list("pk", "steps")],
    }


def seed(
    *, bots: int, matches: int, replays: int, games: int, rng_seed: int, round_cap: int | None
) -> None:
    """Migrate and fill the (empty) database of DATABASE_URL."""
    from django.db import transaction

    django_setup()
    migrate()
    rng = random.Random(rng_seed)
    options = {} if round_cap is None else {"round_cap": round_cap}
    start = time.perf_counter()
    played = games_play(min(games, matches), rng, options)
    print(f"seed: {len(played)} games in {time.perf_counter() - start:.1f} s", file=sys.stderr)
    with transaction.atomic():
        seated = bots_create(bots)
        if options:
            from heights_platform.ladders.models import Ladder

            Ladder.objects.filter(slug=LADDER_SLUG).update(options=options)
        matches_write(seated, played, matches, min(replays, matches), rng)
    start = time.perf_counter()
    rated = ratings_apply()
    print(f"seed: {rated} matches rated in {time.perf_counter() - start:.1f} s", file=sys.stderr)
    vacuum()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bots", type=int, default=BOTS)
    parser.add_argument("--matches", type=int, default=MATCHES)
    parser.add_argument("--replays", type=int, default=REPLAYS)
    parser.add_argument("--games", type=int, default=GAMES, help="real games the matches reuse")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--round-cap", type=int, default=None, help="shorter games (rule option)")
    parser.add_argument("--create", action="store_true", help="drop and create the database")
    parser.add_argument(
        "--manifest-only", action="store_true", help="write the manifest of a seeded database"
    )
    parser.add_argument("--manifest", type=Path, required=True)
    args = parser.parse_args(argv)
    if args.bots < PLAYERS:
        parser.error(f"--bots must be at least {PLAYERS}")
    url = os.environ.get("DATABASE_URL", "")
    check_url(url)
    start = time.perf_counter()
    if args.manifest_only:
        django_setup()
    else:
        if args.create:
            database_recreate(url)
        seed(
            bots=args.bots,
            matches=args.matches,
            replays=args.replays,
            games=args.games,
            rng_seed=args.seed,
            round_cap=args.round_cap,
        )
    found = manifest()
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
