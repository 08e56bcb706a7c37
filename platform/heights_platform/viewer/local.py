"""The replay viewer without the platform: a replay file shown by `heights view`.

No Django here: the documents are the replays API's (`replays.documents`, the same code),
the markup and assets are the platform page's (`viewer.assets`). Two pages:

- `served_page`: for a local server answering the platform's relative paths
  (`REPLAY_PATH`, `REPLAY_PATH` + `steps/{n}/`, `ASSET_PATH` + name);
- `standalone_page`: one file, openable from disk with no server: the CSS and JS inlined,
  and every step's document in a gzip+base64 block the viewer inflates in the browser
  (a 4-player game of 1,414 steps: 14.8 MB of JSON, 0.2 MB compressed, a 0.3 MB page).
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import html
import json
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from heights_platform.replays import documents, stepping
from heights_platform.viewer.assets import asset_bytes, replay_body
from heights_rules import Replay as ReplayRecord
from heights_rules import ReplayError, final_ranks, outcome, simulate

MAX_FILE_BYTES = 16 * 1024 * 1024  # a replay is tens of kB; far beyond any real game
REPLAY_PATH = "/replay/"
ASSET_PATH = "/assets/"
SCRIPTS = ("board.js", "viewer.js")  # in this order: viewer.js uses board.js


@dataclass(frozen=True, slots=True)
class LocalReplay:
    """A replay record read from a file, and what the viewer's header shows of it."""

    record: ReplayRecord
    sha256: str
    title: str  # the file's name
    created_at: str  # the file's modification time, ISO 8601

    @classmethod
    def read(cls, path: Path) -> LocalReplay:
        """ReplayError naming the file for anything that is not a readable replay."""
        try:
            size = path.stat().st_size
            if size > MAX_FILE_BYTES:
                raise ReplayError(
                    f"{path}: {size} bytes; a replay file is at most {MAX_FILE_BYTES}"
                )
            data = path.read_bytes()
            mtime = datetime.fromtimestamp(path.stat().st_mtime, UTC)
        except OSError as err:
            raise ReplayError(f"{path}: cannot read: {err.strerror or err}") from None
        try:
            record = ReplayRecord.from_bytes(data)
        except ReplayError as err:
            raise ReplayError(f"{path}: {err}") from None
        digest = hashlib.sha256(data).hexdigest()
        return cls(record, digest, path.name, mtime.isoformat())

    def meta(self) -> dict[str, Any]:
        """What the viewer reads from `GET /api/v1/replays/{id}/`, for the fields it uses."""
        return {
            "id": self.title,
            "kind": "local",
            "ladder": None,
            "tournament": None,
            "steps": len(self.record.actions),
            "seed": self.record.seed,
            "seed_text": str(self.record.seed),
            "created_at": self.created_at,
            "sha256": self.sha256,
            "seats": seat_results(self.record),
        }

    def step(self, step: int) -> dict[str, Any]:
        """One step's document, as the platform's step API builds it; ReplayError outside
        0..steps or when the record does not simulate."""
        view = stepping.step_view(sha256=self.sha256, record=self.record, step=step)
        return documents.step_document(record=self.record, view=view)


def seat_results(record: ReplayRecord) -> list[dict[str, Any]]:
    """Each seat's name, final rank (forfeits last, as the runner ranks them), score and
    forfeit ({"reason", "step", "detail"} or None), as the match API shows a seat."""
    try:
        result = outcome(simulate(record))
    except ValueError as err:  # ReplayError, or a record that stops before the end
        raise ReplayError(f"the replay does not reach the end of its game: {err}") from None
    forfeits = {int(f["seat"]): f for f in record.forfeits}
    seats = len(record.seats)
    ranks = final_ranks(result.ranks, set(forfeits), solo=record.config.solo)[:seats]
    return [
        {
            "seat": seat,
            "name": name,
            "rank": ranks[seat],
            "score": result.totals[seat],
            "forfeit": _forfeit(forfeits.get(seat)),
        }
        for seat, name in enumerate(record.seats)
    ]


def _forfeit(found: dict[str, Any] | None) -> dict[str, Any] | None:
    if found is None:
        return None
    step = found.get("step")
    return {
        "reason": str(found.get("reason", "")),
        "step": step if isinstance(step, int) else None,
        "detail": str(found.get("detail", "")),
    }


def served_page(replay: LocalReplay) -> str:
    """The page for a local server: assets and documents fetched from it."""
    css = f'<link rel="stylesheet" href="{ASSET_PATH}viewer.css">'
    scripts = "\n".join(f'<script src="{ASSET_PATH}{name}" defer></script>' for name in SCRIPTS)
    return _page(replay.title, css, scripts)


def standalone_page(replay: LocalReplay) -> str:
    """One self-contained page: the same documents, computed now and inlined."""
    steps = list(documents.step_documents(replay.record))
    data = {"meta": replay.meta(), "steps": steps}
    packed = gzip.compress(json.dumps(data, separators=(",", ":")).encode(), mtime=0)
    blob = base64.b64encode(packed).decode("ascii")
    css = f"<style>\n{_asset_text('viewer.css')}</style>"
    inline = [f'<script type="application/octet-stream" id="replay-data">{blob}</script>']
    inline += [f"<script>\n{_asset_text(name)}</script>" for name in SCRIPTS]
    return _page(replay.title, css, "\n".join(inline))


def _asset_text(name: str) -> str:
    asset = asset_bytes(name)
    if asset is None:  # a name in SCRIPTS or above that assets.py does not list
        raise LookupError(f"no viewer asset {name}")
    text = asset[0].decode("utf-8")
    if "</script" in text.lower() or "</style" in text.lower():  # would end the element early
        raise ValueError(f"viewer asset {name} cannot be inlined")
    return text


def _page(title: str, css: str, scripts: str) -> str:
    name = html.escape(title)
    return f"""<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Replay {name} · Rolling Heights Arena</title>
  <link rel="icon" href="data:,">
  {css}
</head>
<body>
  <header class="topbar">
    <span class="brand">Rolling Heights Arena</span>
    <nav>a local replay</nav>
  </header>
  <main>
    <p id="status" class="status" role="status" aria-live="polite">Loading…</p>
    <div id="replay-viewer" class="replay"
         data-replay-url="{REPLAY_PATH}" data-replay-id="{name}">
      <h1>Replay {name}</h1>
{replay_body()}
    </div>
  </main>
{scripts}
</body>
</html>
"""
