"""Who may call what (docs/engine-service.md): every row of the table, refusals included.

The operator credential is call metadata; a seat token is in the request. Missing or
wrong operator credentials are UNAUTHENTICATED; a seat token that is no seat's of the
game is PERMISSION_DENIED; neither refusal changes anything.
"""

from __future__ import annotations

from collections.abc import Callable

import grpc
import pytest
from tests.engine.clients import (
    OPERATOR_TOKEN,
    create_game,
    error_reason,
    play_out,
    seat_clients,
    status_code,
    stub,
)

from heights_engine.auth import OperatorCheck
from heights_engine.errors import EngineError
from heights_engine.proto import engine_service_pb2 as pb
from heights_engine.proto import engine_service_pb2_grpc as pb_grpc
from heights_engine.proto import game_pb2

Refusal = tuple[grpc.StatusCode, str]
NO_OPERATOR = (grpc.StatusCode.UNAUTHENTICATED, "OPERATOR_CREDENTIAL_REQUIRED")
BAD_OPERATOR = (grpc.StatusCode.UNAUTHENTICATED, "BAD_OPERATOR_CREDENTIAL")
BAD_SEAT = (grpc.StatusCode.PERMISSION_DENIED, "BAD_SEAT_TOKEN")


def refused(call: Callable[[], object]) -> Refusal:
    with pytest.raises(grpc.RpcError) as caught:
        call()
    return status_code(caught.value), error_reason(caught.value)


@pytest.fixture
def operator(memory_server: str) -> pb_grpc.EngineServiceStub:
    return stub(memory_server)


@pytest.fixture
def anonymous(memory_server: str) -> pb_grpc.EngineServiceStub:
    return stub(memory_server, operator="")


@pytest.fixture
def impostor(memory_server: str) -> pb_grpc.EngineServiceStub:
    return stub(memory_server, operator=OPERATOR_TOKEN + "x")


def _create_request(request_id: str) -> pb.CreateGameRequest:
    config = game_pb2.GameConfig(players=2, options_json='{"round_cap": 3}')
    return pb.CreateGameRequest(request_id=request_id, config=config, seed=5)


def test_create_game_is_the_operators(
    operator: pb_grpc.EngineServiceStub,
    anonymous: pb_grpc.EngineServiceStub,
    impostor: pb_grpc.EngineServiceStub,
) -> None:
    assert refused(lambda: anonymous.CreateGame(_create_request("anon"))) == NO_OPERATOR
    assert refused(lambda: impostor.CreateGame(_create_request("imp"))) == BAD_OPERATOR
    # Checked before the request is read: a malformed one is refused the same way.
    bad = pb.CreateGameRequest(request_id="no spaces allowed")
    assert refused(lambda: anonymous.CreateGame(bad)) == NO_OPERATOR
    # The refused ids were not claimed: the operator creates games under them.
    for request_id in ("anon", "imp"):
        assert len(operator.CreateGame(_create_request(request_id)).seat_tokens) == 2


def test_a_seat_token_is_no_operator_credential(
    memory_server: str, operator: pb_grpc.EngineServiceStub
) -> None:
    token = create_game(operator).seat_tokens[0]
    as_seat = stub(memory_server, operator=token)
    assert refused(lambda: as_seat.CreateGame(_create_request("seat"))) == BAD_OPERATOR


def test_delete_game_is_the_operators_and_spares_games_in_progress(
    operator: pb_grpc.EngineServiceStub,
    anonymous: pb_grpc.EngineServiceStub,
    impostor: pb_grpc.EngineServiceStub,
) -> None:
    created = create_game(operator)
    game_id, token = created.game.game_id, created.seat_tokens[0]
    delete = pb.DeleteGameRequest(game_id=game_id, force=True)
    assert refused(lambda: anonymous.DeleteGame(delete)) == NO_OPERATOR
    assert refused(lambda: impostor.DeleteGame(delete)) == BAD_OPERATOR
    in_progress = (grpc.StatusCode.FAILED_PRECONDITION, "GAME_IN_PROGRESS")
    assert refused(lambda: operator.DeleteGame(pb.DeleteGameRequest(game_id=game_id))) == (
        in_progress
    )
    # Nothing changed: the seat still plays.
    seat = pb.GetGameRequest(game_id=game_id, seat_token=token)
    assert anonymous.GetGame(seat).game.game_id == game_id
    operator.DeleteGame(delete)  # forced
    gone = (grpc.StatusCode.NOT_FOUND, "GAME_NOT_FOUND")
    assert refused(lambda: anonymous.GetGame(seat)) == gone


def test_a_finished_game_is_deleted_without_force(operator: pb_grpc.EngineServiceStub) -> None:
    created = create_game(operator)
    play_out(seat_clients(operator, created))
    game_id = created.game.game_id
    operator.DeleteGame(pb.DeleteGameRequest(game_id=game_id))
    again = pb.GetReplayRequest(game_id=game_id)
    assert refused(lambda: operator.GetReplay(again))[0] == grpc.StatusCode.NOT_FOUND


def test_seat_calls_need_that_seats_token_and_no_operator(
    operator: pb_grpc.EngineServiceStub, anonymous: pb_grpc.EngineServiceStub
) -> None:
    created = create_game(operator)
    other = create_game(operator)
    game_id, to_move = created.game.game_id, created.game.to_move
    token = created.seat_tokens[to_move]
    foreign = other.seat_tokens[to_move]
    legal = anonymous.ListLegalActions(
        pb.ListLegalActionsRequest(game_id=game_id, seat_token=token)
    )
    assert legal.actions  # the seat's own business: no operator credential needed
    for seat_token, expected in (
        ("", (grpc.StatusCode.INVALID_ARGUMENT, "SEAT_TOKEN_REQUIRED")),
        (foreign, BAD_SEAT),
        ("garbage", BAD_SEAT),
    ):
        listing = pb.ListLegalActionsRequest(game_id=game_id, seat_token=seat_token)
        action = game_pb2.Action(id=legal.actions[0].id)
        apply = pb.ApplyActionRequest(
            game_id=game_id, seat_token=seat_token, expected_sequence=legal.sequence, action=action
        )
        # The operator credential does not stand in for a seat.
        assert refused(lambda r=listing: operator.ListLegalActions(r)) == expected  # type: ignore[misc]
        assert refused(lambda r=apply: operator.ApplyAction(r)) == expected  # type: ignore[misc]
        stream = iter([pb.ApplyActionsRequest(request=apply)])
        assert refused(lambda s=stream: list(operator.ApplyActions(s))) == expected  # type: ignore[misc]
    view = pb.GetGameRequest(game_id=game_id, seat_token=foreign)
    assert refused(lambda: anonymous.GetGame(view)) == BAD_SEAT
    events = pb.StreamGameEventsRequest(game_id=game_id, seat_token=foreign)
    assert refused(lambda: list(anonymous.StreamGameEvents(events))) == BAD_SEAT
    assert anonymous.GetGame(pb.GetGameRequest(game_id=game_id)).game.sequence == legal.sequence


def test_public_calls_need_no_credential(
    operator: pb_grpc.EngineServiceStub, anonymous: pb_grpc.EngineServiceStub
) -> None:
    created = create_game(operator)
    game_id = created.game.game_id
    spectator = anonymous.GetGame(pb.GetGameRequest(game_id=game_id)).game
    assert spectator.viewer == -1
    first = next(anonymous.StreamGameEvents(pb.StreamGameEventsRequest(game_id=game_id)))
    assert first.game.viewer == -1
    not_over = (grpc.StatusCode.FAILED_PRECONDITION, "GAME_NOT_OVER")
    replay_request = pb.GetReplayRequest(game_id=game_id)
    assert refused(lambda: anonymous.GetReplay(replay_request)) == not_over
    play_out(seat_clients(operator, created))
    replay = anonymous.GetReplay(replay_request)
    verified = anonymous.VerifyReplay(pb.VerifyReplayRequest(replay=replay.replay))
    assert verified.ok
    assert verified.steps == replay.steps
    at = anonymous.GetStateAtStep(pb.GetStateAtStepRequest(game_id=game_id, step=1))
    assert at.game.sequence == 1


def test_the_check_compares_whole_credentials() -> None:
    check = OperatorCheck("s3cret")
    check.require([("authorization", "Bearer s3cret")])
    for metadata in (
        [("authorization", "Bearer s3cre")],
        [("authorization", "s3cret")],
        [("authorization", "Bearer s3cret"), ("authorization", "Bearer s3cret")],
        [("authorization", "Bearer " + "s" * 10_000)],
    ):
        with pytest.raises(EngineError) as caught:
            check.require(metadata)
        assert caught.value.reason == "BAD_OPERATOR_CREDENTIAL"
    with pytest.raises(EngineError) as caught:
        check.require([("x-other", "Bearer s3cret")])
    assert caught.value.reason == "OPERATOR_CREDENTIAL_REQUIRED"
    with pytest.raises(ValueError, match="must not be empty"):
        OperatorCheck("")
