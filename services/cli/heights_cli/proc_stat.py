"""One process's /proc/PID/stat, read and split the one way (Linux).

The command name (the second field) is in parentheses and may itself hold spaces and
parentheses, so the fields are counted from its last ')': index 0 after it is the
state, 1 the parent, 11-14 utime, stime, cutime, cstime, 19 the start time (proc(5)).
"""

from __future__ import annotations

import contextlib
from pathlib import Path


def process_stat(pid: int) -> tuple[str, list[str]] | None:
    """The process's command name and its stat fields after the name; None once it is
    gone (or cannot be read: it ended between a listing and this read, say)."""
    with contextlib.suppress(OSError):
        head, tail = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)
        return head.split("(", 1)[1], tail.split()
    return None
