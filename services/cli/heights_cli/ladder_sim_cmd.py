"""`heights ladder-sim`: how fast does the ladder find the true order of a graded population?

Plays ladders of `--copies` bots of each kind (`ranking_population.STRENGTH`) through
the platform's matchmaking and rating code (`ladder_sim`), for every configuration
(matchmaking policy x duplicate or plain), `--reps` times on different seeds, and
reports for each leaderboard order (Elo, mu, mu - 3 sigma): the games per bot after
which Kendall's tau with the true order first stays at or above `--target` (on the
mean curve of the repetitions, and in how many repetitions it stays there), and the
mean tau after `--budget` games per bot. `--chart` draws tau against games per bot.

The searching kinds are dear (a game of `mcts` at its default budget costs about half a
minute of CPU), so: `--pool FILE` keeps every game played in a file that later runs
(another configuration, a resumed run) reuse; `--jobs N` plays each round's missing
games in N processes; `--search-iterations` and `--mcts-seconds` set the searching
kinds' budgets (mcts counts CPU time, so the machine's load does not weaken it). A
reduced budget makes a weaker bot: the report names the budgets, and the order of the
reduced kinds is the one `--measure-order` measures at the same budgets.
"""

from __future__ import annotations

import argparse
import itertools
import json
import statistics
import sys
from collections.abc import Sequence
from typing import Any

from heights_cli import pool_options
from heights_cli.ladder_sim import (
    MATCHMAKING,
    ORDERS,
    Checkpoint,
    Ladder,
    LadderConfig,
    population,
    run_ladders,
)
from heights_cli.progress import ProgressBar
from heights_cli.ranking_population import CHEAP_KINDS, GamePool, measure_pair, strength

MAX_COPIES, MAX_GAMES_PER_BOT, MAX_REPS = 16, 2000, 100


def register(commands: Any) -> None:
    p: argparse.ArgumentParser = commands.add_parser(
        "ladder-sim",
        help="ladders of a graded bot population: rank correlation against games played",
    )
    p.add_argument("--kinds", default=",".join(CHEAP_KINDS), help="bot kinds, comma-separated")
    p.add_argument("--copies", type=int, default=4, help="bots of each kind (1-16)")
    p.add_argument("--players", type=int, default=2, choices=(2, 3, 4))
    p.add_argument("--games-per-bot", type=int, default=60, help="length of each ladder")
    p.add_argument("--reps", type=int, default=4, help="ladders per configuration (seeds)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--in-flight", type=int, default=2, help="tables matched at once")
    p.add_argument("--matchmaking", default=",".join(MATCHMAKING))
    p.add_argument("--duplicate", choices=("both", "on", "off"), default="both")
    p.add_argument("--target", type=float, default=0.9, help="the tau to reach and keep")
    p.add_argument("--budget", type=int, default=30, help="games per bot for the fixed-budget tau")
    p.add_argument("--chart", default="", help="write a PNG chart of tau against games per bot")
    p.add_argument("--json", action="store_true")
    pool_options.add_arguments(p)
    p.add_argument(
        "--measure-order",
        type=int,
        default=0,
        metavar="PAIRS",
        help="instead: measure each neighbouring pair of --kinds in PAIRS duplicate pairs",
    )
    p.set_defaults(run=run)


def _check(args: argparse.Namespace) -> str | None:
    kinds = args.kinds.split(",")
    for kind in kinds:
        try:
            strength(kind)
        except ValueError as error:
            return str(error)
    if len(set(kinds)) < 2:
        return "--kinds needs at least two different kinds"
    for name, value, top in (
        ("--copies", args.copies, MAX_COPIES),
        ("--games-per-bot", args.games_per_bot, MAX_GAMES_PER_BOT),
        ("--reps", args.reps, MAX_REPS),
        ("--in-flight", args.in_flight, 64),
    ):
        if not 1 <= value <= top:
            return f"{name} must be between 1 and {top}, got {value}"
    if len(kinds) * args.copies < args.players * args.in_flight:
        return "too few bots to fill --in-flight tables of --players"
    unknown = set(args.matchmaking.split(",")) - set(MATCHMAKING)
    if unknown:
        return f"unknown --matchmaking {sorted(unknown)}; policies: {', '.join(MATCHMAKING)}"
    return pool_options.check(args)


def configs(args: argparse.Namespace) -> list[LadderConfig]:
    duplicates = {"both": (False, True), "on": (True,), "off": (False,)}[args.duplicate]
    return [LadderConfig(m, d) for m in args.matchmaking.split(",") for d in duplicates]


def run(args: argparse.Namespace) -> int:
    problem = _check(args)
    if problem:
        print(f"heights ladder-sim: {problem}", file=sys.stderr)
        return 2
    kinds = args.kinds.split(",")
    pool = pool_options.open_pool(args, "ladder-sim")
    if pool is None:
        return 2
    with pool:
        if args.measure_order:
            return _measure_order(kinds, pool, args.measure_order, args.seed)
        report = _ladders(args, kinds, pool)
    report["setup"] = {
        "kinds": kinds,
        "copies": args.copies,
        "players": args.players,
        "games_per_bot": args.games_per_bot,
        "reps": args.reps,
        "seed": args.seed,
        "in_flight": args.in_flight,
        **pool_options.pool_setup(pool, kinds),
    }
    if args.chart:
        from heights_cli.ladder_sim_chart import draw

        draw(report, args.chart, target=args.target)
    print(json.dumps(report, indent=2) if args.json else format_table(report))
    return 0


def _ladders(args: argparse.Namespace, kinds: list[str], pool: GamePool) -> dict[str, Any]:
    """Every configuration's repetitions, played in step (`run_ladders`)."""
    todo = [(config, rep) for rep in range(args.reps) for config in configs(args)]
    ladders = [
        Ladder(
            config,
            population(kinds, args.copies),
            args.games_per_bot,
            seed=args.seed * 1000 + rep,
            players=args.players,
            in_flight=args.in_flight,
        )
        for config, rep in todo
    ]
    total = sum(ladder.games_target for ladder in ladders)
    with ProgressBar("ladder-sim", total, "games rated") as bar:
        run_ladders(
            ladders,
            pool,
            on_batch=lambda rated: bar.update(rated, f"{pool.played} played"),
        )
    runs: dict[LadderConfig, list[list[Checkpoint]]] = {}
    for (config, _), ladder in zip(todo, ladders, strict=True):
        runs.setdefault(config, []).append(ladder.checkpoints)
    return summarize(runs, target=args.target, budget=args.budget)


def _measure_order(kinds: list[str], pool: GamePool, pairs: int, seed: int) -> int:
    if not 1 <= pairs <= 10_000:
        print(
            f"heights ladder-sim: --measure-order must be 1 to 10000, got {pairs}", file=sys.stderr
        )
        return 2
    ordered = sorted(kinds, key=strength)
    results = []
    with ProgressBar("order", len(ordered) - 1, "pairs of kinds") as bar:
        for i, (weaker, stronger) in enumerate(itertools.pairwise(ordered)):
            bar.update(i, f"{stronger} vs {weaker}")
            results.append(measure_pair(pool, weaker, stronger, pairs=pairs, seed=seed))
    report = {
        "strength": ordered,
        "pairs": results,
        "budget": pool.budget,
        "reduced_budget_kinds": pool_options.reduced(ordered, pool.budget),
        "cpu_by_heaviest_kind": pool.cpu_report(),
    }
    print(json.dumps(report, indent=2))
    return 0


def summarize(
    runs: dict[LadderConfig, list[list[Checkpoint]]], *, target: float, budget: int
) -> dict[str, Any]:
    """Per configuration and order: mean curve, games to stay at `target`, tau at `budget`."""
    rows = []
    for config, reps in runs.items():
        length = min(len(r) for r in reps)
        xs = [reps[0][i].games_per_bot for i in range(length)]
        for order in ORDERS:
            curves = [[r[i].tau[order] for i in range(length)] for r in reps]
            mean = [statistics.fmean(c[i] for c in curves) for i in range(length)]
            per_rep = [stays_from(xs, c, target) for c in curves]
            at_budget = next((i for i, x in enumerate(xs) if x >= budget), length - 1)
            rows.append(
                {
                    "matchmaking": config.matchmaking,
                    "duplicate": config.duplicate,
                    "order": order,
                    "games_per_bot_to_target": stays_from(xs, mean, target),
                    "reps_reaching_target": sum(p is not None for p in per_rep),
                    "median_games_per_bot_to_target": _median(per_rep),
                    "tau_at_budget": round(mean[at_budget], 4),
                    "curve": [[round(x, 2), round(t, 4)] for x, t in zip(xs, mean, strict=True)],
                }
            )
    return {"target": target, "budget": budget, "rows": rows}


def stays_from(xs: Sequence[float], taus: Sequence[float], target: float) -> float | None:
    """The first x from which tau stays at or above `target` to the end (None: never)."""
    below = [i for i, t in enumerate(taus) if t < target]
    if not below:
        return round(xs[0], 2) if xs else None
    last = below[-1]
    return round(xs[last + 1], 2) if last + 1 < len(xs) else None


def _median(values: list[float | None]) -> float | None:
    """The median, a never-reached rep counting as worst; None if most never reach."""
    ranked = sorted(values, key=lambda v: float("inf") if v is None else v)
    return ranked[(len(ranked) - 1) // 2] if ranked else None


def format_table(report: dict[str, Any]) -> str:
    budget, target = report["budget"], report["target"]
    head = f"{'configuration':<28} {'order':<13} {'to ' + str(target):>8} {'reps':>5} "
    head += f"{'median':>7} {'tau@' + str(budget):>8}"
    lines = [head]
    for row in sorted(report["rows"], key=_sort_key):
        label = f"{row['matchmaking']}{' duplicate' if row['duplicate'] else ''}"
        lines.append(
            f"{label:<28} {row['order']:<13} {_fmt(row['games_per_bot_to_target']):>8} "
            f"{row['reps_reaching_target']:>5} {_fmt(row['median_games_per_bot_to_target']):>7} "
            f"{row['tau_at_budget']:>8.3f}"
        )
    setup = report.get("setup", {})
    if setup:
        lines.append(
            f"{setup['games_played']} games played, {setup['games_rated']} rated; "
            f"{setup['copies']} x {len(setup['kinds'])} kinds, {setup['players']} players, "
            f"{setup['reps']} reps"
        )
        line = pool_options.budget_line(setup)
        if line:
            lines.append(line)
    return "\n".join(lines)


def _sort_key(row: dict[str, Any]) -> tuple[float, float]:
    reached = row["games_per_bot_to_target"]
    return (float("inf") if reached is None else reached, -row["tau_at_budget"])


def _fmt(value: float | None) -> str:
    return "never" if value is None else f"{value:.1f}"
