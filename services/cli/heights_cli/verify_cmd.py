"""`heights verify REPLAY...`: re-simulate replays and say whether they match."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from heights_rules import Replay, ReplayError, verify


def register(commands: Any) -> None:
    p: argparse.ArgumentParser = commands.add_parser(
        "verify", help="re-simulate replay files; name the first step that differs"
    )
    p.add_argument("replays", nargs="+", type=Path, metavar="REPLAY")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    failed = 0
    for path in args.replays:
        try:
            result = verify(Replay.from_bytes(path.read_bytes()))
        except (OSError, ReplayError) as err:
            print(f"{path}: FAILED: {err}")
            failed += 1
            continue
        status = "OK" if result.ok else "FAILED"
        where = f" (first differing step: {result.first_bad_step})" if not result.ok else ""
        print(f"{path}: {status}: {result.message}{where}")
        failed += not result.ok
    return 1 if failed else 0
