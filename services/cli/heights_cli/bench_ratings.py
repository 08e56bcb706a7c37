"""`heights bench-ratings`: ratings for many four-player results; prints, never asserts.

Results are four-player games among `--bots` bots, ranks drawn at random (a shared
first place now and then). Measurements:

- **computation**: `competition.elo.elo_update` and `competition.plackett_luce.pl_update`
  applied in order in memory to `--results` (10,000) results, as
  `ladders.services._ratings_compute` calls them.
- **batch** (PostgreSQL): `--db-results` (10,000) results already recorded (finished
  matches with ranked seats and a `finished_seq`, bulk-inserted untimed) and rated by
  `ladders.services.ratings_apply_pending` in one transaction; then the same ladder
  rated again from the start by `ladder_ratings_recompute` (which first deletes the
  40,000 rating changes). `equal_to_in_memory` (and `recompute_equal_to_in_memory`) say
  whether every bot's Elo, mu and sigma equal, to the last bit, those of the
  computation over the same results.
- **record** (PostgreSQL): `--record-results` (500) results recorded whole (replay
  checked and stored, seats written, `finished_seq`, ratings) on two ladders: one
  `matches.services.match_result_record` per result, as the platform's result consumer
  records them (`one_at_a_time`), and `match_results_record` in batches of
  `--record-batch` (`batched`). `equal` compares the two ladders' ratings and changes.
  The matches (with a few tiny real replays: one-round games, seeds shared between
  matches) are created beforehand, untimed.

All of it runs in a scratch database (`--database-url`, default heights_bench_ratings
on 127.0.0.1), created and dropped here; `--db-results 0` skips the database.
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
REPLAYS = 16  # distinct tiny replays the recording measurement cycles through


def register(commands: Any) -> None:
    p: argparse.ArgumentParser = commands.add_parser(
        "bench-ratings", help="time ladder ratings for 10,000 four-player results"
    )
    p.add_argument("--results", type=int, default=10_000, help="results for the computation")
    p.add_argument(
        "--db-results",
        type=int,
        default=10_000,
        help="recorded results rated in one batch through PostgreSQL (0: no database)",
    )
    p.add_argument(
        "--record-results",
        type=int,
        default=500,
        help="results recorded whole, one at a time and in batches (0: skipped)",
    )
    p.add_argument("--record-batch", type=int, default=100, help="results per batch recorded")
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
    played = games(count, bots, seed)
    start = time.perf_counter()
    ratings = _in_memory(played, bots)
    seconds = time.perf_counter() - start
    elos = [elo for elo, _, _ in ratings]
    return {
        "results": count,
        "seconds": round(seconds, 3),
        "results_per_sec": round(count / seconds),
        "elo_spread": round(max(elos) - min(elos), 1),
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
    from heights_rules import GameConfig, RuleOptions

    config = GameConfig(players=PLAYERS, options=RuleOptions.from_dict({"round_cap": 1}))
    found = []
    for seed in range(1, REPLAYS + 1):
        _, replay = play_game(config, seed, [make_bot("random", seed + s) for s in range(4)])
        found.append((seed, replay.to_bytes()))
    return found


def _ladder_with_bots(slug: str, bots: int) -> tuple[Any, list[Any]]:
    from django.contrib.auth.models import User

    from heights_platform.bots.models import Bot, BotVersion
    from heights_platform.ladders.models import Ladder, LadderEntry

    ladder = Ladder.objects.create(slug=slug, name=slug, players=PLAYERS, options={})
    owner = User.objects.create_user(slug)
    versions = []
    for i in range(bots):
        bot = Bot.objects.create(owner=owner, name=f"{slug}-{i}")
        version = BotVersion.objects.create(
            bot=bot, number=1, kind=BotVersion.Kind.PY, filename="bot.py", sha256=f"{i:064x}",
            size=1, content=b"#", status=BotVersion.Status.ACTIVE,
        )  # fmt: skip
        LadderEntry.objects.create(ladder=ladder, bot=bot, seat_counts=[0] * PLAYERS)
        versions.append(version)
    return ladder, versions


def _recorded(ladder: Any, versions: list[Any], played: list[Any], first_seq: int) -> None:
    """Finished, ranked, unrated matches of `ladder` (as if rating had been held back)."""
    from django.utils import timezone

    from heights_platform.matches.models import Match, MatchSeat

    now = timezone.now()
    matches, seats_rows = [], []
    for i, (seats, ranks) in enumerate(played):
        match = Match(
            kind=Match.Kind.LADDER, ladder=ladder, players=PLAYERS, options={}, seed=i,
            status=Match.Status.FINISHED, finished_seq=first_seq + i, finished_at=now,
        )  # fmt: skip
        matches.append(match)
        seats_rows += [
            MatchSeat(match=match, seat=s, bot_version=versions[b], rank=ranks[s])
            for s, b in enumerate(seats)
        ]
    Match.objects.bulk_create(matches, batch_size=1000)
    MatchSeat.objects.bulk_create(seats_rows, batch_size=4000)


def _queued(ladder: Any, versions: list[Any], played: list[Any]) -> list[Any]:
    """Queued matches of `ladder` and the runner's results to record for them."""
    from heights_platform.matches.models import Match, MatchSeat
    from heights_platform.matches.services import seed_commitment
    from heights_runner.contract import MatchResult, SeatResult

    replays = _replays()
    results, seats_rows, matches = [], [], []
    for i, (seats, ranks) in enumerate(played):
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


def _in_memory(played: list[Any], bots: int) -> list[tuple[float, float, float]]:
    """Every bot's (elo, mu, sigma) after `played`, rated in memory in order."""
    from heights_platform.competition.elo import elo_update
    from heights_platform.competition.plackett_luce import Rating, pl_update

    elo = dict.fromkeys(range(bots), 1500.0)
    pl = {b: Rating(mu=25.0, sigma=25.0 / 3) for b in range(bots)}
    for seats, ranks in played:
        by_seat = dict(enumerate(ranks))
        after = elo_update({s: elo[b] for s, b in enumerate(seats)}, by_seat).ratings_after()
        rated = pl_update({s: pl[b] for s, b in enumerate(seats)}, by_seat)
        for s, b in enumerate(seats):
            elo[b], pl[b] = after[s], rated[s]
    return [(elo[b], pl[b].mu, pl[b].sigma) for b in range(bots)]


def _ratings(ladder: Any, versions: list[Any]) -> list[tuple[float, float, float]]:
    from heights_platform.ladders.models import LadderEntry

    found = {
        bot: (elo, mu, sigma)
        for bot, elo, mu, sigma in LadderEntry.objects.filter(ladder=ladder).values_list(
            "bot_id", "elo", "mu", "sigma"
        )
    }
    return [found[v.bot_id] for v in versions]


def batch(count: int, bots: int, seed: int) -> dict[str, Any]:
    from heights_platform.ladders.models import RatingChange
    from heights_platform.ladders.services import ladder_ratings_recompute, ratings_apply_pending

    played = games(count, bots, seed)
    ladder, versions = _ladder_with_bots("bench-batch", bots)
    _recorded(ladder, versions, played, first_seq=1)
    start = time.perf_counter()
    rated = ratings_apply_pending(ladder=ladder)
    seconds = time.perf_counter() - start
    expected = _in_memory(played, bots)
    equal = _ratings(ladder, versions) == expected
    start = time.perf_counter()
    recomputed = ladder_ratings_recompute(ladder=ladder)
    recompute_seconds = time.perf_counter() - start
    return {
        "results": count,
        "rated": rated,
        "seconds": round(seconds, 2),
        "results_per_sec": round(count / seconds),
        "recompute_rated": recomputed,
        "recompute_seconds": round(recompute_seconds, 2),
        "rating_changes": RatingChange.objects.filter(entry__ladder=ladder).count(),
        "equal_to_in_memory": equal,
        "recompute_equal_to_in_memory": _ratings(ladder, versions) == expected,
    }


def record(count: int, bots: int, seed: int, per_batch: int) -> dict[str, Any]:
    from heights_platform.ladders.models import RatingChange
    from heights_platform.matches.services import match_result_record, match_results_record

    played = games(count, bots, seed)
    single, single_versions = _ladder_with_bots("bench-single", bots)
    batched, batched_versions = _ladder_with_bots("bench-batched", bots)
    single_results = _queued(single, single_versions, played)
    batched_results = _queued(batched, batched_versions, played)
    start = time.perf_counter()
    for result in single_results:
        match_result_record(result=result)
    single_seconds = time.perf_counter() - start
    start = time.perf_counter()
    for i in range(0, count, per_batch):
        match_results_record(results=batched_results[i : i + per_batch])
    batched_seconds = time.perf_counter() - start

    def changes(ladder: Any) -> list[tuple[Any, ...]]:
        rows = RatingChange.objects.filter(entry__ladder=ladder).order_by("match__finished_seq")
        fields = ("rank", "elo_after", "mu_after", "sigma_after")
        return list(rows.order_by("match__finished_seq", "entry__bot__name").values_list(*fields))

    return {
        "results": count,
        "one_at_a_time_seconds": round(single_seconds, 2),
        "one_at_a_time_per_sec": round(count / single_seconds, 1),
        "batch_size": per_batch,
        "batched_seconds": round(batched_seconds, 2),
        "batched_per_sec": round(count / batched_seconds, 1),
        "equal": _ratings(single, single_versions) == _ratings(batched, batched_versions)
        and changes(single) == changes(batched),
    }


def through_database(args: argparse.Namespace) -> dict[str, Any]:
    _database(args.database_url, "create")
    try:
        _django(args.database_url)
        report = {"batch": batch(args.db_results, args.bots, args.seed)}
        _show(args, "batch", report["batch"])
        if args.record_results > 0:
            report["record"] = record(
                args.record_results, args.bots, args.seed + 1, args.record_batch
            )
            _show(args, "record", report["record"])
        from django.db import connections

        connections.close_all()
    finally:
        _database(args.database_url, "drop")
    return report


def run(args: argparse.Namespace) -> int:
    report: dict[str, Any] = {"computation": computation(args.results, args.bots, args.seed)}
    _show(args, "computation", report["computation"])
    if args.db_results > 0:
        report |= through_database(args)
    if args.json:
        print(json.dumps(report))
    return 0


def _show(args: argparse.Namespace, what: str, row: dict[str, Any]) -> None:
    if not args.json:
        print(f"ratings {what:12} " + "  ".join(f"{k}={v}" for k, v in row.items()), flush=True)
