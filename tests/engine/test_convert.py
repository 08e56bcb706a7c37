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


def _legal_sets() -> list[list[int]]:
    """The legal actions of the first decisions of a game: a few sizes and kinds."""
    state = new_game(GameConfig(players=2), 11)
    found: list[list[int]] = []
    while len(found) < 40 and not state.is_terminal():
        legal = state.legal_actions()
        if state.current_player() != CHANCE:
            found.append(legal)
        state.apply(legal[len(found) % len(legal)])
    return found


def test_legal_actions_added_from_their_encodings_are_the_messages_extend_builds() -> None:
    for legal in [[], *_legal_sets()]:
        built = pb.ApplyActionResponse(sequence=9, to_move=1)
        built.legal_actions.extend([convert.action_to_proto(a) for a in legal])
        added = pb.ApplyActionResponse(sequence=9, to_move=1)
        convert.add_legal_actions(added, legal)
        assert added == built
        assert added.SerializeToString(deterministic=True) == built.SerializeToString(
            deterministic=True
        )
        # The same inside a stream's answer, where the response is a field.
        streamed = pb.ApplyActionsResponse()
        convert.add_legal_actions(streamed.response, legal)
        assert list(streamed.response.legal_actions) == list(built.legal_actions)


def test_listed_actions_added_from_their_encodings_are_the_messages_extend_builds() -> None:
    for legal in [[], *_legal_sets()]:
        built = pb.ListLegalActionsResponse(sequence=3, to_move=0, decision="d")
        built.actions.extend([convert.action_to_proto(a) for a in legal])
        added = pb.ListLegalActionsResponse(sequence=3, to_move=0, decision="d")
        convert.add_listed_actions(added, legal)
        assert added == built
        assert added.SerializeToString() == built.SerializeToString()


def test_steps_added_in_place_are_the_messages_step_to_proto_builds() -> None:
    steps = [Step(5, 1, 0), Step(6, 2, CHANCE), Step(7, 3, 1)]
    added = pb.ApplyActionResponse()
    convert.add_steps(added.steps, steps)
    assert list(added.steps) == [convert.step_to_proto(s) for s in steps]
    added.steps[0].action.text = "changed"
    assert convert.action_to_proto(1) == game_pb2.Action(id=1, text=action_text(1))
