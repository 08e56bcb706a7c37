"""The site in headless Chromium against a live server: every page renders with real
data and no console errors, every link on it resolves, the charts' labels do not overlap,
and a user signs in and uploads a bot from the browser.

Screenshots of each kind of page go to out/site-*.png, the artefacts to look at when a
page changes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from urllib.parse import urldefrag, urlsplit

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import FilePayload, Page
from tests.platform.browser import OUT_DIR, chromium, needs_chromium, watched
from tests.platform.site_world import site_world_create

from heights_platform.bots.models import Bot, BotVersion
from heights_runner.contract import MatchResult

pytestmark = needs_chromium

# Pages of the site are opened in the browser and their links followed; any other link
# (the replay viewer, the API docs) is fetched and must answer, but is not crawled.
_OTHERS = ("/api/", "/viewer/replays/", "/static/", "/admin/")
_MAX_PAGES = 40  # the world has about 15: a bound, in case pagination loops


@pytest.fixture
def world(
    transactional_db: None,
    sent_tasks: list[dict[str, Any]],
    make_user: Callable[..., User],
    make_active_bot: Callable[..., Bot],
    play_result: Callable[..., MatchResult],
) -> dict[str, Any]:
    """Committed, so that the live server's thread sees it."""
    return site_world_create(make_user, make_active_bot, play_result)


def _kind(path: str) -> str:
    """The page's kind, for its screenshot's name: `home`, `ladders`, `bots`, ..."""
    first = path.strip("/").split("/")[0]
    return first or "home"


# Boxes of every label in every drawn chart that overlap another label of the same chart.
_OVERLAPS_JS = """() => [...document.querySelectorAll('svg[data-drawn]')].flatMap((chart) => {
  const boxes = [...chart.querySelectorAll('text.label')].map((t) => t.getBoundingClientRect());
  const hits = [];
  boxes.forEach((a, i) => boxes.slice(i + 1).forEach((b) => {
    if (a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom)
      hits.push(`${chart.dataset.chart}: ${a.x},${a.y} / ${b.x},${b.y}`);
  }));
  return hits;
})"""


def _visit(page: Page, url: str) -> list[str]:
    """Open a site page; return the links on it. Charts, if any, must be drawn."""
    response = page.goto(url)
    assert response is not None
    assert response.status == 200, (url, response.status)
    charts = page.locator("svg[data-chart]").count()
    if charts:
        page.wait_for_selector("svg[data-drawn]", state="attached")
        assert page.locator("svg[data-drawn]").count() == charts, url
        labels = page.locator("svg[data-drawn] text.label").count()
        assert labels >= 4 * charts, url  # axis titles and ticks: something to overlap
        assert page.evaluate(_OVERLAPS_JS) == [], url
    hrefs = page.eval_on_selector_all("a[href]", "links => links.map((a) => a.href)")
    return [str(h) for h in hrefs]


def _crawl(page: Page, origin: str) -> tuple[set[str], dict[str, int]]:
    """Every site page reachable by links from `/` (visited), and the status of every
    other page linked from one (fetched)."""
    seen: set[str] = set()
    checked: dict[str, int] = {}
    queue = [f"{origin}/"]
    shot: set[str] = set()
    while queue:
        url = queue.pop(0)
        if url in seen:
            continue
        seen.add(url)
        assert len(seen) <= _MAX_PAGES, sorted(seen)
        for link in _visit(page, url):
            target = urldefrag(link).url
            assert target.startswith(origin), f"{url} links off the site: {link}"
            if not urlsplit(target).path.startswith(_OTHERS):
                queue.append(target)
            elif target not in checked:
                checked[target] = page.request.get(target).status
        kind = _kind(urlsplit(url).path)
        if kind not in shot:
            shot.add(kind)
            page.screenshot(path=str(OUT_DIR / f"site-{kind}.png"), full_page=True)
    return seen, checked


def test_every_page_renders_and_every_link_resolves(
    live_server: Any, world: dict[str, Any]
) -> None:
    OUT_DIR.mkdir(exist_ok=True)
    with chromium() as browser:
        page, problems = watched(browser)
        requested: list[str] = []
        page.on("request", lambda request: requested.append(request.url))
        seen, checked = _crawl(page, live_server.url)
        # Without JavaScript every page still has its content; only the charts are blank.
        quiet = browser.new_context(java_script_enabled=False).new_page()
        quiet.goto(f"{live_server.url}/ladders/duel/")
        assert quiet.locator("#leaderboard tbody tr").count() == len(world["bots"])
        assert quiet.locator("svg[data-drawn]").count() == 0
        forfeited = world["matches"][1]
        page.goto(f"{live_server.url}/matches/{forfeited.pk}/")
        page.screenshot(path=str(OUT_DIR / "site-match-forfeit.png"), full_page=True)
        assert problems == []
    assert {url: status for url, status in checked.items() if status >= 400} == {}
    # No CDN: every stylesheet, script and font came from the platform itself.
    assert [u for u in requested if not u.startswith((live_server.url, "data:"))] == []
    assert any(u.endswith("/static/site/charts.js") for u in requested)
    kinds = {_kind(urlsplit(u).path) for u in seen}
    assert {"home", "ladders", "bots", "matches", "tournaments", "viewer", "accounts"} <= kinds
    for bot in world["bots"]:  # every qualified bot reached by a link
        assert f"{live_server.url}/bots/{bot.pk}/" in seen
    assert f"{live_server.url}/bots/{world['draft'].pk}/" not in seen
    assert any("/viewer/replays/" in u for u in checked)


def test_sign_in_and_upload_from_the_browser(live_server: Any, world: dict[str, Any]) -> None:
    with chromium() as browser:
        page, problems = watched(browser)
        page.goto(f"{live_server.url}/bots/upload/")  # signed out: sent to sign in first
        page.fill("#id_username", "bob")
        page.fill("#id_password", "correct-horse-battery-9")
        page.click("button[type=submit]")
        page.wait_for_selector("text=Sign out bob")
        assert page.url == f"{live_server.url}/bots/upload/"
        # A refused file: the API's reason on the page, and nothing created.
        page.select_option("#id_bot", "new")
        page.fill("#id_name", "browsed")
        broken: FilePayload = {
            "name": "broken.py",
            "mimeType": "text/x-python",
            "buffer": b"def f(:\n",
        }
        page.set_input_files("#id_file", broken)
        page.click("form.form button[type=submit]")
        page.wait_for_selector("#upload-errors")
        assert "line 1: invalid syntax" in (page.text_content("#upload-errors") or "")
        page.screenshot(path=str(OUT_DIR / "site-upload-refused.png"), full_page=True)
        good: FilePayload = {
            "name": "good.py",
            "mimeType": "text/x-python",
            "buffer": b"print('hi')\n",
        }
        page.set_input_files("#id_file", good)
        page.click("form.form button[type=submit]")
        page.wait_for_selector("text=Version 1 of browsed uploaded")
        assert "qualifying" in (page.text_content("main") or "")
        page.screenshot(path=str(OUT_DIR / "site-upload-done.png"), full_page=True)
        # The browser itself logs the refused upload's 400; the page adds nothing else.
        assert all("400" in p for p in problems), problems
    bot = Bot.objects.get(owner__username="bob", name="browsed")
    assert [v.filename for v in BotVersion.objects.filter(bot=bot)] == ["good.py"]
