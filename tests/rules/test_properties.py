"""Invariants of whole random games (hypothesis over seeds and player counts).

Each example plays one game to its end with a counter-keyed random policy and checks
an invariant at every step (or at sampled steps where the check is costly): no crash
and no dead end, conservation of cubes and meeples, every point accounted for by a
"score" event, serialization round trips, refused actions leave no trace, and
observations hide what the viewer must not know.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import Phase as Stage
from hypothesis import strategies as st

from heights_rules import (
    CHANCE,
    NUM_ACTIONS,
    TERMINAL,
    Action,
    ActionKind,
    Event,
    GameConfig,
    GameState,
    IllegalActionError,
    InvalidActionError,
    Phase,
    Score,
    Termination,
    new_game,
    outcome,
)
from heights_rules.components import CUBES, MEEPLE_COUNTS, MEEPLES, N_BUCKETS, SCORES
from heights_rules.game import determinize, from_infoset
from heights_rules.observation import HIDDEN, PUBLIC, infoset
from heights_rules.rng import KeyedRng
from heights_rules.serialize import to_dict
from heights_rules.state_fields import STATE_FIELDS, Stored, Visibility

CONFIGS = (
    GameConfig(players=2),
    GameConfig(players=3),
    GameConfig(players=4),
    GameConfig.solo_game(),
)
MAX_STEPS = 20_000  # far above any real game (~200-1400 steps): a bound on a runaway loop
SAMPLE_EVERY = 13  # costly checks run on every 13th step (prime, so no phase locking)
ROLL = Action(ActionKind.ROLL).id

configs = st.sampled_from(CONFIGS)
seeds = st.integers(0, 2**32)
# A game is chaotic in its seed, so shrinking a seed finds nothing simpler and only burns
# minutes; a failure reports its seed and step instead.
game_settings = settings(
    max_examples=8,
    deadline=None,
    phases=(Stage.explicit, Stage.reuse, Stage.generate),
    suppress_health_check=[HealthCheck.too_slow],
)


def choose(policy: KeyedRng, legal: list[int], step: int) -> int:
    return legal[policy.below(len(legal), b"policy", step)]


def decisions(state: GameState, seed: int) -> Iterator[tuple[int, list[int], int]]:
    """(step, legal actions, the policy's choice) at each decision; the caller applies it."""
    policy = KeyedRng(seed)
    for index in range(MAX_STEPS):
        if state.current_player() == TERMINAL:
            return
        legal = state.legal_actions()
        assert legal, f"seed {seed}: no legal action at step {index} ({state.decision_text()})"
        yield index, legal, choose(policy, legal, index)
    pytest.fail(f"seed {seed}: the game did not end within {MAX_STEPS} steps")


def play_out(state: GameState, policy_key: int) -> GameState:
    """Play `state` to its end with a random policy (in place) and return it."""
    policy = KeyedRng(policy_key)
    for index in range(MAX_STEPS):
        if state.current_player() == TERMINAL:
            return state
        state.apply(choose(policy, state.legal_actions(), index))
    pytest.fail(f"the game did not end within {MAX_STEPS} steps")


# --------------------------------------------------------------------- termination
@game_settings
@given(config=configs, seed=seeds)
def test_games_never_crash_or_dead_end(config: GameConfig, seed: int) -> None:
    """Every non-terminal state offers a legal action, each applies, and the game ends."""
    state = new_game(config, seed)
    for index, legal, action in decisions(state, seed):
        where = f"seed {seed} step {index}"
        assert legal == sorted(set(legal)), where
        assert all(0 <= a < NUM_ACTIONS for a in legal), where
        player = state.current_player()
        assert player == CHANCE or 0 <= player < state.n_seats, where
        if player == CHANCE:
            assert legal == [ROLL], where
        before = state.to_bytes()
        for other in legal:
            state.clone().apply(other)
        assert state.to_bytes() == before, f"{where}: applying to a clone changed the original"
        state.apply(action)
    assert state.is_terminal()
    assert state.legal_actions() == []
    assert state.termination in (Termination.TRIGGER, Termination.ROUND_CAP)
    result = outcome(state)
    assert result.totals == tuple(state.totals())
    assert min(result.ranks) == 1
    assert all(1 <= r <= state.n_players for r in result.ranks)


# --------------------------------------------------------------------- conservation
def tile_cubes(state: GameState) -> list[int]:
    """Cubes of each colour standing on placed tiles (real and misc alike)."""
    on_tiles = [0] * len(CUBES)
    for tile, space in enumerate(state.space_of):
        stacks = state.catalogue.tiles[tile].stacks
        fill = state.fill[tile]
        if space < 0:
            assert not any(fill), f"tile {tile} is not on the map but holds cubes"
            continue
        for (colour, height), filled in zip(stacks, fill, strict=True):
            assert 0 <= filled <= height, f"tile {tile}: stack filled {filled}/{height}"
            on_tiles[colour] += filled
        full = all(f == h for f, (_, h) in zip(fill, stacks, strict=True))
        assert state.complete[tile] == full, f"tile {tile}: complete flag {state.complete[tile]}"
    return on_tiles


def check_conservation(state: GameState, where: str) -> None:
    on_tiles = tile_cubes(state)
    for colour in CUBES:
        held = sum(state.cubes[p][colour] for p in range(state.n_players))
        supply, built = state.supply[colour], state.on_buildings[colour]
        total, name = state.total[colour], colour.name
        assert supply >= 0, f"{where}: {name} supply {supply}"
        assert supply + held + built == total, (
            f"{where}: {name} supply {supply} + held {held} + on buildings {built} != {total}"
        )
        # Misc cubes are built only once every real cube of the colour is on a building,
        # which triggers the end; until then every cube on a tile is a real one.
        tiles = on_tiles[colour]
        if state.end_round == 0:
            assert built == tiles, f"{where}: {name} {built} on buildings, tiles hold {tiles}"
        else:
            assert built <= tiles, f"{where}: {name} {built} on buildings, tiles hold {tiles}"
    assert all(n >= 0 for row in state.cubes for n in row), f"{where}: negative held cubes"
    for meeple in MEEPLES:
        lo, hi = meeple * N_BUCKETS, (meeple + 1) * N_BUCKETS
        owned = sum(sum(state.meeples[p][lo:hi]) for p in range(state.n_players))
        supply = state.meeple_supply[meeple]
        assert supply >= 0, f"{where}: {meeple.name} meeple supply {supply}"
        assert supply + owned == MEEPLE_COUNTS[meeple], (
            f"{where}: {meeple.name} meeples: supply {supply} + owned {owned}"
            f" != {MEEPLE_COUNTS[meeple]}"
        )
    assert all(n >= 0 for row in state.meeples for n in row), f"{where}: negative meeples"
    assert all(n >= 0 for n in state.wild), f"{where}: negative Wild Tokens"


@game_settings
@given(config=configs, seed=seeds)
def test_cubes_and_meeples_are_conserved(config: GameConfig, seed: int) -> None:
    state = new_game(config, seed)
    check_conservation(state, f"seed {seed} setup")
    for index, _, action in decisions(state, seed):
        state.apply(action)
        check_conservation(state, f"seed {seed} after step {index}")


# --------------------------------------------------------------------- scoring
def score_events(events: list[Event]) -> Iterator[tuple[int, Score, int]]:
    for event in events:
        if event.kind == "score":
            yield event.player, Score[event.data["category"]], event.data["vp"]


@game_settings
@given(config=configs, seed=seeds)
def test_every_point_is_accounted_for_by_an_event(config: GameConfig, seed: int) -> None:
    state = new_game(config, seed)
    tally = [[0] * len(SCORES) for _ in range(state.n_players)]
    for index, _, action in decisions(state, seed):
        for player, category, vp in score_events(state.apply(action)):
            assert vp != 0, f"seed {seed} step {index}: a zero-VP score event"
            tally[player][category] += vp
        assert tally == state.score, f"seed {seed} step {index}: {tally} != {state.score}"
    assert state.is_terminal()
    assert outcome(state).totals == tuple(sum(row) for row in tally)


# --------------------------------------------------------------------- serialization
@game_settings
@given(config=configs, seed=seeds)
def test_serialization_round_trips_and_continues_identically(config: GameConfig, seed: int) -> None:
    state = new_game(config, seed)
    for index, legal, action in decisions(state, seed):
        where = f"seed {seed} step {index}"
        blob = state.to_bytes()
        rebuilt = GameState.from_bytes(blob)
        assert rebuilt.to_bytes() == blob, f"{where}: the round trip changed the bytes"
        assert rebuilt.legal_actions() == legal, f"{where}: legal actions differ"
        assert rebuilt.current_player() == state.current_player(), where
        copy = state.clone()
        assert copy.to_bytes() == blob, f"{where}: the clone differs"
        events = state.apply(action)
        assert rebuilt.apply(action) == events, f"{where}: the rebuilt state's events differ"
        assert copy.apply(action) == events, f"{where}: the clone's events differ"
        after = state.to_bytes()
        assert rebuilt.to_bytes() == after, f"{where}: the rebuilt state continued differently"
        assert copy.to_bytes() == after, f"{where}: the clone continued differently"


# --------------------------------------------------------------------- refused actions
def illegal_id(policy: KeyedRng, legal: list[int], step: int) -> int:
    """An action id that is well formed but not legal now."""
    candidate = policy.below(NUM_ACTIONS, b"illegal", step)
    while candidate in legal:
        candidate = (candidate + 1) % NUM_ACTIONS
    return candidate


def test_every_action_text_parses_back() -> None:
    """Refused texts below are only meaningful if every text names its own action."""
    for action_id in range(NUM_ACTIONS):
        action = Action.from_id(action_id)
        assert Action.parse(action.text()) == action


def check_refused(state: GameState, action: object, error: type[Exception], where: str) -> None:
    blob, legal = state.to_bytes(), list(state.legal_actions())
    with pytest.raises(error):
        state.apply(action)  # type: ignore[arg-type]
    assert state.to_bytes() == blob, f"{where}: a refused {action!r} changed the state"
    assert state.legal_actions() == legal, f"{where}: a refused {action!r} changed legality"


@game_settings
@given(config=configs, seed=seeds)
def test_refused_actions_change_nothing(config: GameConfig, seed: int) -> None:
    state = new_game(config, seed)
    policy = KeyedRng(seed ^ 0x1111)
    for index, legal, action in decisions(state, seed):
        if index % SAMPLE_EVERY == 0:
            where = f"seed {seed} step {index}"
            bad = illegal_id(policy, legal, index)
            check_refused(state, bad, IllegalActionError, where)
            check_refused(state, Action.from_id(bad), IllegalActionError, where)
            check_refused(state, Action.from_id(bad).text(), IllegalActionError, where)
            for malformed in (-1, NUM_ACTIONS, True, 1.0, "nonsense", "build"):
                check_refused(state, malformed, InvalidActionError, where)
            player = state.current_player()
            wrong_seat = 0 if player == CHANCE else player + 1
            blob = state.to_bytes()
            with pytest.raises(IllegalActionError):
                state.apply(action, seat=wrong_seat)
            assert state.to_bytes() == blob, f"{where}: a wrong-seat action changed the state"
        state.apply(action)
    check_refused(state, ROLL, IllegalActionError, f"seed {seed} after the end")


# --------------------------------------------------------------------- hidden information
def hidden_target_ids(state: GameState, viewer: int) -> set[str]:
    """Catalogue ids of the Targets `viewer` must not see (chosen ones are revealed)."""
    if state.phase is Phase.OVER:
        return set()
    return {
        state.catalogue.targets[t].id
        for p, targets in enumerate(state.targets)
        if p != viewer
        for t in targets
        if t != state.target_choice[p]
    }


def check_observation_hides(state: GameState, viewer: int, where: str) -> None:
    view = state.observation(viewer)
    data = view["infoset"]
    over = state.phase is Phase.OVER
    assert data["seed"] == 0, f"{where}: the seed is visible to {viewer}"
    assert data["piles"] == [sorted(pile) for pile in state.piles], f"{where}: pile order"
    for p, targets in enumerate(data["targets"]):
        shown = over or p == viewer
        assert shown or set(targets) <= {HIDDEN}, f"{where}: seat {p}'s Targets leak to {viewer}"
        assert shown == ("targets" in view["players"][p]), f"{where}: seat {p}'s Target view"
    text = json.dumps(view)
    for target_id in hidden_target_ids(state, viewer):
        assert f'"{target_id}"' not in text, f"{where}: {target_id} is visible to {viewer}"
    # Only the seat to move is shown its choices: a spectator, none (the engine's
    # spectator view and the platform's replay steps are this observation as it is).
    shown_choices = viewer != PUBLIC and state.current_player() == viewer
    assert bool(view["legal"]) == shown_choices, f"{where}: legal actions shown to {viewer}"


def public_fields(data: dict[str, Any], viewer: int) -> dict[str, Any]:
    """The state document without what `viewer` does not know (the table's visibility)."""
    out = dict(data)
    for f in STATE_FIELDS:
        key = f.document_key
        if f.stored is Stored.REBUILT or f.visibility is Visibility.PUBLIC:
            continue
        if f.visibility is Visibility.NOBODY:
            out.pop(key)
        elif f.visibility is Visibility.CONTENTS:
            out[key] = [sorted(row) for row in data[key]]
        else:  # OWN_SEAT: the viewer's row, and how long the others' are
            out[key] = [row if p == viewer else len(row) for p, row in enumerate(data[key])]
    return out


def check_determinization(state: GameState, viewer: int, key: int, where: str) -> None:
    world = determinize(from_infoset(infoset(state, viewer)), viewer, key)
    assert world.legal_actions() == state.legal_actions(), f"{where}: legal actions differ"
    assert world.current_player() == state.current_player(), where
    assert public_fields(to_dict(world), viewer) == public_fields(to_dict(state), viewer), where
    dealt = [t for targets in world.targets for t in targets]
    assert HIDDEN not in dealt, f"{where}: a Target is still hidden after determinize"
    assert len(dealt) == len(set(dealt)), f"{where}: a Target is dealt twice: {world.targets}"
    for p, choice in enumerate(world.target_choice):
        assert choice < 0 or choice in world.targets[p], (
            f"{where}: seat {p} chose Target {choice} but holds {world.targets[p]}"
        )
    # The view depends on the information set only, so it is the same in every world.
    assert world.observation(viewer) == state.observation(viewer), f"{where}: view leaks"


@game_settings
@given(config=configs, seed=seeds)
def test_observations_hide_secrets_and_determinize_consistently(
    config: GameConfig, seed: int
) -> None:
    state = new_game(config, seed)
    key = seed ^ 0xD1CE  # differs from the seed, so a leaked seed would show
    sampled = 0
    for index, _, action in decisions(state, seed):
        if index % SAMPLE_EVERY == 0 or state.phase is Phase.TARGETS:
            where = f"seed {seed} step {index}"
            check_observation_hides(state, PUBLIC, where)
            for viewer in range(state.n_seats):
                check_observation_hides(state, viewer, where)
                check_determinization(state, viewer, key + index, where)
            sampled += 1
        state.apply(action)
    assert sampled > 0
    view = state.observation(PUBLIC)
    assert all("targets" in player for player in view["players"][: state.n_seats])


@settings(game_settings, max_examples=4)
@given(config=configs, seed=seeds, percent=st.integers(0, 99))
def test_determinized_worlds_play_to_the_end(config: GameConfig, seed: int, percent: int) -> None:
    """A search bot plays on from determinized worlds, so they must be whole games."""
    length = sum(1 for _ in decisions_and_apply(new_game(config, seed), seed))
    cut = length * percent // 100
    state = new_game(config, seed)
    for index, _, action in decisions(state, seed):
        if index == cut:
            break
        state.apply(action)
    for viewer in range(state.n_seats):
        world = determinize(from_infoset(infoset(state, viewer)), viewer, seed + viewer)
        end = play_out(world, seed)
        check_conservation(end, f"seed {seed} world of seat {viewer} from step {cut}")
        assert end.termination in (Termination.TRIGGER, Termination.ROUND_CAP)


def decisions_and_apply(state: GameState, seed: int) -> Iterator[int]:
    for index, _, action in decisions(state, seed):
        state.apply(action)
        yield index
