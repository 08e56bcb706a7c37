"""`heights bench-engine-phases`: the engine's CPU a relayed decision, split by phase.

`bench-engine-handler` gives the handler's CPU a decision as one number. This one
replays greedy games (the runner's usual opponent, and far longer-lived states than
random play) through the same pieces `Games.apply` and the servicer run, as the runner
calls them (`omit_view`, the other seats' tokens, `view_bases`, `play_forced`, memory
store), and times each piece on its own: checking and applying the action, the
store's append, the next mover's observation, its patch, the response's message and
its JSON. A second pass sends the same decisions through the servicer's handler whole,
so the parts can be held against their sum. It prints numbers and asserts nothing;
run it with `PYTHONPATH=build/compiled` for the compiled rules core.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

PHASES = ("apply", "append", "view", "patch", "proto", "json", "response")


def register(commands: Any) -> None:
    p: argparse.ArgumentParser = commands.add_parser(
        "bench-engine-phases",
        help="CPU a relayed decision of greedy games in the engine, by phase (no gRPC)",
    )
    p.add_argument("--games", type=int, default=3)
    p.add_argument("--players", type=int, default=4, choices=(2, 3, 4, 5))
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--rounds", type=int, default=3, help="passes over the games, best kept")
    p.add_argument("--json", action="store_true")
    p.set_defaults(run=run)


@dataclass(slots=True)
class PhaseRun:
    decisions: int = 0
    # CPU microseconds a decision, per phase; "total" is the handler whole, timed apart.
    us: dict[str, float] = field(default_factory=dict)


def run(args: argparse.Namespace) -> int:
    logs = [greedy_log(args.players, args.seed + g) for g in range(args.games)]
    best: dict[str, float] = {}
    decisions = 0
    for _ in range(args.rounds):
        result = asyncio.run(measure(logs, args.players, args.seed))
        decisions = result.decisions
        for key, value in result.us.items():
            best[key] = min(best.get(key, value), value)
    parts = sum(best[p] for p in PHASES)
    if args.json:
        print(json.dumps({"decisions": decisions, "us": best, "parts": round(parts, 1)}))
        return 0
    print(f"{'decisions':>10}: {decisions} ({args.games} greedy {args.players}-player games)")
    for key in (*PHASES, "total"):
        print(f"{key:>10}: {best[key]:8.1f} us CPU a decision")
    print(f"{'parts':>10}: {parts:8.1f} us CPU a decision (the phases' sum)")
    return 0


def greedy_log(players: int, seed: int) -> list[int]:
    """Every step of a greedy game, chance included (the rules core only, untimed)."""
    from heights_bots.greedy import greedy_action
    from heights_rules import CHANCE, GameConfig, new_game

    state = new_game(GameConfig(players=players), seed)
    log: list[int] = []
    while not state.is_terminal():
        seat = state.current_player()
        action = state.legal_actions()[0] if seat == CHANCE else greedy_action(state, seat)
        log.append(action)
        state.apply(action)
    return log


async def measure(logs: list[list[int]], players: int, seed: int) -> PhaseRun:
    from heights_engine.games import Games
    from heights_engine.servicer import EngineServicer
    from heights_engine.store import MemoryStore

    store = MemoryStore(max_games=len(logs) * 2, game_ttl=600, finished_ttl=600)
    games = Games(store, cache_size=len(logs) * 2, token_secret=b"bench" * 8)
    servicer = EngineServicer(games, max_streams=1, operator=None)  # type: ignore[arg-type]
    spent = dict.fromkeys((*PHASES, "total"), 0.0)
    decisions = 0
    try:
        for i, log in enumerate(logs):
            decisions += await _phased(games, log, players, seed + i, spent)
            await _whole(servicer, log, players, seed + i, spent)
    finally:
        await store.close()
    n = max(decisions, 1)
    return PhaseRun(decisions, {k: round(v / n * 1e6, 1) for k, v in spent.items()})


class _Clock:
    """Adds the CPU time since the last tick to a phase."""

    def __init__(self, spent: dict[str, float]) -> None:
        self.spent = spent
        self.last = time.process_time()

    def tick(self, phase: str) -> None:
        now = time.process_time()
        self.spent[phase] += now - self.last
        self.last = now


async def _created(games: Any, players: int, seed: int) -> tuple[Any, list[str]]:
    from heights_rules import GameConfig

    live, tokens = await games.create(
        request_id=f"bench-{uuid.uuid4().hex[:12]}",
        config=GameConfig(players=players),
        seed=seed,
        seat_names=[],
    )
    return live, tokens


async def _phased(
    games: Any, log: list[int], players: int, seed: int, spent: dict[str, float]
) -> int:
    """`Games.apply` and the servicer's response, piece by piece, each piece timed."""
    from heights_engine import convert
    from heights_engine.proto import engine_service_pb2 as pb

    live, _ = await _created(games, players, seed)
    game_id = live.record.game_id
    bases = [-1] * players
    made = 0
    while not live.state.is_terminal():
        seat = live.state.current_player()
        expected = live.sequence
        held = frozenset(range(players))
        clock = _Clock(spent)
        work, actions, actors = games._tried(live, expected, seat, log[expected], held)
        clock.tick("apply")
        await games.store.append(game_id, expected, actions, work.is_terminal())
        clock.tick("append")
        live.state = work
        live.actions.extend(actions)
        live.actors.extend(actors)
        to_move = -1 if work.is_terminal() else work.current_player()
        response = pb.ApplyActionResponse()
        if to_move >= 0:
            whole = live.view(to_move)
            clock.tick("view")
            view = games._patch_from(game_id, whole, bases[to_move])
            games._keep_base(game_id, whole)
            clock.tick("patch")
            # The JSON alone, then the message with it (view_to_proto encodes it again):
            # the message's own share is the second less the first (~0, so noise can
            # make it read slightly negative).
            before = spent["json"]
            if view.patch is not None:
                convert._PATCH_JSON(view.patch)
            else:
                convert._json(view.observation)
            clock.tick("json")
            convert.view_to_proto(view, response.next_view)
            clock.tick("proto")
            spent["proto"] -= spent["json"] - before
            bases[to_move] = view.sequence
        legal = work.legal_actions() if to_move == seat else []
        response.steps.extend([convert.step_to_proto(s) for s in live.steps(expected)])
        response.sequence = live.sequence
        response.to_move = to_move
        response.legal_actions.extend([convert.action_to_proto(a) for a in legal])
        response.SerializeToString()
        clock.tick("response")
        made += 1
    return made


async def _whole(
    servicer: Any, log: list[int], players: int, seed: int, spent: dict[str, float]
) -> None:
    """The same decisions through the servicer's handler, timed as one."""
    from heights_engine.proto import engine_service_pb2 as pb
    from heights_engine.proto import game_pb2

    live, tokens = await _created(servicer.games, players, seed)
    bases = [-1] * players
    while not live.state.is_terminal():
        seat = live.state.current_player()
        request = pb.ApplyActionRequest(
            game_id=live.record.game_id,
            seat_token=tokens[seat],
            expected_sequence=live.sequence,
            action=game_pb2.Action(id=log[live.sequence]),
            omit_view=True,
            view_tokens=[t for s, t in enumerate(tokens) if s != seat],
            view_bases=bases,
            play_forced=True,
        )
        started = time.process_time()
        response = await servicer.ApplyAction(request, None)
        response.SerializeToString()
        spent["total"] += time.process_time() - started
        if response.HasField("next_view"):
            bases[response.next_view.viewer] = response.next_view.sequence
