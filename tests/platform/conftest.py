"""Platform fixtures: real PostgreSQL (pytest-django), users, API clients, bot versions.

Helpers build objects through the same services the API uses where those exist; the
`make_*` factories here only cover what every app's tests need.
"""

from __future__ import annotations

import itertools
import uuid
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

import pytest
import redis
from django.contrib.auth.models import User
from rest_framework.test import APIClient
from tests.platform.site_world import site_world_create
from tests.real_redis import TEST_REDIS_URL

from heights_platform.bots.models import Bot
from heights_platform.common.redis_cache import RedisCache
from heights_platform.ladders.models import Ladder
from heights_platform.matches.models import Match

if TYPE_CHECKING:
    from rest_framework.response import _MonkeyPatchedResponse

    from heights_platform.bots.models import BotVersion
    from heights_platform.matches.models import Match
    from heights_runner.contract import MatchResult

_counter = itertools.count(1)


@pytest.fixture
def redis_backend() -> Iterator[RedisCache]:
    """The platform's Redis cache backend on the tests' real Redis, under a key prefix of
    its own, whose keys are deleted afterwards; skipped without a Redis."""
    try:
        redis.Redis.from_url(TEST_REDIS_URL, socket_connect_timeout=1).ping()
    except redis.RedisError:
        pytest.skip(f"no Redis at {TEST_REDIS_URL}")
    backend = RedisCache(TEST_REDIS_URL, {"KEY_PREFIX": f"test-{uuid.uuid4().hex}"})
    yield backend
    client = redis.Redis.from_url(TEST_REDIS_URL)
    for key in client.scan_iter(match=f"{backend.key_prefix}*"):
        client.delete(key)
    client.close()


@pytest.fixture(autouse=True)
def _db_everywhere(db: None) -> None:
    """Every platform test talks to the real database."""


@pytest.fixture
def make_user() -> Callable[..., User]:
    def make(username: str | None = None, password: str = "correct-horse-battery-9") -> User:
        name = username or f"user{next(_counter)}"
        return User.objects.create_user(name, f"{name}@example.org", password)

    return make


@pytest.fixture
def api() -> APIClient:
    """An anonymous client."""
    return APIClient()


@pytest.fixture
def client_for() -> Callable[[User], APIClient]:
    """A client authenticated as the given user (force_authenticate: no token round trip)."""

    def make(user: User) -> APIClient:
        client = APIClient()
        client.force_authenticate(user)
        return client

    return make


@pytest.fixture(autouse=True)
def _throttle_counters_reset() -> None:
    """Throttle counters live in the (local-memory) cache: every test starts with none."""
    from django.core.cache import cache

    cache.clear()


@pytest.fixture(autouse=True)
def _page_cache_reset() -> None:
    """Cached pages are keyed by data versions that repeat from one test's rolled-back
    database to the next (the first result of each is finished_seq 1): none carry over."""
    from heights_platform.common.page_cache import cache_clear

    cache_clear()


@pytest.fixture
def make_bot() -> Callable[..., Bot]:
    """A bot (no versions yet), through the same service the API uses."""
    from heights_platform.bots.services import bot_create

    def make(owner: User, name: str | None = None, description: str = "") -> Bot:
        return bot_create(owner=owner, name=name or f"bot{next(_counter)}", description=description)

    return make


@pytest.fixture
def upload_bot_file() -> Callable[..., _MonkeyPatchedResponse]:
    """POST a file as a new version of a bot (multipart field `file`), as `client`."""

    def upload(
        client: APIClient, bot: Bot, filename: str, content: bytes
    ) -> _MonkeyPatchedResponse:
        from django.core.files.uploadedfile import SimpleUploadedFile

        return client.post(
            f"/api/v1/bots/{bot.pk}/versions/",
            {"file": SimpleUploadedFile(filename, content)},
            format="multipart",
        )

    return upload


# --- tournaments (tests/platform/test_tournaments*.py) ---------------------------------


@pytest.fixture
def make_active_bot(make_bot: Callable[..., Bot]) -> Callable[..., Bot]:
    """A bot with one active version, as if it had passed qualification."""
    from heights_platform.bots.models import BotVersion

    def make(
        owner: User, name: str | None = None, source: str | None = None, filename: str = "bot.py"
    ) -> Bot:
        bot = make_bot(owner, name)
        content = (source if source is not None else f"# {bot.name}\n").encode()
        version = BotVersion.objects.create(
            bot=bot,
            number=1,
            kind=BotVersion.Kind.PY,
            filename=filename,
            sha256=f"{bot.pk:064x}",
            size=len(content),
            content=content,
            status=BotVersion.Status.ACTIVE,
        )
        bot.active_version = version
        bot.save(update_fields=["active_version"])
        return bot

    return make


# --- matches, replays, ladders (tests/platform/test_matches*.py, test_replays*.py, ...) ---


@pytest.fixture(scope="session", autouse=True)
def _celery_broker_for_tests() -> Iterator[None]:
    """The platform's Celery app uses Redis db 15 in tests (HEIGHTS_TEST_BROKER_URL)."""
    import os

    from django.test import override_settings

    url = os.environ.get("HEIGHTS_TEST_BROKER_URL", "redis://127.0.0.1:6379/15")
    with override_settings(HEIGHTS_BROKER_URL=url):
        yield


@pytest.fixture
def sent_tasks(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """Tasks the platform sends (`send_task` on its Celery app), recorded, not sent."""
    from heights_platform.celery_app import app

    sent: list[dict[str, Any]] = []

    def send_task(name: str, args: Any = None, **options: Any) -> None:
        sent.append({"name": name, "args": args, **options})

    monkeypatch.setattr(app, "send_task", send_task)
    return sent


@pytest.fixture
def builtin_versions() -> dict[str, BotVersion]:
    """The built-in bots' active versions (arena/random, ...)."""
    from heights_platform.bots.services import builtin_bots_ensure

    return builtin_bots_ensure()


@pytest.fixture
def play_result() -> Callable[..., MatchResult]:
    """Play a match's game for real, in-process (random bots on the match's seed), and
    return the runner's result for it: ranks from the outcome, forfeits ranked last."""

    def play(
        match: Match,
        *,
        forfeit_seat: int | None = None,
        ranks: Sequence[int] | None = None,
    ) -> MatchResult:
        return match_result_played(match, forfeit_seat=forfeit_seat, ranks=ranks)

    return play


def match_result_played(
    match: Match, *, forfeit_seat: int | None = None, ranks: Sequence[int] | None = None
) -> MatchResult:
    import base64
    import hashlib

    from heights_bots.bot import make_bot
    from heights_bots.play import play_game
    from heights_platform.matches.models import MatchSeat
    from heights_platform.matches.services import seat_name
    from heights_rules import final_ranks
    from heights_rules.final import outcome
    from heights_rules.options import GameConfig, RuleOptions
    from heights_runner.contract import Forfeit, MatchResult, SeatResult

    n = match.players
    config = GameConfig(
        players=n,
        solo=match.solo,
        options=RuleOptions.from_dict(match.options),
        catalogue_id=match.catalogue,
    )
    bots = [make_bot("random", match.seed % 100_000 + seat) for seat in range(n)]
    state, replay = play_game(config, match.seed, bots, notes=True)  # as the runner records
    result = outcome(state)
    forfeits = (
        {}
        if forfeit_seat is None
        else {forfeit_seat: Forfeit(forfeit_seat, "illegal", 7, "action 3 is not legal")}
    )
    if forfeits:
        replay.forfeits = [
            {"seat": f.seat, "reason": f.reason, "step": f.step, "detail": f.detail}
            for f in forfeits.values()
        ]
    final = (
        list(ranks) if ranks is not None else final_ranks(result.ranks, forfeits, solo=match.solo)
    )
    blob = replay.to_bytes()
    names = {
        s.seat: seat_name(s.bot_version)
        for s in MatchSeat.objects.filter(match=match).select_related("bot_version__bot__owner")
    }
    return MatchResult(
        match_id=str(match.pk),
        status="finished",
        seed=match.seed,
        seed_commitment=match.seed_commitment,
        seats=tuple(
            SeatResult(
                seat=seat,
                name=names[seat],
                rank=final[seat],
                score=result.totals[seat],
                forfeit=forfeits.get(seat),
                moves=len(replay.actions) // n,
                think_ms=40 + seat,
                max_move_ms=3,
            )
            for seat in range(n)
        ),
        termination=result.termination.value,
        rounds=result.rounds,
        outcome=result.to_dict(),
        replay_b64=base64.b64encode(blob).decode("ascii"),
        replay_sha256=hashlib.sha256(blob).hexdigest(),
        seconds=2.5,
    )


@pytest.fixture
def world(
    sent_tasks: list[dict[str, Any]],
    make_user: Callable[..., User],
    make_active_bot: Callable[..., Bot],
    play_result: Callable[..., MatchResult],
) -> dict[str, Any]:
    """The site's pages' world (site_world.py): users, bots, ladders, matches, a
    tournament; test files that need it committed define their own."""
    return site_world_create(make_user, make_active_bot, play_result)


@pytest.fixture
def committed(django_capture_on_commit_callbacks: Any) -> Callable[[], Any]:
    """A block whose on-commit callbacks run at its end, as after a real commit."""
    return lambda: django_capture_on_commit_callbacks(execute=True)


@pytest.fixture
def duel(world: dict[str, Any]) -> Ladder:
    """The ladder of the site world's first match."""
    ladder = Match.objects.get(pk=world["matches"][0].pk).ladder
    assert ladder is not None
    return ladder
