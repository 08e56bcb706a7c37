"""Every refusal the contract names, provoked, with its code and reason; none changes anything."""

from __future__ import annotations

from collections.abc import Callable

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_status import rpc_status
from tests.engine.clients import (
    SHORT,
    create_game,
    error_reason,
    free_port,
    play_out,
    seat_clients,
    status_code,
    stub,
)
from tests.engine.conftest import InProcessServer

from heights_engine.proto import engine_service_pb2 as pb
from heights_engine.proto import engine_service_pb2_grpc as pb_grpc
from heights_engine.proto import game_pb2


def refused(call: Callable[[], object]) -> tuple[grpc.StatusCode, str]:
    with pytest.raises(grpc.RpcError) as caught:
        call()
    return status_code(caught.value), error_reason(caught.value)


def snapshot(engine: pb_grpc.EngineServiceStub, game_id: str, token: str) -> bytes:
    game = engine.GetGame(pb.GetGameRequest(game_id=game_id, seat_token=token)).game
    return bytes(game.SerializeToString(deterministic=True))


@pytest.fixture
def engine(memory_server: str) -> pb_grpc.EngineServiceStub:
    return stub(memory_server)


def apply(
    engine: pb_grpc.EngineServiceStub,
    game_id: str,
    token: str,
    sequence: int,
    action: game_pb2.Action,
) -> pb.ApplyActionResponse:
    request = pb.ApplyActionRequest(
        game_id=game_id, seat_token=token, expected_sequence=sequence, action=action
    )
    reply: pb.ApplyActionResponse = engine.ApplyAction(request, timeout=10)
    return reply


def test_invalid_argument(engine: pb_grpc.EngineServiceStub) -> None:
    def create(config: game_pb2.GameConfig, request_id: str = "r") -> object:
        return engine.CreateGame(pb.CreateGameRequest(request_id=request_id, config=config))

    bad_players = game_pb2.GameConfig(players=7)
    assert refused(lambda: create(bad_players)) == (grpc.StatusCode.INVALID_ARGUMENT, "BAD_CONFIG")
    bad_option = game_pb2.GameConfig(players=2, options_json='{"nope": 1}')
    assert refused(lambda: create(bad_option))[1] == "BAD_RULE_OPTION"
    not_json = game_pb2.GameConfig(players=2, options_json="{")
    assert refused(lambda: create(not_json))[1] == "BAD_CONFIG"
    bad_catalogue = game_pb2.GameConfig(players=2, catalogue_id="missing")
    assert refused(lambda: create(bad_catalogue))[1] == "BAD_CONFIG"
    ok = game_pb2.GameConfig(players=2)
    assert refused(lambda: create(ok, request_id=""))[1] == "MALFORMED_ID"
    assert refused(lambda: create(ok, request_id="a b"))[1] == "MALFORMED_ID"
    names = pb.CreateGameRequest(request_id="n", config=ok, seat_names=["only one"])
    assert refused(lambda: engine.CreateGame(names))[1] == "BAD_SEAT_NAMES"
    assert refused(lambda: engine.GetGame(pb.GetGameRequest(game_id="../x")))[1] == "MALFORMED_ID"

    created = create_game(engine)
    game_id, token = created.game.game_id, created.seat_tokens[created.game.to_move]
    before = snapshot(engine, game_id, token)
    seq = created.game.sequence
    for action, reason in [
        (game_pb2.Action(id=99999), "INVALID_ACTION"),
        (game_pb2.Action(text="fly away"), "INVALID_ACTION"),
        (game_pb2.Action(id=1, text="rally"), "ACTION_MISMATCH"),
    ]:
        code, got = refused(lambda a=action: apply(engine, game_id, token, seq, a))  # type: ignore[misc]
        assert (code, got) == (grpc.StatusCode.INVALID_ARGUMENT, reason)
    no_action = pb.ApplyActionRequest(game_id=game_id, seat_token=token, expected_sequence=seq)
    assert refused(lambda: engine.ApplyAction(no_action))[1] == "ACTION_REQUIRED"
    # ApplyAction checks an id only when the game is not cached: a malformed one never is,
    # and it is refused before the sequence is looked at.
    legal = engine.ListLegalActions(pb.ListLegalActionsRequest(game_id=game_id, seat_token=token))
    move = game_pb2.Action(id=legal.actions[0].id)
    for bad_id in ("../x", "", game_id + "!"):
        assert refused(lambda i=bad_id: apply(engine, i, token, seq, move))[1] == "MALFORMED_ID"  # type: ignore[misc]
        assert refused(lambda i=bad_id: apply(engine, i, token, -1, move))[1] == "MALFORMED_ID"  # type: ignore[misc]
    assert refused(lambda: apply(engine, game_id, token, -1, move))[1] == "BAD_SEQUENCE"
    no_token = pb.ListLegalActionsRequest(game_id=game_id)
    assert refused(lambda: engine.ListLegalActions(no_token))[1] == "SEAT_TOKEN_REQUIRED"
    reused = pb.CreateGameRequest(request_id="twice", config=game_pb2.GameConfig(players=2))
    engine.CreateGame(reused)
    reused.config.players = 3
    assert refused(lambda: engine.CreateGame(reused))[1] == "REQUEST_ID_REUSED"
    assert snapshot(engine, game_id, token) == before


def test_failed_precondition(engine: pb_grpc.EngineServiceStub) -> None:
    created = create_game(engine)
    game_id, seq = created.game.game_id, created.game.sequence
    mover = created.game.to_move
    token, other = created.seat_tokens[mover], created.seat_tokens[1 - mover]
    before = snapshot(engine, game_id, token)
    legal = engine.ListLegalActions(pb.ListLegalActionsRequest(game_id=game_id, seat_token=token))
    move = game_pb2.Action(id=legal.actions[0].id)
    code, reason = refused(lambda: apply(engine, game_id, other, seq, move))
    assert (code, reason) == (grpc.StatusCode.FAILED_PRECONDITION, "NOT_YOUR_TURN")
    illegal = game_pb2.Action(text="end")  # no ending the turn during the starting placement
    code, reason = refused(lambda: apply(engine, game_id, token, seq, illegal))
    assert (code, reason) == (grpc.StatusCode.FAILED_PRECONDITION, "ILLEGAL_ACTION")
    roll = game_pb2.Action(text="roll")  # chance steps are the service's, never a seat's
    assert refused(lambda: apply(engine, game_id, token, seq, roll))[1] == "ILLEGAL_ACTION"
    assert snapshot(engine, game_id, token) == before
    not_over = pb.GetReplayRequest(game_id=game_id)
    assert refused(lambda: engine.GetReplay(not_over))[1] == "GAME_NOT_OVER"
    at_step = pb.GetStateAtStepRequest(game_id=game_id, step=0)
    assert refused(lambda: engine.GetStateAtStep(at_step))[1] == "GAME_NOT_OVER"
    play_out(seat_clients(engine, created))
    final = engine.GetGame(pb.GetGameRequest(game_id=game_id)).game
    code, reason = refused(lambda: apply(engine, game_id, token, final.sequence, move))
    assert (code, reason) == (grpc.StatusCode.FAILED_PRECONDITION, "GAME_OVER")
    past_end = pb.GetStateAtStepRequest(game_id=game_id, step=final.sequence + 1)
    assert refused(lambda: engine.GetStateAtStep(past_end))[1] == "STEP_OUT_OF_RANGE"


def test_aborted_for_a_stale_sequence(engine: pb_grpc.EngineServiceStub) -> None:
    created = create_game(engine)
    game_id = created.game.game_id
    token = created.seat_tokens[created.game.to_move]
    legal = engine.ListLegalActions(pb.ListLegalActionsRequest(game_id=game_id, seat_token=token))
    move = game_pb2.Action(id=legal.actions[0].id)
    for wrong in (legal.sequence + 1, legal.sequence + 2):
        code, reason = refused(lambda s=wrong: apply(engine, game_id, token, s, move))  # type: ignore[misc]
        assert (code, reason) == (grpc.StatusCode.ABORTED, "STALE_SEQUENCE")
    apply(engine, game_id, token, legal.sequence, move)
    code, reason = refused(lambda: apply(engine, game_id, token, legal.sequence, move))
    assert (code, reason) == (grpc.StatusCode.ABORTED, "STALE_SEQUENCE")
    # A negative sequence is malformed: no retry can win it.
    code, reason = refused(lambda: apply(engine, game_id, token, -1, move))
    assert (code, reason) == (grpc.StatusCode.INVALID_ARGUMENT, "BAD_SEQUENCE")


def test_not_found(engine: pb_grpc.EngineServiceStub) -> None:
    missing = "0" * 32
    for call in (
        lambda: engine.GetGame(pb.GetGameRequest(game_id=missing)),
        lambda: engine.GetReplay(pb.GetReplayRequest(game_id=missing)),
        lambda: engine.DeleteGame(pb.DeleteGameRequest(game_id=missing)),
        lambda: list(engine.StreamGameEvents(pb.StreamGameEventsRequest(game_id=missing))),
    ):
        assert refused(call) == (grpc.StatusCode.NOT_FOUND, "GAME_NOT_FOUND")
    created = create_game(engine)
    game_id = created.game.game_id
    engine.DeleteGame(pb.DeleteGameRequest(game_id=game_id, force=True))
    gone = pb.GetGameRequest(game_id=game_id)
    assert refused(lambda: engine.GetGame(gone)) == (grpc.StatusCode.NOT_FOUND, "GAME_NOT_FOUND")


def test_permission_denied_for_a_wrong_token(engine: pb_grpc.EngineServiceStub) -> None:
    created = create_game(engine)
    elsewhere = create_game(engine)
    game_id = created.game.game_id
    for token in ("not-a-token", elsewhere.seat_tokens[0]):
        for call in (
            lambda t=token: engine.GetGame(pb.GetGameRequest(game_id=game_id, seat_token=t)),
            lambda t=token: engine.ListLegalActions(
                pb.ListLegalActionsRequest(game_id=game_id, seat_token=t)
            ),
            lambda t=token: apply(engine, game_id, t, 0, game_pb2.Action(text="end")),
        ):
            code, reason = refused(call)
            assert (code, reason) == (grpc.StatusCode.PERMISSION_DENIED, "BAD_SEAT_TOKEN")


def test_resource_exhausted(server_factory: Callable[..., InProcessServer]) -> None:
    small = server_factory(max_games=2, max_message_bytes=64 * 1024)
    engine = stub(small.address)
    create_game(engine)
    create_game(engine)
    code, reason = refused(lambda: create_game(engine))
    assert (code, reason) == (grpc.StatusCode.RESOURCE_EXHAUSTED, "TOO_MANY_GAMES")
    huge = pb.VerifyReplayRequest(replay=b"x" * (128 * 1024))
    with pytest.raises(grpc.RpcError) as caught:
        engine.VerifyReplay(huge)
    assert status_code(caught.value) == grpc.StatusCode.RESOURCE_EXHAUSTED


def test_finished_games_do_not_count_against_the_limit(
    server_factory: Callable[..., InProcessServer],
) -> None:
    engine = stub(server_factory(max_games=1).address)
    created = create_game(engine)
    play_out(seat_clients(engine, created))
    create_game(engine)


def test_malformed_replay(engine: pb_grpc.EngineServiceStub) -> None:
    request = pb.VerifyReplayRequest(replay=b"not a replay")
    assert refused(lambda: engine.VerifyReplay(request)) == (
        grpc.StatusCode.INVALID_ARGUMENT,
        "MALFORMED_REPLAY",
    )


def test_options_json_is_validated_before_anything_is_stored(
    engine: pb_grpc.EngineServiceStub,
) -> None:
    config = game_pb2.GameConfig(players=2, options_json=SHORT)
    request = pb.CreateGameRequest(request_id="once", config=config)
    request.config.options_json = '{"round_cap": 0}'
    assert refused(lambda: engine.CreateGame(request))[1] == "BAD_RULE_OPTION"
    request.config.options_json = SHORT
    engine.CreateGame(request)  # the refused attempt did not claim the request id


def test_unavailable_when_the_store_is_down(
    server_factory: Callable[..., InProcessServer],
) -> None:
    dead = f"redis://127.0.0.1:{free_port()}/0"  # nothing listens there
    engine = stub(server_factory(redis_url=dead).address)
    code, reason = refused(lambda: create_game(engine))
    assert (code, reason) == (grpc.StatusCode.UNAVAILABLE, "STORE_UNAVAILABLE")
    gone = pb.GetGameRequest(game_id="a" * 32)
    assert refused(lambda: engine.GetGame(gone))[1] == "STORE_UNAVAILABLE"


@pytest.mark.parametrize(
    ("options_json", "option", "allowed"),
    [
        ('{"end_trigger": "constructed"}', "end_trigger", "CONSTRUCTED, SUPPLY_EMPTY"),
        ('{"round_kap": 3}', "round_kap", "landing_hard_permille, "),
        ('{"mayor_hard": 1}', "mayor_hard", "true, false"),
        ('{"round_cap": "3"}', "round_cap", "integers 1..200"),
        ('{"round_cap": 201}', "round_cap", "integers 1..200"),
    ],
)
def test_bad_rule_options_name_the_option_and_what_it_allows(
    engine: pb_grpc.EngineServiceStub, options_json: str, option: str, allowed: str
) -> None:
    config = game_pb2.GameConfig(players=2, options_json=options_json)
    with pytest.raises(grpc.RpcError) as caught:
        engine.CreateGame(pb.CreateGameRequest(request_id="bad-option", config=config))
    assert status_code(caught.value) == grpc.StatusCode.INVALID_ARGUMENT
    status = rpc_status.from_call(caught.value)
    assert status is not None
    info = error_details_pb2.ErrorInfo()
    assert status.details[0].Unpack(info)
    assert info.reason == "BAD_RULE_OPTION"
    assert info.metadata["option"] == option
    assert info.metadata["allowed"].startswith(allowed)
    assert option in status.message
