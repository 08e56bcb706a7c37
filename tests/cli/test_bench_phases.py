"""The per-phase benches: `heights bench-engine-phases` and `bench_bot_decision` play what
they time (the engine's handler piece by piece; a bot fed a recorded match's lines)."""

from __future__ import annotations

import asyncio

from heights_cli.bench_bot_decision import PHASES as BOT_PHASES
from heights_cli.bench_bot_decision import record, replay_seat
from heights_cli.bench_engine_phases import PHASES, greedy_log, measure


def test_the_engine_phases_play_a_whole_game_and_time_every_phase() -> None:
    log = greedy_log(2, 3)
    result = asyncio.run(measure([log], 2, 3))
    # One decision a seat's turn: fewer than the log's steps (chance steps, forced ones).
    assert 0 < result.decisions < len(log)
    assert set(result.us) == {*PHASES, "total"}
    assert result.us["total"] > 0
    assert result.us["view"] > 0


def test_a_bot_fed_a_recorded_matchs_lines_answers_as_it_did() -> None:
    lines, actions = record(1)
    totals = dict.fromkeys(BOT_PHASES, 0.0)
    for seat in range(len(lines)):
        assert replay_seat(1, seat, lines[seat], totals) == actions[seat]
    assert all(len(seat_lines) > 0 for seat_lines in lines)
    assert sum(totals.values()) > 0
