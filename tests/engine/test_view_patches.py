"""ApplyAction's `view_bases`: the next mover's view as a patch from the one it holds."""

from __future__ import annotations

import json
from typing import Any

import grpc
import pytest
from tests.engine.clients import create_game, error_reason, status_code, stub

from heights_engine.proto import engine_service_pb2 as pb
from heights_engine.proto import engine_service_pb2_grpc as pb_grpc
from heights_engine.proto import game_pb2
from heights_sdk.patch import apply_patch


class Runner:
    """A client holding every seat's token, keeping each seat's view as a runner does."""

    def __init__(self, engines: list[pb_grpc.EngineServiceStub], players: int) -> None:
        self.engines = engines
        self.calls = 0
        created = create_game(engines[0], players=players)
        self.tokens = list(created.seat_tokens)
        self.game_id = created.game.game_id
        self.held: dict[int, tuple[int, dict[str, Any]]] = {}
        self.patches = self.full = 0
        self.view = self._get(created.game.to_move)

    def _engine(self) -> pb_grpc.EngineServiceStub:
        self.calls += 1  # with several replicas, each call goes to the next one
        return self.engines[self.calls % len(self.engines)]

    def _get(self, seat: int) -> game_pb2.GameView:
        request = pb.GetGameRequest(game_id=self.game_id, seat_token=self.tokens[seat])
        view: game_pb2.GameView = self._engine().GetGame(request, timeout=10).game
        self.held[seat] = (view.sequence, json.loads(view.observation_json))
        return view

    def observation(self, seat: int) -> dict[str, Any]:
        return self.held[seat][1]

    def play(self, bases: list[int] | None = None) -> pb.ApplyActionResponse:
        """The seat to move plays its first legal action; its view is patched or replaced."""
        seat = self.view.to_move
        action = self.observation(seat)["legal"][0]["id"]
        if bases is None:
            bases = [self.held.get(s, (-1,))[0] for s in range(len(self.tokens))]
        request = pb.ApplyActionRequest(
            game_id=self.game_id,
            seat_token=self.tokens[seat],
            expected_sequence=self.view.sequence,
            action=game_pb2.Action(id=action),
            omit_view=True,
            view_tokens=[t for s, t in enumerate(self.tokens) if s != seat],
            view_bases=bases,
        )
        response: pb.ApplyActionResponse = self._engine().ApplyAction(request, timeout=10)
        if response.to_move < 0:
            return response
        view = response.next_view
        if view.observation_patch_json:
            base_sequence, base = self.held[view.viewer]
            assert view.patch_base_sequence == base_sequence
            assert not view.observation_json
            observation = apply_patch(base, json.loads(view.observation_patch_json))
            self.patches += 1
        else:
            observation = json.loads(view.observation_json)
            self.full += 1
        self.held[view.viewer] = (view.sequence, observation)
        self.view = view
        return response

    def check_against_get_game(self) -> None:
        """The patched view is, key for key, the one GetGame shows that seat."""
        seat = self.view.viewer
        request = pb.GetGameRequest(game_id=self.game_id, seat_token=self.tokens[seat])
        asked = self.engines[0].GetGame(request, timeout=10).game
        assert asked.sequence == self.held[seat][0]
        assert json.loads(asked.observation_json) == self.observation(seat)


def test_a_whole_game_of_patched_views_matches_the_full_views(memory_server: str) -> None:
    runner = Runner([stub(memory_server)], players=3)
    while runner.play().to_move >= 0:
        runner.check_against_get_game()
    assert runner.patches > 10 * runner.full  # the first view of each seat is whole


def test_a_replica_that_did_not_send_the_base_sends_the_full_view(replicas: Any) -> None:
    engines = [stub(replicas.start().address), stub(replicas.start().address)]
    runner = Runner(engines, players=2)
    for _ in range(30):
        if runner.play().to_move < 0:
            break
        runner.check_against_get_game()
    # Alternating replicas: each one patches only from a view it sent itself.
    assert runner.patches > 0
    assert runner.full > 2


def test_a_base_the_client_does_not_hold_gets_a_full_view(memory_server: str) -> None:
    runner = Runner([stub(memory_server)], players=2)
    for _ in range(5):
        runner.play()
    response = runner.play(bases=[-1, -1])  # e.g. a runner restarted mid-game
    assert response.to_move >= 0  # the game is long: a view follows
    assert response.next_view.observation_json
    assert not response.next_view.observation_patch_json
    runner.check_against_get_game()


def test_view_bases_of_the_wrong_length_refuse_the_action(memory_server: str) -> None:
    runner = Runner([stub(memory_server)], players=2)
    before = runner.view.sequence
    with pytest.raises(grpc.RpcError) as err:
        runner.play(bases=[0, 0, 0])
    assert status_code(err.value) == grpc.StatusCode.INVALID_ARGUMENT
    assert error_reason(err.value) == "BAD_VIEW_BASES"
    public = runner.engines[0].GetGame(pb.GetGameRequest(game_id=runner.game_id), timeout=10)
    assert public.game.sequence == before
