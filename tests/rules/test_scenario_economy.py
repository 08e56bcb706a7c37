"""Scenarios for miscellaneous (orange) cubes (RULES.md §5, A-17 to A-21)."""

from __future__ import annotations

from tests.rules.conftest import give, place, refresh, texts

from heights_rules import Bucket, Cube, GameState, Meeple
from heights_rules.economy import MISC


def last_wood_in_supply(s: GameState) -> None:
    """Every wood cube but one is on buildings; one is left in the supply."""
    s.on_buildings[Cube.WOOD] = s.total[Cube.WOOD] - 1
    s.supply[Cube.WOOD] = 1
    refresh(s)


def test_an_empty_supply_gives_misc_cubes_tagged_with_the_colour(game: GameState) -> None:
    """§5.1/§5.2: when a colour's supply runs out, misc cubes enter and stand for it."""
    s = game
    last_wood_in_supply(s)
    give(s, 0, Meeple.BROWN, Bucket.HARD)

    events = s.apply("activate brown hard")

    assert [(e.kind, e.data.get("misc")) for e in events if e.kind in ("cube", "misc_enters")] == [
        ("cube", False),
        ("misc_enters", None),
        ("cube", True),
    ]
    assert s.misc_in_play
    assert s.cubes[0][Cube.WOOD] == 1
    assert s.cubes[0][MISC + Cube.WOOD] == 1
    assert s.supply[Cube.WOOD] == 0


def test_misc_cubes_are_spent_first_and_real_cubes_return_to_the_supply(
    game: GameState,
) -> None:
    """§5.1: "you must spend the miscellaneous cubes first"; A-18: a refilled supply gives
    real cubes again."""
    s = game
    last_wood_in_supply(s)
    give(s, 0, Meeple.BROWN, Bucket.HARD)
    s.apply("activate brown hard")
    s.sp = 2
    refresh(s)

    s.apply("trade glass")
    assert texts(s) == ["pay sp", "pay misc-wood"]  # Spending Power is not a cube
    s.apply("pay misc-wood")
    assert texts(s) == ["pay sp", "pay wood"]
    s.apply("pay wood")

    assert s.cubes[0][Cube.GLASS] == 1
    assert s.supply[Cube.WOOD] == 1  # the real wood went back; the misc cube did not
    give(s, 0, Meeple.BROWN, Bucket.STEADY)
    s.apply("activate brown steady")
    assert (s.cubes[0][Cube.WOOD], s.cubes[0][MISC + Cube.WOOD]) == (1, 0)


def test_misc_cubes_are_built_only_after_every_real_cube_of_the_colour(
    game: GameState,
) -> None:
    """§5.4: a misc cube standing for wood goes on a wood stack only once every real wood
    cube is on buildings, which is also the game-end trigger (§6)."""
    s = game
    viceroy = place(s, 0, "viceroy-house", "E8")
    last_wood_in_supply(s)
    s.cubes[0][MISC + Cube.WOOD] = 1
    refresh(s)
    assert not any(t.startswith("build") for t in texts(s))

    s.supply[Cube.WOOD] = 0
    s.cubes[0][Cube.WOOD] = 1  # the last real wood cube
    refresh(s)
    events = s.apply("build E8/1")  # the real cube is used first
    assert (s.cubes[0][Cube.WOOD], s.cubes[0][MISC + Cube.WOOD]) == (0, 1)
    assert [e.kind for e in events if e.kind == "end_triggered"] == ["end_triggered"]

    assert "build E8/2" in texts(s)
    s.apply("build E8/2")
    assert s.cubes[0][MISC + Cube.WOOD] == 0
    assert s.on_buildings[Cube.WOOD] == s.total[Cube.WOOD]
    assert s.fill[viceroy] == (1, 1, 0)
