"""`heights tournament-sim`: which tournament format finds the strongest bot, and the order?

For each format (round robin, Swiss, single elimination), plain and duplicate tables,
and each field size (`--copies` of each kind in `--kinds`, comma-separated counts), plays
`--tournaments` tournaments on different seeds through the platform's pairing and
standings code (`tournament_sim`) and reports how often a bot of the strongest kind won,
the mean Kendall tau of the standings with the true order, and the games per bot.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from typing import Any

from heights_cli.ladder_sim import population
from heights_cli.progress import ProgressBar
from heights_cli.ranking_population import CHEAP_KINDS, GamePool, strength
from heights_cli.tournament_sim import FORMATS, play_tournament

MAX_TOURNAMENTS, MAX_COPIES = 1000, 16


def register(commands: Any) -> None:
    p: argparse.ArgumentParser = commands.add_parser(
        "tournament-sim",
        help="tournament formats over a graded bot population: who wins, how well ordered",
    )
    p.add_argument("--kinds", default=",".join(CHEAP_KINDS), help="bot kinds, comma-separated")
    p.add_argument("--copies", default="1,2,4", help="field sizes as copies of each kind")
    p.add_argument("--players", type=int, default=2, choices=(2, 3, 4))
    p.add_argument("--tournaments", type=int, default=40, help="per format and field size")
    p.add_argument("--formats", default=",".join(FORMATS))
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true")
    p.set_defaults(run=run)


def _parse(args: argparse.Namespace) -> tuple[list[str], list[int], list[str]] | str:
    kinds = args.kinds.split(",")
    try:
        for kind in kinds:
            strength(kind)
        copies = [int(c) for c in args.copies.split(",")]
    except ValueError as error:
        return f"{error} (--copies takes comma-separated whole numbers)"
    formats = args.formats.split(",")
    if set(formats) - set(FORMATS):
        return f"unknown --formats {sorted(set(formats) - set(FORMATS))}; formats: {FORMATS}"
    if any(not 1 <= c <= MAX_COPIES for c in copies):
        return f"--copies must each be between 1 and {MAX_COPIES}, got {copies}"
    if not 1 <= args.tournaments <= MAX_TOURNAMENTS:
        return f"--tournaments must be between 1 and {MAX_TOURNAMENTS}, got {args.tournaments}"
    if len(kinds) < args.players:
        return f"--kinds needs at least --players ({args.players}) kinds"
    return kinds, copies, formats


def run(args: argparse.Namespace) -> int:
    parsed = _parse(args)
    if isinstance(parsed, str):
        print(f"heights tournament-sim: {parsed}", file=sys.stderr)
        return 2
    kinds, copies, formats = parsed
    pool = GamePool(players=args.players)
    rows = []
    cells = [(c, f, d) for c in copies for f in formats for d in (False, True)]
    with ProgressBar("tournament-sim", len(cells), "cells") as bar:
        for i, (c, fmt, duplicate) in enumerate(cells):
            bar.update(i, f"{fmt}{' duplicate' if duplicate else ''}, field {c * len(kinds)}")
            bots = [e.bot for e in population(kinds, c)]
            results = [
                play_tournament(fmt, bots, pool, duplicate=duplicate, seed=args.seed * 10_000 + t)
                for t in range(args.tournaments)
            ]
            rows.append(
                {
                    "format": fmt,
                    "duplicate": duplicate,
                    "field": len(bots),
                    "strongest_wins": round(statistics.fmean(r.strongest_won for r in results), 3),
                    "mean_tau": round(statistics.fmean(r.tau for r in results), 3),
                    "games_per_bot": round(statistics.fmean(r.games_per_bot for r in results), 1),
                }
            )
        bar.update(len(cells), f"{pool.played} games played")
    report = {"tournaments": args.tournaments, "kinds": kinds, "games_played": pool.played}
    report["rows"] = rows
    print(json.dumps(report, indent=2) if args.json else _table(rows, args.tournaments))
    return 0


def _table(rows: list[dict[str, Any]], tournaments: int) -> str:
    lines = [f"{'field':>5} {'format':<24} {'games/bot':>9} {'strongest wins':>14} {'tau':>6}"]
    for r in rows:
        fmt = f"{r['format']}{' duplicate' if r['duplicate'] else ''}"
        lines.append(
            f"{r['field']:>5} {fmt:<24} {r['games_per_bot']:>9.1f} "
            f"{r['strongest_wins']:>14.3f} {r['mean_tau']:>6.3f}"
        )
    lines.append(f"{tournaments} tournaments per row")
    return "\n".join(lines)
