"""Playing one match: bots in sandboxes, relayed decision by decision to an engine.

The driver is the same whatever the engine (in-process for `heights match`, the engine
service for a worker). A bot's fault is part of the result (a forfeit), never an
exception; everything else raises (the engine unreachable or refusing for a reason that
is not the bot's, a sandbox that cannot start, a game past its bounds), so the caller
can retry the whole match on the same seed, then record an infrastructure failure.
"""

from __future__ import annotations

import base64
import hashlib
import logging
import time
from collections.abc import Callable
from dataclasses import asdict
from typing import Any

from heights_rules import Replay, final_ranks
from heights_runner.contract import (
    Forfeit,
    MatchResult,
    MatchSpec,
    SeatResult,
    attempt_seconds,
    log_tail,
)
from heights_runner.engines import OVER, Engine, EngineFaultError, EngineRefusedError, Finished
from heights_runner.launch import LaunchPolicy
from heights_runner.seats import Seat

log = logging.getLogger("heights.runner")

EngineFactory = Callable[[MatchSpec], Engine]


class MatchOverrunError(RuntimeError):
    """The game went past its bounds (decisions, or the attempt's deadline) though every
    seat's time is bounded: the runner's or the engine's fault, never a bot's."""


def play_match(spec: MatchSpec, make_engine: EngineFactory, policy: LaunchPolicy) -> MatchResult:
    """Play `spec` to the end and return its result (forfeits included)."""
    started = time.monotonic()
    engine = make_engine(spec)
    log.info(
        "game created on the engine",
        extra={"match_id": spec.match_id, "game_id": engine.game_id, "players": spec.players},
    )
    seats = [Seat(spec, s, policy) for s in range(spec.players)]
    notes: dict[int, str] = {}
    try:
        for seat in seats:  # every process starts before any is waited for
            seat.launch()
        deadline = time.monotonic() + spec.limits.start_ms / 1000.0
        for seat in seats:
            seat.ready(deadline)
        overdue = started + attempt_seconds(spec)
        decisions = 0
        while engine.to_move() != OVER:
            decisions += 1
            _check_bounds(spec, decisions, overdue)
            engine.patch_seats = {seat.seat for seat in seats if seat.takes_patches}
            turn = engine.turn()
            seat = seats[turn.seat]
            action, note = seat.decide(turn)
            try:
                engine.apply(turn.seat, action)
            except EngineRefusedError as err:
                if seat.forfeit is not None:  # the stand-in reads the same rules: a bug
                    raise EngineFaultError(f"engine refused the stand-in's action: {err}") from None
                seat.refused(f"action {action}: {err}", turn.step)
                action, note = seat.decide(turn)
                try:
                    engine.apply(turn.seat, action)
                except EngineRefusedError as again:
                    raise EngineFaultError(f"engine refused the stand-in: {again}") from None
            if note:
                notes[turn.step] = note
        finished = engine.finish()
        seconds = time.monotonic() - started
        # Ended (and closed) first, so each seat's result carries its whole log. Bots are
        # told the recorded ranks (a forfeit ranks last), not the score order alone.
        forfeited = {seat.seat for seat in seats if seat.forfeit is not None}
        ranks = list(final_ranks(finished.ranks, forfeited, solo=spec.solo))
        for seat in seats:
            seat.end(ranks, list(finished.totals), finished.outcome)
        return _result(spec, finished, seats, notes, seconds)
    finally:
        _close_all(seats, engine)


def _close_all(seats: list[Seat], engine: Engine) -> None:
    """Close every seat and the engine, whatever one of them raises: an exception out
    of one close (a Celery soft time limit lands anywhere) must not leave the seats
    after it running. The first exception is raised once all have been closed; raised
    while the match's own exception propagates, it carries that one as its context, so
    the caller can still see what ended the match."""
    first: BaseException | None = None
    for close in [*(seat.close for seat in seats), engine.close]:
        try:
            close()
        except BaseException as err:
            first = first or err
    if first is not None:
        raise first


def _check_bounds(spec: MatchSpec, decisions: int, overdue: float) -> None:
    if decisions > spec.limits.max_decisions:
        raise MatchOverrunError(f"over {spec.limits.max_decisions} decisions")
    if time.monotonic() > overdue:
        raise MatchOverrunError(f"past the attempt's deadline after {decisions} decisions")


def _result(
    spec: MatchSpec, fin: Finished, seats: list[Seat], notes: dict[int, str], seconds: float
) -> MatchResult:
    forfeits = [seat.forfeit for seat in seats if seat.forfeit is not None]
    ranks = list(final_ranks(fin.ranks, {f.seat for f in forfeits}, solo=spec.solo))
    replay = Replay.from_bytes(fin.replay)
    replay.debug = dict(notes)
    replay.forfeits = [asdict(f) for f in forfeits]
    blob = replay.to_bytes()
    return MatchResult(
        match_id=spec.match_id,
        status="finished",
        seed=fin.seed,
        seed_commitment=fin.commitment,
        seats=tuple(_seat_result(seat, ranks[s], fin.totals[s]) for s, seat in enumerate(seats)),
        termination=fin.termination,
        rounds=fin.rounds,
        outcome=fin.outcome | {"final_ranks": ranks},
        replay_b64=base64.b64encode(blob).decode("ascii"),
        replay_sha256=hashlib.sha256(blob).hexdigest(),
        seconds=round(seconds, 3),
    )


def _seat_result(seat: Seat, rank: int, score: int) -> SeatResult:
    forfeit: Forfeit | None = seat.forfeit
    if forfeit is not None:
        log.info(
            "seat forfeited",
            extra={
                "seat": seat.seat,
                "reason": forfeit.reason,
                "step": forfeit.step,
                "detail": forfeit.detail,
            },
        )
    return SeatResult(
        seat=seat.seat,
        name=seat.spec.seats[seat.seat].name,
        rank=rank,
        score=score,
        forfeit=forfeit,
        moves=seat.clock.moves,
        think_ms=round(seat.clock.think_ms),
        max_move_ms=round(seat.clock.max_move_ms),
        log=log_tail(seat.stderr),
    )


def failed_result(spec: MatchSpec, error: str, seconds: float = 0.0) -> MatchResult:
    return MatchResult(spec.match_id, "failed", spec.seed, "", error=error[:500], seconds=seconds)


def result_summary(result: MatchResult) -> dict[str, Any]:
    """The result without the replay blob and the bots' logs, for `--json` output."""
    data = result.to_dict()
    data.pop("replay_b64")
    for seat in data["seats"]:
        seat.pop("log")
    return data
