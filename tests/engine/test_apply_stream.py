"""ApplyActions: ApplyAction calls on one stream, answered in order, ended by a refusal."""

from __future__ import annotations

import json
import queue
from collections.abc import Iterator

import grpc
import pytest
from tests.engine.clients import create_game, error_reason, status_code, stub

from heights_engine.proto import engine_service_pb2 as pb
from heights_engine.proto import engine_service_pb2_grpc as pb_grpc
from heights_engine.proto import game_pb2


class Stream:
    """A client's ApplyActions stream, one request and its response at a time."""

    def __init__(self, engine: pb_grpc.EngineServiceStub) -> None:
        self.requests: queue.SimpleQueue[pb.ApplyActionsRequest | None] = queue.SimpleQueue()
        self.responses: Iterator[pb.ApplyActionsResponse] = engine.ApplyActions(
            iter(self.requests.get, None), timeout=60
        )

    def call(self, request: pb.ApplyActionRequest) -> pb.ApplyActionResponse:
        self.requests.put(pb.ApplyActionsRequest(request=request))
        return next(self.responses).response

    def end(self) -> None:
        self.requests.put(None)
        assert list(self.responses) == []  # the engine ends the stream after the client


def _request(
    created: pb.CreateGameResponse, sequence: int, seat: int, action: int
) -> pb.ApplyActionRequest:
    return pb.ApplyActionRequest(
        game_id=created.game.game_id,
        seat_token=created.seat_tokens[seat],
        expected_sequence=sequence,
        action=game_pb2.Action(id=action),
        omit_view=True,
        view_tokens=list(created.seat_tokens),
    )


def _first_legal(view: game_pb2.GameView) -> int:
    action: int = json.loads(view.observation_json)["legal"][0]["id"]
    return action


def _seat_view(
    engine: pb_grpc.EngineServiceStub, created: pb.CreateGameResponse
) -> game_pb2.GameView:
    seat = created.game.to_move
    request = pb.GetGameRequest(game_id=created.game.game_id, seat_token=created.seat_tokens[seat])
    view: game_pb2.GameView = engine.GetGame(request, timeout=10).game
    return view


def test_a_whole_game_on_one_stream_is_the_game_of_unary_calls(memory_server: str) -> None:
    engine = stub(memory_server)
    streamed, unary = create_game(engine, players=3), create_game(engine, players=3)
    stream = Stream(engine)
    on_stream, by_call = _seat_view(engine, streamed), _seat_view(engine, unary)
    while True:
        request = _request(streamed, on_stream.sequence, on_stream.to_move, _first_legal(on_stream))
        answer = stream.call(request)
        request = _request(unary, by_call.sequence, by_call.to_move, _first_legal(by_call))
        expected = engine.ApplyAction(request, timeout=10)
        assert (answer.sequence, answer.steps) == (expected.sequence, expected.steps)
        if answer.to_move < 0:
            break
        assert answer.next_view.observation_json == expected.next_view.observation_json
        on_stream, by_call = answer.next_view, expected.next_view
    stream.end()


@pytest.mark.parametrize(
    ("change", "code", "reason"),
    [
        ("illegal", grpc.StatusCode.FAILED_PRECONDITION, "ILLEGAL_ACTION"),
        ("stale", grpc.StatusCode.ABORTED, "STALE_SEQUENCE"),
        ("token", grpc.StatusCode.PERMISSION_DENIED, "BAD_SEAT_TOKEN"),
    ],
)
def test_a_refused_request_ends_the_stream_with_its_status_and_changes_nothing(
    memory_server: str, change: str, code: grpc.StatusCode, reason: str
) -> None:
    engine = stub(memory_server)
    created = create_game(engine, players=2)
    view = _seat_view(engine, created)
    stream = Stream(engine)
    good = _request(created, view.sequence, view.to_move, _first_legal(view))
    after = stream.call(good)
    bad = _request(created, after.sequence, after.to_move, _first_legal(after.next_view))
    if change == "illegal":
        bad.action.id = 0 if _first_legal(after.next_view) != 0 else 1
        legal = {a["id"] for a in json.loads(after.next_view.observation_json)["legal"]}
        assert bad.action.id not in legal
    elif change == "stale":
        bad.expected_sequence = view.sequence
    else:
        bad.seat_token = "not-a-token"
    with pytest.raises(grpc.RpcError) as err:
        stream.call(bad)
    assert status_code(err.value) == code
    assert error_reason(err.value) == reason
    public = engine.GetGame(pb.GetGameRequest(game_id=created.game.game_id), timeout=10).game
    assert public.sequence == after.sequence
    # A new stream goes on from where the game is.
    retry = Stream(engine)
    good = _request(created, after.sequence, after.to_move, _first_legal(after.next_view))
    assert retry.call(good).sequence > after.sequence
    retry.end()
