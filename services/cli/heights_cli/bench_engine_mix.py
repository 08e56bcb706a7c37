"""`heights bench-engine-mix`: the engine load test's game calls, in one process.

`make loadtest`'s generator (loadtests/drivers.py, lean client) keeps a pool of
two-player games in play and sends each arrival to the game idle longest: ApplyAction
with `omit_view`, or ListLegalActions when the turn has passed to the other seat, and
a new game when one ends. This drives the servicer's handlers the same way, round robin
over a pool of the same size, with no gRPC or network in between: what is left is what
a game call costs the server beyond an empty one (the handler, the rules core, the
memory store, the response's encoding), with the pool's games as cold in the CPU's
caches as under load. Seeded: the same calls every run, so under `valgrind
--tool=callgrind` (a run of N calls minus a run of 0) it gives instructions a game call
that a busy machine cannot move (loadtests/README.md, "What a game call's handler spends").
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import time
from collections import deque
from dataclasses import asdict, dataclass, field
from typing import Any

POOL = 300  # the load test's LOADTEST_GAMES


def register(commands: Any) -> None:
    p: argparse.ArgumentParser = commands.add_parser(
        "bench-engine-mix",
        help="CPU a call of the engine load test's game calls, in process (no gRPC)",
    )
    p.add_argument("--pool", type=int, default=POOL, help="games in play (the load test's 300)")
    p.add_argument("--calls", type=int, default=30_000, help="calls after the pool is created")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--json", action="store_true")
    p.set_defaults(run=run)


@dataclass(frozen=True, slots=True)
class MixRun:
    apply_calls: int
    list_calls: int
    games_created: int  # the pool's first games and those that replaced finished ones
    apply_cpu_us: float  # a call: handler and the response's encoding
    list_cpu_us: float


@dataclass(slots=True)
class _Game:
    game_id: str
    tokens: list[str]
    sequence: int
    to_move: int
    legal: list[int] = field(default_factory=list)


def run(args: argparse.Namespace) -> int:
    result = asyncio.run(play(args.pool, args.calls, args.seed))
    if args.json:
        print(json.dumps(asdict(result), indent=2))
    else:
        for key, value in asdict(result).items():
            print(f"{key:>14}: {value}")
    return 0


async def play(pool: int, calls: int, seed: int) -> MixRun:
    """`calls` game calls over a pool of `pool` games; CPU counted around the handlers."""
    from heights_engine.games import Games
    from heights_engine.proto import engine_service_pb2 as pb
    from heights_engine.proto import game_pb2
    from heights_engine.servicer import EngineServicer
    from heights_engine.store import MemoryStore
    from heights_rules import GameConfig

    ttl = 3600  # seconds
    authority = Games(
        MemoryStore(max_games=pool, game_ttl=ttl, finished_ttl=ttl),
        cache_size=max(1000, pool),  # the service's default cache
        token_secret=b"bench" * 8,
    )
    # Called as gRPC would, with no context: the lean calls never read it.
    servicer: Any = EngineServicer(authority, max_streams=1, operator=None)  # type: ignore[arg-type]
    rng = random.Random(seed)
    created = 0

    async def new_game() -> _Game:
        nonlocal created
        created += 1
        live, tokens = await authority.create(
            request_id=f"mix-{seed}-{created}",
            config=GameConfig(players=2),
            seed=seed * 1_000_003 + created,
            seat_names=[],
        )
        return _Game(live.record.game_id, tokens, live.sequence, live.state.current_player())

    idle = deque([await new_game() for _ in range(pool)])
    counts, cpu = [0, 0], [0.0, 0.0]  # ApplyAction, ListLegalActions
    for _ in range(calls):
        game = idle.popleft()
        token = game.tokens[game.to_move]
        if not game.legal:
            listing = pb.ListLegalActionsRequest(game_id=game.game_id, seat_token=token)
            started = time.process_time()
            listed = await servicer.ListLegalActions(listing, None)
            listed.SerializeToString()  # what gRPC does with it next
            cpu[1] += time.process_time() - started
            counts[1] += 1
            game.sequence, game.legal = listed.sequence, [a.id for a in listed.actions]
            idle.append(game)
            continue
        request = pb.ApplyActionRequest(
            game_id=game.game_id,
            seat_token=token,
            expected_sequence=game.sequence,
            action=game_pb2.Action(id=rng.choice(game.legal)),
            omit_view=True,
        )
        started = time.process_time()
        applied = await servicer.ApplyAction(request, None)
        applied.SerializeToString()
        cpu[0] += time.process_time() - started
        counts[0] += 1
        game.sequence, game.to_move = applied.sequence, applied.to_move
        game.legal = [a.id for a in applied.legal_actions]
        # A finished game stays cached and stored, as in the server under the load test.
        idle.append(game if game.to_move != -1 else await new_game())
    return MixRun(
        apply_calls=counts[0],
        list_calls=counts[1],
        games_created=created,
        apply_cpu_us=round(cpu[0] / max(counts[0], 1) * 1e6, 1),
        list_cpu_us=round(cpu[1] / max(counts[1], 1) * 1e6, 1),
    )
