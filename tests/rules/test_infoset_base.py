"""A state rebuilt from an infoset on a base (the bot's last one) is the state rebuilt
from scratch: `from_infoset(..., base=)` takes from the base state only what the patched
infoset shares with the base infoset, and copies what a clone would copy.

Each seat's infosets come as a bot receives them: the first whole, then each as a JSON
Patch of the seat's last one applied with the SDK (`heights_sdk.patch.apply_patch`).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from heights_bots.bot import make_bot
from heights_rules import CHANCE, STATE_FIELDS, TERMINAL, GameConfig, GameState, from_infoset
from heights_rules.game import new_game
from heights_rules.patches import make_patch
from heights_rules.state_fields import Kind, Stored
from heights_sdk.patch import apply_patch


def _received(config: GameConfig, seed: int) -> list[list[dict[str, Any]]]:
    """Each seat's infosets of a greedy game, as a bot taking patches holds them."""
    state: GameState = new_game(config, seed)
    bots = [make_bot("greedy", seed * 8 + s) for s in range(state.n_players)]
    sent: dict[int, dict[str, Any]] = {}
    held: dict[int, dict[str, Any]] = {}
    out: list[list[dict[str, Any]]] = [[] for _ in range(state.n_players)]
    while (seat := state.current_player()) != TERMINAL:
        if seat == CHANCE:
            state.apply(state.legal_actions()[0])
            continue
        view = state.observation(seat)
        if seat in sent:
            ops = json.loads(json.dumps(make_patch(sent[seat], view)))
            held[seat] = apply_patch(held[seat], ops)
        else:
            held[seat] = json.loads(json.dumps(view))
        sent[seat] = view
        out[seat].append(held[seat]["infoset"])
        state.apply(bots[seat].act(state, seat))
    return out


@pytest.mark.parametrize(
    "config", [GameConfig(players=4), GameConfig.solo_game()], ids=["4p", "solo"]
)
def test_a_state_on_a_base_is_the_state_from_scratch(config: GameConfig) -> None:
    reused = 0
    for infosets in _received(config, seed=5):
        base: tuple[dict[str, Any], GameState] | None = None
        for doc in infosets:
            scratch = from_infoset(json.loads(json.dumps(doc)), owned=True)
            state = from_infoset(doc, owned=True, base=base)
            assert state.to_bytes() == scratch.to_bytes()
            assert state.legal_actions() == scratch.legal_actions()
            for f in STATE_FIELDS:
                if f.stored is Stored.REBUILT and f.name not in ("catalogue", "rng"):
                    assert getattr(state, f.name) == getattr(scratch, f.name), f.name
            if base is not None:
                _check_sharing(state, base[1])
                # A rebuild makes its own cube totals: the base's, when it was used.
                reused += state.total is base[1].total
            base = (doc, state)
    assert reused > 100  # the base was used, not only checked


def _check_sharing(state: GameState, before: GameState) -> None:
    """Mutable fields converted or rebuilt are never the base's own lists (a bot may keep
    or change either state)."""
    for f in STATE_FIELDS:
        if f.stored is Stored.AS_IS:
            continue
        mine, theirs = getattr(state, f.name), getattr(before, f.name)
        if f.kind is not Kind.VALUE:
            assert mine is not theirs, f.name
            if f.kind is Kind.ROWS:
                assert all(a is not b for a, b in zip(mine, theirs, strict=False)), f.name


def test_a_base_whose_parts_are_not_shared_is_not_used() -> None:
    """Equal values that are other objects (a whole observation, not a patch) are
    rebuilt: the base is trusted only for the very objects it was made from."""
    infosets = _received(GameConfig(players=2), seed=3)[0]
    first = from_infoset(json.loads(json.dumps(infosets[0])), owned=True)
    doc = json.loads(json.dumps(infosets[0]))
    state = from_infoset(doc, owned=True, base=(json.loads(json.dumps(infosets[0])), first))
    # Each rebuild makes its own cube totals: the base's would be this very tuple.
    assert state.total is not first.total
    assert state.to_bytes() == first.to_bytes()
