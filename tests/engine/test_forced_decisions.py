"""ApplyAction's `play_forced`: decisions with a single legal action played by the engine,
recorded as if the seat had chosen them; and the ApplyActions stream's ping."""

from __future__ import annotations

import pytest
from prometheus_client import REGISTRY
from tests.engine.clients import create_game, stub
from tests.engine.test_apply_stream import Stream

from heights_engine.errors import Code, EngineError
from heights_engine.games import play
from heights_engine.proto import engine_service_pb2 as pb
from heights_engine.proto import engine_service_pb2_grpc as pb_grpc
from heights_engine.proto import game_pb2
from heights_rules import CHANCE, IllegalActionError, Replay, replay_start
from heights_runner.grpc_engine import BOT_FAULT_REASONS


def _legal(
    engine: pb_grpc.EngineServiceStub, created: pb.CreateGameResponse, seat: int
) -> list[int]:
    request = pb.ListLegalActionsRequest(
        game_id=created.game.game_id, seat_token=created.seat_tokens[seat]
    )
    return [a.id for a in engine.ListLegalActions(request, timeout=10).actions]


def _play(
    engine: pb_grpc.EngineServiceStub,
    created: pb.CreateGameResponse,
    *,
    play_forced: bool,
    all_tokens: bool = True,
) -> list[pb.ApplyActionResponse]:
    """A whole game, each seat taking its last legal action; the responses."""
    stream, answers = Stream(engine), []
    sequence, to_move = created.game.sequence, created.game.to_move
    while to_move >= 0:
        request = pb.ApplyActionRequest(
            game_id=created.game.game_id,
            seat_token=created.seat_tokens[to_move],
            expected_sequence=sequence,
            action=game_pb2.Action(id=_legal(engine, created, to_move)[-1]),
            omit_view=True,
            view_tokens=list(created.seat_tokens) if all_tokens else [],
            play_forced=play_forced,
        )
        answer = stream.call(request)
        answers.append(answer)
        sequence, to_move = answer.sequence, answer.to_move
    stream.end()
    return answers


def _replay(engine: pb_grpc.EngineServiceStub, game_id: str) -> bytes:
    blob: bytes = engine.GetReplay(pb.GetReplayRequest(game_id=game_id), timeout=10).replay
    verified = engine.VerifyReplay(pb.VerifyReplayRequest(replay=blob), timeout=10)
    assert verified.ok, verified.message
    return blob


def test_forced_decisions_are_played_recorded_and_the_replay_verifies(memory_server: str) -> None:
    engine = stub(memory_server)
    forced_game, asked_game = create_game(engine, players=3), create_game(engine, players=3)
    forced = _play(engine, forced_game, play_forced=True)
    asked = _play(engine, asked_game, play_forced=False)
    # The same game (the last legal action of a forced decision is its only one), in
    # fewer requests: every forced decision was played by the engine, not asked for.
    forced_steps = [(s.index, s.action.id, s.actor) for a in forced for s in a.steps]
    asked_steps = [(s.index, s.action.id, s.actor) for a in asked for s in a.steps]
    assert forced_steps == asked_steps
    assert len(forced) < len(asked)
    assert _replay(engine, forced_game.game.game_id) == _replay(engine, asked_game.game.game_id)

    # Every step after a response's first is a chance step or a forced decision of a seat.
    played = {s.index for a in forced for s in a.steps[1:] if s.actor != CHANCE}
    replay = Replay.from_bytes(_replay(engine, forced_game.game.game_id))
    state = replay_start(replay)
    for index, action in enumerate(replay.actions):
        if index in played:
            assert state.legal_actions() == [action]
        state.apply(action)
    assert len(played) == len(asked) - len(forced)


def _actions_counted() -> dict[str, float]:
    return {
        kind: REGISTRY.get_sample_value("heights_engine_actions_total", {"kind": kind}) or 0.0
        for kind in ("decision", "forced", "chance")
    }


def test_the_actions_counter_counts_decisions_forced_decisions_and_chance_steps(
    memory_server: str,
) -> None:
    engine = stub(memory_server)
    created = create_game(engine, players=3)
    before = _actions_counted()
    answers = _play(engine, created, play_forced=True)
    counted = {kind: n - before[kind] for kind, n in _actions_counted().items()}
    after_first = [s for a in answers for s in a.steps[1:]]
    assert counted == {
        "decision": len(answers),
        "forced": sum(1 for s in after_first if s.actor != CHANCE),
        "chance": sum(1 for s in after_first if s.actor == CHANCE),
    }
    assert counted["forced"] > 0
    assert counted["chance"] > 0


def test_only_the_seats_whose_tokens_the_request_holds_are_played_for(memory_server: str) -> None:
    engine = stub(memory_server)
    created = create_game(engine, players=3)
    answers = _play(engine, created, play_forced=True, all_tokens=False)
    played = 0
    for answer in answers:
        actor = answer.steps[0].actor
        # With its own token only, a request plays its own seat's forced decisions only.
        assert all(s.actor in (actor, CHANCE) for s in answer.steps)
        played += sum(1 for s in answer.steps[1:] if s.actor == actor)
    assert played > 0
    _replay(engine, created.game.game_id)


def test_a_ping_on_the_stream_is_answered_and_the_stream_goes_on(memory_server: str) -> None:
    engine = stub(memory_server)
    created = create_game(engine, players=2)
    stream = Stream(engine)
    stream.requests.put(pb.ApplyActionsRequest(ping=True))
    assert next(stream.responses) == pb.ApplyActionsResponse(pong=True)
    seat = created.game.to_move
    answer = stream.call(
        pb.ApplyActionRequest(
            game_id=created.game.game_id,
            seat_token=created.seat_tokens[seat],
            expected_sequence=created.game.sequence,
            action=game_pb2.Action(id=_legal(engine, created, seat)[0]),
            omit_view=True,
        )
    )
    assert answer.sequence > created.game.sequence
    assert answer.steps[0].actor == seat
    stream.end()


class _RulesCoreFailingAfterTheAction:
    """A state whose rules core accepts the seat's action, then fails on the chance step
    it chose itself (a rules-core defect stands in here: none is known to exist)."""

    def __init__(self) -> None:
        self.applied: list[int] = []

    def current_player(self) -> int:
        return 0 if not self.applied else CHANCE

    def legal_actions(self) -> list[int]:
        return [7]

    def apply(self, action: int) -> None:
        if self.applied:
            raise IllegalActionError("the rules core refuses its own chance step")
        self.applied.append(action)


def test_a_rules_core_failure_after_the_action_is_the_engines_fault_not_the_bots() -> None:
    state = _RulesCoreFailingAfterTheAction()
    with pytest.raises(EngineError) as raised:
        play(state, 3, [], [], frozenset({0, 1}))  # type: ignore[arg-type]
    assert raised.value.code is Code.INTERNAL
    assert raised.value.reason == "RULES_FAULT"
    # the runner charges every reason but the bot's own to the engine (a retry, no forfeit)
    assert raised.value.reason not in BOT_FAULT_REASONS
