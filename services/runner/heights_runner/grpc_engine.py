"""The engine service as a match's engine: one game, every seat's token held by the runner.

The runner is the trusted middleman between the service and the bots: it holds the seat
tokens, asks for the view of the seat to move, and relays that seat's answer. Transient
failures (UNAVAILABLE, DEADLINE_EXCEEDED) are retried a few times; a stale sequence
after a retried ApplyAction means the first attempt landed, which the sequence shows.

Every other refusal is sorted by party here, once, from the `google.rpc.ErrorInfo`
reason the engine puts in the status details (heights_engine.errors), never from the
status code: an illegal, invalid or out-of-turn action is the bot's (EngineRefusedError,
a forfeit); anything else is ours (EngineFaultError: the match is retried or fails).
"""

from __future__ import annotations

import contextlib
import functools
import json
import queue
import time
import uuid
from collections.abc import Callable
from typing import TypeVar

import grpc
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from heights_engine.auth import operator_metadata
from heights_engine.proto import engine_service_pb2 as pb
from heights_engine.proto import engine_service_pb2_grpc as pb_grpc
from heights_engine.proto import game_pb2
from heights_runner.caller_stream import open_caller_stream
from heights_runner.contract import MatchSpec, attempt_seconds
from heights_runner.engines import (
    OVER,
    EngineFaultError,
    EngineRefusedError,
    EngineUnavailableError,
    Finished,
    Turn,
)

T = TypeVar("T")
RETRYABLE = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED)
ATTEMPTS = 5
CALL_TIMEOUT = 10.0
ABANDON_TIMEOUT = 2.0  # deleting an unfinished game on close: the match is ending anyway
# The longest an ApplyActions stream may last. A match's stream gets what is left of its
# attempt (contract.attempt_seconds), which is less; a stalled connection is found sooner
# by the channel's keepalive.
STREAM_TIMEOUT = 3600.0
_SERVICE = pb.DESCRIPTOR.services_by_name["EngineService"]
APPLY_ACTIONS = f"/{_SERVICE.full_name}/{_SERVICE.methods_by_name['ApplyActions'].name}"


def _code(err: grpc.RpcError) -> grpc.StatusCode:
    code: grpc.StatusCode = getattr(err, "code")()  # noqa: B009 (RpcError is also a Call)
    return code


def _details(err: grpc.RpcError) -> str:
    details: str = getattr(err, "details")() or ""  # noqa: B009
    return details


# The reasons that blame the bot whose action was sent: what it chose is not legal now,
# is no action at all, or came when it was not its seat's decision.
BOT_FAULT_REASONS = frozenset({"ILLEGAL_ACTION", "INVALID_ACTION", "NOT_YOUR_TURN"})
STALE_SEQUENCE = "STALE_SEQUENCE"
# What a retried ApplyAction is refused with when its first try landed (the engine checks
# for a game over before the sequence).
LANDED = frozenset({STALE_SEQUENCE, "GAME_OVER"})


def _reason(err: grpc.RpcError) -> str:
    """The ErrorInfo reason in the status details ("" if the engine sent none)."""
    try:
        status = rpc_status.from_call(err)
    except (ValueError, AttributeError):  # details that do not match the code and message
        return ""
    for detail in status.details if status is not None else ():
        info = error_details_pb2.ErrorInfo()
        if detail.Unpack(info):
            return str(info.reason)
    return ""


def _translate(err: grpc.RpcError, method: str) -> Exception:
    """The party-typed error for a call the engine refused or failed (the one place)."""
    code, reason, details = _code(err), _reason(err), _details(err)
    if code in RETRYABLE:
        return EngineUnavailableError(f"engine service: {details}")
    if reason in BOT_FAULT_REASONS:
        return EngineRefusedError(f"{reason}: {details}")
    return EngineFaultError(f"engine {method}: {code.name} {reason or '-'}: {details}", reason)


def channel(address: str) -> grpc.Channel:
    """A channel that balances over every address of a headless service name."""
    options = [
        ("grpc.lb_policy_name", "round_robin"),
        ("grpc.max_receive_message_length", 16 * 2**20),
        ("grpc.keepalive_time_ms", 30_000),
    ]
    return grpc.insecure_channel(address, options=options)


class ActionStream:
    """One ApplyActions stream: a request in, its response out, one at a time.

    Driven in the caller's thread (caller_stream.py: a third of the client's CPU a
    message of gRPC's threaded stream) where this grpcio allows it; else gRPC's sync
    API, which reads the requests from an iterator in a thread of its own: a queue
    feeds it, and None ends the stream.
    """

    def __init__(
        self, chan: grpc.Channel, stub: pb_grpc.EngineServiceStub, timeout: float = STREAM_TIMEOUT
    ) -> None:
        self._caller = open_caller_stream(chan, APPLY_ACTIONS, timeout)
        self._requests: queue.SimpleQueue[pb.ApplyActionsRequest | None] = queue.SimpleQueue()
        self._responses = (
            None
            if self._caller is not None
            else stub.ApplyActions(iter(self._requests.get, None), timeout=timeout)
        )

    def call(self, request: pb.ApplyActionRequest) -> pb.ApplyActionResponse:
        """The response, or the grpc.RpcError that ended the stream."""
        return self.send(pb.ApplyActionsRequest(request=request)).response

    def send(self, message: pb.ApplyActionsRequest) -> pb.ApplyActionsResponse:
        """The stream's next message after `message` (an action, or a ping)."""
        if self._caller is not None:
            answer = self._caller.call(message.SerializeToString())
            if answer is None:
                raise RuntimeError("the engine ended an ApplyActions stream early")
            return pb.ApplyActionsResponse.FromString(answer)
        assert self._responses is not None
        self._requests.put(message)
        try:
            response: pb.ApplyActionsResponse = next(self._responses)
        except StopIteration:
            raise RuntimeError("the engine ended an ApplyActions stream early") from None
        return response

    def close(self) -> None:
        if self._caller is not None:
            self._caller.close()
            return
        assert self._responses is not None
        self._requests.put(None)  # half-close: the engine then ends the stream
        self._responses.cancel()  # no-op on an ended stream; frees a stuck one


class GrpcEngine:
    def __init__(self, spec: MatchSpec, chan: grpc.Channel, operator_token: str = "") -> None:
        self._chan = chan
        self._stub = pb_grpc.EngineServiceStub(chan)
        self._attempt_ends = time.monotonic() + attempt_seconds(spec)
        request = pb.CreateGameRequest(
            # A fresh id per attempt: a re-run match starts a new game on the same seed.
            request_id=f"{spec.match_id}-{uuid.uuid4().hex[:12]}",
            config=game_pb2.GameConfig(
                players=spec.players,
                solo=spec.solo,
                catalogue_id=spec.catalogue,
                options_json=json.dumps(spec.options),
            ),
            seed=spec.seed,
            seat_names=[seat.name for seat in spec.seats],
        )
        # Creating a game is the operator's (docs/engine-service.md, "Who may call what").
        self._operator = operator_metadata(operator_token)
        create = functools.partial(self._stub.CreateGame, metadata=self._operator)
        created: pb.CreateGameResponse = self._call(create, request)
        self.game_id = created.game.game_id
        self.commitment = created.game.seed.commitment_sha256
        self._tokens = list(created.seat_tokens)
        self._play_forced = spec.play_forced
        self.patch_seats: set[int] = set()
        # Per seat, the sequence of the last view handed out for it (-1: none), the base
        # of the next patch when the seat takes patches.
        self._bases = [-1] * spec.players
        self._sequence = created.game.sequence
        self._to_move = created.game.to_move if created.game.status != 2 else OVER
        self._next: Turn | None = None  # the next mover's view, sent with the last action
        self._stream: ActionStream | None = None
        self._streaming = True  # False once the engine answered UNIMPLEMENTED
        self._retried = False  # whether the last call was sent more than once

    def _call(self, method: Callable[..., T], request: object) -> T:
        delay = 0.1
        self._retried = False
        for attempt in range(ATTEMPTS):
            try:
                return method(request, timeout=CALL_TIMEOUT)
            except grpc.RpcError as err:
                if _code(err) not in RETRYABLE or attempt == ATTEMPTS - 1:
                    name = getattr(method, "__name__", type(request).__name__)
                    raise _translate(err, name) from None
                self._retried = True
                time.sleep(delay)
                delay *= 2
        raise AssertionError("unreachable")

    def to_move(self) -> int:
        return self._to_move

    def turn(self) -> Turn:
        seat = self._to_move
        turn = self._next
        self._next = None
        if turn is None or turn.seat != seat:
            turn = Turn(seat, self._sequence, self._full_view(seat, self._sequence))
        # Whatever this turn carries, the seat's bot is sent the view at turn.step.
        self._bases[seat] = turn.step if seat in self.patch_seats else -1
        return turn

    def _full_view(self, seat: int, sequence: int) -> str:
        request = pb.GetGameRequest(game_id=self.game_id, seat_token=self._tokens[seat])
        view = self._call(self._stub.GetGame, request).game
        if view.sequence != sequence:
            raise RuntimeError(f"game {self.game_id} moved to {view.sequence}, not {sequence}")
        return view.observation_json

    def apply(self, seat: int, action: int) -> None:
        request = pb.ApplyActionRequest(
            game_id=self.game_id,
            seat_token=self._tokens[seat],
            expected_sequence=self._sequence,
            action=game_pb2.Action(id=action),
            omit_view=True,
            view_tokens=[t for s, t in enumerate(self._tokens) if s != seat],
            view_bases=[b if s in self.patch_seats else -1 for s, b in enumerate(self._bases)]
            if self.patch_seats
            else [],
            play_forced=self._play_forced,
        )
        self._next = None
        try:
            response: pb.ApplyActionResponse = self._call(self._apply_call, request)
        except EngineFaultError as err:
            if err.reason not in LANDED or not self._retried:
                raise  # a stale sequence on a first try: this runner lost count
            # Only this runner plays the game: a stale sequence (or, when that action
            # ended the game, the game over) after a retry means the retried call landed
            # already. Catch up from the public view.
            self._refresh()
            return
        self._sequence = response.sequence
        self._to_move = response.to_move if response.to_move >= 0 else OVER
        if response.HasField("next_view"):
            view = response.next_view
            self._next = self._turn_of(view)

    def _apply_call(self, request: pb.ApplyActionRequest, timeout: float) -> pb.ApplyActionResponse:
        """ApplyAction, through this game's ApplyActions stream when the engine has it."""
        if not self._streaming:
            response: pb.ApplyActionResponse = self._stub.ApplyAction(request, timeout=timeout)
            return response
        if self._stream is None:
            # Its deadline is the attempt's: a message the engine never answers ends the
            # wait (DEADLINE_EXCEEDED) by the time the match would be overdue anyway.
            left = max(1.0, self._attempt_ends - time.monotonic())
            self._stream = ActionStream(self._chan, self._stub, min(STREAM_TIMEOUT, left))
        try:
            return self._stream.call(request)
        except grpc.RpcError as err:
            self._close_stream()  # any error has ended it; the next call opens another
            if _code(err) != grpc.StatusCode.UNIMPLEMENTED:
                raise
        self._streaming = False  # an engine from before ApplyActions: unary calls
        return self._apply_call(request, timeout)

    def _close_stream(self) -> None:
        if self._stream is not None:
            self._stream.close()
            self._stream = None

    def _turn_of(self, view: game_pb2.GameView) -> Turn:
        if not view.observation_patch_json:
            return Turn(view.viewer, view.sequence, view.observation_json)
        if view.patch_base_sequence != self._bases[view.viewer]:
            # Not from what this seat's bot holds (never expected): take the full view.
            return Turn(view.viewer, view.sequence, self._full_view(view.viewer, view.sequence))
        seat, sequence = view.viewer, view.sequence
        return Turn(
            seat,
            sequence,
            "",
            view.observation_patch_json,
            view.patch_base_sequence,
            full=lambda: self._full_view(seat, sequence),
        )

    def _refresh(self) -> None:
        view = self._call(self._stub.GetGame, pb.GetGameRequest(game_id=self.game_id)).game
        self._sequence = view.sequence
        self._to_move = view.to_move if view.status != 2 else OVER

    def finish(self) -> Finished:
        view = self._call(self._stub.GetGame, pb.GetGameRequest(game_id=self.game_id)).game
        replay = self._call(self._stub.GetReplay, pb.GetReplayRequest(game_id=self.game_id))
        result = json.loads(view.outcome.outcome_json)
        return Finished(
            ranks=tuple(result["ranks"]),
            totals=tuple(result["totals"]),
            termination=result["termination"],
            rounds=int(result["rounds"]),
            outcome=result,
            replay=replay.replay,
            seed=view.seed.seed,
            commitment=view.seed.commitment_sha256,
        )

    def close(self) -> None:
        self._close_stream()
        if self._to_move != OVER:
            self._abandon()

    def _abandon(self) -> None:
        """Delete the game of an attempt that ends unfinished (a runner or engine fault,
        a soft time limit): a retry plays a new game, and this one would count against
        the engine's MAX_GAMES until it expired (GAME_TTL_SECONDS, a day). Best effort:
        an engine that cannot be reached now still expires it."""
        request = pb.DeleteGameRequest(game_id=self.game_id, force=True)
        with contextlib.suppress(grpc.RpcError):
            self._stub.DeleteGame(request, timeout=ABANDON_TIMEOUT, metadata=self._operator)
