"""The whole system end to end, through the real HTTP API only.

Engine service, runner worker, platform web (gunicorn) and platform worker run as real
processes (`heights_cli.demo.start_system`) on a scratch PostgreSQL database and Redis
(keys under a unique prefix). Two users register, log in and upload a bot each (a .py
and a .zip), both qualify in the sandbox; a staff user runs a short round robin with
the built-in `random`; its replays are listed, downloaded, stepped through and verified.
Everything is stopped at the end and nothing is left running.
"""

from __future__ import annotations

import hashlib
import io
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
import zipfile
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from tests.real_redis import TEST_REDIS_URL

from heights_cli.api_client import ApiCallError, ApiClient
from heights_cli.demo import FIRST_LEGAL, start_system
from heights_cli.stack import Service

POSTGRES = "postgres://postgres@127.0.0.1:5432"
REDIS = TEST_REDIS_URL
USERS = {"erin": "erin-plays-heights-42", "finn": "finn-builds-towers-42"}
ADMIN = ("e2e-admin", "arena-e2e-admin-7")
TIMEOUT = 60.0  # seconds, for each wait on the system


def _services_up() -> bool:
    import psycopg
    import redis

    try:
        with psycopg.connect(f"{POSTGRES}/postgres", connect_timeout=2):
            pass
        redis.Redis.from_url(REDIS, socket_connect_timeout=2).ping()
    except (psycopg.Error, redis.RedisError):
        return False
    return True


pytestmark = pytest.mark.skipif(not _services_up(), reason="needs PostgreSQL and Redis")


@pytest.fixture
def scratch_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, str]]:
    """A scratch database and Redis key prefix, set in the environment every process sees."""
    import psycopg
    import redis

    tag = uuid.uuid4().hex[:12]
    database = f"heights_e2e_{tag}"
    with psycopg.connect(f"{POSTGRES}/postgres", autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{database}"')
    prefix = f"heights-e2e-{tag}:"
    env = {
        # pytest-django exported the test settings; the processes use the real ones.
        "DJANGO_SETTINGS_MODULE": "heights_platform.settings",
        "DATABASE_URL": f"{POSTGRES}/{database}",
        "REDIS_URL": REDIS,
        "HEIGHTS_BROKER_PREFIX": prefix,
        "HEIGHTS_ENGINE_REDIS_PREFIX": f"{prefix}engine",
    }
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    try:
        yield env
    finally:
        with psycopg.connect(f"{POSTGRES}/postgres", autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
        client = redis.Redis.from_url(REDIS)
        keys = list(client.scan_iter(match=f"{prefix}*", count=1000))
        if keys:
            client.delete(*keys)
        client.close()


def _manage(var: Path, *args: str, **env: str) -> None:
    cli = [sys.executable, "-m", "heights_cli.main", "platform", "manage", *args]
    environ = os.environ | {"HEIGHTS_VAR_DIR": str(var)} | env
    done = subprocess.run(cli, env=environ, capture_output=True, text=True, check=False)
    assert done.returncode == 0, f"{args} failed:\n{done.stdout}{done.stderr}"


def _login(api: ApiClient, username: str, password: str) -> ApiClient:
    reply = api.post("/api/v1/accounts/login/", {"username": username, "password": password})
    return api.as_user(reply["key"])


def _fetch(api: ApiClient, path: str) -> tuple[int, bytes]:
    """Raw bytes of a GET (the client only speaks JSON); the status of an error too."""
    request = urllib.request.Request(api.base + path)
    if api.token:
        request.add_header("Authorization", f"Token {api.token}")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as err:
        body = err.read()
        err.close()
        return err.code, body


def _wait_for(what: str, probe: Callable[[], Any], timeout: float = TIMEOUT) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = probe()
        if value:
            return value
        time.sleep(0.3)
    raise AssertionError(f"{what}: not done after {timeout:.0f} s")


def _api_error(call: Callable[[], Any]) -> ApiCallError:
    with pytest.raises(ApiCallError) as caught:
        call()
    return caught.value


def _accounts(api: ApiClient, var: Path) -> dict[str, ApiClient]:
    _manage(
        var,
        "createsuperuser",
        "--noinput",
        DJANGO_SUPERUSER_USERNAME=ADMIN[0],
        DJANGO_SUPERUSER_PASSWORD=ADMIN[1],
        DJANGO_SUPERUSER_EMAIL="admin@example.org",
    )
    _manage(var, "builtin_bots_ensure")
    clients = {"admin": _login(api, *ADMIN)}
    for name, password in USERS.items():
        api.post(
            "/api/v1/accounts/register/",
            {"username": name, "email": f"{name}@example.org", "password": password},
        )
        clients[name] = _login(api, name, password)
    return clients


def _upload_bots(clients: dict[str, ApiClient]) -> dict[str, dict[str, Any]]:
    from heights_sdk import starter

    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("main.py", FIRST_LEGAL)
    uploads = {
        "erin": ("starter", "starter.py", Path(str(starter.__file__)).read_bytes()),
        "finn": ("first-legal", "first_legal.zip", archive.getvalue()),
    }
    bots = {}
    for owner, (name, filename, content) in uploads.items():
        api = clients[owner]
        bot = api.post("/api/v1/bots/", {"name": name, "description": f"{owner}'s bot"})
        version = api.upload(f"/api/v1/bots/{bot['id']}/versions/", filename, content)
        assert (version["number"], version["filename"]) == (1, filename)
        assert version["sha256"] == hashlib.sha256(content).hexdigest()
        bots[owner] = bot | {"content": content}
    for owner, bot in bots.items():
        api = clients[owner]

        def qualified(api: ApiClient = api, bot_id: int = bot["id"]) -> bool:
            version = api.get(f"/api/v1/bots/{bot_id}/versions/")["results"][0]
            assert version["status"] != "rejected", version
            return bool(version["status"] == "active")

        _wait_for(f"{owner}'s bot qualifies", qualified)
    return bots


def _check_privacy_and_bad_upload(clients: dict[str, ApiClient], bot: dict[str, Any]) -> None:
    erin, finn = clients["erin"], clients["finn"]
    source = f"/api/v1/bots/{bot['id']}/versions/1/source/"
    assert _fetch(erin, source) == (200, bot["content"])
    for stranger in (finn, erin.as_user("")):
        status, body = _fetch(stranger, source)
        assert status == 404, body

    broken = erin.post("/api/v1/bots/", {"name": "broken"})
    err = _api_error(
        lambda: erin.upload(f"/api/v1/bots/{broken['id']}/versions/", "bad.py", b"def (:\n")
    )
    assert err.status == 400
    assert err.body["code"] == "invalid_upload"
    assert err.body["details"]["reason"] == "syntax_error"
    assert erin.get(f"/api/v1/bots/{broken['id']}/versions/")["results"] == []
    detail = erin.get(f"/api/v1/bots/{broken['id']}/")
    assert (detail["version_count"], detail["active_version"]) == (0, None)


def _run_tournament(admin: ApiClient, bot_ids: list[int]) -> dict[str, Any]:
    now = datetime.now(UTC)
    tournament = admin.post(
        "/api/v1/tournaments/",
        {
            "name": "E2E round robin",
            "format": "round_robin",
            "players": 2,
            "options": {"round_cap": 3},
            "rated": False,  # a chosen seed is for unrated play only
            "seed": 20261122,  # every game replayable, the same on every run
            "registration_opens_at": (now - timedelta(minutes=1)).isoformat(),
            "registration_closes_at": (now + timedelta(hours=1)).isoformat(),
        },
    )
    assert tournament["options"] == {"round_cap": 3}
    for bot_id in bot_ids:
        admin.post(f"/api/v1/tournaments/{tournament['id']}/entries/", {"bot": bot_id})
    admin.post(f"/api/v1/tournaments/{tournament['id']}/start/")

    def finished() -> dict[str, Any] | None:
        detail: dict[str, Any] = admin.get(f"/api/v1/tournaments/{tournament['id']}/")
        return detail if detail["status"] == "finished" else None

    detail: dict[str, Any] = _wait_for("the tournament finishes", finished)
    progress = detail["progress"]
    assert progress["matches_failed"] == 0
    assert progress["matches_finished"] == progress["matches_total"] == 3  # 3 pairs of 3 bots
    return detail


def _hidden_targets(observation: dict[str, Any], viewer: int | None) -> bool:
    """True when no seat but `viewer` (None: public) shows its Targets."""
    return all("targets" not in p for p in observation["players"] if p["player"] != viewer)


def _browse_replays(api: ApiClient, tournament_id: int) -> None:
    listed = api.get(f"/api/v1/replays/?tournament={tournament_id}")["results"]
    assert len(listed) == 3
    assert {r["tournament"] for r in listed} == {tournament_id}
    replay_id = listed[0]["id"]
    detail = api.get(f"/api/v1/replays/{replay_id}/")
    assert detail["match_detail"]["status"] == "finished"
    steps = detail["steps"]
    assert steps > 2

    status, blob = _fetch(api, f"/api/v1/replays/{replay_id}/download/")
    assert status == 200
    assert hashlib.sha256(blob).hexdigest() == detail["sha256"]
    assert len(blob) == detail["size"]

    base = f"/api/v1/replays/{replay_id}/steps"
    first = api.get(f"{base}/0/")
    assert (first["step"], first["steps"], first["viewer"]) == (0, steps, "public")
    assert first["action"] is not None
    middle = api.get(f"{base}/{steps // 2}/")
    assert _hidden_targets(middle["observation"], None)
    assert _hidden_targets(first["observation"], None)
    final = api.get(f"{base}/{steps}/")
    assert final["action"] is None
    assert final["observation"]["to_move"] == "terminal"
    # The game is over: its audience now sees every seat's Targets.
    assert all("targets" in p for p in final["observation"]["players"])
    seat0 = api.get(f"{base}/{steps // 2}/?viewer=0")
    assert seat0["viewer"] == 0
    assert "targets" in seat0["observation"]["players"][0]
    assert _hidden_targets(seat0["observation"], 0)

    report = api.get(f"/api/v1/replays/{replay_id}/verify/")
    assert report["ok"] is True, report
    assert report["steps"] == steps


def _leftovers(services: list[Service], grace: float = 10.0) -> list[str]:
    """`ps` lines of processes still in the services' process groups after `grace` s
    (children a group leader leaves behind take a moment to act on SIGTERM). Zombies,
    exited and waiting to be reaped by init, do not count."""
    groups = {service.proc.pid for service in services}
    deadline = time.monotonic() + grace
    while True:
        ps = subprocess.run(
            ["ps", "-eo", "pid=,pgid=,stat=,args="], capture_output=True, text=True, check=True
        )
        rows = [line.split(maxsplit=3) for line in ps.stdout.splitlines()]
        left = [" ".join(r) for r in rows if int(r[1]) in groups and not r[2].startswith("Z")]
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.2)


def test_whole_system_through_the_api(scratch_env: dict[str, str], tmp_path: Path) -> None:
    stack, base = start_system(tmp_path / "var")
    services = list(stack.services)
    try:
        assert {s.name for s in services} == {
            "engine",
            "runner",
            "platform-worker",
            "platform-web",
        }
        api = ApiClient(base)
        clients = _accounts(api, tmp_path / "var")
        bots = _upload_bots(clients)
        _check_privacy_and_bad_upload(clients, bots["erin"])
        builtins = api.get("/api/v1/bots/?owner=arena&name=random")["results"]
        assert [b["name"] for b in builtins] == ["random"]
        bot_ids = [bots["erin"]["id"], bots["finn"]["id"], builtins[0]["id"]]
        tournament = _run_tournament(clients["admin"], bot_ids)
        _browse_replays(api, tournament["id"])
    except BaseException:
        for service in services:
            print(f"--- {service.name} log (tail) ---\n{service.log()[-2000:]}", file=sys.stderr)
        raise
    finally:
        stack.stop()
    assert stack.services == []
    assert not any(service.alive() for service in services)
    assert _leftovers(services) == []
