"""`heights selfplay`: games between built-in bots, one JSON object per game, then a summary.

Game i uses seed S+i. B is one bot name for every seat or a comma-separated list, one
per seat. With --rotate, consecutive games form duplicate sets instead: one game per
rotation of the list round the table, all on one seed (S+set), so every bot meets the
same map, markets and dice from every seat. Without --json the output is a readable
summary; `heights strength` reads the --json lines back (win shares, average ranks).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from heights_bots import BOT_CLOCKS, BOT_NAMES, make_bot, seat_seed
from heights_bots.play import play_game
from heights_cli.options_arg import add_rule_options, parse_rule_options
from heights_rules import (
    DEFAULT_CATALOGUE,
    FILE_SUFFIX,
    GameConfig,
    GameState,
    Replay,
    Score,
    outcome,
    shared_first_points,
)


def register(commands: Any) -> None:
    p: argparse.ArgumentParser = commands.add_parser(
        "selfplay", help="play games between built-in bots and report the results"
    )
    p.add_argument("--players", type=int, default=2, help="2-4 (ignored with --solo)")
    p.add_argument("--solo", action="store_true", help="one bot against the Mayor")
    p.add_argument("--games", type=int, default=1)
    p.add_argument("--bots", default="greedy", help=f"one of {', '.join(BOT_NAMES)}, or a list")
    p.add_argument("--seed", type=int, default=0, help="game i uses seed SEED+i")
    p.add_argument(
        "--rotate",
        action="store_true",
        help="rotate the bots round the table, every rotation on one seed (duplicate sets)",
    )
    p.add_argument("--catalogue", default=DEFAULT_CATALOGUE)
    p.add_argument(
        "--bot-clock",
        choices=sorted(BOT_CLOCKS),
        default="wall",
        help="what time-budgeted bots (mcts) measure their seconds on: wall (as in a match) "
        "or cpu (their thread's CPU time: the same search however busy the machine is)",
    )
    p.add_argument("--json", action="store_true", help="one JSON object per game, then a summary")
    p.add_argument("--save-replays", type=Path, metavar="DIR", help="write each game's replay")
    add_rule_options(p)
    p.set_defaults(run=run)


@dataclass(frozen=True, slots=True)
class GameReport:
    seed: int
    bots: list[str]
    state: GameState
    replay: Replay
    seconds: float

    def to_dict(self) -> dict[str, Any]:
        o = outcome(self.state)
        decisions = sum(1 for a in self.replay.actions if a != 0)  # id 0 is the chance ROLL
        return {
            "seed": self.seed,
            "players": self.state.config.players,
            "solo": self.state.solo,
            "bots": self.bots,
            "rounds": o.rounds,
            "scores": list(o.totals),
            "scores_by_category": list(o.by_category),
            "ranks": list(o.ranks),  # every player's: the Mayor's last, in solo
            "points": [float(p) for p in shared_first_points(o.ranks)],
            "termination": o.termination.value,
            "decisions": decisions,
            "steps": len(self.replay.actions),
            "replay_hash": self.replay.digest(),
            "seconds": round(self.seconds, 4),
        }


def bot_names(text: str, seats: int) -> list[str]:
    """The `--bots` list for `seats` seats: one name for all, or one per seat."""
    names = [n.strip() for n in text.split(",") if n.strip()]
    if len(names) == 1:
        names *= seats
    if len(names) != seats:
        raise ValueError(f"--bots needs 1 or {seats} names, got {len(names)}")
    unknown = sorted(set(names) - set(BOT_NAMES))
    if unknown:
        raise ValueError(f"unknown bot {unknown[0]!r}; built-in bots: {', '.join(BOT_NAMES)}")
    return names


def seating(names: list[str], seed: int, game: int, rotate: bool) -> tuple[int, list[str]]:
    """Game `game`'s seed and bots: S+i, or with `rotate` the i-th rotation of a set."""
    if not rotate:
        return seed + game, names
    n = len(names)
    shift = game % n
    return seed + game // n, [names[(seat - shift) % n] for seat in range(n)]


def play_one(
    config: GameConfig, seed: int, names: list[str], bot_clock: str = "wall"
) -> GameReport:
    bots = [
        make_bot(name, seed=seat_seed(seed, seat), mcts_clock=bot_clock)
        for seat, name in enumerate(names)
    ]
    start = time.perf_counter()
    state, replay = play_game(config, seed, bots)
    replay.seats = [f"{name}#{seat}" for seat, name in enumerate(names)]
    return GameReport(seed, names, state, replay, time.perf_counter() - start)


def run(args: argparse.Namespace) -> int:
    try:
        options = parse_rule_options(args.option)
        config = GameConfig(
            players=1 if args.solo else args.players,
            solo=args.solo,
            options=options,
            catalogue_id=args.catalogue,
        )
        names = bot_names(args.bots, config.players)
        if args.games < 1:
            raise ValueError("--games must be at least 1")
    except (ValueError, argparse.ArgumentTypeError) as err:
        print(f"heights selfplay: {err}", file=sys.stderr)
        return 2
    if args.save_replays:
        args.save_replays.mkdir(parents=True, exist_ok=True)
    reports = []
    start = time.perf_counter()
    for i in range(args.games):
        seed, seats = seating(names, args.seed, i, args.rotate)
        report = play_one(config, seed, seats, args.bot_clock)
        reports.append(report)
        if args.save_replays:
            path = args.save_replays / f"game-{report.seed}{FILE_SUFFIX}"
            path.write_bytes(report.replay.to_bytes())
        if args.json:
            print(json.dumps(report.to_dict()), flush=True)
        else:
            _print_game(report)
    summary = summarize(reports, time.perf_counter() - start)
    if args.json:
        print(json.dumps(summary))
    else:
        _print_summary(summary)
    return 0


def summarize(reports: list[GameReport], seconds: float) -> dict[str, Any]:
    rows = [r.to_dict() for r in reports]
    decisions = sum(row["decisions"] for row in rows)
    steps = sum(row["steps"] for row in rows)
    wins: dict[str, float] = {}
    for row in rows:
        for s, bot in enumerate(row["bots"]):
            wins[bot] = wins.get(bot, 0.0) + row["points"][s]
    seat_wins = [  # a shared first counts 1/k, as in `heights stats`
        sum(row["points"][s] for row in rows) / len(rows) for s in range(len(rows[0]["bots"]))
    ]
    return {
        "summary": True,
        "games": len(rows),
        "seconds": round(seconds, 3),
        "games_per_sec": round(len(rows) / seconds, 3),
        "decisions_per_sec": round(decisions / seconds, 1),
        "steps_per_sec": round(steps / seconds, 1),
        "mean_rounds": round(statistics.fmean(row["rounds"] for row in rows), 2),
        "min_rounds": min(row["rounds"] for row in rows),
        "max_rounds": max(row["rounds"] for row in rows),
        "trigger_end_rate": sum(row["termination"] == "TRIGGER" for row in rows) / len(rows),
        "mean_decisions": round(decisions / len(rows), 1),
        "win_share_by_bot": {k: round(v, 2) for k, v in sorted(wins.items())},
        "win_rate_by_seat": [round(w, 3) for w in seat_wins],
        "mean_score_by_seat": [
            round(statistics.fmean(row["scores"][s] for row in rows), 2)
            for s in range(len(rows[0]["scores"]))
        ],
    }


def _print_game(report: GameReport) -> None:
    row = report.to_dict()
    o = outcome(report.state)
    seats = [f"{name} (seat {s})" for s, name in enumerate(report.bots)]
    if report.state.solo:
        seats.append("the Mayor")
    print(
        f"Game seed {report.seed}: {o.termination.value} after {o.rounds} rounds, "
        f"{row['decisions']} decisions, {report.seconds:.2f} s"
    )
    order = sorted(range(len(seats)), key=lambda p: o.ranks[p])
    for p in order:
        cats = ", ".join(
            f"{c.name.lower().replace('_', ' ')} {report.state.score[p][c]}"
            for c in Score
            if report.state.score[p][c]
        )
        print(f"  #{o.ranks[p]} {seats[p]:20} {o.totals[p]:4} VP  ({cats})")


def _print_summary(summary: dict[str, Any]) -> None:
    print(
        f"\n{summary['games']} game(s) in {summary['seconds']} s: "
        f"{summary['decisions_per_sec']:.0f} decisions/s, mean {summary['mean_rounds']} rounds, "
        f"trigger end rate {summary['trigger_end_rate']:.2f}"
    )
    print(f"win share by bot: {summary['win_share_by_bot']}")
