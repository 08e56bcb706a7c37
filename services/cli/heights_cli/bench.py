"""`heights bench`: the engine's numbers (make bench); prints, never asserts.

Everything runs in this one process, so the numbers are one core's.
"""

from __future__ import annotations

import argparse
import gzip
import json
import time
from collections.abc import Callable
from typing import Any

from heights_cli.selfplay import play_one, summarize
from heights_rules import GameConfig, GameState, KeyedRng, infoset, load_catalogue, new_game

PARTS = ("engine", "state", "selfplay", "sizes")


def register(commands: Any) -> None:
    p: argparse.ArgumentParser = commands.add_parser(
        "bench", help="measure engine throughput, game lengths and sizes (one core)"
    )
    p.add_argument("--games", type=int, default=40, help="games per self-play measurement")
    p.add_argument("--seed", type=int, default=1000)
    p.add_argument("--json", action="store_true")
    p.add_argument(
        "--only",
        action="append",
        choices=PARTS,
        help="run only this part (repeatable; default: all of them)",
    )
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


def state_operations(games: int, seed: int, rounds: int = 20) -> dict[str, Any]:
    """Per-state operations the bots and the engine service repeat: ops per CPU second.

    Copies (every search rollout), the byte form and its hash (every replay checkpoint,
    the engine's store), rebuilding from bytes, and a seat's infoset (every observation).
    The states are sampled from 4-player random games; CPU time, not wall time, so a
    busy machine moves the figures less.
    """
    states: list[GameState] = []
    for g in range(games):
        state = new_game(GameConfig(players=4), seed + g)
        while not state.is_terminal():
            legal = state.legal_actions()
            state.apply(legal[(state.steps * 7919) % len(legal)])
            if state.steps % 16 == 0:
                states.append(state.clone())
    blobs = [s.to_bytes() for s in states]
    ops: dict[str, Callable[[int], object]] = {
        "clone": lambda i: states[i].clone(),
        "to_bytes": lambda i: states[i].to_bytes(),
        "state_hash": lambda i: states[i].state_hash(),
        "from_bytes": lambda i: GameState.from_bytes(blobs[i]),
        "infoset": lambda i: infoset(states[i], i % 4),
    }
    row: dict[str, Any] = {"states": len(states)}
    for name, op in ops.items():
        start = time.process_time()
        for _ in range(rounds):
            for i in range(len(states)):
                op(i)
        row[f"{name}_per_cpu_sec"] = round(rounds * len(states) / (time.process_time() - start))
    return row


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
    parts = args.only or PARTS
    results: dict[str, Any] = {}
    if "engine" in parts:
        results["engine"] = []
        for players in (2, 4):
            row = engine_throughput(players, max(4, args.games // 4), args.seed)
            results["engine"].append(row)
            _show(args, "engine random", row)
    if "state" in parts:
        results["state"] = state_operations(max(2, args.games // 10), args.seed)
        _show(args, "state ops", results["state"])
    if "selfplay" in parts:
        results["selfplay"] = []
        for bot in ("random", "greedy"):
            for players in (2, 3, 4):
                results["selfplay"].append(selfplay(bot, players, args.games, args.seed))
                _show(args, f"selfplay {bot}", results["selfplay"][-1])
    if "sizes" in parts:
        results["sizes"] = sizes(max(2, args.games // 10), args.seed)
        _show(args, "sizes", results["sizes"])
    if args.json:
        print(json.dumps(results))
    return 0


def _show(args: argparse.Namespace, what: str, row: dict[str, Any]) -> None:
    if not args.json:
        print(f"{what:16} " + "  ".join(f"{k}={v}" for k, v in row.items()), flush=True)
