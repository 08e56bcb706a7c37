"""Removing a folder a sandboxed program filled: any depth, any modes, no link followed."""

from __future__ import annotations

import subprocess
from pathlib import Path


def remove_tree(root: Path) -> None:
    """Remove `root`, whatever was left in it: coreutils' chmod and rm walk a tree of any
    depth (os.walk and shutil.rmtree recurse), and follow no link a build made."""
    if not root.exists():
        return
    # Read-only folders cannot be emptied by a non-root runner.
    subprocess.run(["chmod", "-R", "u+rwx", "--", str(root)], check=False, capture_output=True)
    # Best effort, as this runs while a build's failure propagates: a folder left behind
    # is a dot-named leftover in the cache, not a wrong result.
    subprocess.run(["rm", "-rf", "--", str(root)], check=False, capture_output=True)
