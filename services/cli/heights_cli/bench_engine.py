"""`heights bench-engine-handler`: the engine's ApplyAction handler in one process.

The engine's CPU a decision in `bench-runner` mixes its own work with gRPC's and the
event loop's. This drives the servicer's handler directly, as the runner calls it
(`omit_view`, the other seats' tokens, `view_bases`, `play_forced`), on random games,
with no network in between: what is left is the handler (check, apply, the next
mover's observation and its patch, the response message) and the store (memory, or
Redis with `--redis`). With `--lean` the requests are the load test's instead
(loadtests/README.md): `omit_view` and nothing else, so no observation is built. Under
`valgrind --tool=callgrind` it gives instruction counts a busy machine cannot move
(docs/runner.md, "The engine's share").
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import time
import uuid
from dataclasses import asdict, dataclass
from typing import Any


def register(commands: Any) -> None:
    p: argparse.ArgumentParser = commands.add_parser(
        "bench-engine-handler",
        help="CPU a decision of the engine's ApplyAction handler, in process (no gRPC)",
    )
    p.add_argument("--games", type=int, default=3)
    p.add_argument("--players", type=int, default=4, choices=(2, 3, 4, 5))
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--redis", default="", help="a Redis URL for the store (default: memory)")
    p.add_argument(
        "--lean",
        action="store_true",
        help="the load test's requests (omit_view only), not the match runner's",
    )
    p.add_argument("--json", action="store_true")
    p.set_defaults(run=run)


@dataclass(frozen=True, slots=True)
class HandlerRun:
    decisions: int  # requests the handler answered (a seat's decision each)
    steps: int  # log entries appended, chance steps and forced decisions included
    cpu_us_per_decision: float
    verified: bool  # every game's replay verified


def run(args: argparse.Namespace) -> int:
    result = asyncio.run(play(args.games, args.players, args.seed, args.redis, lean=args.lean))
    if args.json:
        print(json.dumps(asdict(result), indent=2))
    else:
        for key, value in asdict(result).items():
            print(f"{key:>22}: {value}")
    return 0 if result.verified else 1


async def play(
    games: int, players: int, seed: int, redis_url: str = "", *, lean: bool = False
) -> HandlerRun:
    """Random games through the handler; CPU counted around the requests only."""
    from heights_engine.games import Games
    from heights_engine.redis_store import RedisStore
    from heights_engine.servicer import EngineServicer
    from heights_engine.store import GameStore, MemoryStore
    from heights_rules import verify

    ttl = 600  # seconds
    store: GameStore = (
        RedisStore(
            redis_url,
            prefix=f"heights-bench-{uuid.uuid4().hex[:8]}",
            max_games=games,
            game_ttl=ttl,
            finished_ttl=ttl,
        )
        if redis_url
        else MemoryStore(max_games=games, game_ttl=ttl, finished_ttl=ttl)
    )
    authority = Games(store, cache_size=games, token_secret=b"bench" * 8)
    servicer = EngineServicer(authority, max_streams=1, operator=None)  # type: ignore[arg-type]
    decisions = steps = 0
    cpu = 0.0
    verified = True
    try:
        for game in range(games):
            made, spent, game_id = await _game(servicer, players, seed + game, lean)
            decisions, cpu = decisions + made, cpu + spent
            replay = await authority.replay(game_id)
            steps += len(replay.actions)
            verified = verified and verify(replay).ok
            await authority.delete(game_id)
    finally:
        await store.close()
    return HandlerRun(decisions, steps, round(cpu / max(decisions, 1) * 1e6, 1), verified)


async def _game(servicer: Any, players: int, seed: int, lean: bool) -> tuple[int, float, str]:
    from heights_engine.proto import engine_service_pb2 as pb
    from heights_engine.proto import game_pb2
    from heights_rules import GameConfig

    live, tokens = await servicer.games.create(
        request_id=f"bench-{uuid.uuid4().hex[:12]}",
        config=GameConfig(players=players),
        seed=seed,
        seat_names=[],
    )
    rng = random.Random(seed)
    bases = [-1] * players  # what the runner holds per seat: the last view's sequence
    sequence, made, cpu = live.sequence, 0, 0.0
    while not live.state.is_terminal():
        seat = live.state.current_player()
        request = pb.ApplyActionRequest(
            game_id=live.record.game_id,
            seat_token=tokens[seat],
            expected_sequence=sequence,
            action=game_pb2.Action(id=rng.choice(live.state.legal_actions())),
            omit_view=True,
        )
        if not lean:  # the runner's: every seat's token and view held, forced ones played
            request.view_tokens.extend(t for s, t in enumerate(tokens) if s != seat)
            request.view_bases.extend(bases)
            request.play_forced = True
        started = time.process_time()
        response = await servicer.ApplyAction(request, None)
        response.SerializeToString()  # what gRPC does with it next
        cpu += time.process_time() - started
        sequence, made = response.sequence, made + 1
        if response.HasField("next_view"):
            bases[response.next_view.viewer] = response.next_view.sequence
    return made, cpu, live.record.game_id
