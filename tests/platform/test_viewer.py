"""Viewer pages: served from the URL alone (no database reads), mount points, assets."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client

from heights_platform.bots.models import Bot, BotVersion
from heights_platform.ladders.services import ladder_create, ladder_join
from heights_platform.matches.services import match_create, match_result_record
from heights_platform.replays.models import Replay
from heights_runner.contract import MatchResult

REPLAY_MOUNTS = (
    'id="replay-viewer"',
    'id="status"',
    'id="board"',
    'id="slider"',
    'id="play"',
    'id="prev"',
    'id="next"',
    'id="step-label"',
    'id="action"',
    'id="events"',
    'id="markets"',
    'id="players"',
    'id="seats"',
)


@pytest.fixture
def played(
    make_user: Callable[..., User],
    make_active_bot: Callable[..., Bot],
    play_result: Callable[..., MatchResult],
) -> dict[str, Any]:
    """A finished ladder match between two bots, with its replay and rating changes."""
    ladder = ladder_create(slug="duel", name="Duel", players=2)
    bots = [make_active_bot(make_user("alice"), "alpha"), make_active_bot(make_user("bob"), "beta")]
    for bot in bots:
        ladder_join(ladder=ladder, bot=bot)
    versions = [b.active_version for b in bots if isinstance(b.active_version, BotVersion)]
    assert len(versions) == 2
    match = match_create(
        kind="ladder", seats=versions, players=2, options={}, ladder=ladder, seed=4242
    )
    match_result_record(result=play_result(match, ranks=[1, 2]))
    return {"replay": Replay.objects.get(match=match), "bots": bots, "match": match}


@pytest.fixture
def browser_client() -> Client:
    return Client()


def test_replay_page_has_its_mount_points(browser_client: Client, played: dict[str, Any]) -> None:
    replay = played["replay"]
    response = browser_client.get(f"/viewer/replays/{replay.pk}/")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/html")
    html = response.content.decode()
    for mount in REPLAY_MOUNTS:
        assert mount in html, mount
    assert f'data-replay-url="/api/v1/replays/{replay.pk}/"' in html
    assert 'src="/viewer/assets/viewer.js"' in html
    assert 'href="/viewer/assets/viewer.css"' in html


def test_pages_carry_no_game_data(browser_client: Client, played: dict[str, Any]) -> None:
    """Everything shown comes from the public API in the browser, never from the page."""
    replay, match = played["replay"], played["match"]
    html = browser_client.get(f"/viewer/replays/{replay.pk}/").content.decode()
    for secret in ("alpha", "beta", "alice", "bob", str(match.seed), str(match.pk), replay.sha256):
        assert secret not in html, secret


def test_pages_read_nothing_from_the_database(
    browser_client: Client,
    played: dict[str, Any],
    django_assert_num_queries: Any,
) -> None:
    replay, bot = played["replay"], played["bots"][0]
    with django_assert_num_queries(0):
        assert browser_client.get(f"/viewer/replays/{replay.pk}/").status_code == 200
        assert browser_client.get("/viewer/ladders/duel/").status_code == 301
        assert browser_client.get(f"/viewer/ladders/duel/bots/{bot.pk}/").status_code == 301


def test_unknown_replay_still_serves_the_page(browser_client: Client) -> None:
    """The page loads; its script then shows the API's 404 (test_viewer_browser.py)."""
    response = browser_client.get("/viewer/replays/987654/")
    assert response.status_code == 200
    assert 'data-replay-url="/api/v1/replays/987654/"' in response.content.decode()
    api = browser_client.get("/api/v1/replays/987654/")
    assert api.status_code == 404
    assert api.json()["code"] == "not_found"


def test_rating_pages_moved_to_the_site(browser_client: Client, played: dict[str, Any]) -> None:
    """The ladder and bot rating pages are the site's now (test_site.py); old links follow."""
    bot = played["bots"][0]
    moved = {
        "/viewer/ladders/duel/": "/ladders/duel/",
        f"/viewer/ladders/duel/bots/{bot.pk}/": f"/bots/{bot.pk}/",
    }
    for old, new in moved.items():
        response = browser_client.get(old)
        assert (response.status_code, response["Location"]) == (301, new)
        assert browser_client.get(new).status_code == 200


@pytest.mark.parametrize(
    ("name", "content_type"),
    [
        ("viewer.js", "text/javascript"),
        ("board.js", "text/javascript"),
        ("viewer.css", "text/css"),
    ],
)
def test_assets_are_served_without_a_static_server(
    browser_client: Client, name: str, content_type: str
) -> None:
    response = browser_client.get(f"/viewer/assets/{name}")
    assert response.status_code == 200
    assert response["Content-Type"].startswith(content_type)
    assert response["X-Content-Type-Options"] == "nosniff"
    assert len(response.content) > 1000


@pytest.mark.parametrize("name", ["views.py", "..%2Fviews.py", "viewer.js.map", "VIEWER.JS"])
def test_other_asset_names_are_not_found(browser_client: Client, name: str) -> None:
    assert browser_client.get(f"/viewer/assets/{name}").status_code == 404


def test_viewer_js_stays_small() -> None:
    from heights_platform.viewer.assets import ASSETS_DIR

    for name in ("viewer.js", "board.js"):
        assert len((ASSETS_DIR / name).read_text().splitlines()) < 500, name
