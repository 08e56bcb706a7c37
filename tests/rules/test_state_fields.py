"""The table of the state's fields (heights_rules.state_fields) is the one list of them.

The class, its copies, the state document and the infoset follow it, and docs/engine.md's
table of the fields is the table itself (`heights catalogue --state-fields` prints it):
a field added, removed or changed in one place and not the others fails here.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import pytest

from heights_cli.catalogue_cmd import state_fields_markdown
from heights_rules import (
    STATE_FIELDS,
    GameConfig,
    GameState,
    KeyedRng,
    from_infoset,
    infoset,
    new_game,
)
from heights_rules.geometry import MapGeometry
from heights_rules.observation import HIDDEN
from heights_rules.serialize import to_dict
from heights_rules.state import State
from heights_rules.state_fields import Kind, Stored, Visibility

REPO = Path(__file__).resolve().parents[2]
ENGINE_DOC = REPO / "docs" / "engine.md"
GENERATED = re.compile(
    r"<!-- state-fields: begin.*?-->\n(?P<table>.*?)<!-- state-fields: end -->", re.S
)
# The state document's keys in their order since format version 1: the bytes sort them,
# but infosets and the observation patches made from them keep this order.
DOCUMENT_KEYS = [
    "format",
    "version",
    "config",
    "seed",
    "slots",
    "token_slot",
    "ads",
    "phase",
    "termination",
    "stack",
    "fill",
    "round",
    "seat",
    "start_seat",
    "roll_idx",
    "sp",
    "bought",
    "pol_vp",
    "pol_mult",
    "misc_in_play",
    "end_round",
    "steps",
    "order",
    "supply",
    "on_buildings",
    "meeple_supply",
    "turn_no",
    "wild",
    "owner",
    "space_of",
    "complete",
    "tile_wild",
    "used_buildings",
    "sweeten",
    "target_choice",
    "score",
    "cubes",
    "meeples",
    "owned",
    "market",
    "piles",
    "targets",
]


def mid_game(players: int = 3, seed: int = 11, steps: int = 150) -> GameState:
    state = new_game(GameConfig(players=players), seed)
    while state.steps < steps and not state.is_terminal():
        legal = state.legal_actions()
        state.apply(legal[(state.steps * 7919) % len(legal)])
    return state


def comparable(value: Any) -> Any:
    """A field's value as something `==` compares by content (the dice by what they draw)."""
    if isinstance(value, KeyedRng):
        return value.digest(b"probe", 0)
    if isinstance(value, MapGeometry):
        return value.slots
    return value


def annotated_fields() -> set[str]:
    """The fields `State` declares, read from its source (a compiled class keeps no
    annotations)."""
    tree = ast.parse((REPO / "services/engine/heights_rules/state.py").read_text("utf-8"))
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "State")
    return {
        n.target.id
        for n in cls.body
        if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)
    }


def test_the_table_names_every_field_of_the_state_once() -> None:
    names = [f.name for f in STATE_FIELDS]
    assert len(names) == len(set(names))
    assert set(names) == annotated_fields()
    with pytest.raises(AttributeError):
        State().not_a_field = 0  # type: ignore[attr-defined]


def test_the_documents_keys_keep_their_order() -> None:
    assert list(to_dict(mid_game())) == DOCUMENT_KEYS
    rebuilt = [f.document_key for f in STATE_FIELDS if f.stored is Stored.REBUILT]
    assert not set(rebuilt) & set(DOCUMENT_KEYS)


def test_the_table_in_docs_engine_md_is_the_code_table() -> None:
    found = GENERATED.search(ENGINE_DOC.read_text(encoding="utf-8"))
    assert found, "docs/engine.md has no generated table of the state's fields"
    assert found["table"] == state_fields_markdown(), (
        "docs/engine.md's table of the state's fields differs from heights_rules.state_fields: "
        "paste `heights catalogue --state-fields` between its markers"
    )


def test_a_clone_shares_values_and_copies_lists_and_rows() -> None:
    state = mid_game()
    clone = state.clone()
    for f in STATE_FIELDS:
        mine, theirs = getattr(state, f.name), getattr(clone, f.name)
        assert comparable(mine) == comparable(theirs), f.name
        if f.kind is Kind.VALUE:
            assert mine is theirs, f"{f.name}: a value should be shared"
        else:
            assert mine is not theirs, f"{f.name}: a clone shares the list"
        if f.kind is Kind.ROWS:
            assert all(a is not b for a, b in zip(mine, theirs, strict=True)), f.name


def test_bytes_round_trip_every_field() -> None:
    state = mid_game(players=4)
    rebuilt = GameState.from_bytes(state.to_bytes())
    for f in STATE_FIELDS:
        assert comparable(getattr(rebuilt, f.name)) == comparable(getattr(state, f.name)), f.name


def test_an_infoset_keeps_the_public_fields_and_hides_the_rest() -> None:
    state, viewer = mid_game(), 1
    seen = from_infoset(infoset(state, viewer))
    for f in STATE_FIELDS:
        mine, shown = comparable(getattr(state, f.name)), comparable(getattr(seen, f.name))
        if f.visibility is Visibility.PUBLIC:
            assert shown == mine, f"{f.name} is public but differs in an infoset"
        elif f.visibility is Visibility.CONTENTS:
            assert shown == [sorted(row) for row in mine] != mine, f.name
        elif f.visibility is Visibility.OWN_SEAT:
            assert shown[viewer] == mine[viewer], f.name
            assert all(set(row) == {HIDDEN} for p, row in enumerate(shown) if p != viewer)
        else:
            assert shown != mine, f"{f.name} is visible to nobody but shows in an infoset"


def test_an_infoset_does_not_change_with_what_its_viewer_may_not_know() -> None:
    state, viewer = mid_game(), 0
    other = state.clone()
    other.seed += 1
    other.piles = [row[::-1] for row in other.piles]
    other.targets = [
        row if p == viewer else [t + 1 for t in row] for p, row in enumerate(other.targets)
    ]
    assert infoset(other, viewer) == infoset(state, viewer)
    other.supply[0] += 1
    assert infoset(other, viewer) != infoset(state, viewer)
