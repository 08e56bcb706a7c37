"""Full games through the API, against an in-process server over the in-memory store."""

from __future__ import annotations

import hashlib
import json

import pytest
from tests.engine.clients import SHORT, create_game, play_out, seat_clients, stub

from heights_engine.proto import engine_service_pb2 as pb
from heights_engine.proto import game_pb2
from heights_rules import GameConfig, RuleOptions, new_game
from heights_rules.replay import Replay, verify


@pytest.mark.parametrize(("players", "solo"), [(2, False), (3, False), (4, False), (1, True)])
def test_full_game_by_seat_clients(memory_server: str, players: int, solo: bool) -> None:
    engine = stub(memory_server)
    created = create_game(engine, players=players, solo=solo, seed=5)
    assert len(created.seat_tokens) == players
    assert len(set(created.seat_tokens)) == players
    assert created.game.viewer == -1
    clients = seat_clients(engine, created, seed=players)
    decisions = play_out(clients)
    assert decisions > 0
    final = clients[0].view()
    assert final.status == game_pb2.GAME_STATUS_OVER
    assert final.to_move == -1
    assert len(final.outcome.seats) == (2 if solo else players)
    assert sorted(s.rank for s in final.outcome.seats)[0] == 1


def test_game_matches_the_rules_core(memory_server: str) -> None:
    """The service's log replays to the same end in the rules core."""
    engine = stub(memory_server)
    created = create_game(engine, players=2, seed=99)
    play_out(seat_clients(engine, created, seed=3))
    game_id = created.game.game_id
    reply = engine.GetReplay(pb.GetReplayRequest(game_id=game_id), timeout=10)
    replay = Replay.from_bytes(reply.replay)
    assert replay.seed == 99
    assert replay.seats == ["seat 0", "seat 1"]
    assert reply.replay_sha256 == replay.digest()
    assert reply.steps == len(replay.actions)
    assert verify(replay).ok
    checked = engine.VerifyReplay(pb.VerifyReplayRequest(replay=reply.replay), timeout=30)
    assert checked.ok
    assert not checked.HasField("first_bad_step")
    config = GameConfig(players=2, options=RuleOptions(round_cap=3))
    assert replay.config == config
    state = new_game(config, 99)
    for action in replay.actions:
        state.apply(action)
    assert state.is_terminal()


def test_tampered_replay_is_reported(memory_server: str) -> None:
    engine = stub(memory_server)
    created = create_game(engine, seed=4)
    play_out(seat_clients(engine, created))
    blob = engine.GetReplay(pb.GetReplayRequest(game_id=created.game.game_id)).replay
    replay = Replay.from_bytes(blob)
    replay.final_hash = "0" * 32
    checked = engine.VerifyReplay(pb.VerifyReplayRequest(replay=replay.to_bytes()))
    assert not checked.ok
    assert checked.HasField("first_bad_step")


def test_seed_commitment_is_kept(memory_server: str) -> None:
    engine = stub(memory_server)
    created = create_game(engine, seed=None)  # the service draws the seed
    commitment = created.game.seed.commitment_sha256
    assert len(commitment) == 64
    assert not created.game.seed.HasField("seed")
    assert created.game.seed.salt_hex == ""
    clients = seat_clients(engine, created)
    mid = clients[0].view()
    assert not mid.seed.HasField("seed")
    play_out(clients)
    final = clients[1].view()
    assert final.seed.commitment_sha256 == commitment
    assert final.seed.HasField("seed")
    salt = bytes.fromhex(final.seed.salt_hex)
    assert len(salt) == 16
    digest = hashlib.sha256(final.seed.seed.to_bytes(8, "little") + salt).hexdigest()
    assert digest == commitment
    replay = Replay.from_bytes(engine.GetReplay(pb.GetReplayRequest(game_id=mid.game_id)).replay)
    assert replay.seed == final.seed.seed  # the rolls came from the committed seed


def test_state_at_step_browses_a_finished_game(memory_server: str) -> None:
    engine = stub(memory_server)
    created = create_game(engine, seed=8)
    play_out(seat_clients(engine, created))
    game_id = created.game.game_id
    final = engine.GetGame(pb.GetGameRequest(game_id=game_id)).game
    start = engine.GetStateAtStep(pb.GetStateAtStepRequest(game_id=game_id, step=0))
    assert start.game.sequence == 0
    assert not start.HasField("last_step")
    end = engine.GetStateAtStep(
        pb.GetStateAtStepRequest(game_id=game_id, step=final.sequence, viewer=1)
    )
    assert end.game.status == game_pb2.GAME_STATUS_OVER
    assert end.game.viewer == 1
    assert end.last_step.index == final.sequence - 1
    middle = engine.GetStateAtStep(pb.GetStateAtStepRequest(game_id=game_id, step=10))
    assert middle.game.sequence == 10
    assert middle.game.status == game_pb2.GAME_STATUS_IN_PROGRESS
    assert middle.last_step.index == 9


def test_apply_by_text_returns_steps_with_chance(memory_server: str) -> None:
    engine = stub(memory_server)
    created = create_game(engine, seed=21, options="")
    game_id = created.game.game_id
    applied_chance = False
    for _ in range(40):
        view = engine.GetGame(pb.GetGameRequest(game_id=game_id)).game
        token = created.seat_tokens[view.to_move]
        legal = engine.ListLegalActions(
            pb.ListLegalActionsRequest(game_id=game_id, seat_token=token)
        )
        assert legal.decision
        reply = engine.ApplyAction(
            pb.ApplyActionRequest(
                game_id=game_id,
                seat_token=token,
                expected_sequence=legal.sequence,
                action=game_pb2.Action(text=legal.actions[-1].text),
            )
        )
        assert reply.steps[0].action.id == legal.actions[-1].id
        assert reply.steps[0].actor == view.to_move
        assert reply.steps[0].index == legal.sequence
        assert reply.game.sequence == legal.sequence + len(reply.steps)
        assert all(s.actor == -1 and s.action.text == "roll" for s in reply.steps[1:])
        applied_chance |= len(reply.steps) > 1
    assert applied_chance


def test_create_is_idempotent(memory_server: str) -> None:
    engine = stub(memory_server)
    first = create_game(engine, seed=None, request_id="req-1")
    again = create_game(engine, seed=None, request_id="req-1")
    assert again.game.game_id == first.game.game_id
    assert list(again.seat_tokens) == list(first.seat_tokens)
    assert again.game.seed.commitment_sha256 == first.game.seed.commitment_sha256
    other = create_game(engine, seed=None, request_id="req-2")
    assert other.game.game_id != first.game.game_id


def test_view_fields(memory_server: str) -> None:
    engine = stub(memory_server)
    request = pb.CreateGameRequest(
        request_id="names",
        config=game_pb2.GameConfig(players=2, options_json=SHORT),
        seed=3,
        seat_names=["Ada", "Bo"],
    )
    created = engine.CreateGame(request)
    view = created.game
    assert list(view.seat_names) == ["Ada", "Bo"]
    assert view.config.players == 2
    assert json.loads(view.config.options_json)["round_cap"] == 3
    assert len(view.config.catalogue_sha256) == 64
    assert view.status == game_pb2.GAME_STATUS_IN_PROGRESS
    assert view.phase
    assert view.round >= 0
    observation = json.loads(view.observation_json)
    assert observation["viewer"] == -1
    assert observation["legal"] == []


def test_apply_without_view_returns_the_next_decision(memory_server: str) -> None:
    """`omit_view` drops the observation but keeps sequence, to_move and the mover's legal list."""
    engine = stub(memory_server)
    created = create_game(engine, seed=8, options="")
    game_id = created.game.game_id
    sequence, to_move = created.game.sequence, created.game.to_move
    for _ in range(60):
        token = created.seat_tokens[to_move]
        legal = engine.ListLegalActions(
            pb.ListLegalActionsRequest(game_id=game_id, seat_token=token)
        )
        reply = engine.ApplyAction(
            pb.ApplyActionRequest(
                game_id=game_id,
                seat_token=token,
                expected_sequence=sequence,
                action=game_pb2.Action(id=legal.actions[0].id),
                omit_view=True,
            )
        )
        assert not reply.HasField("game")
        view = engine.GetGame(pb.GetGameRequest(game_id=game_id)).game
        assert reply.sequence == view.sequence
        assert reply.to_move == view.to_move
        if reply.to_move == to_move:  # the same seat moves again: its legal actions come along
            again = engine.ListLegalActions(
                pb.ListLegalActionsRequest(game_id=game_id, seat_token=token)
            )
            assert [a.id for a in reply.legal_actions] == [a.id for a in again.actions]
        else:  # another seat's options are not the acting seat's to see
            assert not reply.legal_actions
        sequence, to_move = reply.sequence, reply.to_move
