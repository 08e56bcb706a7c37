"""Observation patches: applied to the base, a patch gives exactly the new document.

`make_patch` (rules core) and `heights_sdk.patch.apply_patch` (the bots' side, stdlib
only) are two halves of one contract, checked together: on arbitrary JSON, and on
every view of whole games (each seat's, and the public one).
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from heights_bots.bot import make_bot
from heights_rules import CHANCE, TERMINAL, GameConfig, GameState
from heights_rules.game import new_game
from heights_rules.observation import PUBLIC
from heights_rules.patches import make_patch
from heights_sdk.patch import PatchError, apply_patch


def _text(data: Any) -> str:
    return json.dumps(data, sort_keys=True)


def _round_trip(old: Any, new: Any) -> list[dict[str, Any]]:
    before = _text(old)
    ops: list[dict[str, Any]] = json.loads(json.dumps(make_patch(old, new)))  # as sent
    assert _text(apply_patch(old, ops)) == _text(new)
    assert _text(old) == before, "applying a patch changed its base"
    return ops


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.sampled_from(["a", "~", "/"]),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.sampled_from(["a", "b", "c/d", "e~f", ""]), inner, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(JSON, JSON)
def test_any_document_patches_into_any_other(old: Any, new: Any) -> None:
    _round_trip(old, new)


def test_equal_values_of_other_json_types_are_changes() -> None:
    assert _round_trip({"a": 1}, {"a": True}) == [{"op": "replace", "path": "/a", "value": True}]
    assert _round_trip([0], [False]) == [{"op": "replace", "path": "/0", "value": False}]


def test_equal_containers_with_other_json_types_inside_are_changes() -> None:
    # `==` calls these equal; the type walk must find the leaf at any depth, in lists
    # and objects alike.
    old = {"a": {"b": [1, [2, 0]]}, "c": [{"x": 1}]}
    new = {"a": {"b": [1, [2, False]]}, "c": [{"x": 1.0}]}
    assert _round_trip(old, new) == [
        {"op": "replace", "path": "/a/b/1/1", "value": False},
        {"op": "replace", "path": "/c/0/x", "value": 1.0},
    ]


def test_member_names_are_escaped_as_json_pointers() -> None:
    ops = _round_trip({"a/b": 1, "c~d": 2}, {"a/b": 3, "c~d": 4})
    assert [op["path"] for op in ops] == ["/a~1b", "/c~0d"]


def test_an_unchanged_document_needs_no_operation() -> None:
    doc = {"a": [1, {"b": None}], "c": "x"}
    assert make_patch(doc, copy.deepcopy(doc)) == []


@pytest.mark.parametrize(
    ("ops", "message"),
    [
        ([{"op": "move", "from": "/a", "path": "/b"}], "unsupported operation"),
        ([{"op": "replace", "path": "/missing", "value": 1}], "no member"),
        ([{"op": "replace", "path": "a", "value": 1}], "must start with '/'"),
        ([{"op": "add", "path": "/a/x"}], "has no value"),
        ([{"op": "replace", "path": "/l/7", "value": 1}], "out of range"),
        ([{"op": "replace", "path": "/l/01", "value": 1}], "not an array index"),
        ([{"op": "remove", "path": ""}], "whole document"),
        ("not a list", "list of operations"),
    ],
)
def test_a_patch_that_does_not_apply_is_a_clear_error(ops: Any, message: str) -> None:
    doc = {"a": {"k": 1}, "l": [1, 2]}
    with pytest.raises(PatchError, match=message):
        apply_patch(doc, ops)
    assert doc == {"a": {"k": 1}, "l": [1, 2]}


def _views_of_a_game(config: GameConfig, seed: int) -> int:
    """Play greedy to the end; at each decision patch every viewer's last view."""
    state: GameState = new_game(config, seed)
    bots = [make_bot("greedy", seed * 8 + s) for s in range(state.n_players)]
    # Per viewer: the view as built (the engine's base) and as a bot received it (JSON).
    last: dict[int, tuple[dict[str, Any], Any]] = {}
    checked = 0
    while (seat := state.current_player()) != TERMINAL:
        if seat == CHANCE:
            state.apply(state.legal_actions()[0])
            continue
        for viewer in (seat, PUBLIC):
            view = state.observation(viewer)
            if viewer in last:
                built, received = last[viewer]
                # A view must be a snapshot: had `built` shared lists with the state, it
                # would have moved on with the game and the patch would miss changes.
                assert _text(built) == _text(received)
                ops = json.loads(json.dumps(make_patch(built, view)))
                assert _text(apply_patch(received, ops)) == _text(view)
                checked += 1
            last[viewer] = (view, json.loads(json.dumps(view)))
        state.apply(bots[seat].act(state, seat))
    return checked


@pytest.mark.parametrize(
    "config",
    [GameConfig(players=2), GameConfig(players=3), GameConfig(players=4), GameConfig.solo_game()],
    ids=["2p", "3p", "4p", "solo"],
)
def test_every_view_of_a_game_patches_from_the_viewers_last_one(config: GameConfig) -> None:
    assert _views_of_a_game(config, seed=11) > 200
