"""EngineService over gRPC: thin handlers that convert, call `Games`, and convert back.

Every refusal leaves through `_refuse`, which aborts with the status `errors.to_status`
builds; nothing else here decides what an error means.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from functools import wraps
from typing import Any, Concatenate, NoReturn, ParamSpec, TypeVar

from grpc import aio

from heights_engine import convert, errors
from heights_engine.auth import OperatorCheck
from heights_engine.errors import Code, EngineError, invalid
from heights_engine.games import Games
from heights_engine.malformed import marked
from heights_engine.proto import engine_service_pb2 as pb
from heights_engine.proto import engine_service_pb2_grpc as pb_grpc
from heights_engine.stream_exchange import StreamExchange
from heights_engine.views import SPECTATOR

log = logging.getLogger("heights_engine")
Context = aio.ServicerContext[Any, Any]
P = ParamSpec("P")
R = TypeVar("R")
STREAM_POLL_SECONDS = 15.0
PONG = pb.ApplyActionsResponse(pong=True)  # the answer to every ping on ApplyActions


async def _refuse(context: Context, err: BaseException, method: str, game_id: str) -> NoReturn:
    status = errors.to_status(err)
    reason = err.reason if isinstance(err, EngineError) else "STORE_UNAVAILABLE"
    extra = {"game_id": game_id, "method": method, "reason": reason}
    log.info("refused: %s", status.details, extra=extra)
    await context.abort(status.code, status.details, status.trailing_metadata)
    raise AssertionError("unreachable: abort raises")


def _refusable(err: BaseException) -> bool:
    """A refusal of the domain or a store outage: answered with a status, not a crash."""
    return isinstance(err, EngineError) or errors.is_store_error(err)


def refusing(
    handler: Callable[Concatenate[EngineServicer, Any, Context, P], Awaitable[R]],
) -> Callable[Concatenate[EngineServicer, Any, Context, P], Awaitable[R]]:
    """Turn the domain's refusals (and store outages) into gRPC statuses."""

    @wraps(handler)
    async def wrapper(
        self: EngineServicer, request: Any, context: Context, *args: P.args, **kwargs: P.kwargs
    ) -> R:
        try:
            return await handler(self, request, context, *args, **kwargs)
        except Exception as err:
            if not _refusable(err):
                raise
            await _refuse(context, err, handler.__name__, getattr(request, "game_id", ""))

    return wrapper  # type: ignore[return-value]  # functools' _Wrapped is this callable


class EngineServicer(pb_grpc.EngineServiceServicer):
    def __init__(self, games: Games, *, max_streams: int, operator: OperatorCheck) -> None:
        self.games = games
        self.max_streams = max_streams
        self.open_streams = 0
        self.operator = operator

    @refusing
    async def CreateGame(  # noqa: N802 (gRPC method names)
        self, request: pb.CreateGameRequest, context: Context
    ) -> pb.CreateGameResponse:
        self.operator.require(context.invocation_metadata())
        config = convert.config_from_proto(request.config)
        live, seat_tokens = await self.games.create(
            request_id=request.request_id,
            config=config,
            seed=request.seed if request.HasField("seed") else None,
            seat_names=list(request.seat_names),
        )
        log.info("game created", extra={"game_id": live.record.game_id})
        view = convert.view_to_proto(live.view(SPECTATOR))
        return pb.CreateGameResponse(game=view, seat_tokens=seat_tokens)

    @refusing
    async def GetGame(  # noqa: N802
        self, request: pb.GetGameRequest, context: Context
    ) -> pb.GetGameResponse:
        live = await self.games.synced(request.game_id)
        viewer = self.games.seat_for(live, request.seat_token)
        return pb.GetGameResponse(game=convert.view_to_proto(live.view(viewer)))

    @refusing
    async def ListLegalActions(  # noqa: N802
        self, request: pb.ListLegalActionsRequest, context: Context
    ) -> pb.ListLegalActionsResponse:
        live = await self.games.synced(request.game_id)
        seat = self.games.seat_for(live, request.seat_token, required=True)
        state = live.state
        to_move = -1 if state.is_terminal() else state.current_player()
        legal = state.legal_actions() if to_move == seat else []
        response = pb.ListLegalActionsResponse(
            sequence=live.sequence,
            to_move=to_move,
            decision=state.decision_text() if to_move == seat else "",
        )
        convert.add_listed_actions(response, legal)
        return response

    @refusing
    async def ApplyAction(  # noqa: N802
        self, request: pb.ApplyActionRequest, context: Context
    ) -> pb.ApplyActionResponse:
        return await self._apply(request)

    async def ApplyActions(  # type: ignore[override]  # noqa: N802 (reader-writer form)
        self, requests: AsyncIterator[pb.ApplyActionsRequest], context: Context
    ) -> None:
        # Each message costs ~40% of a unary call's gRPC machinery (which was ~60% of
        # the engine's CPU in a match); the first refusal ends the stream with its status.
        # Answers go out through a StreamExchange, not as an async generator's yields:
        # each answer and the next request are then one batch of gRPC core.
        await self._open_stream(context, "ApplyActions")
        exchange = StreamExchange(context, marked(pb.ApplyActionsRequest.FromString))
        try:
            message = await exchange.first()
            while message is not None:
                message = await exchange.answer(await self._stream_answer(message, context))
        finally:
            self.open_streams -= 1

    async def _stream_answer(
        self, message: pb.ApplyActionsRequest, context: Context
    ) -> pb.ApplyActionsResponse:
        if message.ping and not message.HasField("request"):
            return PONG
        # Built in the stream message's own field: wrapping a finished response
        # copied it whole, next view and all, at every decision of a match.
        answer = pb.ApplyActionsResponse()
        try:
            await self._apply(message.request, answer.response)
        except Exception as err:
            if not _refusable(err):
                raise
            await _refuse(context, err, "ApplyActions", message.request.game_id)
        return answer

    async def _apply(
        self, request: pb.ApplyActionRequest, response: pb.ApplyActionResponse | None = None
    ) -> pb.ApplyActionResponse:
        """The answer to one ApplyAction, written into `response` when given."""
        if not request.HasField("action"):
            raise invalid("ACTION_REQUIRED", "the request names no action")
        applied = await self.games.apply(
            request.game_id,
            request.seat_token,
            request.expected_sequence,
            request.action.id,
            request.action.text,
            with_view=not request.omit_view,
            view_tokens=list(request.view_tokens),
            view_bases=list(request.view_bases),
            play_forced=request.play_forced,
        )
        # DEBUG, not INFO: a line per action is the busiest log of the service and cost
        # a measurable share of ApplyAction's time under load (loadtests/README.md).
        if log.isEnabledFor(logging.DEBUG):
            log.debug(
                "action applied",
                extra={
                    "game_id": request.game_id,
                    "seat": applied.seat,
                    "sequence": applied.sequence,
                },
            )
        if response is None:
            response = pb.ApplyActionResponse()
        convert.add_steps(response.steps, applied.steps)
        response.sequence = applied.sequence
        response.to_move = applied.to_move
        convert.add_legal_actions(response, applied.legal)
        if applied.view is not None:
            convert.view_to_proto(applied.view, response.game)
        if applied.next_view is not None:
            convert.view_to_proto(applied.next_view, response.next_view)
        return response

    async def _open_stream(self, context: Context, method: str, game_id: str = "") -> None:
        """Count a stream in, or refuse it when the replica has `max_streams` open."""
        if self.open_streams >= self.max_streams:
            err = EngineError(
                Code.RESOURCE_EXHAUSTED, "TOO_MANY_STREAMS", f"{self.open_streams} streams open"
            )
            await _refuse(context, err, method, game_id)
        self.open_streams += 1

    async def StreamGameEvents(  # noqa: N802
        self, request: pb.StreamGameEventsRequest, context: Context
    ) -> AsyncIterator[pb.StreamGameEventsResponse]:
        await self._open_stream(context, "StreamGameEvents", request.game_id)
        try:
            async for message in self._stream(request):
                yield message
        except Exception as err:
            if not _refusable(err):
                raise
            await _refuse(context, err, "StreamGameEvents", request.game_id)
        finally:
            self.open_streams -= 1

    async def _stream(
        self, request: pb.StreamGameEventsRequest
    ) -> AsyncIterator[pb.StreamGameEventsResponse]:
        if request.after_sequence < 0:
            raise invalid("BAD_SEQUENCE", "after_sequence must not be negative")
        live = await self.games.synced(request.game_id)
        viewer = self.games.seat_for(live, request.seat_token)
        yield pb.StreamGameEventsResponse(game=convert.view_to_proto(live.view(viewer)))
        sent = min(request.after_sequence, live.sequence)
        while True:
            # Built before the first yield: the state may move on while a message is sent.
            # Never a step before after_sequence, even when the game has not reached it.
            steps = live.steps(max(sent, request.after_sequence))
            batch = [pb.StreamGameEventsResponse(step=convert.step_to_proto(s)) for s in steps]
            if batch:
                batch[-1].game.CopyFrom(convert.view_to_proto(live.view(viewer)))
            sent, over = live.sequence, live.state.is_terminal()
            for message in batch:
                yield message
            if over:
                return
            await self.games.store.wait(request.game_id, sent, STREAM_POLL_SECONDS)
            live = await self.games.synced(request.game_id)

    @refusing
    async def GetReplay(  # noqa: N802
        self, request: pb.GetReplayRequest, context: Context
    ) -> pb.GetReplayResponse:
        replay = await self.games.replay(request.game_id)
        return pb.GetReplayResponse(
            replay=replay.to_bytes(), replay_sha256=replay.digest(), steps=len(replay.actions)
        )

    @refusing
    async def VerifyReplay(  # noqa: N802
        self, request: pb.VerifyReplayRequest, context: Context
    ) -> pb.VerifyReplayResponse:
        return convert.verification_to_proto(await self.games.verify(request.replay))

    @refusing
    async def GetStateAtStep(  # noqa: N802
        self, request: pb.GetStateAtStepRequest, context: Context
    ) -> pb.GetStateAtStepResponse:
        viewer = request.viewer if request.HasField("viewer") else SPECTATOR
        view, last = await self.games.state_at(request.game_id, request.step, viewer)
        response = pb.GetStateAtStepResponse(game=convert.view_to_proto(view))
        if last is not None:
            response.last_step.CopyFrom(convert.step_to_proto(last))
        return response

    @refusing
    async def DeleteGame(  # noqa: N802
        self, request: pb.DeleteGameRequest, context: Context
    ) -> pb.DeleteGameResponse:
        self.operator.require(context.invocation_metadata())
        await self.games.delete(request.game_id, force=request.force)
        log.info("game deleted", extra={"game_id": request.game_id, "force": request.force})
        return pb.DeleteGameResponse()
