"""The match task: idempotent; a match the runner could not play is played again, then
recorded as an infrastructure failure; a bot's fault is a forfeit, never retried."""

from __future__ import annotations

import logging
import threading
import time
from functools import cache
from typing import Any

from celery.exceptions import SoftTimeLimitExceeded
from celery.signals import worker_process_init, worker_process_shutdown
from kombu.exceptions import OperationalError

from heights_runner.celery_app import app
from heights_runner.contract import (
    INFRASTRUCTURE_FAILURE,
    QUEUE_RESULTS,
    RETRY_WINDOW_S,
    TASK_MATCH_STARTED,
    TASK_PLAY_MATCH,
    MatchResult,
    MatchSpec,
    match_deadline_seconds,
)
from heights_runner.engines import Engine, EngineUnavailableError, LocalEngine
from heights_runner.launch import LaunchPolicy
from heights_runner.ledger import Ledger, open_ledger
from heights_runner.match import failed_result, play_match
from heights_runner.metrics import (
    FORFEITS,
    MATCH_SECONDS,
    MATCHES,
    MATCHES_IN_PROGRESS,
    SEAT_MAX_MOVE_SECONDS,
    SEAT_THINK_SECONDS,
    process_ended,
)
from heights_runner.sandbox import cgroups
from heights_runner.settings import RunnerSettings

log = logging.getLogger("heights.runner")

# What sending a message raises when the broker cannot take it: Celery makes Redis's
# connection errors OperationalError, and the embedded file broker's failed writes too
# (heights_runner.broker); OSError in case a write fails outside the transport.
BROKER_ERRORS = (OperationalError, OSError)


@worker_process_shutdown.connect
def _child_exits(pid: int, **_: Any) -> None:
    process_ended(pid)  # its matches-in-progress gauge no longer counts


@worker_process_init.connect
def _sweep_dead_runners(**_: Any) -> None:
    """A new pool process removes what dead ones left (sandbox.cgroups.sweep).

    The worker's main process probed the sandbox, and swept, before forking its pool, so
    a pool process inherits that probe and never sweeps by itself; but a pool process is
    replaced exactly when one has died (a hard time limit, the OOM killer), mid-match.
    In a thread of its own: billiard kills a pool process that has not reported itself up
    within seconds (worker_proc_alive_timeout, 4 s), and ending a dead owner's processes
    that are slow to die can take that long; the sweep touches nothing a match uses.
    """
    threading.Thread(target=_sweep, name="bot-cgroup-sweep", daemon=True).start()


def _sweep() -> None:
    try:
        if swept := cgroups.sweep():
            log.info("removed %d bot cgroups left by a runner process that died", swept)
    except Exception:  # a sweep that failed leaves what it found for the next one
        log.exception("sweeping the bot cgroups of dead runners failed")


@cache
def _settings() -> RunnerSettings:
    return RunnerSettings.from_env()


@cache
def _ledger() -> Ledger:
    settings = _settings()
    return open_ledger(settings.ledger_url, settings.cache_dir.parent)


def _engine_factory() -> Any:
    """The engine service when an address is configured, else the in-process engine."""
    address = _settings().engine_address
    if not address:
        return LocalEngine
    from heights_runner.grpc_engine import GrpcEngine

    chan = _channel(address)

    def make(spec: MatchSpec) -> Engine:
        engine = GrpcEngine(spec, chan, _settings().engine_operator_token)
        _game_ids[spec.match_id] = engine.game_id  # for the task's "match done" line
        return engine

    return make


# The engine game of each match this process played (the last attempt's), by match id.
_game_ids: dict[str, str] = {}


@cache
def _channel(address: str) -> Any:
    # One channel per worker process, made after the fork (gRPC is not fork-safe).
    from heights_runner.grpc_engine import channel

    return channel(address)


def run_spec(spec: MatchSpec) -> MatchResult:
    """Play `spec` unless its result is known; return the one result of the match."""
    ledger = _ledger()
    known = ledger.get(spec.match_id)
    if known is not None:
        log.info("match already played; re-sending its result", extra={"match_id": spec.match_id})
        return known
    settings = _settings()
    policy = LaunchPolicy(settings.cache_dir, allow_unsandboxed=settings.allow_unsandboxed)
    with MATCHES_IN_PROGRESS.track_inprogress():
        result = play_match(spec, _engine_factory(), policy)
    MATCHES.labels(result.status).inc()
    MATCH_SECONDS.observe(result.seconds)
    for seat in result.seats:
        if seat.forfeit is not None:
            FORFEITS.labels(seat.forfeit.reason).inc()
        kind = spec.seats[seat.seat].bot.kind if seat.seat < spec.players else "unknown"
        SEAT_THINK_SECONDS.labels(kind).observe(seat.think_ms / 1000.0)
        SEAT_MAX_MOVE_SECONDS.labels(kind).observe(seat.max_move_ms / 1000.0)
    return ledger.put(result)


# Waits between attempts of a match the runner could not play: 2, 4, 8 ... 60 s.
RETRY_FIRST_S = 2.0
RETRY_MAX_S = 60.0


def fault_text(err: Exception) -> str:
    """What a failed result says of a runner or engine fault (shown to the bots' owners)."""
    if isinstance(err, EngineUnavailableError):
        return "engine service unavailable"
    return f"{type(err).__name__}: {err}"


def run_spec_retrying(spec: MatchSpec, retries: int, within_s: float) -> MatchResult:
    """`run_spec`, played again from the start on the same seed after a runner fault.

    A bot's fault never raises (it is a forfeit in the result), so any exception here is
    ours or the engine's: the engine unavailable or refusing for a reason that is not the
    bot's, the sandbox or the bot cache failing, the ledger unwritable, a game past its
    bounds. After `retries` retries, or once `within_s` seconds have passed, the match
    ends as a failed result that blames no bot (an infrastructure failure).

    The retries happen inside the task, its message still unacknowledged: Celery's own
    retry publishes a new message, and when the broker is what went down (a Redis
    restart takes the engine's store with it) that publish fails and Celery drops the
    match (`Reject(requeue=False)`). A worker that dies while waiting hands the match
    back like any other. No attempt starts after `within_s` seconds (the contract's
    RETRY_WINDOW_S), so the last one ends by the match's deadline, before the broker
    hands the unacknowledged message to another worker.
    """
    try:
        return _attempts(spec, retries, within_s)
    except SoftTimeLimitExceeded:  # in a wait between attempts, where most of a long outage goes
        return _soft_limited(spec)


def _attempts(spec: MatchSpec, retries: int, within_s: float) -> MatchResult:
    deadline = time.monotonic() + within_s
    wait = RETRY_FIRST_S
    error = "no attempt was made"
    for attempt in range(retries + 1):
        try:
            return run_spec(spec)
        except Exception as err:  # every fault left is the runner's or the engine's
            if _soft_limit_in(err):
                return _soft_limited(spec)
            error = fault_text(err)
            last = attempt == retries or time.monotonic() + wait > deadline
            log.warning(
                "match attempt failed (%s): %s",
                "giving up" if last else f"starting again in {wait:.0f} s",
                error,
                exc_info=not isinstance(err, EngineUnavailableError),
                extra={"match_id": spec.match_id, "attempt": attempt + 1},
            )
            if last:
                break
            time.sleep(wait)
            wait = min(wait * 2, RETRY_MAX_S)
    return _failed(spec, INFRASTRUCTURE_FAILURE + error)


def _soft_limit_in(err: BaseException) -> bool:
    """Whether a Celery soft time limit is `err` or behind it: it lands anywhere, and
    what it interrupted may have wrapped it (the in-process engine's fault) or raised
    another error while the match was being closed."""
    seen: set[int] = set()
    todo: list[BaseException | None] = [err]
    while todo:
        found = todo.pop()
        if found is None or id(found) in seen:
            continue
        if isinstance(found, SoftTimeLimitExceeded):
            return True
        seen.add(id(found))
        todo += [found.__cause__, found.__context__]
    return False


def _soft_limited(spec: MatchSpec) -> MatchResult:
    """A deployment's Celery soft time limit (--soft-time-limit): the hard one, a SIGKILL,
    follows, so another attempt would only be killed mid-match. play_match's finally has
    closed the bots; the match ends here, blaming none."""
    log.warning("match stopped by the task's soft time limit", extra={"match_id": spec.match_id})
    return _failed(spec, INFRASTRUCTURE_FAILURE + "the task's soft time limit")


def _failed(spec: MatchSpec, error: str) -> MatchResult:
    """The infrastructure failure, stored like any result when the ledger can take it."""
    result = failed_result(spec, error)
    try:
        return _ledger().put(result)
    except Exception:  # the ledger away too: send the result anyway
        log.exception("could not store the failed result", extra={"match_id": spec.match_id})
        return result


@app.task(name=TASK_PLAY_MATCH, acks_late=True)
def play_match_task(spec_data: dict[str, Any]) -> dict[str, Any]:
    started = time.monotonic()
    try:
        spec = MatchSpec.from_dict(spec_data)
    except (KeyError, TypeError, ValueError) as err:
        log.error("malformed match spec: %s", err)
        return {"status": "rejected", "error": str(err)}
    log.info("match started", extra={"match_id": spec.match_id})
    if spec.reply_to:
        # The platform shows the match as running; only a hint (results are what count),
        # so a broker that cannot take it does not stop the match.
        try:
            app.send_task(
                TASK_MATCH_STARTED, args=[spec.match_id], queue=QUEUE_RESULTS, retry=False
            )
        except BROKER_ERRORS as err:
            log.warning("could not send the match-started hint: %s", err)
    settings = _settings()
    deadline_s = match_deadline_seconds(spec)
    if deadline_s > settings.visibility_timeout:
        log.warning(
            "the match's deadline (%.0f s) is past the visibility timeout (%d s): the broker "
            "may hand it to a second worker while this one plays it",
            deadline_s,
            settings.visibility_timeout,
            extra={"match_id": spec.match_id},
        )
    result = run_spec_retrying(spec, settings.max_retries, RETRY_WINDOW_S)
    if spec.reply_to:
        try:
            app.send_task(spec.reply_to, args=[result.to_dict()], queue=QUEUE_RESULTS)
        except BROKER_ERRORS as err:  # on Redis, after the publish retry policy (~2 minutes)
            # The result is in the ledger: when the platform's reaper sends the match
            # again past its deadline, this result is what goes back.
            log.error("could not send the result: %s", err, extra={"match_id": spec.match_id})
            return {"match_id": spec.match_id, "status": "unsent"}
    log.info(
        "match done",
        extra={
            "match_id": spec.match_id,
            "game_id": _game_ids.pop(spec.match_id, ""),
            "status": result.status,
            "seconds": round(time.monotonic() - started, 3),
        },
    )
    return {"match_id": spec.match_id, "status": result.status}
