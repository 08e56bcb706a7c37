"""What a seat's bot can import: a submitted bot the stdlib and the SDK, nothing installed."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from heights_runner.contract import BotRef, SeatSpec
from heights_runner.launch import LaunchPolicy, start_seat
from heights_runner.sandbox import probe, python_binds
from heights_runner.sandbox.bwrap import python_site_dirs

pytestmark = pytest.mark.skipif(not probe().bwrap, reason="bubblewrap is not usable here")

IMPORTS = b"""
import json, os, sys

def attempt(name):
    try:
        __import__(name)
        return "ok"
    except ImportError as exc:
        return type(exc).__name__

found = {name: attempt(name) for name in ("numpy", "heights_sdk", "json", "sqlite3", "ctypes")}
sites = [path for path in sys.path if path.endswith(("site-packages", "dist-packages"))]
found["site"] = {path: sorted(os.listdir(path)) for path in sites if os.path.isdir(path)}
print(json.dumps(found), flush=True)
"""


def _base_interpreter_imports(module: str) -> bool:
    exe, _ = python_binds()
    return subprocess.run([exe, "-c", f"import {module}"], check=False).returncode == 0


def test_a_submitted_bot_sees_the_stdlib_and_the_sdk_but_no_installed_package(
    tmp_path: Path,
) -> None:
    if not _base_interpreter_imports("numpy"):
        pytest.skip("numpy is not installed for the runner's base interpreter")
    assert python_site_dirs(), "the base interpreter's site-packages, where numpy is"
    spec = SeatSpec("imports", BotRef.from_bytes("py", "imports.py", IMPORTS))
    with start_seat(spec, 7, LaunchPolicy(tmp_path)) as bot:
        found = json.loads(bot.receive(20))
    assert found.pop("site") == {path: [] for path in python_site_dirs()}
    assert found == {
        "numpy": "ModuleNotFoundError",
        "heights_sdk": "ok",
        "json": "ok",
        "sqlite3": "ok",
        "ctypes": "ok",
    }
