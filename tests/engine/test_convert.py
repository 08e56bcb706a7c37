"""Proto conversion: the shared action messages stay as built, whatever a response does."""

from __future__ import annotations

from heights_engine import convert
from heights_engine.proto import engine_service_pb2 as pb
from heights_engine.proto import game_pb2
from heights_engine.views import Step
from heights_rules import CHANCE, GameConfig, action_text, new_game


def test_an_action_message_is_built_once_and_copied_into_each_response() -> None:
    state = new_game(GameConfig(players=2), 7)
    while state.current_player() == CHANCE:
        state.apply(state.legal_actions()[0])
    action = state.legal_actions()[-1]
    shared = convert.action_to_proto(action)
    assert convert.action_to_proto(action) is shared
    response = pb.ApplyActionResponse(
        steps=[convert.step_to_proto(Step(0, action, 1))], legal_actions=[shared]
    )
    response.legal_actions[0].text = "changed"
    response.steps[0].action.text = "changed"
    assert shared == game_pb2.Action(id=action, text=action_text(action))
