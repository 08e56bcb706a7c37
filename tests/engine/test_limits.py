"""The service bounds what it reads: sizes, decompressed sizes and nesting, each named.

The gzip bomb goes to a real `python -m heights_engine` process, whose peak memory is
read from /proc (VmHWM) before and after.
"""

from __future__ import annotations

import gzip
import zlib
from collections.abc import Callable

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_status import rpc_status
from tests.engine.clients import create_game, play_out, seat_clients, status_code, stub
from tests.engine.conftest import Replicas

from heights_engine.proto import engine_service_pb2 as pb
from heights_engine.proto import engine_service_pb2_grpc as pb_grpc
from heights_engine.proto import game_pb2
from heights_rules.limits import MAX_JSON_DEPTH
from heights_rules.replay import MAX_REPLAY_BYTES, MAX_REPLAY_JSON_BYTES

MiB = 2**20
BOMB_MIB = 1024  # 1 GiB of zeros
# What the bomb may add to the server's peak memory: the message, the decompression up
# to the 4 MiB limit and gRPC's buffers fit many times over; decompressing all of it
# (the unbounded reader) would add over 1000 MiB.
BOMB_BUDGET_MIB = 50


def zeros_gzip(mebibytes: int) -> bytes:
    """A gzip of `mebibytes` MiB of zeros, compressed a MiB at a time (never held whole)."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    chunk = bytes(MiB)
    parts = [packer.compress(chunk) for _ in range(mebibytes)]
    return b"".join(parts) + packer.flush()


def refusal(call: Callable[[], object]) -> tuple[grpc.StatusCode, str, dict[str, str], str]:
    with pytest.raises(grpc.RpcError) as caught:
        call()
    status = rpc_status.from_call(caught.value)
    assert status is not None
    info = error_details_pb2.ErrorInfo()
    assert status.details[0].Unpack(info)
    return status_code(caught.value), info.reason, dict(info.metadata), status.message


def memory_kib(pid: int) -> dict[str, int]:
    """VmRSS and VmHWM (peak) of a process, in KiB, from /proc."""
    values: dict[str, int] = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            key, _, rest = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                values[key] = int(rest.split()[0])
    return values


@pytest.fixture
def engine(memory_server: str) -> pb_grpc.EngineServiceStub:
    return stub(memory_server)


def finished_replay(engine: pb_grpc.EngineServiceStub) -> bytes:
    created = create_game(engine)
    play_out(seat_clients(engine, created))
    reply = engine.GetReplay(pb.GetReplayRequest(game_id=created.game.game_id))
    blob: bytes = reply.replay
    return blob


def test_a_gzip_bomb_costs_the_server_no_more_than_the_limit(replicas: Replicas) -> None:
    replica = replicas.start(redis=False, HEIGHTS_ENGINE_MAX_MESSAGE_BYTES=str(4 * MiB))
    engine = stub(replica.address)
    # Warm up every path the bomb takes (the same RPC with a valid record, and a refusal).
    engine.VerifyReplay(pb.VerifyReplayRequest(replay=finished_replay(engine)))
    small_bomb = zeros_gzip(8)
    assert refusal(lambda: engine.VerifyReplay(pb.VerifyReplayRequest(replay=small_bomb)))[1] == (
        "REPLAY_TOO_LARGE"
    )
    bomb = zeros_gzip(BOMB_MIB)
    assert len(bomb) < MAX_REPLAY_BYTES  # it reaches the decompression
    before = memory_kib(replica.proc.pid)
    code, reason, metadata, message = refusal(
        lambda: engine.VerifyReplay(pb.VerifyReplayRequest(replay=bomb), timeout=60)
    )
    after = memory_kib(replica.proc.pid)
    assert (code, reason) == (grpc.StatusCode.INVALID_ARGUMENT, "REPLAY_TOO_LARGE")
    assert metadata == {"field": "replay", "limit": str(MAX_REPLAY_JSON_BYTES)}
    assert str(MAX_REPLAY_JSON_BYTES) in message
    grown_mib = (after["VmHWM"] - before["VmRSS"]) / 1024
    print(f"gzip bomb: {len(bomb)} bytes of 1 GiB of zeros; peak RSS +{grown_mib:.1f} MiB")
    assert grown_mib < BOMB_BUDGET_MIB
    assert replica.proc.poll() is None


def test_a_replay_over_the_size_as_sent_is_refused(engine: pb_grpc.EngineServiceStub) -> None:
    # Random bytes do not compress: over MAX_REPLAY_BYTES as sent, under the message limit.
    blob = b"\x1f\x8b" + bytes(range(256)) * (MAX_REPLAY_BYTES // 256 + 1)
    code, reason, metadata, message = refusal(
        lambda: engine.VerifyReplay(pb.VerifyReplayRequest(replay=blob))
    )
    assert (code, reason) == (grpc.StatusCode.INVALID_ARGUMENT, "REPLAY_TOO_LARGE")
    assert metadata["limit"] == str(MAX_REPLAY_BYTES)
    assert f"the limit is {MAX_REPLAY_BYTES}" in message


@pytest.mark.parametrize("compress", [False, True])
def test_a_deep_replay_is_refused_without_recursion(
    engine: pb_grpc.EngineServiceStub, compress: bool
) -> None:
    deep = b"[" * 200_000 + b"]" * 200_000
    blob = gzip.compress(deep) if compress else deep
    code, reason, metadata, message = refusal(
        lambda: engine.VerifyReplay(pb.VerifyReplayRequest(replay=blob))
    )
    assert (code, reason) == (grpc.StatusCode.INVALID_ARGUMENT, "DOCUMENT_TOO_DEEP")
    assert metadata == {"field": "replay", "limit": str(MAX_JSON_DEPTH)}
    assert f"the limit is {MAX_JSON_DEPTH} levels" in message


def test_options_json_is_bounded_in_size_and_depth(engine: pb_grpc.EngineServiceStub) -> None:
    def create(options: str) -> object:
        config = game_pb2.GameConfig(players=2, options_json=options)
        return engine.CreateGame(pb.CreateGameRequest(request_id="limits", config=config))

    code, reason, metadata, message = refusal(lambda: create('{"a":' * 500 + "1" + "}" * 500))
    assert (code, reason) == (grpc.StatusCode.INVALID_ARGUMENT, "DOCUMENT_TOO_DEEP")
    assert metadata == {"field": "config.options_json", "limit": str(MAX_JSON_DEPTH)}
    code, reason, metadata, message = refusal(lambda: create(" " * 5000 + "{}"))
    assert (code, reason) == (grpc.StatusCode.INVALID_ARGUMENT, "DOCUMENT_TOO_LARGE")
    assert "the limit is 4096" in message
    # Neither refusal claimed the request id.
    create('{"round_cap": 3}')


def test_a_refusal_quoting_a_long_input_stays_a_specific_error(
    engine: pb_grpc.EngineServiceStub,
) -> None:
    # The message quoted the input whole: 400 KB of action text came back in the status's
    # trailers, which the client refused (RESOURCE_EXHAUSTED, "metadata size exceeds hard
    # limit"), losing the reason; and the server logged the 400 KB with each refusal.
    created = create_game(engine)
    seat = created.game.to_move
    for text in ("buy " * 100_000, "\U0001f3b2" * 100_000):  # 4 UTF-8 bytes each, escaped
        request = pb.ApplyActionRequest(
            game_id=created.game.game_id,
            seat_token=created.seat_tokens[seat],
            expected_sequence=created.game.sequence,
            action=game_pb2.Action(text=text),
        )
        code, reason, _, message = refusal(lambda: engine.ApplyAction(request))  # noqa: B023
        assert (code, reason) == (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_ACTION")
        assert len(message) <= 1024, len(message)
    config = game_pb2.GameConfig(players=2, catalogue_id="c" * 100_000)
    create = pb.CreateGameRequest(request_id="long-catalogue", config=config)
    code, reason, _, message = refusal(lambda: engine.CreateGame(create))
    assert (code, reason) == (grpc.StatusCode.INVALID_ARGUMENT, "BAD_CONFIG")
    assert message.startswith("unknown catalogue") or "catalogue" in message, message
    assert len(message) <= 1024, len(message)
