"""`heights tournament-sim`: which tournament format finds the strongest bot, and the order?

For each format (round robin, Swiss, single elimination), plain and duplicate tables,
and each field size (`--copies` of each kind in `--kinds`, comma-separated counts), plays
`--tournaments` tournaments on different seeds through the platform's pairing and
standings code (`tournament_sim`) and reports how often a bot of the field's strongest
kind won, the mean Kendall tau of the standings with the true order, and the games per
bot.

The field is the whole population by default, the searching kinds included, and those
are dear (a game of `mcts` at its default budget costs about half a minute of CPU): the
game pool's options are ladder-sim's (`pool_options`): `--pool FILE` keeps the games for
later runs, `--jobs N` plays each round's missing games of all the tournaments in N
processes, `--search-iterations` and `--mcts-seconds` reduce the searching kinds'
budgets, and the report names the kinds below their default budget.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections import Counter
from typing import Any

from heights_cli import pool_options
from heights_cli.ladder_sim import population
from heights_cli.progress import ProgressBar
from heights_cli.ranking_population import STRENGTH, GamePool, strength
from heights_cli.tournament_sim import FORMATS, TournamentResult, play_tournaments, tournament

MAX_TOURNAMENTS, MAX_COPIES = 1000, 16


def register(commands: Any) -> None:
    p: argparse.ArgumentParser = commands.add_parser(
        "tournament-sim",
        help="tournament formats over a graded bot population: who wins, how well ordered",
    )
    p.add_argument("--kinds", default=",".join(STRENGTH), help="bot kinds, comma-separated")
    p.add_argument("--copies", default="1,2,4", help="field sizes as copies of each kind")
    p.add_argument("--players", type=int, default=2, choices=(2, 3, 4))
    p.add_argument("--tournaments", type=int, default=40, help="per format and field size")
    p.add_argument("--formats", default=",".join(FORMATS))
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true")
    pool_options.add_arguments(p)
    p.set_defaults(run=run)


def _parse(args: argparse.Namespace) -> tuple[list[str], list[int], list[str]] | str:
    kinds = args.kinds.split(",")
    try:
        for kind in kinds:
            strength(kind)
        copies = [int(c) for c in args.copies.split(",")]
    except ValueError as error:
        return f"{error} (--copies takes comma-separated whole numbers)"
    if len(set(kinds)) < len(kinds):
        return f"--kinds names a kind twice ({args.kinds}); --copies sets the bots of each kind"
    formats = args.formats.split(",")
    if set(formats) - set(FORMATS):
        return f"unknown --formats {sorted(set(formats) - set(FORMATS))}; formats: {FORMATS}"
    if any(not 1 <= c <= MAX_COPIES for c in copies):
        return f"--copies must each be between 1 and {MAX_COPIES}, got {copies}"
    if not 1 <= args.tournaments <= MAX_TOURNAMENTS:
        return f"--tournaments must be between 1 and {MAX_TOURNAMENTS}, got {args.tournaments}"
    if len(kinds) < args.players:
        return f"--kinds needs at least --players ({args.players}) kinds"
    return pool_options.check(args) or (kinds, copies, formats)


def run(args: argparse.Namespace) -> int:
    parsed = _parse(args)
    if isinstance(parsed, str):
        print(f"heights tournament-sim: {parsed}", file=sys.stderr)
        return 2
    kinds, copies, formats = parsed
    pool = pool_options.open_pool(args, "tournament-sim")
    if pool is None:
        return 2
    cells = [(c, f, d) for c in copies for f in formats for d in (False, True)]
    with pool:
        results = _play(cells, kinds, pool, args.tournaments, args.seed)
    rows = [
        _row(c * len(kinds), fmt, d, cell) for (c, fmt, d), cell in zip(cells, results, strict=True)
    ]
    report: dict[str, Any] = {
        "tournaments": args.tournaments,
        "kinds": kinds,
        "strongest_kind": max(kinds, key=strength),
        "players": args.players,
        "seed": args.seed,
        **pool_options.pool_setup(pool, kinds),
        "rows": rows,
    }
    print(json.dumps(report, indent=2) if args.json else _table(report))
    return 0


def _play(
    cells: list[tuple[int, str, bool]], kinds: list[str], pool: GamePool, count: int, seed: int
) -> list[list[TournamentResult]]:
    """Every cell's tournaments, played in step (`play_tournaments`), by cell."""
    fields = {c: [e.bot for e in population(kinds, c)] for c, _, _ in cells}
    tournaments = [
        tournament(fmt, fields[c], pool, duplicate=d, seed=seed * 10_000 + t)
        for c, fmt, d in cells
        for t in range(count)
    ]
    with ProgressBar("tournament-sim", len(tournaments), "tournaments") as bar:
        results = play_tournaments(
            tournaments, pool, on_round=lambda done: bar.update(done, f"{pool.played} played")
        )
    return [results[i * count : (i + 1) * count] for i in range(len(cells))]


def _row(field: int, fmt: str, duplicate: bool, results: list[TournamentResult]) -> dict[str, Any]:
    return {
        "format": fmt,
        "duplicate": duplicate,
        "field": field,
        "strongest_wins": round(statistics.fmean(r.strongest_won for r in results), 3),
        "mean_tau": round(statistics.fmean(r.tau for r in results), 3),
        "games_per_bot": round(statistics.fmean(r.games_per_bot for r in results), 1),
        # The winners' kinds, strongest first.
        "winners": dict(
            sorted(Counter(r.winner for r in results).items(), key=lambda kc: -strength(kc[0]))
        ),
    }


def _table(report: dict[str, Any]) -> str:
    lines = [f"{'field':>5} {'format':<24} {'games/bot':>9} {'strongest wins':>14} {'tau':>6}"]
    for r in report["rows"]:
        fmt = f"{r['format']}{' duplicate' if r['duplicate'] else ''}"
        lines.append(
            f"{r['field']:>5} {fmt:<24} {r['games_per_bot']:>9.1f} "
            f"{r['strongest_wins']:>14.3f} {r['mean_tau']:>6.3f}"
        )
    lines.append(
        f"{report['tournaments']} tournaments per row; strongest kind {report['strongest_kind']}; "
        f"{report['games_played']} games played, {report['games_from_pool_file']} from --pool"
    )
    line = pool_options.budget_line(report)
    if line:
        lines.append(line)
    return "\n".join(lines)
