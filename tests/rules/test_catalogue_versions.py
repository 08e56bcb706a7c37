"""Each catalogue version differs from reconstructed-v1 only in values the project
reconstructed (RULES.md decision 3; docs/balance.md says what changed and why).

A field a source gives (named in an item's `sources`) keeps its value exactly, with its
provenance; where the source note itself says a number or type in it is reconstructed
("values reconstructed"), only those may change: the effects and scoring functions the
source describes stay. The earlier versions stay playable, so their replays verify.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from heights_rules import DEFAULT_CATALOGUE, load_catalogue

DATA_DIR = Path(__file__).resolve().parents[2] / "services/engine/heights_rules/data"
VERSIONS = {
    n: json.loads((DATA_DIR / f"reconstructed-v{n}.json").read_text(encoding="utf-8"))
    for n in (1, 2, 3, 4)
}
V1 = VERSIONS[1]
KINDS = ("boards", "tiles", "ads", "targets")


def _pairs(old_cat: dict[str, Any], new_cat: dict[str, Any]) -> list[Any]:
    out = []
    for kind in KINDS:
        for old, new in zip(old_cat[kind], new_cat[kind], strict=True):
            out.append((f"{kind}/{old['id']}", old, new))
    return out


def _against_v1() -> list[Any]:
    return [
        pytest.param(label, old, new, id=f"v{n}-{label}")
        for n in (2, 3, 4)
        for label, old, new in _pairs(V1, VERSIONS[n])
    ]


def _shape(value: Any) -> Any:
    """The effects and scoring functions named in a value, without their numbers."""
    if isinstance(value, dict):
        named = {k: value[k] for k in ("effect", "fn") if k in value}
        return named | {k: _shape(v) for k, v in value.items() if isinstance(v, dict)}
    return None


def test_v4_is_the_default_and_v1_v2_and_v3_stay_playable() -> None:
    assert DEFAULT_CATALOGUE == "reconstructed-v4"
    for n, data in VERSIONS.items():
        assert data["id"] == f"reconstructed-v{n}"
        assert load_catalogue(f"reconstructed-v{n}").id == data["id"]


@pytest.mark.parametrize("n", [2, 3, 4])
def test_every_version_has_the_same_items_in_the_same_order(n: int) -> None:
    for kind in KINDS:
        assert [i["id"] for i in VERSIONS[n][kind]] == [i["id"] for i in V1[kind]]
    assert VERSIONS[n]["map"] == V1["map"]


@pytest.mark.parametrize(("label", "old", "new"), _against_v1())
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


@pytest.mark.parametrize("n", [2, 3, 4])
def test_each_version_changes_something(n: int) -> None:
    changed = [label for label, old, new in _pairs(VERSIONS[n - 1], VERSIONS[n]) if old != new]
    assert changed, f"v{n} is v{n - 1} under another name"
