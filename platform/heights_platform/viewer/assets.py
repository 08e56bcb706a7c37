"""The viewer's fixed set of assets (JS and CSS) and its replay markup, read from this
package with no Django: the platform's pages and `heights view` serve the same files."""

from __future__ import annotations

from pathlib import Path

ASSETS_DIR = Path(__file__).resolve().parent / "static" / "viewer"
ASSET_TYPES = {
    "viewer.js": "text/javascript; charset=utf-8",
    "board.js": "text/javascript; charset=utf-8",
    "viewer.css": "text/css; charset=utf-8",
}
# Everything inside the replay page's #replay-viewer: plain HTML, no template tags.
REPLAY_BODY = Path(__file__).resolve().parent / "templates" / "viewer" / "replay_body.html"


def asset_bytes(name: str) -> tuple[bytes, str] | None:
    """(content, content type) of one of the fixed assets; None for any other name, which
    is never looked up as a path."""
    content_type = ASSET_TYPES.get(name)
    if content_type is None:
        return None
    return (ASSETS_DIR / name).read_bytes(), content_type


def replay_body() -> str:
    return REPLAY_BODY.read_text(encoding="utf-8")
