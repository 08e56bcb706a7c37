"""A built-in bot's process ends without the interpreter's teardown once its game is over
(~15-20% of its CPU from start to end, four bots a match: docs/runner.md), with its
answers flushed and its exit status kept."""

from __future__ import annotations

import json
import subprocess
import sys

# The bot run as the runner runs it (`-m heights_bots.protocol_main`), with an atexit
# hook that would write to stderr if the interpreter's teardown ran.
RUN = """
import atexit, runpy, sys
atexit.register(lambda: print("teardown ran", file=sys.stderr))
sys.argv = ["protocol_main", *sys.argv[1:]]
runpy.run_module("heights_bots.protocol_main", run_name="__main__")
"""
HELLO = {
    "type": "hello",
    "protocol": 1,
    "seat": 0,
    "players": 2,
    "options": {},
    "catalogue": "reconstructed-v4",
    "features": ["patch"],
}
END = {"type": "end", "ranks": [1, 2], "scores": [0, 0], "outcome": {}}


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    lines = "".join(json.dumps(m) + "\n" for m in (HELLO, END))
    return subprocess.run(
        [sys.executable, "-c", RUN, *args], input=lines, capture_output=True, text=True, check=False
    )


def test_a_finished_bot_answers_then_ends_without_teardown() -> None:
    done = _run("greedy", "1")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.splitlines()[0])["type"] == "ready"  # flushed
    assert "teardown ran" not in done.stderr


def test_bad_arguments_keep_their_exit_status() -> None:
    done = _run("no-such-bot", "1")
    assert done.returncode == 2
    assert "usage: protocol_main" in done.stderr
