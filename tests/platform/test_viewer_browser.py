"""The viewer in a real browser: headless Chromium against a live server and a real replay.

Writes out/viewer-screenshot.png and out/viewer-forfeit-screenshot.png, the artifacts to
look at when the page changes. (The rating pages are the site's: test_site_browser.py.)
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Browser, Page
from tests.platform.browser import OUT_DIR, chromium, needs_chromium, watched

from heights_platform.bots.models import Bot, BotVersion
from heights_platform.ladders.services import ladder_create, ladder_join
from heights_platform.matches.services import match_create, match_result_record
from heights_platform.replays.documents import step_documents
from heights_platform.replays.models import Replay
from heights_rules.replay import Replay as ReplayRecord
from heights_runner.contract import MatchResult

BIG_SEED = 2**53 + 1  # a JavaScript number rounds it to 2**53

pytestmark = needs_chromium


@pytest.fixture
def browser() -> Iterator[Browser]:
    """Headless Chromium. Request it after any fixture that writes to the database: the
    sync API runs an event loop in this thread, and Django refuses queries under one."""
    with chromium() as launched:
        yield launched


@pytest.fixture
def played(
    transactional_db: None,
    sent_tasks: list[dict[str, Any]],
    make_user: Callable[..., User],
    make_active_bot: Callable[..., Bot],
    play_result: Callable[..., MatchResult],
) -> dict[str, Any]:
    """A real game on a ladder, committed so that the live server's thread sees it."""
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
    return {"replay": Replay.objects.get(match=match), "bots": bots}


@pytest.fixture
def forfeited(
    transactional_db: None,
    sent_tasks: list[dict[str, Any]],
    make_user: Callable[..., User],
    make_active_bot: Callable[..., Bot],
    play_result: Callable[..., MatchResult],
) -> Replay:
    """A challenge on a seed above 2**53 where seat 1 forfeited (illegal, at step 7)."""
    bots = [make_active_bot(make_user("alice"), "alpha"), make_active_bot(make_user("bob"), "beta")]
    versions = [b.active_version for b in bots if isinstance(b.active_version, BotVersion)]
    match = match_create(kind="challenge", seats=versions, players=2, options={}, seed=BIG_SEED)
    match_result_record(result=play_result(match, forfeit_seat=1))
    return Replay.objects.get(match=match)


def _step_shown(page: Page, step: int) -> None:
    """Wait until the board, panels and labels show `step` (data-shown is set last)."""
    page.wait_for_selector(f'#replay-viewer[data-shown="{step}"]', state="attached")
    assert (page.text_content("#step-label") or "").startswith(f"Step {step} /")


def test_replay_viewer_draws_and_steps(
    live_server: Any, played: dict[str, Any], browser: Browser
) -> None:
    replay = played["replay"]
    late = replay.steps - 3
    page, problems = watched(browser)
    page.goto(f"{live_server.url}/viewer/replays/{replay.pk}/#step={late}")
    page.wait_for_selector("#board g.cell")
    _step_shown(page, late)
    assert page.locator("#board g.cell").count() > 40
    assert page.locator("#board rect.water").count() > 0
    assert page.locator("#board g.cell").count() + page.locator("#board rect.water").count() == 120
    assert page.locator("#board g.building").count() >= 1
    assert page.locator("#players article.player").count() == 2
    assert "alpha" in (page.text_content("#seats") or "")
    assert page.locator("#markets table").count() == 2

    page.click("#prev")
    _step_shown(page, late - 1)
    page.fill("#slider", "0")  # a range input: sets the value and fires `input`
    _step_shown(page, 0)
    assert page.locator("#board g.building").count() == 0
    page.click("#next")
    _step_shown(page, 1)
    assert page.text_content("#action")
    page.click("#play")
    page.wait_for_function("Number(document.getElementById('replay-viewer').dataset.shown) >= 3")
    page.click("#play")
    assert "Play" in (page.text_content("#play") or "")

    page.fill("#slider", str(late))
    _step_shown(page, late)
    OUT_DIR.mkdir(exist_ok=True)
    page.screenshot(path=str(OUT_DIR / "viewer-screenshot.png"), full_page=True)
    assert problems == []


def test_unknown_replay_shows_the_error(live_server: Any, browser: Browser) -> None:
    page, problems = watched(browser)
    page.goto(f"{live_server.url}/viewer/replays/987654/")
    page.wait_for_selector("#status.error")
    assert "no such replay" in (page.text_content("#status") or "")
    assert page.locator("#board g.cell").count() == 0
    # The browser itself logs the failed request; the page adds nothing else.
    assert all("404" in p for p in problems), problems


def test_replay_viewer_tells_the_truth(
    live_server: Any, forfeited: Replay, browser: Browser
) -> None:
    """The forfeit's step and reason in the seat's header, the exact seed, the bots' notes,
    the stand-in's moves as the stand-in's, arrow keys, and step links both ways."""
    record = ReplayRecord.from_bytes(bytes(forfeited.data))
    [forfeit] = record.forfeits
    moves = [d["step"] for d in step_documents(record) if d["action"] and d["action"]["actor"] == 1]
    own = max(s for s in moves if s < forfeit["step"])  # the bot's last move
    stand_in = min(s for s in moves if s >= forfeit["step"])
    page, problems = watched(browser)
    page.goto(f"{live_server.url}/viewer/replays/{forfeited.pk}/#step={own}")
    _step_shown(page, own)  # loading a step link shows that step
    header = page.text_content('#players article[data-seat="1"] header') or ""
    assert f"forfeited at step {forfeit['step']}: illegal" in header
    assert "forfeited" not in (page.text_content('#players article[data-seat="0"]') or "")
    seat = page.text_content('#seats li[data-seat="1"]') or ""
    assert f"forfeited at step {forfeit['step']}: illegal (action 3 is not legal)" in seat
    info = page.text_content("#match-info") or ""
    assert f"seed {BIG_SEED}" in info
    assert str(2**53) not in info
    assert page.get_attribute("#action", "data-stand-in") == "false"
    assert (page.text_content("#action") or "").startswith("bob/beta")
    assert page.text_content("#debug") == f"note: {record.debug[own]}"

    page.evaluate(f"location.hash = '#step={stand_in}'")  # a link followed in the page
    _step_shown(page, stand_in)
    assert page.get_attribute("#action", "data-stand-in") == "true"
    assert (page.text_content("#action") or "").startswith("stand-in for bob/beta")
    page.keyboard.press("ArrowRight")
    _step_shown(page, stand_in + 1)
    assert page.url.endswith(f"#step={stand_in + 1}")  # the URL follows the step
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    _step_shown(page, stand_in - 1)
    assert page.url.endswith(f"#step={stand_in - 1}")
    assert page.get_attribute("#step-label", "href") == f"#step={stand_in - 1}"
    page.reload()
    _step_shown(page, stand_in - 1)
    OUT_DIR.mkdir(exist_ok=True)
    page.screenshot(path=str(OUT_DIR / "viewer-forfeit-screenshot.png"), full_page=True)
    assert problems == []
