"""Hidden information never reaches another seat or a spectator; streams show the game."""

from __future__ import annotations

import json
import threading
from typing import Any

from tests.engine.clients import create_game, play_out, seat_clients, stub

from heights_engine.proto import engine_service_pb2 as pb
from heights_engine.proto import game_pb2
from heights_rules import GameConfig, new_game
from heights_rules.replay import Replay


def check_hidden(text: str, viewer: int, seed: int, targets: list[list[str]]) -> None:
    """No other seat's Targets, no pile order, no seed in an observation before the end."""
    observation: dict[str, Any] = json.loads(text)
    infoset = observation["infoset"]
    if observation["phase"] == "OVER":
        return
    assert str(seed) not in text
    for p, ids in enumerate(targets):
        for target in ids if p != viewer else []:
            if json.dumps(target) in text:  # only once chosen, at the end
                assert observation["players"][p].get("chosen_target") == target
    assert infoset["seed"] == 0
    assert all(pile == sorted(pile) for pile in infoset["piles"])
    for p, player in enumerate(observation["players"]):
        if p == viewer:
            assert "targets" in player
            assert -1 not in infoset["targets"][p]
        else:
            assert "targets" not in player
            assert "target_values" not in player
            assert set(infoset["targets"][p]) == {-1}
    if viewer == -1:
        assert observation["legal"] == []


def test_no_hidden_information_leaks(memory_server: str) -> None:
    engine = stub(memory_server)
    created = create_game(engine, players=3, seed=1234567890123, options="")  # to the end
    clients = seat_clients(engine, created, seed=9)
    spectator: list[str] = []
    game_id = created.game.game_id

    def watch() -> None:
        request = pb.StreamGameEventsRequest(game_id=game_id)
        for message in engine.StreamGameEvents(request, timeout=60):
            if message.HasField("game"):
                spectator.append(message.game.observation_json)

    watcher = threading.Thread(target=watch)
    watcher.start()
    play_out(clients)
    watcher.join(timeout=60)
    final = clients[0].view()
    seed = final.seed.seed
    assert seed == 1234567890123
    assert final.outcome.termination == "TRIGGER"  # played through the Target choice
    dealt = new_game(
        GameConfig.from_dict(json.loads(final.observation_json)["infoset"]["config"]), seed
    )
    targets = [[dealt.catalogue.targets[t].id for t in pair] for pair in dealt.targets]
    for seat, client in enumerate(clients):
        assert len(client.seen) > 10
        for text in client.seen:
            check_hidden(text, seat, seed, targets)
    assert len(spectator) > 2
    for text in spectator:
        check_hidden(text, -1, seed, targets)
    assert json.loads(spectator[-1])["phase"] == "OVER"


def test_stream_delivers_every_step_in_order(memory_server: str) -> None:
    engine = stub(memory_server)
    created = create_game(engine, seed=77)
    game_id = created.game.game_id
    clients = seat_clients(engine, created, seed=2)
    for _ in range(5):
        for client in clients:
            client.play_if_my_turn()
    received: list[pb.StreamGameEventsResponse] = []
    seat_view = pb.StreamGameEventsRequest(game_id=game_id, seat_token=created.seat_tokens[1])

    def watch() -> None:
        received.extend(engine.StreamGameEvents(seat_view, timeout=60))

    watcher = threading.Thread(target=watch)
    watcher.start()
    play_out(clients)
    watcher.join(timeout=60)
    assert not watcher.is_alive()
    assert received[0].HasField("game")
    assert not received[0].HasField("step")
    steps = [m.step for m in received if m.HasField("step")]
    assert [s.index for s in steps] == list(range(len(steps)))
    blob = engine.GetReplay(pb.GetReplayRequest(game_id=game_id)).replay
    assert [s.action.id for s in steps] == Replay.from_bytes(blob).actions
    assert all(m.game.viewer == 1 for m in received if m.HasField("game"))
    assert received[-1].game.status == game_pb2.GAME_STATUS_OVER
    # Resuming after a sequence sends only what follows it.
    resumed = pb.StreamGameEventsRequest(game_id=game_id, after_sequence=len(steps) - 3)
    tail = [m.step.index for m in engine.StreamGameEvents(resumed) if m.HasField("step")]
    assert tail == [len(steps) - 3, len(steps) - 2, len(steps) - 1]


def test_a_stream_ahead_of_the_game_sends_no_step_before_its_sequence(
    memory_server: str,
) -> None:
    engine = stub(memory_server)
    created = create_game(engine, seed=78)
    game_id = created.game.game_id
    clients = seat_clients(engine, created, seed=3)
    ahead = created.game.sequence + 6
    request = pb.StreamGameEventsRequest(game_id=game_id, after_sequence=ahead)
    received: list[int] = []

    def watch() -> None:
        for message in engine.StreamGameEvents(request, timeout=60):
            if message.HasField("step"):
                received.append(message.step.index)
                if len(received) == 5:
                    return

    watcher = threading.Thread(target=watch)
    watcher.start()
    play_out(clients)
    watcher.join(timeout=60)
    assert not watcher.is_alive()
    # It used to start from where the game was when the stream opened.
    assert received == list(range(ahead, ahead + 5))
