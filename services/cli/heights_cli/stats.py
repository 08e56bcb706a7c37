"""`heights stats`: the balance report of bot self-play (RULES.md decision 3).

Plays games between the built-in bots (or reads games recorded earlier with
`--records`) and reports end reasons, game length, scores, points by category, each
Target's, purple ability's and tile's VP and win rate, win rate by seat and by bot,
Wild Tokens held, the Mayor by difficulty in solo, and decision 3's goals with a
verdict for each. `--json` for machines, `--report DIR` for an HTML page with charts.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from heights_bots import BOT_NAMES
from heights_cli.options_arg import add_rule_options, parse_rule_options
from heights_cli.selfplay import bot_names
from heights_cli.stats_collect import collect
from heights_cli.stats_games import DIFFICULTIES, GameRecord, play_record, read_records
from heights_cli.stats_text import print_report
from heights_rules import DEFAULT_CATALOGUE, GameConfig, RuleOptions

MAX_GAMES = 100_000


def register(commands: Any) -> None:
    p: argparse.ArgumentParser = commands.add_parser(
        "stats",
        help="balance report of bot self-play: lengths, scores, Targets, abilities, seats",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--players", type=int, default=2, help="2-4 (ignored with --solo)")
    p.add_argument("--solo", action="store_true", help="one bot against the Mayor")
    p.add_argument(
        "--difficulty",
        choices=[*DIFFICULTIES, "all"],
        default="all",
        help="solo: the Mayor's difficulty; 'all' plays --games at each (default all)",
    )
    p.add_argument("--games", type=int, default=100, help=f"games to play, 1-{MAX_GAMES}")
    p.add_argument(
        "--bots",
        default="greedy",
        help=f"one of {', '.join(BOT_NAMES)} for every seat, or one per seat; "
        "the list is rotated round the table from game to game",
    )
    p.add_argument("--seed", type=int, default=0, help="game i uses seed SEED+i")
    p.add_argument("--catalogue", default=DEFAULT_CATALOGUE, help="catalogue id")
    p.add_argument(
        "--search-iterations", type=int, default=8, help="simulations per search decision"
    )
    p.add_argument("--search-horizon", type=int, default=2, help="search depth in own turns")
    p.add_argument("--json", action="store_true", help="print the report as one JSON object")
    p.add_argument("--report", type=Path, metavar="DIR", help="write DIR/index.html with charts")
    p.add_argument(
        "--records", type=Path, metavar="FILE", help="append each game played to FILE (JSON lines)"
    )
    p.add_argument(
        "--load",
        type=Path,
        action="append",
        default=[],
        metavar="FILE",
        help="report on games read from FILE (from --records) instead of playing; repeatable",
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    add_rule_options(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    try:
        records = _records(args)
        report = collect(records)
    except (ValueError, OSError, argparse.ArgumentTypeError) as err:
        print(f"heights stats: {err}", file=sys.stderr)
        return 2
    if args.report:
        from heights_cli.stats_report import write_report  # matplotlib only when asked

        page = write_report(report, args.report)
        print(f"wrote {page}", file=sys.stderr)
    if args.json:
        print(json.dumps(report))
    else:
        print_report(report)
    return 0


def _records(args: argparse.Namespace) -> list[GameRecord]:
    if args.load:
        return list(read_records(args.load))
    if not 1 <= args.games <= MAX_GAMES:
        raise ValueError(f"--games must be 1 to {MAX_GAMES}, got {args.games}")
    options = parse_rule_options(args.option)
    players = 1 if args.solo else args.players
    names = bot_names(args.bots, players)
    levels = (
        (list(DIFFICULTIES) if args.difficulty == "all" else [args.difficulty])
        if args.solo
        else [""]
    )
    budget = {"iterations": args.search_iterations, "horizon": args.search_horizon}
    plan = [(level, g) for level in levels for g in range(args.games)]
    configs = {level: _config(args, players, options, level) for level in levels}
    records = []
    out = args.records.open("a", encoding="utf-8") if args.records else None
    try:
        with _progress(len(plan), args.no_progress) as advance:
            for level, g in plan:
                seats = [names[(seat - g) % players] for seat in range(players)]
                record = play_record(
                    configs[level], args.seed + g, seats, difficulty=level, budget=budget
                )
                records.append(record)
                if out:
                    out.write(record.to_json() + "\n")
                advance()
    finally:
        if out:
            out.close()
    return records


def _config(args: argparse.Namespace, players: int, options: RuleOptions, level: str) -> GameConfig:
    if level:
        options = RuleOptions.from_dict(options.to_dict() | DIFFICULTIES[level])
    return GameConfig(players=players, solo=args.solo, options=options, catalogue_id=args.catalogue)


@contextmanager
def _progress(total: int, quiet: bool) -> Iterator[Callable[[], None]]:
    """A progress bar on stderr while games are played (rich; off when asked or piped)."""
    if quiet or not sys.stderr.isatty():
        yield lambda: None
        return
    from rich.progress import Progress

    with Progress(transient=True) as bar:
        task = bar.add_task("playing games", total=total)
        yield lambda: bar.advance(task)
