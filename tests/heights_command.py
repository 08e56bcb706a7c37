"""The `heights` command as the tests run it: this interpreter's `heights_cli.main` in a
child process, its output captured as text, its exit status left to the test to read.

One place for every test that plays, verifies or views through the command line, so
that how the command is started (and how long it may take) is the same for all.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

COMMAND_SECONDS = 300  # a bound, not a measure: a hung command fails the test, never waits on


def heights(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """`heights ARGS...` run in `cwd`, to its end."""
    return subprocess.run(
        [sys.executable, "-m", "heights_cli.main", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=COMMAND_SECONDS,
        check=False,
    )
