"""`make up` / `make down` (`heights up --detach` / `heights down`): one stack per state
folder however often it is started, and nothing of it left once it is stopped.

Run on a scratch folder and a free port, on the embedded defaults (SQLite, the file
broker, the in-memory game store). A process belongs to the stack when its environment
carries the stack's id (HEIGHTS_UP_ID) or its folder (HEIGHTS_VAR_DIR), which every
service and its children inherit.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

from heights_cli.stack import free_port, processes_with_env, running
from heights_cli.up import STACK_ID

ROOT = Path(__file__).resolve().parents[2]
SERVICES = {"engine", "runner", "platform-worker", "platform-web"}


def _env() -> dict[str, str]:
    dropped = ("DATABASE_URL", "REDIS_URL", "MAKEFLAGS", "MAKELEVEL", "MFLAGS")
    env = {k: v for k, v in os.environ.items() if k not in dropped}
    return env | {"DJANGO_SETTINGS_MODULE": "heights_platform.settings"}  # not the tests'


def _run(argv: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        argv, cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=400, check=False
    )


def _heights(*args: str) -> subprocess.CompletedProcess[str]:
    return _run([sys.executable, "-m", "heights_cli.main", *args])


def _make(target: str, var: Path, port: int) -> subprocess.CompletedProcess[str]:
    return _run(["make", "--no-print-directory", target, f"UP_VAR={var}", f"UP_PORT={port}"])


def _of_folder(var: Path) -> list[int]:
    return processes_with_env("HEIGHTS_VAR_DIR", str(var))


def test_up_twice_then_down_leaves_no_process_of_the_stack(tmp_path: Path) -> None:
    var, port = tmp_path / "var", free_port()
    first = _heights("up", "--detach", "--var", str(var), "--port", str(port))
    try:
        assert first.returncode == 0, first.stderr
        assert f"up: platform on http://127.0.0.1:{port}/api/v1/" in first.stderr
        record = json.loads((var / "stack.json").read_text())
        stack = processes_with_env(STACK_ID, record["id"])
        assert {s["name"] for s in record["services"]} == SERVICES
        assert {s["pid"] for s in record["services"]} <= set(stack)
        assert running(record["pid"])  # `heights up`, which started them

        again = _heights("up", "--detach", "--var", str(var), "--port", str(port))
        assert again.returncode == 0, again.stderr
        assert "already up" in again.stderr
        assert f"platform on http://127.0.0.1:{port}/api/v1/" in again.stderr
        by_make = _make("up", var, port)  # returns before any build: nothing to start
        assert by_make.returncode == 0, by_make.stdout + by_make.stderr
        assert "already up" in by_make.stderr
        assert "nothing started" in by_make.stderr
        assert json.loads((var / "stack.json").read_text()) == record
        # Every process working in the folder is the first stack's: none was added.
        assert set(_of_folder(var)) <= set(processes_with_env(STACK_ID, record["id"]))
    finally:
        down = _make("down", var, port)
    assert down.returncode == 0, down.stdout + down.stderr
    said = down.stderr
    assert f"stopped heights up (pid {record['pid']})" in said
    assert all(f"{s['name']} (pid {s['pid']})" in said for s in record["services"])
    assert "leftover" not in said  # SIGTERM stopped it all; nothing needed killing
    assert not running(record["pid"])
    assert processes_with_env(STACK_ID, record["id"]) == []
    assert _of_folder(var) == []
    assert not (var / "stack.json").exists()
    assert "nothing is up" in _make("down", var, port).stderr


def test_a_port_in_use_is_named_and_nothing_starts(tmp_path: Path) -> None:
    var = tmp_path / "var"
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = _heights("up", "--var", str(var), "--port", str(port))
    assert done.returncode == 1
    assert f"port {port} is in use; choose another with --port" in done.stderr
    assert _of_folder(var) == []
    assert not (var / "stack.json").exists()
