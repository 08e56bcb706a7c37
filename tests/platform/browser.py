"""Headless Chromium for the platform's page tests: one launch, one way to watch a page.

The tests drive Debian's Chromium through Playwright (never a browser it downloads) and
collect every console message and uncaught error, so a page that logs one fails.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, sync_playwright

CHROMIUM = Path("/usr/bin/chromium")
# Without the background-networking flags Chromium keeps calling hosts this machine
# cannot reach, and those refusals would show up among the page's problems.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
OUT_DIR = Path(__file__).resolve().parents[2] / "out"  # screenshots, kept as artefacts
TIMEOUT_MS = 10_000

needs_chromium = pytest.mark.skipif(
    not CHROMIUM.exists(), reason=f"no Chromium at {CHROMIUM}: the browser test needs one"
)


@contextmanager
def chromium() -> Iterator[Browser]:
    """Headless Chromium, closed on exit."""
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


def watched(browser: Browser) -> tuple[Page, list[str]]:
    """A page whose console messages and uncaught errors are collected."""
    page = browser.new_page(viewport={"width": 1440, "height": 1100})
    page.set_default_timeout(TIMEOUT_MS)
    problems: list[str] = []
    page.on("console", lambda msg: problems.append(f"console {msg.type}: {msg.text}"))
    page.on("pageerror", lambda err: problems.append(f"page error: {err}"))
    return page, problems
