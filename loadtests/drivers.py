"""What the open-loop generator sends: the empty RPC, or the next call of a game.

`EmptyCalls` sends grpc.health.v1 Check, the RPC that does nothing, to each replica in
turn. `GameCalls` keeps a pool of two-player games, each played to the end with random
legal actions: an arrival takes the game idle longest and sends its next call
(ListLegalActions when the seat to move has no legal actions in hand, else ApplyAction
with one of them); with no game idle it creates one (that CreateGame is the arrival),
and with the pool full it waits for the next game to come back, its latency counted
from when it was due. A game is dropped after a refused call.

Routing (`call` or `game`): every call to the next replica, so a replica mostly catches
up from the store's log first (the worst case, as unary calls on a round_robin channel);
or every call of a game to the replica that created it (as the runner's stream does).
Client (`lean` or `view`): ApplyAction with omit_view and the legal actions it returns;
or the full view on every ApplyAction and ListLegalActions before every decision.
"""

from __future__ import annotations

import itertools
import random
import uuid
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from grpc import aio
from grpc_health.v1 import health_pb2, health_pb2_grpc
from loadtests.openloop import call_when_done

from heights_engine.auth import operator_metadata
from heights_engine.proto import engine_service_pb2 as pb
from heights_engine.proto import engine_service_pb2_grpc as pb_grpc
from heights_engine.proto import game_pb2

TIMEOUT_SECONDS = 10.0
Done = Callable[[str, float, bool], None]


class EmptyCalls:
    """The empty RPC, each call to the next replica."""

    def __init__(self, channels: list[aio.Channel]) -> None:
        self._stubs = itertools.cycle([health_pb2_grpc.HealthStub(c) for c in channels])
        self._request = health_pb2.HealthCheckRequest()

    def arrive(self, due: float, done: Done) -> bool:
        call = next(self._stubs).Check(self._request, timeout=TIMEOUT_SECONDS)
        call_when_done(call, lambda reply, error: done("Check", due, error is None))
        return True

    def abandon(self) -> int:
        return 0  # every call starts on arrival: nothing ever waits


@dataclass
class Game:
    game_id: str
    tokens: list[str]
    engine: Callable[[], pb_grpc.EngineServiceAsyncStub]
    sequence: int
    to_move: int
    legal: list[int] = field(default_factory=list)


class GameCalls:
    """The calls of games in play, one call per arrival (see the module's docstring)."""

    def __init__(
        self,
        channels: list[aio.Channel],
        *,
        operator_token: str,
        routing: str,
        lean: bool,
        max_games: int,
    ) -> None:
        self._stubs: Iterator[pb_grpc.EngineServiceAsyncStub] = itertools.cycle(
            [pb_grpc.EngineServiceStub(c) for c in channels]
        )
        self._operator = operator_metadata(operator_token)
        self._per_game = routing == "game"
        self._lean = lean
        self._max_games = max_games
        self._games = 0  # in the pool: idle, busy or being created
        self._idle: deque[Game] = deque()
        self._waiting: deque[tuple[float, Done]] = deque()  # arrivals with no game free
        self._rng = random.Random()
        self.finished = 0

    def arrive(self, due: float, done: Done) -> bool:
        if self._idle:
            self._next_call(self._idle.popleft(), due, done)
        elif self._games < self._max_games:
            self._create(due, done)
        else:
            self._waiting.append((due, done))
        return True

    def abandon(self) -> int:
        dropped = len(self._waiting)
        self._waiting.clear()  # counted as dropped by the step that ends
        return dropped

    def _router(self) -> Callable[[], pb_grpc.EngineServiceAsyncStub]:
        if not self._per_game:
            return lambda: next(self._stubs)
        stub = next(self._stubs)
        return lambda: stub

    def _create(self, due: float, done: Done) -> None:
        self._games += 1
        engine = self._router()
        request = pb.CreateGameRequest(
            request_id=uuid.uuid4().hex, config=game_pb2.GameConfig(players=2)
        )
        call = engine().CreateGame(request, timeout=TIMEOUT_SECONDS, metadata=self._operator)

        def created(reply: pb.CreateGameResponse | None, error: BaseException | None) -> None:
            done("CreateGame", due, reply is not None)
            if reply is None:
                self._lost()
                return
            view = reply.game
            self._back(Game(view.game_id, list(reply.seat_tokens), engine, *view_place(view)))

        call_when_done(call, created)

    def _next_call(self, game: Game, due: float, done: Done) -> None:
        token = game.tokens[game.to_move]
        if not game.legal:
            listed = game.engine().ListLegalActions(
                pb.ListLegalActionsRequest(game_id=game.game_id, seat_token=token),
                timeout=TIMEOUT_SECONDS,
            )

            def on_list(reply: pb.ListLegalActionsResponse | None, _: BaseException | None) -> None:
                done("ListLegalActions", due, reply is not None)
                if reply is None:
                    self._lost()
                    return
                game.sequence, game.legal = reply.sequence, [a.id for a in reply.actions]
                self._back(game)

            call_when_done(listed, on_list)
            return
        request = pb.ApplyActionRequest(
            game_id=game.game_id,
            seat_token=token,
            expected_sequence=game.sequence,
            action=game_pb2.Action(id=self._rng.choice(game.legal)),
            omit_view=self._lean,
        )
        applied = game.engine().ApplyAction(request, timeout=TIMEOUT_SECONDS)

        def on_apply(reply: pb.ApplyActionResponse | None, _: BaseException | None) -> None:
            done("ApplyAction", due, reply is not None)
            if reply is None:
                self._lost()
                return
            if self._lean:
                game.sequence, game.to_move = reply.sequence, reply.to_move
                game.legal = [a.id for a in reply.legal_actions]
            else:
                game.sequence, game.to_move = view_place(reply.game)
                game.legal = []
            if game.to_move == -1:
                self.finished += 1
                self._lost()
            else:
                self._back(game)

        call_when_done(applied, on_apply)

    def _back(self, game: Game) -> None:
        """A game free again: it takes the oldest waiting arrival, or waits itself."""
        if self._waiting:
            due, done = self._waiting.popleft()
            self._next_call(game, due, done)
        else:
            self._idle.append(game)

    def _lost(self) -> None:
        """A game left the pool (over, or refused): a waiting arrival creates the next."""
        self._games -= 1
        if self._waiting:
            due, done = self._waiting.popleft()
            self._create(due, done)


def view_place(view: game_pb2.GameView) -> tuple[int, int]:
    """A view's sequence and seat to move."""
    return view.sequence, view.to_move
