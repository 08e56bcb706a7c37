"""Looks for secrets: host files, other folders, the environment of every process."""

import json
import os
from collections.abc import Callable
from pathlib import Path


def attempt(action: Callable[[], object]) -> str:
    try:
        return f"ok: {action()!r}"[:200]
    except OSError as exc:
        return f"refused: {exc.__class__.__name__}"


found = {
    "/etc/passwd": attempt(lambda: Path("/etc/passwd").read_text()),
    "/etc/shadow": attempt(lambda: Path("/etc/shadow").read_text()),
    "/root": attempt(lambda: sorted(os.listdir("/root"))),
    "/home": attempt(lambda: sorted(os.listdir("/home"))),
    "/work": attempt(lambda: sorted(os.listdir("/work"))),
    "/proc/1/environ": attempt(lambda: Path("/proc/1/environ").read_bytes()),
    "/": sorted(os.listdir("/")),
    "environ": dict(os.environ),
}
print(json.dumps(found), flush=True)
