"""`heights stats`: balance report of bot self-play (RULES.md decision 3).

Win rates by seat, by building plan owned and by Ad in play, and how each Ad and
Target scores, so no single choice dominates unseen.
"""

from __future__ import annotations

import argparse
import json
import statistics
from collections import defaultdict
from typing import Any

from heights_cli.options_arg import add_rule_options, parse_rule_options
from heights_cli.selfplay import GameReport, play_one
from heights_rules import GameConfig, evaluate, outcome, shared_first_points


def register(commands: Any) -> None:
    p: argparse.ArgumentParser = commands.add_parser(
        "stats", help="balance report: win rates by seat, plan and Ad in bot self-play"
    )
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--games", type=int, default=100)
    p.add_argument("--bots", default="greedy")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true")
    p.add_argument("--top", type=int, default=8, help="how many plans to list at each end")
    add_rule_options(p)
    p.set_defaults(run=run)


def collect(reports: list[GameReport]) -> dict[str, Any]:
    seat_wins: dict[int, float] = defaultdict(float)
    tile_games: dict[str, int] = defaultdict(int)
    tile_wins: dict[str, float] = defaultdict(float)
    ad_games: dict[str, int] = defaultdict(int)
    ad_points: dict[str, list[int]] = defaultdict(list)
    target_points: dict[str, list[int]] = defaultdict(list)
    for report in reports:
        state = report.state
        o = outcome(state)
        points = shared_first_points(o.ranks)  # the Mayor's rank too: a shared first is 1/2
        cat = state.catalogue
        for p in range(state.n_seats):
            share = float(points[p])
            seat_wins[p] += share
            for tile in state.owned[p]:
                if state.complete[tile]:
                    tile_games[cat.tiles[tile].name] += 1
                    tile_wins[cat.tiles[tile].name] += share
            for ad in state.ads:
                ad_points[cat.ads[ad].id].append(evaluate(state, p, cat.ads[ad].scoring))
            if state.target_choice[p] >= 0:
                target = cat.targets[state.target_choice[p]]
                target_points[target.id].append(evaluate(state, p, target.scoring))
        for ad in state.ads:
            ad_games[cat.ads[ad].id] += 1
    n = len(reports)
    return {
        "games": n,
        "win_rate_by_seat": {p: round(w / n, 3) for p, w in sorted(seat_wins.items())},
        "plans": {
            name: {"completed": games, "win_rate": round(tile_wins[name] / games, 3)}
            for name, games in sorted(tile_games.items())
        },
        "ads": {
            ad: {"games": ad_games[ad], "mean_vp": round(statistics.fmean(v), 2), "max_vp": max(v)}
            for ad, v in sorted(ad_points.items())
        },
        "targets": {
            t: {"chosen": len(v), "mean_vp": round(statistics.fmean(v), 2), "max_vp": max(v)}
            for t, v in sorted(target_points.items())
        },
    }


def run(args: argparse.Namespace) -> int:
    config = GameConfig(players=args.players, options=parse_rule_options(args.option))
    names = [n.strip() for n in args.bots.split(",")]
    names = names * config.players if len(names) == 1 else names
    reports = [play_one(config, args.seed + g, names) for g in range(args.games)]
    report = collect(reports)
    if args.json:
        print(json.dumps(report))
        return 0
    print(f"{report['games']} games, {config.players} players, bots {','.join(names)}")
    print("win rate by seat:", report["win_rate_by_seat"])
    plans = sorted(report["plans"].items(), key=lambda kv: kv[1]["win_rate"])
    common = [kv for kv in plans if kv[1]["completed"] >= max(5, report["games"] // 20)]
    print("\nplans completed in >= 5% of games, lowest and highest win rate when completed:")
    for name, row in [*common[: args.top], ("...", {}), *common[-args.top :]]:
        if row:
            print(f"  {name:32} completed {row['completed']:4}  win rate {row['win_rate']:.2f}")
        else:
            print("  ...")
    print("\nAds (VP per player per game):")
    for ad, row in report["ads"].items():
        print(f"  {ad}  in {row['games']:4} games  mean {row['mean_vp']:6.2f}  max {row['max_vp']}")
    print("\nTargets chosen (VP):")
    for t, row in report["targets"].items():
        print(f"  {t}  chosen {row['chosen']:4}  mean {row['mean_vp']:6.2f}  max {row['max_vp']}")
    return 0
