"""`heights bench-ratings`: ratings for many four-player results; prints, never asserts.

Two measurements of `--results` (10,000) four-player results among `--bots` bots, ranks
drawn at random (ties included now and then):

- **computation**: `competition.elo.elo_update` and `competition.plackett_luce.pl_update`
  applied in order in memory, as `ladders.services._ratings_write` calls them.
- **database**: the real path on PostgreSQL, `matches.services.match_result_record` for
  each result (replay checked and stored, seats written, `finished_seq`, then
  `ladders.services.ratings_apply` in the same transaction), one result at a time as
  the platform's result consumer records them. The time inside `ratings_apply` is
  reported apart. The matches (with a few tiny real replays: one-round games, seeds
  shared between matches) are created beforehand, untimed. This runs in a scratch
  database (`--database-url`, default heights_bench_ratings on 127.0.0.1) that is
  created and dropped here. `--db-results` (2,000 by default: one result takes tens of
  milliseconds, so 10,000 take minutes) gives the measured rate and the time projected
  for 10,000; `--db-results 0` skips it.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import os
import random
import time
from typing import Any
from urllib.parse import urlsplit, urlunsplit

DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/heights_bench_ratings"
PLAYERS = 4
REPLAYS = 16  # distinct tiny replays the database measurement cycles through


def register(commands: Any) -> None:
    p: argparse.ArgumentParser = commands.add_parser(
        "bench-ratings", help="time ladder ratings for 10,000 four-player results"
    )
    p.add_argument("--results", type=int, default=10_000, help="results for the computation")
    p.add_argument(
        "--db-results",
        type=int,
        default=2_000,
        help="results through PostgreSQL (the time for 10,000 is projected from these)",
    )
    p.add_argument("--bots", type=int, default=40)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--database-url", default=DEFAULT_DATABASE_URL)
    p.add_argument("--json", action="store_true")
    p.set_defaults(run=run)


def random_ranks(rng: random.Random) -> list[int]:
    """Ranks of four seats, a shared place one time in ten."""
    order = list(range(PLAYERS))
    rng.shuffle(order)
    ranks = [0] * PLAYERS
    for place, seat in enumerate(order):
        ranks[seat] = place + 1
    if rng.random() < 0.1:  # the two best share first place
        ranks[order[1]] = 1
    return ranks


def games(count: int, bots: int, seed: int) -> list[tuple[list[int], list[int]]]:
    rng = random.Random(seed)
    return [(rng.sample(range(bots), PLAYERS), random_ranks(rng)) for _ in range(count)]


def computation(count: int, bots: int, seed: int) -> dict[str, Any]:
    from heights_platform.competition.elo import elo_update
    from heights_platform.competition.plackett_luce import Rating, pl_update

    played = games(count, bots, seed)
    elo = dict.fromkeys(range(bots), 1500.0)
    pl = {b: Rating(mu=25.0, sigma=25.0 / 3) for b in range(bots)}
    start = time.perf_counter()
    for seats, ranks in played:
        by_seat = dict(enumerate(ranks))
        after = elo_update({s: elo[b] for s, b in enumerate(seats)}, by_seat).ratings_after()
        rated = pl_update({s: pl[b] for s, b in enumerate(seats)}, by_seat)
        for s, b in enumerate(seats):
            elo[b], pl[b] = after[s], rated[s]
    seconds = time.perf_counter() - start
    return {
        "results": count,
        "seconds": round(seconds, 3),
        "results_per_sec": round(count / seconds),
        "elo_spread": round(max(elo.values()) - min(elo.values()), 1),
    }


def _database(url: str, action: str) -> None:
    import psycopg
    from psycopg import sql

    parts = urlsplit(url)
    if parts.hostname != "127.0.0.1":
        raise SystemExit("--database-url must be on 127.0.0.1")
    name = parts.path.lstrip("/")
    admin = urlunsplit(parts._replace(path="/postgres"))
    with psycopg.connect(admin, autocommit=True) as conn:
        drop = sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)")
        conn.execute(drop.format(sql.Identifier(name)))
        if action == "create":
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))


def _django(url: str) -> None:
    os.environ["DJANGO_SETTINGS_MODULE"] = "heights_platform.settings"
    os.environ["DATABASE_URL"] = url
    os.environ.setdefault("HEIGHTS_PLATFORM_LOG_LEVEL", "WARNING")
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", interactive=False, verbosity=0)


def _replays() -> list[tuple[int, bytes]]:
    """(seed, gzip record) of a few one-round four-player games, played for real."""
    from heights_bots.bot import make_bot
    from heights_bots.play import play_game
    from heights_rules.options import GameConfig, RuleOptions

    config = GameConfig(players=PLAYERS, options=RuleOptions.from_dict({"round_cap": 1}))
    found = []
    for seed in range(1, REPLAYS + 1):
        _, replay = play_game(config, seed, [make_bot("random", seed + s) for s in range(4)])
        found.append((seed, replay.to_bytes()))
    return found


def _setup(count: int, bots: int, seed: int) -> list[Any]:
    """A ladder, its bots and `count` queued matches; the results to record for them."""
    from django.contrib.auth.models import User

    from heights_platform.bots.models import Bot, BotVersion
    from heights_platform.ladders.models import Ladder, LadderEntry
    from heights_platform.matches.models import Match, MatchSeat
    from heights_platform.matches.services import seed_commitment
    from heights_runner.contract import MatchResult, SeatResult

    ladder = Ladder.objects.create(slug="bench", name="bench", players=PLAYERS, options={})
    owner = User.objects.create_user("bench")
    versions = []
    for i in range(bots):
        bot = Bot.objects.create(owner=owner, name=f"bench-{i}")
        version = BotVersion.objects.create(
            bot=bot, number=1, kind=BotVersion.Kind.PY, filename="bot.py", sha256=f"{i:064x}",
            size=1, content=b"#", status=BotVersion.Status.ACTIVE,
        )  # fmt: skip
        LadderEntry.objects.create(ladder=ladder, bot=bot, seat_counts=[0] * PLAYERS)
        versions.append(version)
    replays = _replays()
    results, seats_rows = [], []
    matches = []
    for i, (seats, ranks) in enumerate(games(count, bots, seed)):
        match_seed, blob = replays[i % len(replays)]
        match = Match(
            kind=Match.Kind.LADDER, ladder=ladder, players=PLAYERS, options={}, seed=match_seed,
            seed_commitment=seed_commitment(match_seed),
        )  # fmt: skip
        matches.append(match)
        seats_rows += [
            MatchSeat(match=match, seat=s, bot_version=versions[b]) for s, b in enumerate(seats)
        ]
        results.append(
            MatchResult(
                match_id=str(match.pk), status="finished", seed=match_seed,
                seed_commitment=match.seed_commitment,
                seats=tuple(
                    SeatResult(seat=s, name=f"bench-{b}", rank=ranks[s], score=0, forfeit=None,
                               moves=1, think_ms=1, max_move_ms=1)
                    for s, b in enumerate(seats)
                ),
                termination="round_cap", rounds=1, outcome={},
                replay_b64=base64.b64encode(blob).decode("ascii"),
                replay_sha256=hashlib.sha256(blob).hexdigest(), seconds=0.1,
            )
        )  # fmt: skip
    Match.objects.bulk_create(matches, batch_size=1000)
    MatchSeat.objects.bulk_create(seats_rows, batch_size=4000)
    return results


def through_database(count: int, bots: int, seed: int, url: str) -> dict[str, Any]:
    _database(url, "create")
    try:
        _django(url)
        from heights_platform.ladders import services as ladders
        from heights_platform.ladders.models import RatingChange
        from heights_platform.matches.services import match_result_record

        results = _setup(count, bots, seed)
        inside = [0.0]
        apply = ladders.ratings_apply

        def timed_apply(*, match: Any) -> Any:
            start = time.perf_counter()
            try:
                return apply(match=match)
            finally:
                inside[0] += time.perf_counter() - start

        ladders.ratings_apply = timed_apply
        try:
            times = []
            for result in results:
                start = time.perf_counter()
                match_result_record(result=result)
                times.append(time.perf_counter() - start)
            seconds = sum(times)
        finally:
            ladders.ratings_apply = apply
        changes = RatingChange.objects.count()
        from django.db import connections

        connections.close_all()
    finally:
        _database(url, "drop")
    tenth = max(1, count // 10)
    return {
        "results": count,
        "seconds": round(seconds, 2),
        "results_per_sec": round(count / seconds, 1),
        "ratings_apply_seconds": round(inside[0], 2),
        "rating_changes": changes,
        # Growth with the tables' size shows as a later tenth slower than the first.
        "first_tenth_ms_per_result": round(sum(times[:tenth]) * 1000 / tenth, 1),
        "last_tenth_ms_per_result": round(sum(times[-tenth:]) * 1000 / tenth, 1),
        "projected_seconds_for_10000": round(seconds * 10_000 / count, 1),
        "projected_ratings_apply_seconds_for_10000": round(inside[0] * 10_000 / count, 1),
    }


def run(args: argparse.Namespace) -> int:
    report: dict[str, Any] = {"computation": computation(args.results, args.bots, args.seed)}
    _show(args, "computation", report["computation"])
    if args.db_results > 0:
        report["database"] = through_database(
            args.db_results, args.bots, args.seed, args.database_url
        )
        _show(args, "database", report["database"])
    if args.json:
        print(json.dumps(report))
    return 0


def _show(args: argparse.Namespace, what: str, row: dict[str, Any]) -> None:
    if not args.json:
        print(f"ratings {what:12} " + "  ".join(f"{k}={v}" for k, v in row.items()), flush=True)
