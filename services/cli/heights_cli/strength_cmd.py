"""`heights strength FILE...`: win shares and average ranks of games from `heights
selfplay --json` (several files add up: runs in parallel, or in chunks)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from heights_cli.strength import parse_games, strength

MAX_FILE_BYTES = 256 * 2**20


def register(commands: Any) -> None:
    p: argparse.ArgumentParser = commands.add_parser(
        "strength",
        help="win shares (Wilson 95%% interval) and average ranks from `selfplay --json` files",
    )
    p.add_argument("files", nargs="+", type=Path, metavar="FILE", help="selfplay --json output")
    p.add_argument("--json", action="store_true", help="print the report as one JSON object")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    try:
        lines: list[str] = []
        for path in args.files:
            if path.stat().st_size > MAX_FILE_BYTES:
                raise ValueError(f"{path}: larger than {MAX_FILE_BYTES} bytes")
            lines += path.read_text(encoding="utf-8").splitlines()
        report = strength(parse_games(lines))
    except (OSError, ValueError) as err:
        print(f"heights strength: {err}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(report))
        return 0
    for table in report["tables"]:
        print(f"{table['players']} players, {table['games']} games")
        print(
            f"  {'bot':16} {'games':>5} {'win share':>9} {'Wilson 95%':>15}"
            f" {'by seed 95%':>15} {'mean rank':>9} {'rank 95%':>13}"
        )
        for row in table["bots"]:
            print(
                f"  {row['bot']:16} {row['games']:5} {row['win_share']:9.3f}"
                f" {_pair(row['wilson95']):>15} {_pair(row['seeds_ci95']):>15}"
                f" {row['mean_rank']:9.2f} {_pair(row['rank_ci95'], 2):>13}"
            )
    return 0


def _pair(bounds: list[float], digits: int = 3) -> str:
    return f"{bounds[0]:.{digits}f}-{bounds[1]:.{digits}f}"
