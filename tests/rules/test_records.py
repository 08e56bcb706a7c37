"""`heights_rules.records.Record`, the catalogue's types: what a frozen dataclass gave them
(construction, equality, the same hash, a readable repr, read-only fields, copies and
pickles), without a dataclass's cost at import."""

from __future__ import annotations

import copy
import dataclasses
import pickle

import pytest

from heights_rules import load_catalogue
from heights_rules.catalogue import Cell, ScoringRef, TileDef
from heights_rules.components import BuildingType
from heights_rules.records import Record


class Pair(Record):
    left: int
    right: str


@dataclasses.dataclass(frozen=True, slots=True)
class DataPair:
    left: int
    right: str


def test_built_by_position_or_keyword_with_every_field() -> None:
    assert Pair(1, "a") == Pair(left=1, right="a") == Pair(1, right="a")
    assert (Pair(1, "a").left, Pair(1, "a").right) == (1, "a")
    bad: tuple[object, ...]
    for bad in [(), (1,), (1, "a", 2)]:
        with pytest.raises(TypeError):
            Pair(*bad)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        Pair(1, "a", left=2)  # type: ignore[misc]
    with pytest.raises(TypeError):
        Pair(1, "a", other=3)  # type: ignore[call-arg]


def test_equal_within_a_class_only_and_hashed_as_a_frozen_dataclass() -> None:
    assert Pair(1, "a") != Pair(1, "b")
    assert Pair(1, "a") != (1, "a")
    assert Pair(1, "a") != DataPair(1, "a")
    # The same hash as the dataclass it replaces: sets and dicts of records keep their order.
    assert hash(Pair(1, "a")) == hash(DataPair(1, "a")) == hash((1, "a"))
    assert [p.left for p in {Pair(i, "x") for i in range(50)}] == [
        p.left for p in {DataPair(i, "x") for i in range(50)}
    ]


def test_read_only_with_slots_and_a_repr() -> None:
    pair = Pair(1, "a")
    with pytest.raises(AttributeError):
        pair.left = 2  # type: ignore[misc]
    with pytest.raises(AttributeError):
        del pair.left
    assert Pair.__slots__ == ("left", "right")
    assert not hasattr(pair, "__dict__")
    assert repr(pair) == "Pair(left=1, right='a')"
    assert repr(ScoringRef("count", {"n": 1})) == "ScoringRef(fn='count', params={'n': 1})"


def test_copies_and_pickles_are_equal_records() -> None:
    catalogue = load_catalogue()
    for value in (Pair(1, "a"), catalogue.tiles[0], catalogue.boards[0], catalogue):
        for twin in (copy.copy(value), copy.deepcopy(value), pickle.loads(pickle.dumps(value))):
            assert twin == value
            assert type(twin) is type(value)


def test_the_catalogue_types_are_records_not_dataclasses() -> None:
    cell = Cell(land=True, prime=0, zoning_types=(BuildingType.RESIDENTIAL,), zoning_vp=1)
    assert isinstance(cell, Record)
    assert not dataclasses.is_dataclass(cell)
    assert TileDef.__match_args__[:3] == ("index", "id", "name")
