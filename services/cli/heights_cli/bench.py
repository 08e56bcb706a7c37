"""`heights bench`: the engine's numbers (make bench); prints, never asserts.

Everything runs in this one process, so the numbers are one core's. The engine's random
play is timed in CPU seconds beside python-chess's random play, in the same run, and
the two rates' ratio printed (`ratio_vs_chess`): a figure a busy machine barely moves.
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import time
from collections.abc import Callable
from typing import Any

import chess

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


def engine_against_chess(players: int, games: int, seed: int) -> dict[str, Any]:
    """The engine's random play and python-chess's (`chess_random_play`) in the same run,
    in alternating halves, so that whatever else loads the machine weighs on both alike."""
    steps = decisions = plies = 0
    engine_seconds = chess_seconds = 0.0
    first = games // 2
    for part_seed, part in ((seed, first), (seed + first, games - first)):
        s, d, seconds = engine_random_play(players, part, part_seed)
        steps, decisions, engine_seconds = steps + s, decisions + d, engine_seconds + seconds
        p, seconds = chess_random_play(part, part_seed)
        plies, chess_seconds = plies + p, chess_seconds + seconds
    per_sec = decisions / engine_seconds
    chess_per_sec = plies / chess_seconds
    return {
        "players": players,
        "games": games,
        "steps_per_sec": round(steps / engine_seconds),
        "decisions_per_sec": round(per_sec),
        "chess_plies_per_sec": round(chess_per_sec),
        "ratio_vs_chess": round(per_sec / chess_per_sec, 2),
    }


def engine_random_play(players: int, games: int, seed: int) -> tuple[int, int, float]:
    """(steps, decisions, CPU seconds) of random games straight on the engine."""
    steps = decisions = 0
    start = time.process_time()
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
    return steps, decisions, time.process_time() - start


def chess_random_play(games: int, seed: int) -> tuple[int, float]:
    """(plies, CPU seconds) of python-chess's random play, the yardstick: every ply lists
    the legal moves, pushes one at random and asks whether the game is over (the usual
    random-game loop); a ply is one decision."""
    plies = 0
    start = time.process_time()
    for g in range(games):
        pick = random.Random(seed + g)
        board = chess.Board()
        while not board.is_game_over():
            moves = list(board.legal_moves)
            board.push(moves[pick.randrange(len(moves))])
            plies += 1
    return plies, time.process_time() - start


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
    """Games of built-in bots in this process; rates per CPU second, as the engine's."""
    start = time.process_time()
    reports = [
        play_one(GameConfig(players=players), seed + g, [bot] * players) for g in range(games)
    ]
    s = summarize(reports, time.process_time() - start)
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
            row = engine_against_chess(players, max(4, args.games // 4), args.seed)
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
