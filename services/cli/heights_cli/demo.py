"""`heights demo`: the whole system on one machine, and a tournament through it.

`demo` starts the engine service, a runner worker, the platform (gunicorn) and its
worker, creates demo accounts, uploads two bots through the API (each qualifies in the
sandbox), enters them with the built-in bots in a round-robin tournament and a ladder,
shows progress, prints the standings, the ladder and where to watch the final game,
then keeps running until Ctrl-C (on a terminal, or with --keep) or writes the final game
as a page that opens with no server and stops everything. `heights up` (up.py) starts
the same services and waits.

Embedded defaults: SQLite, the file broker and the engine's in-memory store; with
DATABASE_URL and REDIS_URL set, PostgreSQL and Redis are used instead.
"""

from __future__ import annotations

import argparse
import io
import os
import shutil
import signal
import subprocess
import sys
import time
import zipfile
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from heights_cli.api_client import ApiCallError, ApiClient
from heights_cli.progress import ProgressBar
from heights_cli.stack import Stack, free_port

ADMIN = ("demo-admin", "arena-demo-admin-7")
USERS = {"alice": "alice-plays-heights-42", "bob": "bob-builds-towers-42"}

FIRST_LEGAL = b'''"""Bob's bot, a zip archive: its main.py plays the first legal action."""
from heights_sdk import Bot, run

class FirstLegal(Bot):
    def choose(self, decision):
        return decision.legal[0].id, "first legal action"

run(FirstLegal(name="first-legal"))
'''


def register(commands: Any) -> None:
    demo = commands.add_parser("demo", help="run a tournament of bots through the whole system")
    demo.add_argument("--var", type=Path, default=Path("var/demo"), help="state folder")
    demo.add_argument("--bots", default="random,greedy", help="built-in bots to enter")
    demo.add_argument("--ladder-matches", type=int, default=4, help="ladder games to wait for")
    demo.add_argument(
        "--keep",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="keep the platform and the final game's viewer link up after the tournament, "
        "until Ctrl-C (default: on a terminal; otherwise the final game is written as a "
        "page that opens with no server)",
    )
    demo.set_defaults(run=run_demo)


def stop_on_sigterm() -> None:
    """SIGTERM (`make down`, a supervisor) stops the stack like Ctrl-C does."""

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, interrupt)


def say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def start_system(var: Path, port: int = 0) -> tuple[Stack, str]:
    """Engine, runner worker, platform web and worker; returns the stack and API base."""
    var = var.resolve()
    redis = os.environ.get("REDIS_URL", "")
    env = {"HEIGHTS_VAR_DIR": str(var), "HEIGHTS_PLATFORM_MATCHMAKING_SECONDS": "5"}
    if redis:
        env |= {"HEIGHTS_RUNNER_BROKER_URL": redis, "HEIGHTS_PLATFORM_BROKER_URL": redis}
    stack = Stack(var, env)
    try:
        return stack, _start(stack, var, port)
    except BaseException:  # what did start must not outlive a failed (or interrupted) start
        stack.stop()
        raise


def _start(stack: Stack, var: Path, port: int) -> str:
    redis = os.environ.get("REDIS_URL", "")
    env = dict(stack.env)
    cli = [sys.executable, "-m", "heights_cli.main"]
    say(
        "· database: " + ("DATABASE_URL" if os.environ.get("DATABASE_URL") else "SQLite (embedded)")
    )
    say("· broker:   " + ("Redis (REDIS_URL)" if redis else f"file broker in {var / 'broker'}"))
    migrate = subprocess.run(
        [*cli, "platform", "migrate"],
        env=os.environ | env,
        capture_output=True,
        text=True,
        check=False,
    )
    if migrate.returncode:
        raise RuntimeError(f"migrations failed:\n{migrate.stdout}{migrate.stderr}")
    engine = stack.engine(redis_url=redis, HEIGHTS_ENGINE_LOG_LEVEL="WARNING")
    say(f"· engine service on {engine.address} ({'Redis' if redis else 'in-memory'} game store)")
    stack.runner(
        "runner", HEIGHTS_RUNNER_ENGINE_ADDRESS=engine.address, HEIGHTS_RUNNER_CONCURRENCY="2"
    )
    say("· runner worker ready (2 matches at a time, bots in the sandbox)")
    stack.process("platform-worker", [*cli, "platform", "worker", "--beat"], ready_text=" ready.")
    port = port or free_port()
    stack.process(
        "platform-web",
        [*cli, "platform", "serve", "--bind", f"127.0.0.1:{port}", "--workers", "2"],
        ready_text="Booting worker",
    )
    base = f"http://127.0.0.1:{port}"
    _wait_http(base + "/readyz")
    say(f"· platform API on {base}/api/v1/ (docs {base}/api/v1/docs/)")
    return base


def _wait_http(url: str, timeout: float = 30) -> None:
    import urllib.request

    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except OSError:
            if time.monotonic() > deadline:
                raise RuntimeError(f"{url} did not answer") from None
            time.sleep(0.2)


def manage(*args: str, env: dict[str, str]) -> None:
    cli = [sys.executable, "-m", "heights_cli.main", "platform", "manage", *args]
    done = subprocess.run(cli, env=os.environ | env, capture_output=True, text=True, check=False)
    if done.returncode:
        raise RuntimeError(f"{' '.join(args)} failed:\n{done.stdout}{done.stderr}")


def _login(api: ApiClient, username: str, password: str) -> ApiClient:
    reply = api.post("/api/v1/accounts/login/", {"username": username, "password": password})
    return api.as_user(reply["key"])


def _accounts(api: ApiClient, var: Path) -> dict[str, ApiClient]:
    env = {
        "HEIGHTS_VAR_DIR": str(var),
        "DJANGO_SUPERUSER_USERNAME": ADMIN[0],
        "DJANGO_SUPERUSER_PASSWORD": ADMIN[1],
        "DJANGO_SUPERUSER_EMAIL": "admin@example.org",
    }
    manage("createsuperuser", "--noinput", env=env)
    manage("builtin_bots_ensure", env=env)
    clients = {"admin": _login(api, *ADMIN)}
    for name, password in USERS.items():
        api.post(
            "/api/v1/accounts/register/",
            {"username": name, "email": f"{name}@example.org", "password": password},
        )
        clients[name] = _login(api, name, password)
    say(f"· accounts: {', '.join(USERS)} (and {ADMIN[0]}, staff)")
    return clients


def _upload_bots(clients: dict[str, ApiClient]) -> list[dict[str, Any]]:
    from heights_sdk import starter

    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("main.py", FIRST_LEGAL)
    uploads = [
        ("alice", "starter", "starter.py", Path(str(starter.__file__)).read_bytes()),
        ("bob", "first-legal", "first_legal.zip", archive.getvalue()),
    ]
    bots = []
    for owner, name, filename, content in uploads:
        api = clients[owner]
        bot = api.post("/api/v1/bots/", {"name": name, "description": f"{owner}'s demo bot"})
        version = api.upload(f"/api/v1/bots/{bot['id']}/versions/", filename, content)
        say(f"· {owner} uploaded {filename} as {owner}/{name} v{version['number']}: qualifying…")
        bots.append(bot)
    for bot, (owner, name, _, _) in zip(bots, uploads, strict=True):
        _wait_active(clients[owner], bot["id"], f"{owner}/{name}")
    return bots


def _wait_active(api: ApiClient, bot_id: int, label: str, timeout: float = 300) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        version = api.get(f"/api/v1/bots/{bot_id}/versions/")["results"][0]
        if version["status"] == "active":
            say(f"· {label} passed qualification against the random bot")
            return
        if version["status"] == "rejected":
            raise RuntimeError(f"{label} was rejected: {version.get('error')}")
        time.sleep(0.5)
    raise RuntimeError(f"{label} did not qualify in {timeout:.0f} s")


def _builtins(api: ApiClient, names: list[str]) -> list[dict[str, Any]]:
    listed = api.get("/api/v1/bots/?owner=arena&page_size=50")["results"]
    by_name = {b["name"]: b for b in listed}
    return [by_name[n] for n in names]


def _tournament(admin: ApiClient, bots: list[dict[str, Any]]) -> dict[str, Any]:
    now = datetime.now(UTC)
    tournament = admin.post(
        "/api/v1/tournaments/",
        {
            "name": "Demo round robin",
            "format": "round_robin",
            "players": 2,
            "duplicate": True,
            "registration_opens_at": (now - timedelta(minutes=1)).isoformat(),
            "registration_closes_at": (now + timedelta(hours=1)).isoformat(),
        },
    )
    for bot in bots:
        admin.post(f"/api/v1/tournaments/{tournament['id']}/entries/", {"bot": bot["id"]})
    admin.post(f"/api/v1/tournaments/{tournament['id']}/start/")
    say(
        f"· tournament #{tournament['id']}: round robin, 2 players, duplicate seeds, "
        f"{len(bots)} bots"
    )
    with ProgressBar("  tournament", 0, "matches") as bar:
        while True:
            detail: dict[str, Any] = admin.get(f"/api/v1/tournaments/{tournament['id']}/")
            progress = detail["progress"]
            done = progress["matches_finished"] + progress["matches_failed"]
            bar.update(done, total=progress["matches_total"])
            if detail["status"] == "finished":
                return detail
            time.sleep(0.5)


def _ladder(admin: ApiClient, bots: list[dict[str, Any]]) -> str:
    # Two seats: matchmaking never seats two bots of one owner together, and the
    # built-ins share one (the arena), so bigger tables would leave them out.
    slug = "demo-2p"
    try:
        admin.post(
            "/api/v1/ladders/", {"slug": slug, "name": "Demo ladder, 2 players", "players": 2}
        )
    except ApiCallError as err:
        if err.status != 409:
            raise
    for bot in bots:
        admin.post(f"/api/v1/ladders/{slug}/join/", {"bot": bot["id"]})
    return slug


def _print_standings(api: ApiClient, tournament_id: int) -> None:
    rows = api.get(f"/api/v1/tournaments/{tournament_id}/standings/")["standings"]
    print("\nFinal standings")
    print(f"  {'#':>2}  {'bot':<28}{'points':>8}{'games':>7}{'avg rank':>10}{'score':>8}")
    for row in rows:
        name = f"{row['owner']}/{row['bot_name']}"
        ties = row["tiebreaks"]
        print(
            f"  {row['place']:>2}  {name:<28}{row['points']:>8.2f}{ties['games']:>7}"
            f"{ties['average_rank'] or 0:>10.2f}{ties['score']:>8.0f}"
        )


def _print_ladder(api: ApiClient, slug: str, wanted: int) -> None:
    deadline = time.monotonic() + 240
    with ProgressBar("  ladder    ", wanted, "matches") as bar:
        while time.monotonic() < deadline:
            query = f"/api/v1/matches/?ladder={slug}&status=finished&page_size=100"
            played = len(api.get(query)["results"])
            bar.update(min(played, wanted))
            if played >= wanted:
                break
            time.sleep(1)
    rows = api.get(f"/api/v1/ladders/{slug}/leaderboard/")
    rows = rows.get("results", rows) if isinstance(rows, dict) else rows
    print(f"\nLadder {slug} (Elo and Plackett-Luce side by side)")
    print(f"  {'#':>2}  {'bot':<28}{'Elo':>8}{'mu':>7}{'sigma':>7}{'games':>7}")
    for i, row in enumerate(rows, 1):
        name = f"{row.get('owner')}/{row.get('bot_name') or row.get('bot')}"
        print(
            f"  {i:>2}  {name!s:<28}{row['elo']:>8.1f}{row['mu']:>7.2f}"
            f"{row['sigma']:>7.2f}{row['games']:>7}"
        )


def run_demo(args: argparse.Namespace) -> int:
    var: Path = args.var
    if var.exists() and not os.environ.get("DATABASE_URL"):
        shutil.rmtree(var)  # a fresh demo each time (SQLite, broker and caches live here)
    stack: Stack | None = None
    stop_on_sigterm()
    try:
        stack, base = start_system(var)
        api = ApiClient(base)
        clients = _accounts(api, var.resolve())
        uploaded = _upload_bots(clients)
        builtins = _builtins(api, [b for b in args.bots.split(",") if b])
        bots = builtins + uploaded
        slug = _ladder(clients["admin"], bots)
        detail = _tournament(clients["admin"], bots)
        _print_standings(api, detail["id"])
        _print_ladder(api, slug, args.ladder_matches)
        final = api.get(f"/api/v1/replays/?tournament={detail['id']}&page_size=1")["results"]
        if final:
            replay_id = final[0]["id"]
            print(f"\nWatch the final game: {base}/viewer/replays/{replay_id}/")
            print(f"  its replay record:  {base}/api/v1/replays/{replay_id}/")
        keep = sys.stdin.isatty() if args.keep is None else args.keep
        if final and not keep:  # the link dies with the platform: leave a page that works
            return final_game_page(base, final[0]["id"], var.resolve())
        if keep:
            say("running, so the links work; Ctrl-C stops everything")
            signal.pause()
        return 0
    except KeyboardInterrupt:
        say("\ninterrupted: stopping")
        return 130
    except (RuntimeError, ApiCallError) as err:
        say(f"\ndemo failed: {err}")
        if stack is not None:
            for service in stack.services:
                say(f"--- {service.name} log (tail) ---\n{service.log()[-1500:]}")
        return 1
    finally:
        if stack is not None:
            stack.stop()
            say("· all services stopped")


def final_game_page(base: str, replay_id: int, var: Path) -> int:
    """The final game's replay, downloaded, as one page that opens from disk (`heights view
    --html`), since the platform stops with the demo."""
    import urllib.request

    from heights_cli.view_cmd import show

    replay = var / f"replay-{replay_id}.replay.gz"
    with urllib.request.urlopen(f"{base}/api/v1/replays/{replay_id}/download/", timeout=30) as r:
        replay.write_bytes(r.read())
    print("  (the platform stops now; the same game, viewable with no server:)")
    return show(replay, html=var / f"replay-{replay_id}.html", port=0, open_browser=False)
