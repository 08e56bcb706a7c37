"""`heights up` / `heights down` (what `make up` / `make down` run): the system on one
machine, at most one per state folder, stopped whole.

`heights up` holds an exclusive lock on `<var>/stack.lock` for as long as it runs and
records itself and its services in `<var>/stack.json`; a second `heights up` on the
folder finds the lock taken, says what is running and starts nothing. `--detach` starts
it in the background (log `<var>/stack.log`) and returns once it is up. Every process
of a stack carries its id in HEIGHTS_UP_ID, so `heights down` can tell, after stopping
it with SIGTERM, that nothing of it is left, and end what is.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import json
import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import IO, Any

from heights_cli.demo import manage, say, start_system, stop_on_sigterm
from heights_cli.stack import Stack, processes_with_env, running

OPEN_LADDER = "open-2p"
STACK_ID = "HEIGHTS_UP_ID"  # in the environment of every process of a stack
START_SECONDS = 300.0  # `--detach` waits this long for the stack to be up
STOP_SECONDS = 90.0  # `heights down` waits this long for it to stop


def register(commands: Any) -> None:
    up = commands.add_parser(
        "up", help="start engine, runner and platform; Ctrl-C or `heights down` stops them"
    )
    up.add_argument("--var", type=Path, default=Path("var/up"), help="state folder")
    up.add_argument("--port", type=int, default=8000, help="platform HTTP port")
    up.add_argument(
        "--detach", action="store_true", help="run in the background; return once it is up"
    )
    up.set_defaults(run=run_up)
    down = commands.add_parser("down", help="stop what `heights up` started, and say what")
    down.add_argument("--var", type=Path, default=Path("var/up"), help="state folder")
    down.set_defaults(run=run_down)


def _lock(var: Path) -> IO[str] | None:
    """The stack's lock, taken; None where a running `heights up` holds it."""
    var.mkdir(parents=True, exist_ok=True)
    held = (var / "stack.lock").open("a")
    try:
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        held.close()
        return None
    return held


def _record(var: Path) -> dict[str, Any]:
    try:
        record: dict[str, Any] = json.loads((var / "stack.json").read_text())
    except (OSError, ValueError):
        return {}
    return record


def _write_record(var: Path, record: dict[str, Any]) -> None:
    draft = var / "stack.json.new"
    draft.write_text(json.dumps(record, indent=2))
    draft.replace(var / "stack.json")


def _running(var: Path) -> str:
    record = _record(var)
    where = f"platform on {record['base']}/api/v1/" if record.get("base") else "starting"
    return (
        f"already up in {var}: {where} (heights up, pid {record.get('pid', '?')}); "
        f"nothing started. `make down` (heights down --var {var}) stops it"
    )


def _port_taken(port: int) -> bool:
    with socket.socket() as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as gunicorn binds
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return True
    return False


def run_up(args: argparse.Namespace) -> int:
    var: Path = args.var.resolve()
    lock = _lock(var)
    if lock is None:
        say(_running(var))
        return 0
    if args.detach:
        lock.close()  # the background process takes it
        return _detach(var, args.port)
    with lock:
        if _port_taken(args.port):
            say(f"heights up: port {args.port} is in use; choose another with --port")
            return 1
        stack_id = uuid.uuid4().hex
        os.environ[STACK_ID] = stack_id  # inherited by every process started from here
        record = {"id": stack_id, "pid": os.getpid(), "var": str(var), "services": []}
        _write_record(var, record)
        try:
            return _serve(var, args.port, record)
        finally:
            (var / "stack.json").unlink(missing_ok=True)


def _serve(var: Path, port: int, record: dict[str, Any]) -> int:
    stack: Stack | None = None
    stop_on_sigterm()
    try:
        stack, base = start_system(var, port)
        try:
            _open_ladder(var)
        except RuntimeError as err:  # the stack is up; only the ladder is missing
            say(f"· no open ladder: {err}")
        services = [{"name": s.name, "pid": s.proc.pid} for s in stack.services]
        _write_record(var, record | {"base": base, "services": services})
        say("up; Ctrl-C stops everything")
        while all(s.alive() for s in stack.services):
            time.sleep(1)
        for service in stack.services:
            if not service.alive():
                say(f"{service.name} exited:\n{service.log()[-1500:]}")
        return 1
    except KeyboardInterrupt:
        return 0
    except RuntimeError as err:  # start_system stopped what it had started
        say(f"heights up failed: {err}")
        return 1
    finally:
        if stack is not None:
            stack.stop()
            say("· all services stopped")


def _open_ladder(var: Path) -> None:
    """A ladder anyone's bot can join, with built-in opponents: ladders are otherwise
    created by staff, and a bot alone on a ladder never plays."""
    env = {"HEIGHTS_VAR_DIR": str(var)}
    manage("builtin_bots_ensure", env=env)
    entrants = ("arena/random", "arena/greedy")
    manage("ladder_ensure", OPEN_LADDER, "--name", "Open, 2 players", "--enter", *entrants, env=env)
    say(
        f"· ladder {OPEN_LADDER} is open, with {' and '.join(entrants)} on it: "
        f'POST /api/v1/ladders/{OPEN_LADDER}/join/ {{"bot": <id>}} enters yours'
    )


def _detach(var: Path, port: int) -> int:
    """`heights up` in the background, in a session of its own (so that make, a shell
    or a terminal ending leaves it be); returns once it is up, or failed."""
    log_path = var / "stack.log"
    argv = [sys.executable, "-m", "heights_cli.main", "up", "--var", str(var)]
    with log_path.open("wb") as log:
        child = subprocess.Popen(
            [*argv, "--port", str(port)],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        record = _record(var)
        if record.get("pid") == child.pid and record.get("base"):
            say(f"up: platform on {record['base']}/api/v1/ (log {log_path}); `make down` stops it")
            return 0
        if child.poll() is not None:
            say(f"heights up exited ({child.returncode}):\n{log_path.read_text()[-3000:]}")
            return child.returncode or 1
        time.sleep(0.5)
    say(f"still starting after {START_SECONDS:.0f} s (pid {child.pid}, log {log_path})")
    return 1


def run_down(args: argparse.Namespace) -> int:
    var: Path = args.var.resolve()
    if not (var / "stack.lock").exists():
        say(f"nothing is up in {var}")
        return 0
    record = _record(var)
    lock = _lock(var)
    if lock is not None:  # no `heights up` holds it: what is left had lost its parent
        with lock:
            left = _end_leftovers(record)
            (var / "stack.json").unlink(missing_ok=True)
        say(f"nothing is up in {var}" + (f"; ended {left} leftover processes" if left else ""))
        return 0
    if not record:
        say(f"heights up in {var} is starting; try again in a moment")
        return 1
    pid = int(record["pid"])
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + STOP_SECONDS
    # The lock frees as it finishes, an instant before it has exited.
    while (lock := _lock(var)) is None or running(pid):
        if lock is not None:
            lock.close()
        if time.monotonic() > deadline:
            say(f"still stopping after {STOP_SECONDS:.0f} s (heights up, pid {pid})")
            return 1
        time.sleep(0.2)
    with lock:
        left = _end_leftovers(record)
    names = ", ".join(f"{s['name']} (pid {s['pid']})" for s in record["services"])
    say(f"stopped heights up (pid {record['pid']})" + (f" and {names}" if names else ""))
    if left:
        say(f"ended {left} leftover processes of it")
    return 0


def _end_leftovers(record: dict[str, Any]) -> int:
    """SIGKILL whatever of the stack is still running (nothing, when it stopped well)."""
    if not record.get("id"):
        return 0
    left = processes_with_env(STACK_ID, str(record["id"]))
    for pid in left:
        with contextlib.suppress(ProcessLookupError):  # ended meanwhile
            os.kill(pid, signal.SIGKILL)
    return len(left)
