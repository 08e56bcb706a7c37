"""Real server processes sharing a real Redis: races, fail-over, expiry, shutdown."""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable

import grpc
import pytest
import redis
from tests.engine.clients import (
    create_game,
    error_reason,
    play_out,
    seat_clients,
    status_code,
    stub,
)
from tests.engine.conftest import InProcessServer, Replicas

from heights_engine.proto import engine_service_pb2 as pb
from heights_engine.proto import engine_service_pb2_grpc as pb_grpc
from heights_engine.proto import game_pb2
from heights_rules.replay import Replay


def race_once(engines: list[pb_grpc.EngineServiceStub], game_id: str, token: str) -> int:
    """Two clients apply at the same sequence; exactly one wins. The steps appended."""
    legal = engines[0].ListLegalActions(
        pb.ListLegalActionsRequest(game_id=game_id, seat_token=token)
    )
    choices = [legal.actions[0].id, legal.actions[-1].id]
    barrier = threading.Barrier(len(engines))
    results: list[pb.ApplyActionResponse | grpc.RpcError] = [None] * len(engines)  # type: ignore[list-item]

    def go(i: int) -> None:
        request = pb.ApplyActionRequest(
            game_id=game_id,
            seat_token=token,
            expected_sequence=legal.sequence,
            action=game_pb2.Action(id=choices[i % 2]),
        )
        barrier.wait()
        try:
            results[i] = engines[i].ApplyAction(request, timeout=10)
        except grpc.RpcError as err:
            results[i] = err

    threads = [threading.Thread(target=go, args=(i,)) for i in range(len(engines))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    won = [r for r in results if isinstance(r, pb.ApplyActionResponse)]
    lost = [r for r in results if isinstance(r, grpc.RpcError)]
    assert len(won) == 1, results
    for err in lost:
        assert status_code(err) == grpc.StatusCode.ABORTED
        assert error_reason(err) == "STALE_SEQUENCE"
    view = engines[1].GetGame(pb.GetGameRequest(game_id=game_id)).game
    assert view.sequence == legal.sequence + len(won[0].steps)  # nothing lost or doubled
    return len(won[0].steps)


def race_game(engines: list[pb_grpc.EngineServiceStub], rounds: int) -> None:
    created = create_game(engines[0], seed=31, options="")  # no round cap: no early end
    game_id = created.game.game_id
    appended = created.game.sequence
    for _ in range(rounds):
        view = engines[0].GetGame(pb.GetGameRequest(game_id=game_id)).game
        assert view.status == game_pb2.GAME_STATUS_IN_PROGRESS
        appended += race_once(engines, game_id, created.seat_tokens[view.to_move])
    blob_view = engines[0].GetGame(pb.GetGameRequest(game_id=game_id)).game
    assert blob_view.sequence == appended


def test_race_on_one_server(memory_server: str) -> None:
    race_game([stub(memory_server), stub(memory_server)], rounds=25)


def test_race_across_replicas(replicas: Replicas) -> None:
    a, b = replicas.start(), replicas.start()
    race_game([stub(a.address), stub(b.address)], rounds=25)


def reference_replay(seed: int, server: InProcessServer) -> list[int]:
    engine = stub(server.address)
    created = create_game(engine, seed=seed)
    play_out(seat_clients(engine, created, seed=5))
    blob = engine.GetReplay(pb.GetReplayRequest(game_id=created.game.game_id)).replay
    return Replay.from_bytes(blob).actions


def test_replica_dies_mid_game_and_another_continues(
    replicas: Replicas, server_factory: Callable[..., InProcessServer]
) -> None:
    a, b = replicas.start(), replicas.start()
    engine_a = stub(a.address)
    created = create_game(engine_a, seed=4242)
    clients = seat_clients(engine_a, created, seed=5)
    for _ in range(15):
        for client in clients:
            client.play_if_my_turn()
    before = clients[0].view().sequence
    assert a.stop(signal.SIGKILL) != 0  # died: no shutdown, no flush
    engine_b = stub(b.address)
    for client in clients:
        client.engine = engine_b
    assert clients[1].view().sequence == before  # every acknowledged action survived
    play_out(clients)
    blob = engine_b.GetReplay(pb.GetReplayRequest(game_id=created.game.game_id)).replay
    assert Replay.from_bytes(blob).actions == reference_replay(4242, server_factory())


def test_a_new_replica_rebuilds_a_game_from_the_log(replicas: Replicas) -> None:
    a = replicas.start()
    created = create_game(stub(a.address), seed=8)
    clients = seat_clients(stub(a.address), created)
    for _ in range(10):
        for client in clients:
            client.play_if_my_turn()
    view_a = clients[0].view()
    b = replicas.start(HEIGHTS_ENGINE_CACHE_SIZE="1")
    view_b = stub(b.address).GetGame(
        pb.GetGameRequest(game_id=view_a.game_id, seat_token=created.seat_tokens[0])
    )
    assert view_b.game == view_a


def test_idempotent_create_across_replicas(replicas: Replicas) -> None:
    a, b = replicas.start(), replicas.start()
    first = create_game(stub(a.address), seed=None, request_id="same-request")
    again = create_game(stub(b.address), seed=None, request_id="same-request")
    assert again.game.game_id == first.game.game_id
    assert list(again.seat_tokens) == list(first.seat_tokens)


def test_unfinished_games_expire(replicas: Replicas) -> None:
    a = replicas.start(HEIGHTS_ENGINE_GAME_TTL_SECONDS="1")
    engine = stub(a.address)
    created = create_game(engine)
    time.sleep(2.2)
    with pytest.raises(grpc.RpcError) as caught:
        engine.GetGame(pb.GetGameRequest(game_id=created.game.game_id))
    assert status_code(caught.value) == grpc.StatusCode.NOT_FOUND


def test_finished_games_stay_until_deleted(replicas: Replicas) -> None:
    a = replicas.start(HEIGHTS_ENGINE_GAME_TTL_SECONDS="600")
    engine = stub(a.address)
    created = create_game(engine)
    play_out(seat_clients(engine, created))
    game_id = created.game.game_id
    client = redis.Redis.from_url(replicas.redis_url)
    record_ttl = client.ttl(f"{replicas.prefix}:game:{game_id}:record")
    assert isinstance(record_ttl, int)
    assert record_ttl > 600  # the long, finished-game TTL
    assert client.zscore(f"{replicas.prefix}:live", game_id) is None
    engine.DeleteGame(pb.DeleteGameRequest(game_id=game_id))
    assert not client.exists(f"{replicas.prefix}:game:{game_id}:log")


def test_memory_store_says_so_at_start(replicas: Replicas) -> None:
    a = replicas.start(redis=False)
    b = replicas.start()
    assert a.stop() == 0
    assert b.stop() == 0
    assert "game store: in memory" in a.log()
    assert "game store: Redis at 127.0.0.1" in b.log()


def test_sigterm_finishes_calls_in_flight(replicas: Replicas) -> None:
    a, b = replicas.start(), replicas.start()
    engine = stub(a.address)
    created = create_game(engine, seed=3)
    clients = seat_clients(engine, created, seed=1)
    acknowledged: list[int] = []
    failures: list[grpc.StatusCode] = []
    stop = threading.Event()

    def player() -> None:
        while not stop.is_set():
            try:
                for client in clients:
                    if client.play_if_my_turn():
                        acknowledged.append(client.view().sequence)
            except grpc.RpcError as err:
                failures.append(status_code(err))
                return

    thread = threading.Thread(target=player)
    thread.start()
    time.sleep(0.5)
    assert a.stop(signal.SIGTERM) == 0
    stop.set()
    thread.join(timeout=30)
    assert acknowledged
    # Calls that reach a stopping server are refused, never half-done.
    assert set(failures) <= {grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED}
    survived = stub(b.address).GetGame(pb.GetGameRequest(game_id=created.game.game_id)).game
    assert survived.sequence >= max(acknowledged)
    assert '"message": "stopped"' in a.log()
