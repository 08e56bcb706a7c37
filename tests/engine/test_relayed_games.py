"""What a runner relays stays byte for byte what it was: views, patches and replays.

Greedy games recorded in `relayed_games.json` are played again through a real server
by the runner's own client (`GrpcEngine`: `omit_view`, the other seats' tokens, every
seat taking patches, forced decisions played by the engine). Every response's steps,
the next mover's observation or patch text, a spectator's view now and then, and the
replay's bytes go into one SHA-256 per game, which must equal the digest main's code
produced before the engine's per-decision work was rewritten for speed (observation
building, patching, applying without a whole-state copy). Each build's digest is
recorded on its own, and the two must be equal: the pure-Python build once sent a
redundant `replace` of 0 by 0 in a few patches (a frame value that was an IntEnum there
and a plain int compiled; serialize._stack_doc now writes ints), the same document
either way but not the same bytes.

To record the games again after an intended change of behaviour:

    .venv/bin/python -m tests.engine.test_relayed_games
    PYTHONPATH=build/compiled:. .venv/bin/python -m tests.engine.test_relayed_games

and review the diff of `relayed_games.json`: a changed digest is a changed byte sent.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

import grpc
import pytest
from tests.engine.clients import OPERATOR_TOKEN
from tests.engine.conftest import Replicas

from heights_cli.bench_engine_phases import greedy_log
from heights_engine.proto import engine_service_pb2 as pb
from heights_runner.contract import BotRef, MatchSpec, SeatSpec
from heights_runner.engines import OVER
from heights_runner.grpc_engine import GrpcEngine

DATA = Path(__file__).with_name("relayed_games.json")
CASES = ((4, 1), (4, 2), (3, 3), (2, 4))  # (players, seed): greedy games
SPECTATOR_EVERY = 25  # steps between the spectator views hashed


def spec(players: int, seed: int) -> MatchSpec:
    seats = tuple(SeatSpec(f"greedy {s}", BotRef("builtin", "greedy")) for s in range(players))
    return MatchSpec(f"relayed-{players}p-{seed}", seed, seats)


def digest(address: str, players: int, seed: int, actions: list[int]) -> str:
    """The SHA-256 of everything the engine sent the runner while replaying `actions`."""
    sha = hashlib.sha256()
    with grpc.insecure_channel(address) as chan:
        engine = GrpcEngine(spec(players, seed), chan, OPERATOR_TOKEN)
        engine.patch_seats = set(range(players))
        stub = engine._stub
        public = pb.GetGameRequest(game_id=engine.game_id)
        while engine.to_move() != OVER:
            turn = engine.turn()
            sha.update(f"turn {turn.seat} {turn.step} {turn.patch_base}\n".encode())
            sha.update((turn.patch_json or turn.observation_json).encode() + b"\n")
            if turn.step % SPECTATOR_EVERY == 0:
                sha.update(stub.GetGame(public).game.observation_json.encode() + b"\n")
            engine.apply(turn.seat, actions[turn.step])
        finished = engine.finish()
        sha.update(finished.replay + json.dumps(finished.outcome, sort_keys=True).encode())
        engine.close()
    return sha.hexdigest()


def build() -> str:
    """Which build of the rules core is loaded: "compiled" (mypyc) or "python"."""
    from heights_rules import patches

    return "compiled" if str(patches.__file__).endswith(".so") else "python"


def _recorded() -> list[dict[str, Any]]:
    games: list[dict[str, Any]] = json.loads(DATA.read_text())["games"]
    return games


@pytest.mark.parametrize("case", range(len(CASES)), ids=lambda i: "{}p-seed{}".format(*CASES[i]))
def test_a_relayed_game_sends_the_recorded_bytes(memory_server: str, case: int) -> None:
    game = _recorded()[case]
    assert (game["players"], game["seed"]) == CASES[case]
    sent = digest(memory_server, game["players"], game["seed"], game["actions"])
    assert sent == game["digests"][build()]


def test_a_relayed_game_on_redis_sends_the_recorded_bytes(replicas: Replicas) -> None:
    # An engine process on Redis, whose appends travel while the answer's views are
    # built (Games.apply): the same bytes as the in-memory store's.
    game = _recorded()[-1]  # 2 players: the shortest
    sent = digest(replicas.start().address, game["players"], game["seed"], game["actions"])
    assert sent == game["digests"][build()]


def test_both_builds_send_the_same_bytes() -> None:
    for game in _recorded():
        assert game["digests"]["python"] == game["digests"]["compiled"], game["seed"]


def record() -> None:
    """Play the cases on a fresh in-process server; write their digests for this build."""
    from tests.engine.conftest import InProcessServer

    from heights_engine.settings import Settings

    server = InProcessServer(Settings(address="127.0.0.1:0", operator_token=OPERATOR_TOKEN))
    old = {(g["players"], g["seed"]): g for g in _recorded()} if DATA.exists() else {}
    try:
        games = []
        for players, seed in CASES:
            actions = greedy_log(players, seed)
            sha = digest(server.address, players, seed, actions)
            kept = old.get((players, seed), {})
            digests = kept.get("digests", {}) if kept.get("actions") == actions else {}
            digests[build()] = sha
            games.append({"players": players, "seed": seed, "digests": digests, "actions": actions})
            print(f"{build()} {players}p seed {seed}: {len(actions)} steps, {sha}", file=sys.stderr)
    finally:
        server.stop()
    DATA.write_text(json.dumps({"games": games}, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    record()
