"""`heights up` (what `make up` runs) on its embedded defaults, as a bot author meets it.

No PostgreSQL, Redis or staff account: the stack starts on SQLite, the file broker and
the engine's in-memory store, and opens a ladder with built-in opponents. A new user
uploads the SDK's starter bot, enters it, and once matchmaking has played it, reads
its log in that match, watches the replay in the viewer, and SIGTERM stops everything.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

from heights_cli.api_client import ApiClient
from heights_cli.stack import free_port
from heights_cli.up import OPEN_LADDER

TIMEOUT = 120.0  # seconds, for each wait on the stack


def _until(what: str, check: Callable[[], Any], up: subprocess.Popen[bytes], log: Path) -> Any:
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        assert up.poll() is None, f"heights up exited:\n{log.read_text()[-3000:]}"
        time.sleep(0.5)
    raise AssertionError(f"{what} within {TIMEOUT:.0f} s:\n{log.read_text()[-3000:]}")


def test_up_opens_a_ladder_a_new_bot_plays_on(tmp_path: Path) -> None:
    from heights_sdk import starter

    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env["DJANGO_SETTINGS_MODULE"] = "heights_platform.settings"  # not pytest-django's
    log = tmp_path / "up.log"
    command = [sys.executable, "-m", "heights_cli.main", "up", "--var", str(tmp_path / "var")]
    with log.open("wb") as out:
        up = subprocess.Popen([*command, "--port", str(port)], env=env, stderr=out, stdout=out)
    try:
        _until("up", lambda: "up; Ctrl-C stops everything" in log.read_text(), up, log)
        assert f"ladder {OPEN_LADDER} is open" in log.read_text()
        base = f"http://127.0.0.1:{port}"
        api = ApiClient(base)
        assert api.get("/api/v1/")["ladders"] == f"{base}/api/v1/ladders/"
        board = api.get(f"/api/v1/ladders/{OPEN_LADDER}/leaderboard/")
        assert sorted(f"{row['owner']}/{row['bot_name']}" for row in board) == [
            "arena/greedy",
            "arena/random",
        ]

        api.post(
            "/api/v1/accounts/register/",
            {"username": "gale", "email": "gale@example.org", "password": "gale-plays-42-heights"},
        )
        login = {"username": "gale", "password": "gale-plays-42-heights"}
        gale = api.as_user(api.post("/api/v1/accounts/login/", login)["key"])
        bot = gale.post("/api/v1/bots/", {"name": "starter"})
        source = Path(str(starter.__file__)).read_text()
        future = "from __future__ import annotations\n"
        logs = future + "import sys\nprint('gale was here', file=sys.stderr)\n"
        content = source.replace(future, logs).encode()
        gale.upload(f"/api/v1/bots/{bot['id']}/versions/", "starter.py", content)

        def active() -> bool:
            versions = gale.get(f"/api/v1/bots/{bot['id']}/versions/")["results"]
            return bool(versions[0]["status"] == "active")

        _until("the starter bot qualified", active, up, log)
        gale.post(f"/api/v1/ladders/{OPEN_LADDER}/join/", {"bot": bot["id"]})

        def played() -> dict[str, Any] | None:
            query = f"/api/v1/matches/?ladder={OPEN_LADDER}&bot={bot['id']}&status=finished"
            results: list[dict[str, Any]] = gale.get(query)["results"]
            return results[0] if results else None

        match = _until("a ladder match of the new bot", played, up, log)
        seat = next(s["seat"] for s in match["seats"] if s["bot"] == bot["id"])
        log_url = f"/api/v1/matches/{match['id']}/seats/{seat}/log/"

        def shown() -> dict[str, Any] | None:
            # A ladder table's rotations share a deal: its log and replay wait for the other.
            mine: dict[str, Any] = gale.get(log_url)
            return None if mine["withheld"] else mine

        mine = _until("the new bot's log, once its deal has ended", shown, up, log)
        assert mine["status"] == "finished"
        assert mine["log"] == "gale was here\n"  # from the sandbox, through the runner's result
        replay = gale.get(f"/api/v1/matches/{match['id']}/")["replay"]
        with urllib.request.urlopen(f"{base}/viewer/replays/{replay}/") as page:
            assert page.status == 200
            assert b"<html" in page.read().lower()
    finally:
        up.send_signal(signal.SIGTERM)
        up.wait(timeout=90)
    assert up.returncode == 0, log.read_text()[-3000:]
    assert "all services stopped" in log.read_text()
