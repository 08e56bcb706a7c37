"""The runner's side of the protocol: strict parsing of what bots send back."""

from __future__ import annotations

import json

import pytest

from heights_runner import protocol
from heights_runner.contract import BotRef, MatchSpec, SeatSpec
from heights_runner.engines import OVER, LocalEngine, Turn
from heights_sdk.patch import apply_patch


def _spec(players: int = 2) -> MatchSpec:
    seats = tuple(SeatSpec(f"s{i}", BotRef.builtin("random"), True) for i in range(players))
    return MatchSpec("m-proto", 5, seats)


def _turn() -> Turn:
    return LocalEngine(_spec()).turn()


def test_hello_carries_seat_players_and_limits() -> None:
    msg = json.loads(protocol.hello(_spec(3), 2))
    assert msg["type"] == "hello"
    assert (msg["protocol"], msg["seat"], msg["players"]) == (1, 2, 3)
    assert msg["limits"] == {
        "move_ms": 1000,
        "bank_ms": 10000,
        "start_ms": 5000,
        "game_ms": 120_000,
    }


def test_decide_carries_the_observation_with_its_legal_actions() -> None:
    turn = _turn()
    msg = json.loads(protocol.decide(turn, 1000, 9000))
    assert msg["type"] == "decide"
    assert msg["step"] == turn.step
    assert msg["observation"] == turn.observation()
    assert [a["id"] for a in msg["observation"]["legal"]]  # the seat's legal actions
    assert msg["observation"]["infoset"]["seed"] == 0  # the seed never reaches a bot
    assert msg["time"] == {"move_ms": 1000, "bank_ms": 9000}


def test_hello_offers_patches_and_ready_takes_only_offered_features() -> None:
    assert json.loads(protocol.hello(_spec(), 0))["features"] == ["patch"]
    ready = '{"type": "ready", "name": "b", "features": ["patch", "telepathy", 3]}'
    assert protocol.parse_ready(ready) == ("b", frozenset({"patch"}))
    assert protocol.parse_ready('{"type": "ready"}') == ("", frozenset())
    with pytest.raises(protocol.ProtocolViolationError):
        protocol.parse_ready('{"type": "ready", "features": "patch"}')


def test_a_seat_that_takes_patches_gets_the_change_from_its_last_observation() -> None:
    engine = LocalEngine(_spec())
    engine.patch_seats = {0, 1}
    held: dict[int, tuple[int, dict[str, object]]] = {}
    patched = 0
    while engine.to_move() != OVER and patched < 40:
        turn = engine.turn()
        msg = json.loads(protocol.decide(turn, 1000, 9000, patch=True))
        if "patch" in msg:
            base_step, base = held[turn.seat]
            assert msg["base_step"] == base_step
            observation = apply_patch(base, msg["patch"])
            patched += 1
        else:
            observation = msg["observation"]
        assert observation == json.loads(turn.whole_json())  # the full view, on demand
        held[turn.seat] = (turn.step, observation)
        engine.apply(turn.seat, observation["legal"][0]["id"])
    assert patched == 40


def test_a_seat_without_patches_always_gets_whole_observations() -> None:
    engine = LocalEngine(_spec())
    for _ in range(30):
        turn = engine.turn()
        assert not turn.patch_json
        msg = json.loads(protocol.decide(turn, 1000, 9000, patch=True))
        engine.apply(turn.seat, msg["observation"]["legal"][0]["id"])


def test_a_legal_action_with_a_note_is_accepted() -> None:
    line = json.dumps({"type": "action", "id": 17, "debug": "x" * 500})
    assert protocol.parse_action(line) == (17, "x" * protocol.MAX_DEBUG)


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("hello", "garbage"),
        ("[1, 2]", "garbage"),
        ('{"type": "ready"}', "garbage"),
        ('{"type": "action", "id": "5"}', "garbage"),
        ('{"type": "action", "id": true}', "garbage"),
    ],
)
def test_bad_replies_name_their_forfeit_reason(line: str, reason: str) -> None:
    with pytest.raises(protocol.ProtocolViolationError) as err:
        protocol.parse_action(line)
    assert err.value.reason == reason
