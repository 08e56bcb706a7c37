"""The CPU a built-in bot spends a decision, from reading its `decide` line to writing
its answer, by phase: `python -m heights_cli.bench_bot_decision [--matches N]`.

The decide lines are the exact ones a runner sends (heights_runner.protocol.decide on a
LocalEngine with patches taken, forced decisions played by the engine) for four-player
greedy matches; each seat's lines are then fed to that seat's bot loop in this process,
timed on `time.process_time` per phase: read+parse (json.loads), patch (apply_patch),
rebuild (the bot's GameState from the observation), think (the bot's choice), answer
(encoding and writing the reply). The bot's answers are checked against the recorded
match, so a change that alters a decision fails here as well as in the tests.

Run it with `PYTHONPATH=build/compiled` for the compiled build. Prints JSON.
"""

from __future__ import annotations

import argparse
import io
import json
import sys
import time
from collections.abc import Sequence
from typing import Any

from heights_bots.bot import make_bot, seat_seed
from heights_bots.protocol_main import BuiltinBot
from heights_runner import protocol
from heights_runner.contract import BotRef, MatchSpec, SeatSpec
from heights_runner.engines import OVER, LocalEngine
from heights_sdk import loop

PHASES = ("read_parse", "patch", "rebuild", "think", "answer")
PLAYERS = 4


def record(seed: int) -> tuple[list[list[str]], list[list[int]]]:
    """Each seat's decide lines of one greedy match, and the actions it answered."""
    seats = tuple(SeatSpec(f"s{i}", BotRef.builtin("greedy"), True) for i in range(PLAYERS))
    spec = MatchSpec(f"bench-{seed}", seed, seats)
    engine = LocalEngine(spec)
    engine.patch_seats = set(range(PLAYERS))
    bots = [make_bot("greedy", seat_seed(seed, p)) for p in range(PLAYERS)]
    lines: list[list[str]] = [[] for _ in range(PLAYERS)]
    actions: list[list[int]] = [[] for _ in range(PLAYERS)]
    from heights_rules import from_infoset

    while (seat := engine.to_move()) != OVER:
        turn = engine.turn()
        lines[seat].append(protocol.decide(turn, 1000, 9000, patch=True))
        state = from_infoset(json.loads(turn.whole_json())["infoset"], owned=True)
        action = bots[seat].act_with_note(state, seat)[0]
        actions[seat].append(action)
        engine.apply(seat, action)
    return lines, actions


def _hello(seat: int) -> dict[str, Any]:
    seats = tuple(SeatSpec(f"s{i}", BotRef.builtin("greedy"), True) for i in range(PLAYERS))
    return dict(json.loads(protocol.hello(MatchSpec("bench", 0, seats), seat)))


def replay_seat(seed: int, seat: int, lines: list[str], totals: dict[str, float]) -> list[int]:
    """Feed one seat's decide lines to its bot as the SDK's loop does, timing each phase."""
    bot = BuiltinBot("greedy", seat_seed(seed, seat))
    hello = _hello(seat)
    bot.seat, bot.players = seat, PLAYERS
    bot.on_start(hello)
    out = io.StringIO()
    clock = time.process_time
    observation: Any = None
    step = -1
    answers: list[int] = []
    for line in lines:
        t0 = clock()
        msg = json.loads(line)
        t1 = clock()
        observation = loop._observation(msg, observation, step)
        step = int(msg["step"])
        decision = loop.decision_from_message(msg, observation)
        t2 = clock()
        state = bot.state_of(decision)
        t3 = clock()
        action, note = bot.choose_from(state)
        t4 = clock()
        reply: dict[str, Any] = {"type": "action", "id": loop.action_id(action)}
        if note:
            reply["debug"] = str(note)[: loop.MAX_DEBUG]
        loop._send(out, reply)
        t5 = clock()
        answers.append(action)
        totals["read_parse"] += t1 - t0
        totals["patch"] += t2 - t1
        totals["rebuild"] += t3 - t2
        totals["think"] += t4 - t3
        totals["answer"] += t5 - t4
    return answers


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=3, help="replays of the recorded lines")
    args = parser.parse_args(argv)
    games = [(seed, *record(seed)) for seed in range(1, args.matches + 1)]
    decisions = sum(len(seat) for _, lines, _ in games for seat in lines)
    best: dict[str, float] | None = None
    for _ in range(args.rounds):
        totals = dict.fromkeys(PHASES, 0.0)
        for seed, lines, actions in games:
            for seat in range(PLAYERS):
                if replay_seat(seed, seat, lines[seat], totals) != actions[seat]:
                    print(f"seed {seed} seat {seat}: the bot answered differently", file=sys.stderr)
                    return 1
        if best is None or sum(totals.values()) < sum(best.values()):
            best = totals
    assert best is not None
    per = {f"{k}_us": round(v / decisions * 1e6, 1) for k, v in best.items()}
    per["total_us"] = round(sum(best.values()) / decisions * 1e6, 1)
    print(json.dumps({"decisions": decisions, "matches": args.matches, **per}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
