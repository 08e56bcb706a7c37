"""`heights bench`: the engine's numbers (make bench); prints, never asserts.

Everything runs in this one process, so the numbers are one core's.
"""

from __future__ import annotations

import argparse
import gzip
import json
import time
from typing import Any

from heights_cli.selfplay import play_one, summarize
from heights_rules import GameConfig, KeyedRng, load_catalogue, new_game


def register(commands: Any) -> None:
    p: argparse.ArgumentParser = commands.add_parser(
        "bench", help="measure engine throughput, game lengths and sizes (one core)"
    )
    p.add_argument("--games", type=int, default=40, help="games per self-play measurement")
    p.add_argument("--seed", type=int, default=1000)
    p.add_argument("--json", action="store_true")
    p.set_defaults(run=run)


def engine_throughput(players: int, games: int, seed: int) -> dict[str, Any]:
    """Random policy straight on the engine: decisions/s with legal-action generation."""
    steps = decisions = 0
    start = time.perf_counter()
    for g in range(games):
        state = new_game(GameConfig(players=players), seed + g)
        rng = KeyedRng(seed + g)
        block = b""
        while not state.is_terminal():
            legal = state.legal_actions()
            if steps % 8 == 0:  # one keyed digest gives eight 64-bit draws
                block = rng.digest(b"policy", steps)
            pick = int.from_bytes(block[(steps % 8) * 8 : (steps % 8) * 8 + 8], "little")
            decisions += state.current_player() >= 0
            state.apply(legal[pick % len(legal)])
            steps += 1
    seconds = time.perf_counter() - start
    return {
        "players": players,
        "games": games,
        "steps_per_sec": round(steps / seconds),
        "decisions_per_sec": round(decisions / seconds),
    }


def sizes(games: int, seed: int) -> dict[str, Any]:
    """Largest serialized state seen and the compressed replay of 4-player greedy games."""
    biggest_state = 0
    replays = []
    for g in range(games):
        report = play_one(GameConfig(players=4), seed + g, ["greedy"] * 4)
        replays.append(len(report.replay.to_bytes()))
        state = new_game(GameConfig(players=4), seed + g)
        for step, action in enumerate(report.replay.actions):
            state.apply(action)
            if step % 25 == 0:
                biggest_state = max(biggest_state, len(state.to_bytes()))
        biggest_state = max(biggest_state, len(state.to_bytes()))
    return {
        "max_state_bytes": biggest_state,
        "max_state_bytes_gzip": len(gzip.compress(state.to_bytes())),
        "replay_bytes_4p_mean": round(sum(replays) / len(replays)),
        "replay_bytes_4p_max": max(replays),
    }


def selfplay(bot: str, players: int, games: int, seed: int) -> dict[str, Any]:
    start = time.perf_counter()
    reports = [
        play_one(GameConfig(players=players), seed + g, [bot] * players) for g in range(games)
    ]
    s = summarize(reports, time.perf_counter() - start)
    keys = (
        "games",
        "games_per_sec",
        "decisions_per_sec",
        "mean_rounds",
        "min_rounds",
        "max_rounds",
        "trigger_end_rate",
        "win_rate_by_seat",
    )
    return {"bot": bot, "players": players, **{k: s[k] for k in keys}}


def run(args: argparse.Namespace) -> int:
    load_catalogue()  # not part of any measurement
    results: dict[str, Any] = {"engine": [], "selfplay": []}
    for players in (2, 4):
        results["engine"].append(engine_throughput(players, max(4, args.games // 4), args.seed))
        _show(args, "engine random", results["engine"][-1])
    for bot in ("random", "greedy"):
        for players in (2, 3, 4):
            results["selfplay"].append(selfplay(bot, players, args.games, args.seed))
            _show(args, f"selfplay {bot}", results["selfplay"][-1])
    results["sizes"] = sizes(max(2, args.games // 10), args.seed)
    _show(args, "sizes", results["sizes"])
    if args.json:
        print(json.dumps(results))
    return 0


def _show(args: argparse.Namespace, what: str, row: dict[str, Any]) -> None:
    if not args.json:
        print(f"{what:16} " + "  ".join(f"{k}={v}" for k, v in row.items()), flush=True)
