"""No input answers UNKNOWN or INTERNAL: malformed requests to every RPC of a real server.

Hypothesis draws wrong ids, huge strings, bad and deeply nested JSON, negative and
extreme numbers, broken replays; each call must succeed or be refused with a client
error, and the server must go on serving.
"""

from __future__ import annotations

import gzip
from collections.abc import Callable
from typing import Any

import grpc
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.engine.clients import create_game, status_code, stub

from heights_engine.proto import engine_service_pb2 as pb
from heights_engine.proto import engine_service_pb2_grpc as pb_grpc
from heights_engine.proto import game_pb2

CLIENT_ERRORS = {
    grpc.StatusCode.INVALID_ARGUMENT,
    grpc.StatusCode.NOT_FOUND,
    grpc.StatusCode.FAILED_PRECONDITION,
    grpc.StatusCode.ABORTED,
    grpc.StatusCode.PERMISSION_DENIED,
    grpc.StatusCode.UNAUTHENTICATED,
    grpc.StatusCode.RESOURCE_EXHAUSTED,  # a message over MAX_MESSAGE_BYTES
}
INT64 = st.integers(min_value=-(2**63), max_value=2**63 - 1)
INT32 = st.integers(min_value=-(2**31), max_value=2**31 - 1)
UINT64 = st.integers(min_value=0, max_value=2**64 - 1)


def deep(opener: str, closer: str) -> st.SearchStrategy[str]:
    return st.integers(1, 3000).map(lambda n: opener * n + closer * n)


texts = st.one_of(
    st.text(max_size=80),
    st.sampled_from(["", "0" * 32, "../../etc", "buy L2#4", "roll", "\x00", "null"]),
    st.integers(0, 5_000_000).map(lambda n: "x" * n),  # over the message limit too
    deep("[", "]"),
    deep('{"a":', "}"),
)
json_texts = st.one_of(
    texts,
    st.sampled_from(["{}", "[]", '{"round_cap": -1}', '{"round_cap": 1e999}', "{", '"x"']),
    st.dictionaries(st.text(max_size=8), st.integers() | st.text(max_size=8)).map(str),
)
blobs = st.one_of(
    st.binary(max_size=2000),
    texts.map(str.encode),
    json_texts.map(lambda t: gzip.compress(t.encode())),
    st.just(b"\x1f\x8b" + b"\x00" * 100),
    st.integers(1, 50).map(lambda n: gzip.compress(bytes(n * 2**20))),  # bombs up to 50 MiB
)
actions = st.builds(game_pb2.Action, id=INT32, text=texts)
game_ids = st.one_of(texts, st.just("GAME"))  # GAME: a real game's id


def requests(game_id: str, token: str) -> st.SearchStrategy[tuple[str, Any]]:
    """(method, request) pairs for every RPC; "GAME"/"TOKEN" become a real game's."""

    def ids(value: str) -> str:
        return {"GAME": game_id, "TOKEN": token}.get(value, value)

    tokens = st.one_of(texts, st.just("TOKEN")).map(ids)
    gid = game_ids.map(ids)
    config = st.builds(
        game_pb2.GameConfig,
        players=INT32,
        solo=st.booleans(),
        catalogue_id=texts,
        catalogue_sha256=texts,
        options_json=json_texts,
    )
    apply = st.builds(
        pb.ApplyActionRequest,
        game_id=gid,
        seat_token=tokens,
        expected_sequence=INT64,
        action=actions,
        omit_view=st.booleans(),
        view_tokens=st.lists(tokens, max_size=3),
        view_bases=st.lists(INT64, max_size=5),
    )
    return st.one_of(
        st.tuples(
            st.just("CreateGame"),
            st.builds(
                pb.CreateGameRequest,
                request_id=texts,
                config=config,
                seed=UINT64,
                seat_names=st.lists(texts, max_size=5),
            ),
        ),
        st.tuples(st.just("GetGame"), st.builds(pb.GetGameRequest, game_id=gid, seat_token=tokens)),
        st.tuples(
            st.just("ListLegalActions"),
            st.builds(pb.ListLegalActionsRequest, game_id=gid, seat_token=tokens),
        ),
        st.tuples(st.just("ApplyAction"), apply),
        st.tuples(st.just("ApplyActions"), apply.map(lambda r: pb.ApplyActionsRequest(request=r))),
        st.tuples(
            st.just("StreamGameEvents"),
            st.builds(
                pb.StreamGameEventsRequest, game_id=gid, seat_token=tokens, after_sequence=INT64
            ),
        ),
        st.tuples(st.just("GetReplay"), st.builds(pb.GetReplayRequest, game_id=gid)),
        st.tuples(st.just("VerifyReplay"), st.builds(pb.VerifyReplayRequest, replay=blobs)),
        st.tuples(
            st.just("GetStateAtStep"),
            st.builds(pb.GetStateAtStepRequest, game_id=gid, step=INT64, viewer=INT32),
        ),
        st.tuples(
            st.just("DeleteGame"),
            st.builds(pb.DeleteGameRequest, game_id=gid.filter(lambda g: g != game_id)),
        ),
    )


def call(engine: pb_grpc.EngineServiceStub, method: str, request: Any) -> None:
    rpc: Callable[..., Any] = getattr(engine, method)
    if method == "ApplyActions":
        list(rpc(iter([request]), timeout=30))
    elif method == "StreamGameEvents":
        next(iter(rpc(request, timeout=30)), None)  # the first message, or the refusal
    else:
        rpc(request, timeout=30)


@pytest.fixture
def target(memory_server: str) -> tuple[pb_grpc.EngineServiceStub, str, str]:
    engine = stub(memory_server)
    created = create_game(engine)
    return engine, created.game.game_id, created.seat_tokens[created.game.to_move]


@settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_malformed_requests_get_client_errors(
    target: tuple[pb_grpc.EngineServiceStub, str, str], data: st.DataObject
) -> None:
    engine, game_id, token = target
    method, request = data.draw(requests(game_id, token), label="request")
    code = grpc.StatusCode.OK
    try:
        call(engine, method, request)
    except grpc.RpcError as err:
        code = status_code(err)
    assert code == grpc.StatusCode.OK or code in CLIENT_ERRORS, f"{method}: {code}"
    # Still serving.
    assert engine.GetGame(pb.GetGameRequest(game_id=game_id), timeout=10).game.game_id == game_id
