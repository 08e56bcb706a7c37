"""Replay records: round trips, verification, tampering, and malformed input."""

from __future__ import annotations

import contextlib
import gzip
import json
from functools import cache
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from heights_rules import (
    ACTION_SPACE_VERSION,
    ENGINE_VERSION,
    TERMINAL,
    GameConfig,
    GameState,
    Replay,
    ReplayError,
    RuleOptions,
    load_catalogue,
    new_game,
    replay_advance,
    replay_start,
    verify,
)
from heights_rules.replay import CHECKPOINT_EVERY, Recorder, simulate
from heights_rules.rng import KeyedRng

SEATS = ["alice", "bob", "carol"]
CONFIG = GameConfig(players=3, options=RuleOptions(round_cap=30))
SEED = 2024


@cache
def recorded() -> bytes:
    """The bytes of one finished 3-player game's replay (built once, copied per test)."""
    state = new_game(CONFIG, SEED)
    recorder = Recorder(state, SEATS)
    policy = KeyedRng(SEED)
    while state.current_player() != TERMINAL:
        legal = state.legal_actions()
        step = len(recorder.replay.actions)
        recorder.apply(legal[policy.below(len(legal), b"policy", step)], note=f"n{step}")
    return recorder.replay.to_bytes()


def fresh() -> Replay:
    return Replay.from_bytes(recorded())


def test_recorded_replay_round_trips_and_verifies() -> None:
    replay = fresh()
    again = Replay.from_bytes(replay.to_bytes())
    assert again == replay
    assert again.to_bytes() == replay.to_bytes() == recorded()
    assert again.digest() == replay.digest()
    result = verify(again)
    assert result.ok, result.message
    assert result.steps == len(replay.actions)
    assert result.first_bad_step is None
    assert len(replay.checkpoints) == len(replay.actions) // CHECKPOINT_EVERY
    final = simulate(again)
    assert final.is_terminal()
    assert final.state_hash() == replay.final_hash


def test_replay_record_carries_everything_needed_to_reproduce() -> None:
    data = json.loads(gzip.decompress(recorded()))
    catalogue = load_catalogue(CONFIG.catalogue_id)
    assert data["format"] == "rolling-heights-replay"
    assert data["engine_version"] == ENGINE_VERSION
    assert data["action_space_version"] == ACTION_SPACE_VERSION
    assert data["config"]["catalogue"] == {"id": catalogue.id, "sha256": catalogue.sha256}
    assert data["config"]["options"] == CONFIG.options.to_dict()
    assert data["config"]["options"]["round_cap"] == 30
    assert data["config"]["players"] == 3
    assert data["seed"] == SEED
    assert data["seats"] == SEATS
    assert data["debug"]["0"] == "n0"
    assert len(data["final_hash"]) == 32


def test_replay_bytes_are_reproducible() -> None:
    assert fresh().to_bytes() == recorded()
    assert Replay.from_bytes(gzip.decompress(recorded())) == fresh()  # plain JSON is read too


def test_a_replay_of_an_unfinished_game_does_not_verify() -> None:
    replay = fresh()
    del replay.actions[-1]
    result = verify(replay)
    assert not result.ok
    assert "does not reach its end" in result.message


def prefix_state_legal(replay: Replay, step: int) -> list[int]:
    return simulate(replay, step).legal_actions()


def alternative(replay: Replay, step: int) -> int | None:
    """Another legal action at `step` whose game differs where verify looks, if there is one.

    That is at the next checkpoint (or the end), or at a later recorded action it makes
    illegal. An action the next steps undo leaves the same game, which no check can tell
    apart: in this game on reconstructed-v4, picking another meeple right before the
    recorded `end` of the turn leaves no trace.
    """
    before = simulate(replay, step)
    window_end = min(len(replay.actions), (step // CHECKPOINT_EVERY + 1) * CHECKPOINT_EVERY)

    def reached(action: int) -> str | None:
        state = before.clone()
        state.apply(action)
        for later in replay.actions[step + 1 : window_end]:
            if later not in state.legal_actions():
                return None
            state.apply(later)
        return state.state_hash()

    chosen = reached(replay.actions[step])
    for action in before.legal_actions():
        if action != replay.actions[step] and reached(action) != chosen:
            return action
    return None


def tampered_steps() -> list[int]:
    n = len(fresh().actions)
    return [1, 5, 70, 200, 400, n - 40, n - 3]


@pytest.mark.parametrize("index", range(7))
def test_tampering_with_one_action_is_located(index: int) -> None:
    """verify names a step in the checkpoint window of the change, or the rejected step."""
    replay = fresh()
    step = tampered_steps()[index]
    while (action := alternative(replay, step)) is None:
        step += 1
    replay.actions[step] = action
    result = verify(replay)
    assert not result.ok
    assert result.first_bad_step is not None, result.message
    if "rejected" in result.message:
        assert result.first_bad_step >= step
        assert f"step {result.first_bad_step}" in result.message
    else:
        # Every step before first_bad_step is confirmed by a checkpoint.
        assert result.first_bad_step <= step < result.first_bad_step + CHECKPOINT_EVERY


def test_tampering_right_after_a_checkpoint_is_located() -> None:
    """A change that the engine accepts is located at the first unconfirmed step."""
    base = fresh()
    for step in range(CHECKPOINT_EVERY, len(base.actions), CHECKPOINT_EVERY):
        before = simulate(base, step)
        for action in before.legal_actions():
            if action == base.actions[step]:
                continue
            replay = fresh()
            replay.actions[step] = action
            result = verify(replay)
            if not result.ok and "rejected" not in result.message:
                assert result.first_bad_step == step
                return
    pytest.fail("no accepted change right after a checkpoint in this game")


@pytest.mark.parametrize("step", [0, 33, 500])
def test_an_illegal_action_is_rejected_at_its_step(step: int) -> None:
    replay = fresh()
    legal = prefix_state_legal(replay, step)
    replay.actions[step] = next(a for a in range(2000) if a not in legal)
    result = verify(replay)
    assert not result.ok
    assert result.first_bad_step == step
    assert f"step {step}" in result.message
    with pytest.raises(ReplayError, match=f"step {step}"):
        simulate(replay)


# --------------------------------------------------------------------- malformed input
@pytest.mark.parametrize(
    "blob",
    [b"", b"\x1f", b"\x1f\x8b", b"garbage", b"[]", b"{}", b"null", b"\xff\xfe\x00"],
    ids=["empty", "one-byte", "magic-only", "text", "list", "empty-object", "null", "binary"],
)
def test_garbage_bytes_raise_replay_error(blob: bytes) -> None:
    with pytest.raises(ReplayError):
        Replay.from_bytes(blob)


def test_every_truncation_raises_replay_error() -> None:
    blob = recorded()
    for end in range(0, len(blob), max(1, len(blob) // 200)):
        with pytest.raises(ReplayError):
            Replay.from_bytes(blob[:end])
    with pytest.raises(ReplayError):
        Replay.from_bytes(blob[:-1])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(blob=st.binary(max_size=300))
def test_random_bytes_raise_replay_error(blob: bytes) -> None:
    with pytest.raises(ReplayError):
        Replay.from_bytes(blob)


def test_a_corrupted_byte_is_read_or_raises_replay_error() -> None:
    blob = recorded()
    for position in range(len(blob)):
        corrupted = bytearray(blob)
        corrupted[position] ^= 0x55
        with contextlib.suppress(ReplayError):
            Replay.from_bytes(bytes(corrupted))


def document(**changes: Any) -> bytes:
    data = json.loads(gzip.decompress(recorded()))
    data.update(changes)
    return json.dumps(data).encode()


@pytest.mark.parametrize(
    "changes",
    [
        {"format": "chess-pgn"},
        {"version": 99},
        {"action_space_version": ACTION_SPACE_VERSION + 1},
        {"seed": "one"},
        {"seats": 3},
        {"actions": ["roll"]},
        {"checkpoints": 5},
        {"config": {"players": 9}},
        {"config": {"players": 2, "catalogue": {"id": "reconstructed-v1", "sha256": "00"}}},
        {"config": {"players": 2, "options": {"no_such_option": 1}}},
    ],
    ids=",".join,
)
def test_malformed_records_raise_replay_error(changes: dict[str, Any]) -> None:
    with pytest.raises(ReplayError):
        Replay.from_bytes(document(**changes))


@pytest.mark.parametrize("changes", [{"config": []}, {"debug": []}], ids=["config", "debug"])
def test_wrongly_typed_records_raise_replay_error(changes: dict[str, Any]) -> None:
    with pytest.raises(ReplayError):
        Replay.from_bytes(document(**changes))


@pytest.mark.parametrize("changes", [{"actions": [-5]}, {"seed": -1}, {"actions": [1.5]}])
def test_impossible_ids_and_seeds_are_refused_when_read(changes: dict[str, Any]) -> None:
    with pytest.raises(ReplayError):
        Replay.from_bytes(document(**changes))


@pytest.mark.parametrize("action", [-5, 5000])
def test_simulate_raises_replay_error_for_impossible_actions(action: int) -> None:
    replay = fresh()
    replay.actions[3] = action
    assert not verify(replay).ok
    with pytest.raises(ReplayError, match="step 3"):
        simulate(replay)


def test_a_replay_for_another_catalogue_hash_is_refused() -> None:
    config = json.loads(gzip.decompress(recorded()))["config"]
    config["catalogue"]["sha256"] = "f" * 64
    with pytest.raises(ReplayError, match="hash"):
        Replay.from_bytes(document(config=config))


@pytest.mark.parametrize("start", [0, 1, CHECKPOINT_EVERY, 200])
def test_stepping_resumed_from_a_saved_state_reaches_the_same_game(start: int) -> None:
    """What the platform's cached stepping does: a state saved at `start` (as bytes, as a
    stored checkpoint is) resumes through `replay_advance` to the state `simulate` gives,
    byte for byte, each step reported once with the events it caused."""
    replay = fresh()
    saved = GameState.from_bytes(simulate(replay, start).to_bytes())
    upto = start + 70
    reached = list(replay_advance(replay, saved, start, upto))
    assert [step for step, _ in reached] == list(range(start, upto))
    assert any(events for _, events in reached)
    assert saved.to_bytes() == simulate(replay, upto).to_bytes()


def test_advancing_from_the_start_state_plays_the_whole_record() -> None:
    replay = fresh()
    state = replay_start(replay)
    assert [step for step, _ in replay_advance(replay, state)] == list(range(len(replay.actions)))
    assert state.is_terminal()
    assert state.to_bytes() == simulate(replay).to_bytes()


def test_advancing_names_the_step_whose_action_is_refused() -> None:
    replay = fresh()
    replay.actions[5] = 10**6  # no action has this id
    state = replay_start(replay)
    with pytest.raises(ReplayError, match=r"^step 5: action 1000000: "):
        list(replay_advance(replay, state))
