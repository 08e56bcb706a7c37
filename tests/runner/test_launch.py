"""What a seat's bot can see: its declared runtime and nothing else of the machine.

A Python bot imports the standard library, the SDK and the bots' own packages
(requirements/bot-python.txt, numpy among them, at /pylib), never what is installed for
the runner's interpreter; a bot in another language sees its runtime and no other.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from heights_runner.contract import BotRef, SeatSpec
from heights_runner.launch import LaunchPolicy, start_seat
from heights_runner.runtimes import RUNTIMES_BY_LANGUAGE
from heights_runner.sandbox import probe, python_binds
from heights_runner.sandbox.bwrap import python_site_dirs
from heights_runner.sandbox.toolchains import ToolchainMissingError, run_toolchain

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
found["numpy_from"] = __import__("numpy").__file__ if found["numpy"] == "ok" else ""
others = ("/usr/bin/node", "/usr/bin/g++", "/usr/lib/jvm")
found["others"] = [path for path in others if os.path.exists(path)]
sites = [path for path in sys.path if path.endswith(("site-packages", "dist-packages"))]
found["site"] = {path: sorted(os.listdir(path)) for path in sites if os.path.isdir(path)}
print(json.dumps(found), flush=True)
"""


def _base_interpreter_imports(module: str) -> bool:
    exe, _ = python_binds()
    return subprocess.run([exe, "-c", f"import {module}"], check=False).returncode == 0


def _imports(policy: LaunchPolicy) -> dict[str, Any]:
    spec = SeatSpec("imports", BotRef.from_bytes("py", "imports.py", IMPORTS))
    with start_seat(spec, 7, policy) as bot:
        found: dict[str, Any] = json.loads(bot.receive(20))
    return found


def test_a_submitted_bot_sees_the_stdlib_and_the_sdk_but_no_installed_package(
    tmp_path: Path,
) -> None:
    if not _base_interpreter_imports("numpy"):
        pytest.skip("numpy is not installed for the runner's base interpreter")
    assert python_site_dirs(), "the base interpreter's site-packages, where numpy is"
    found = _imports(LaunchPolicy(tmp_path, bot_python_dir=None))
    assert found.pop("site") == {path: [] for path in python_site_dirs()}
    assert found == {
        "numpy": "ModuleNotFoundError",
        "numpy_from": "",
        "heights_sdk": "ok",
        "json": "ok",
        "sqlite3": "ok",
        "ctypes": "ok",
        "others": [],
    }


def test_a_python_bot_imports_numpy_from_the_bots_own_environment(tmp_path: Path) -> None:
    policy = LaunchPolicy(tmp_path)
    if policy.bot_python_dir is None:
        pytest.skip("no bot environment here: `make setup` installs .venv/bot-python/")
    found = _imports(policy)
    assert found["numpy"] == "ok"
    assert found["numpy_from"] == "/pylib/numpy/__init__.py"  # not the platform's own
    assert found["others"] == []  # no other language's runtime


NODE_LOOKS = b"""
const fs = require("fs");
const paths = ["/usr/bin/node", "/usr/bin/python3", "/usr/bin/g++", "/usr/lib/jvm",
  "/usr/lib/rustlib", "/root", "/work", "/etc/passwd", "/usr/lib/python3.11"];
const seen = paths.filter((p) => fs.existsSync(p));
let writable = true;
try { fs.writeFileSync("/bot/x", "x"); } catch (e) { writable = false; }
console.log(JSON.stringify({ seen, writable }));
"""


def test_a_node_bot_sees_node_and_no_other_runtime(tmp_path: Path) -> None:
    try:
        run_toolchain(RUNTIMES_BY_LANGUAGE["javascript"])
    except ToolchainMissingError as missing:
        pytest.skip(str(missing))
    spec = SeatSpec("looks", BotRef.from_bytes("js", "looks.js", NODE_LOOKS))
    with start_seat(spec, 7, LaunchPolicy(tmp_path)) as bot:
        found = json.loads(bot.receive(20))
    assert found == {"seen": ["/usr/bin/node"], "writable": False}
