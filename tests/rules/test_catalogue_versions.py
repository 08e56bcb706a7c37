"""reconstructed-v2 differs from reconstructed-v1 only in values the project reconstructed
(RULES.md decision 3; docs/balance.md says what changed and why).

A field a source gives (named in an item's `sources`) keeps its value exactly, with its
provenance; where the source note itself says a number or type in it is reconstructed
("values reconstructed"), only those may change: the effects and scoring functions the
source describes stay.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from heights_rules import DEFAULT_CATALOGUE, load_catalogue

DATA_DIR = Path(__file__).resolve().parents[2] / "services/engine/heights_rules/data"
V1 = json.loads((DATA_DIR / "reconstructed-v1.json").read_text(encoding="utf-8"))
V2 = json.loads((DATA_DIR / "reconstructed-v2.json").read_text(encoding="utf-8"))
KINDS = ("boards", "tiles", "ads", "targets")


def _pairs() -> list[tuple[str, dict[str, Any], dict[str, Any]]]:
    out = []
    for kind in KINDS:
        for old, new in zip(V1[kind], V2[kind], strict=True):
            out.append((f"{kind}/{old['id']}", old, new))
    return out


def _shape(value: Any) -> Any:
    """The effects and scoring functions named in a value, without their numbers."""
    if isinstance(value, dict):
        named = {k: value[k] for k in ("effect", "fn") if k in value}
        return named | {k: _shape(v) for k, v in value.items() if isinstance(v, dict)}
    return None


def test_v2_is_the_default_and_v1_stays_playable() -> None:
    assert DEFAULT_CATALOGUE == "reconstructed-v2"
    assert load_catalogue("reconstructed-v1").id == "reconstructed-v1"
    assert V2["id"] == "reconstructed-v2"


def test_v2_has_the_same_items_in_the_same_order() -> None:
    for kind in KINDS:
        assert [i["id"] for i in V2[kind]] == [i["id"] for i in V1[kind]]
    assert V2["map"] == V1["map"]


def _label(value: object) -> str:
    return value if isinstance(value, str) else ""


@pytest.mark.parametrize(("label", "old", "new"), _pairs(), ids=_label)
def test_sourced_values_and_provenance_are_unchanged(
    label: str, old: dict[str, Any], new: dict[str, Any]
) -> None:
    assert new["sources"] == old["sources"], label
    assert new["provenance"] == old["provenance"], label
    for field, note in old["sources"].items():
        if "reconstructed" in note:
            assert _shape(new[field]) == _shape(old[field]), f"{label}.{field}"
        else:
            assert new[field] == old[field], f"{label}.{field} comes from {note}"


def test_v2_changes_something() -> None:
    changed = [label for label, old, new in _pairs() if old != new]
    assert changed, "v2 is v1 under another name"
