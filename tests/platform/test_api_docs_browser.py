"""The API docs in a real browser with the network off: every operation is listed.

Swagger UI and Redoc come from the platform itself (drf-spectacular-sidecar, served by
WhiteNoise); any request that leaves the platform is aborted and fails the test, so a
page that still reached for a CDN would show nothing and be caught here.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, Route
from tests.platform.browser import OUT_DIR, chromium, needs_chromium, watched

pytestmark = needs_chromium

# Redoc's "powered by" logo: an image that removes itself when it cannot load, the one
# request to the internet that Redoc's bundle makes by itself.
REDOC_LOGO = "https://cdn.redoc.ly/redoc/logo-mini.svg"
HTTP_METHODS = ("get", "put", "post", "delete", "patch", "head", "options", "trace")


@pytest.fixture
def browser() -> Iterator[Browser]:
    with chromium() as launched:
        yield launched


def _offline(page: Page, origin: str) -> list[str]:
    """Abort every request that does not go to `origin`; return the aborted URLs."""
    left: list[str] = []

    def route(r: Route) -> None:
        if r.request.url.startswith(origin):
            r.continue_()
        else:
            left.append(r.request.url)
            r.abort("internetdisconnected")

    page.route("**/*", route)
    return left


def _operations(page: Page, origin: str) -> list[tuple[str, str]]:
    schema: dict[str, Any] = page.request.get(
        f"{origin}/api/v1/schema/", headers={"Accept": "application/json"}
    ).json()
    return [
        (method.upper(), path)
        for path, item in schema["paths"].items()
        for method in item
        if method in HTTP_METHODS
    ]


def test_swagger_ui_lists_every_operation_offline(live_server: Any, browser: Browser) -> None:
    page, problems = watched(browser)
    left = _offline(page, live_server.url)
    operations = _operations(page, live_server.url)
    assert len(operations) > 20

    page.goto(f"{live_server.url}/api/v1/docs/")
    page.wait_for_selector(".opblock")
    shown = {
        (
            block.locator(".opblock-summary-method").inner_text().strip(),
            block.locator(".opblock-summary-path").get_attribute("data-path") or "",
        )
        for block in page.locator(".opblock").all()
    }
    assert shown == set(operations)
    OUT_DIR.mkdir(exist_ok=True)
    page.screenshot(path=str(OUT_DIR / "api-docs-screenshot.png"))
    assert left == []
    assert problems == []


def test_redoc_lists_every_operation_offline(live_server: Any, browser: Browser) -> None:
    page, problems = watched(browser)
    left = _offline(page, live_server.url)
    operations = _operations(page, live_server.url)

    page.goto(f"{live_server.url}/api/v1/redoc/")
    page.wait_for_selector("[data-section-id^='operation/']", state="attached")
    sections = page.locator("[data-section-id^='operation/']").count()
    assert sections == len(operations)
    assert [url for url in left if url != REDOC_LOGO] == []
    # The browser logs the logo's refused request; Redoc itself may warn about schema
    # features it renders its own way, and must log no error.
    refused = "console error: Failed to load resource: net::ERR_INTERNET_DISCONNECTED"
    errors = [p for p in problems if not p.startswith("console warning")]
    assert errors == [refused] * len(left)
