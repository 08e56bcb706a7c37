"""ApplyAction's `view_tokens`: the next mover's view in the same response."""

from __future__ import annotations

import json

import grpc
import pytest
from tests.engine.clients import create_game, error_reason, status_code, stub

from heights_engine.proto import engine_service_pb2 as pb
from heights_engine.proto import game_pb2


def _seat_view(engine: object, created: pb.CreateGameResponse) -> game_pb2.GameView:
    """The view of the seat to move (CreateGame answers with the spectator's)."""
    seat = created.game.to_move
    request = pb.GetGameRequest(game_id=created.game.game_id, seat_token=created.seat_tokens[seat])
    view: game_pb2.GameView = engine.GetGame(request, timeout=10).game  # type: ignore[attr-defined]
    return view


def _apply(
    engine: object, view: game_pb2.GameView, token: str, action: int, views: list[str]
) -> pb.ApplyActionResponse:
    request = pb.ApplyActionRequest(
        game_id=view.game_id,
        seat_token=token,
        expected_sequence=view.sequence,
        action=game_pb2.Action(id=action),
        omit_view=True,
        view_tokens=views,
    )
    response: pb.ApplyActionResponse = engine.ApplyAction(request, timeout=10)  # type: ignore[attr-defined]
    return response


def test_the_next_movers_view_comes_with_the_action(memory_server: str) -> None:
    engine = stub(memory_server)
    created = create_game(engine, players=3)
    tokens = list(created.seat_tokens)
    view = _seat_view(engine, created)
    for _ in range(40):
        seat = view.to_move
        legal = json.loads(view.observation_json)["legal"]
        others = [t for s, t in enumerate(tokens) if s != seat]
        response = _apply(engine, view, tokens[seat], legal[0]["id"], others)
        if response.to_move < 0:
            assert not response.HasField("next_view")  # the game is over
            break
        assert response.HasField("next_view")
        view = response.next_view
        assert view.viewer == response.to_move  # the view is the next mover's own
        asked = engine.GetGame(
            pb.GetGameRequest(game_id=view.game_id, seat_token=tokens[view.viewer]), timeout=10
        ).game
        assert asked.observation_json == view.observation_json
        # A seat never sees another's hidden Targets through this path either.
        others_targets = [
            p.get("targets")
            for p in json.loads(view.observation_json)["players"]
            if p["player"] != view.viewer
        ]
        assert others_targets == [None] * (len(tokens) - 1)


def test_without_the_next_seats_token_there_is_no_next_view(memory_server: str) -> None:
    engine = stub(memory_server)
    created = create_game(engine, players=2)
    view = _seat_view(engine, created)
    seat = view.to_move
    legal = json.loads(view.observation_json)["legal"]
    response = _apply(engine, view, created.seat_tokens[seat], legal[0]["id"], [])
    if response.to_move != seat:
        assert not response.HasField("next_view")


def test_a_bad_view_token_refuses_the_action_and_changes_nothing(memory_server: str) -> None:
    engine = stub(memory_server)
    created = create_game(engine, players=2)
    view = _seat_view(engine, created)
    seat = view.to_move
    legal = json.loads(view.observation_json)["legal"]
    with pytest.raises(grpc.RpcError) as err:
        _apply(
            engine,
            view,
            created.seat_tokens[seat],
            legal[0]["id"],
            ["forged"],
        )
    assert status_code(err.value) == grpc.StatusCode.PERMISSION_DENIED
    assert error_reason(err.value) == "BAD_SEAT_TOKEN"
    after = engine.GetGame(pb.GetGameRequest(game_id=view.game_id), timeout=10).game
    assert after.sequence == view.sequence
