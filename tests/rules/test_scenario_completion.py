"""Scenarios for constructing and completing buildings (RULES.md §4.3.10, §4.3.11).

The two stack examples of the rulebook: Viceroy House (wood 1, 1, 4) and City Hall
(glass 1, 2, 2; steel 3, 6).
"""

from __future__ import annotations

from tests.rules.conftest import CATALOGUE, held, place, refresh, texts

from heights_rules import Bucket, Cube, GameState, Meeple, Score


def hand(s: GameState, p: int, colour: Cube, n: int) -> None:
    s.supply[colour] -= n
    s.cubes[p][colour] += n
    refresh(s)


def builds_on(s: GameState, space: str) -> list[str]:
    return [t for t in texts(s) if t.startswith(f"build {space}/")]


def test_viceroy_house_needs_two_single_wood_and_a_stack_of_four(game: GameState) -> None:
    """§4.3.10 example: "To complete Viceroy House, you must place 2 single wood cubes and
    1 stack of 4 wood cubes"; completion scores its VP and gives its meeple, non-active."""
    s = game
    viceroy = CATALOGUE.tile_by_id("viceroy-house")
    assert viceroy.stacks == ((Cube.WOOD, 1), (Cube.WOOD, 1), (Cube.WOOD, 4))
    place(s, 0, "viceroy-house", "E8")
    hand(s, 0, Cube.WOOD, 6)

    # The two identical empty single stacks are offered once.
    assert builds_on(s, "E8") == ["build E8/1", "build E8/3"]
    for action in ["build E8/1", "build E8/2", "build E8/3", "build E8/3", "build E8/3"]:
        events = s.apply(action)
        assert not [e for e in events if e.kind == "complete"]
    assert s.fill[viceroy.index] == (1, 1, 3)
    assert not s.complete[viceroy.index]
    assert s.score[0][Score.COMPLETION] == 0
    assert builds_on(s, "E8") == ["build E8/3"]  # the single stacks are full

    events = s.apply("build E8/3")

    assert [e.data["tile"] for e in events if e.kind == "complete"] == ["viceroy-house"]
    assert s.complete[viceroy.index]
    assert s.score[0][Score.COMPLETION] == viceroy.vp
    assert s.on_buildings[Cube.WOOD] == 6
    assert s.cubes[0][Cube.WOOD] == 0
    # A two-colour meeple icon: the player chooses one of the two colours.
    assert texts(s) == ["gain clear", "gain blue"]
    s.apply("gain blue")
    assert held(s, 0, Meeple.BLUE, Bucket.IDLE) == 1
    assert not any(t.startswith("activate blue") for t in texts(s))
    assert builds_on(s, "E8") == []


def test_viceroy_house_is_not_complete_with_five_wood(game: GameState) -> None:
    """Completion needs exactly the printed cubes: 5 wood leave it unfinished."""
    s = game
    tile = place(s, 0, "viceroy-house", "E8")
    hand(s, 0, Cube.WOOD, 5)
    for action in ["build E8/1", "build E8/2", "build E8/3", "build E8/3", "build E8/3"]:
        s.apply(action)
    assert not s.complete[tile]
    assert builds_on(s, "E8") == []  # nothing left to build with
    hand(s, 0, Cube.CONCRETE, 3)
    assert builds_on(s, "E8") == []  # a wood stack takes only wood


def test_city_hall_needs_five_glass_and_nine_steel(game: GameState) -> None:
    """§4.3.10 example: "1 single glass cube, 2 stacks of 2 glass cubes, 1 stack of 3 steel
    cubes, and 1 stack of 6 steel cubes"; complete only after the last (14th) cube."""
    s = game
    city_hall = CATALOGUE.tile_by_id("city-hall")
    assert city_hall.stacks == (
        (Cube.GLASS, 1),
        (Cube.GLASS, 2),
        (Cube.GLASS, 2),
        (Cube.STEEL, 3),
        (Cube.STEEL, 6),
    )
    place(s, 0, "city-hall", "D8")
    hand(s, 0, Cube.STEEL, 9)
    assert builds_on(s, "D8") == ["build D8/4", "build D8/5"]  # no glass in hand
    hand(s, 0, Cube.GLASS, 5)

    plan = ["build D8/1"] + ["build D8/2"] * 2 + ["build D8/3"] * 2
    plan += ["build D8/4"] * 3 + ["build D8/5"] * 6
    for action in plan[:-1]:
        s.apply(action)
        assert not s.complete[city_hall.index]
    assert s.score[0][Score.COMPLETION] == 0
    s.apply(plan[-1])

    assert s.complete[city_hall.index]
    assert s.score[0][Score.COMPLETION] == city_hall.vp
    assert (s.on_buildings[Cube.GLASS], s.on_buildings[Cube.STEEL]) == (5, 9)
    assert texts(s) == ["gain yellow", "gain purple"]
    s.apply("gain purple")
    assert held(s, 0, Meeple.PURPLE, Bucket.IDLE) == 1
    # Gained meeples are non-active: the new Public Figure cannot act this turn.
    assert not any(t.startswith("activate") for t in texts(s))


def test_a_single_colour_reward_is_gained_without_a_choice(game: GameState) -> None:
    """§4.3.11: the depicted meeple comes from the supply (Gambrel Museum: a Riveter)."""
    s = game
    museum = CATALOGUE.tile_by_id("gambrel-museum")
    assert museum.meeples == ((Meeple.BLUE,),)
    place(s, 0, "gambrel-museum", "E8")
    for colour, n in [(Cube.WOOD, 2), (Cube.CONCRETE, 1), (Cube.GLASS, 1)]:
        hand(s, 0, colour, n)
    supply = s.meeple_supply[Meeple.BLUE]
    for action in ["build E8/1", "build E8/1", "build E8/2", "build E8/3"]:
        s.apply(action)
    assert s.complete[museum.index]
    assert held(s, 0, Meeple.BLUE, Bucket.IDLE) == 1
    assert s.meeple_supply[Meeple.BLUE] == supply - 1
    assert "end" in texts(s)
