"""A runner process for tests/runner/test_sandbox_cleanup.py: starts one bot, then waits
to be killed. `python -m tests.runner.cleanup_runner FOLDER MARKER [--bare]`; prints
`started <the bot's cgroup directories>` once the bot is ready.

`--bare`: as on a machine without bubblewrap, a trusted bot started without it.
"""

from __future__ import annotations

import dataclasses
import sys
import time
from pathlib import Path

from heights_runner.sandbox import probe, python_binds, start_bot
from heights_runner.sandbox import start as start_module


def main(folder: str, marker: str, bare: bool) -> None:
    if bare:
        caps = dataclasses.replace(probe(), bwrap=False, user_namespace=False, bwrap_path=None)
        setattr(start_module, "probe", lambda: caps)  # noqa: B010 - as a test monkeypatches
    exe, binds = python_binds()
    argv = [exe, "-u", "/bot/main.py", marker]
    bot = start_bot(Path(folder), argv, ro_binds=binds, trusted=bare)
    assert bot.receive(10) == "ready"
    dirs = [str(d) for d in (bot._cgroup.dirs if bot._cgroup else [])]
    print("started", *dirs, flush=True)
    time.sleep(3600)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], "--bare" in sys.argv[3:])
