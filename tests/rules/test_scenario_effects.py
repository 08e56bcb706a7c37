"""Scenarios for Public Figure abilities (RULES.md §4.3.5, §9.1, A-25, A-28, A-47).

Every ability is reached the way a player reaches it: activate a purple meeple, then
USE one of your completed buildings.
"""

from __future__ import annotations

import pytest
from tests.rules.conftest import give, held, main_game, place, refresh, texts

from heights_rules import Bucket, Cube, GameState, Meeple, RuleOptions, Score
from heights_rules.geometry import COLS, ROWS, parse_space, space_name


def neighbours(space: str) -> list[str]:
    """Orthogonal neighbours on the map; the map's edge has none beyond it."""
    row, col = divmod(parse_space(space), COLS)
    out = []
    for dr, dc in ((-1, 0), (0, -1), (0, 1), (1, 0)):
        if 0 <= row + dr < ROWS and 0 <= col + dc < COLS:
            out.append(space_name((row + dr) * COLS + col + dc))
    return out


def is_land(s: GameState, space: str) -> bool:
    return s.geo.land[parse_space(space)]


def use(s: GameState, mode: str, space: str) -> None:
    s.apply(f"activate purple {mode}")
    s.apply(f"use {space}")


def test_gambrel_museum_hard_scores_four_with_four_empty_neighbours(game: GameState) -> None:
    """Gambrel Museum: 1 VP per empty orthogonal space next to it, so at most 4."""
    s = game
    assert len(neighbours("E8")) == 4
    assert all(is_land(s, n) for n in neighbours("E8"))
    place(s, 0, "gambrel-museum", "E8", complete=True)
    give(s, 0, Meeple.PURPLE, Bucket.HARD)

    use(s, "hard", "E8")

    assert s.score[0][Score.ABILITIES] == 4


def test_gambrel_museum_counts_water_but_not_the_map_edge_or_buildings(
    game: GameState,
) -> None:
    """ "Water spaces count as empty spaces. Edges of the map do not count as empty spaces.\""""
    s = game
    # A4 lies on the top edge: neighbours A3 and A5 (land) and B4 (water).
    assert neighbours("A4") == ["A3", "A5", "B4"]
    assert [is_land(s, n) for n in neighbours("A4")] == [True, True, False]
    place(s, 0, "gambrel-museum", "A4", complete=True)
    place(s, 1, "viceroy-house", "A5")  # any building fills a space, whoever owns it
    give(s, 0, Meeple.PURPLE, Bucket.HARD)

    use(s, "hard", "A4")

    assert s.score[0][Score.ABILITIES] == 2  # A3 and the water at B4


def test_gambrel_museum_steady_gives_spending_power(game: GameState) -> None:
    """A Working Hard Public Figure may use the steady ability instead (A-26)."""
    s = game
    place(s, 0, "gambrel-museum", "E8", complete=True)
    give(s, 0, Meeple.PURPLE, Bucket.HARD)
    use(s, "hard-as-steady", "E8")
    assert s.sp == 1
    assert s.score[0][Score.ABILITIES] == 0


def test_each_building_ability_is_used_once_per_turn(game: GameState) -> None:
    """§4.3.5: "each of your purple meeples must use a different building's ability"."""
    s = game
    place(s, 0, "gambrel-museum", "E8", complete=True)
    give(s, 0, Meeple.PURPLE, Bucket.HARD, 2)
    use(s, "hard", "E8")
    assert not any(t.startswith("activate purple") for t in texts(s))

    place(s, 0, "viceroy-house", "E9", complete=True)
    s.apply("activate purple hard")
    assert texts(s) == ["use E9"]
    s.apply("use E9")
    assert s.score[0][Score.ABILITIES] == 4 + 3


def test_a_building_completed_this_turn_is_usable_at_once(game: GameState) -> None:
    """A-25: "If that building is complete" - also when it was completed this turn."""
    s = game
    viceroy = place(s, 0, "viceroy-house", "E8")
    s.fill[viceroy] = (1, 1, 3)
    s.supply[Cube.WOOD] -= 1
    s.cubes[0][Cube.WOOD] = 1
    give(s, 0, Meeple.PURPLE, Bucket.STEADY)
    assert "activate purple steady" not in texts(s)

    s.apply("build E8/3")
    s.apply("gain clear")
    assert "activate purple steady" in texts(s)
    use(s, "steady", "E8")

    assert s.score[0][Score.ABILITIES] == 1


@pytest.mark.parametrize("bucket", [Bucket.HARD, Bucket.EXHAUSTED, Bucket.USED_STEADY, Bucket.IDLE])
def test_pritzker_zoo_converts_a_construction_worker_in_place(
    game: GameState, bucket: Bucket
) -> None:
    """Pritzker Zoo: the new Executive takes exactly the converted meeple's state and
    position (active or not, activated or not; Hard, Steady or Exhausted)."""
    s = game
    place(s, 0, "pritzker-zoo", "E8", complete=True)
    give(s, 0, Meeple.PURPLE, Bucket.HARD)
    give(s, 0, Meeple.NAVY, bucket)
    give(s, 0, Meeple.NAVY, Bucket.STEADY)
    navy, magenta = s.meeple_supply[Meeple.NAVY], s.meeple_supply[Meeple.MAGENTA]

    use(s, "hard", "E8")
    picks = texts(s)
    assert len(picks) == 2
    assert all(t.startswith("pick navy ") for t in picks)
    s.apply(f"pick navy {bucket.name.lower().replace('_', '-')}")

    assert held(s, 0, Meeple.MAGENTA, bucket) == 1
    assert held(s, 0, Meeple.NAVY, bucket) == 0
    assert held(s, 0, Meeple.NAVY, Bucket.STEADY) == 1
    assert (s.meeple_supply[Meeple.NAVY], s.meeple_supply[Meeple.MAGENTA]) == (
        navy + 1,
        magenta - 1,
    )
    assert ("activate magenta hard" in texts(s)) == (bucket is Bucket.HARD)


def test_biggies_ballpark_converts_a_carpenter_and_needs_an_executive_in_supply(
    game: GameState,
) -> None:
    """Biggie's Ballpark converts a Carpenter; with no Executive left the conversion is
    not available (A-23), while its steady ability still is."""
    s = game
    place(s, 0, "biggies-ballpark", "E8", complete=True)
    give(s, 0, Meeple.PURPLE, Bucket.HARD)
    give(s, 0, Meeple.BROWN, Bucket.EXHAUSTED)
    spare = s.meeple_supply[Meeple.MAGENTA]
    s.meeple_supply[Meeple.MAGENTA] = 0
    refresh(s)
    assert "activate purple hard" not in texts(s)
    assert "activate purple hard-as-steady" in texts(s)

    s.meeple_supply[Meeple.MAGENTA] = spare
    refresh(s)
    use(s, "hard", "E8")
    assert texts(s) == ["pick brown exhausted"]
    s.apply("pick brown exhausted")
    assert held(s, 0, Meeple.MAGENTA, Bucket.EXHAUSTED) == 1
    assert held(s, 0, Meeple.BROWN, Bucket.EXHAUSTED) == 0


def test_haunted_house_can_sacrifice_the_public_figure_that_used_it(game: GameState) -> None:
    """Haunted House: the sacrificed meeple may be of any colour, active or not, activated
    or not, "including the Public Figure meeple itself"; it returns to the supply."""
    s = game
    place(s, 0, "haunted-house", "E8", complete=True)
    give(s, 0, Meeple.PURPLE, Bucket.HARD)
    give(s, 0, Meeple.YELLOW, Bucket.STEADY)
    give(s, 0, Meeple.BLUE, Bucket.IDLE)
    supply = s.meeple_supply[Meeple.PURPLE]

    use(s, "hard", "E8")
    assert texts(s) == ["pick blue idle", "pick yellow steady", "pick purple used-hard"]
    s.apply("pick purple used-hard")

    assert sum(held(s, 0, Meeple.PURPLE, b) for b in Bucket) == 0
    assert s.meeple_supply[Meeple.PURPLE] == supply + 1
    assert s.score[0][Score.ABILITIES] == 5
    assert s.meeple_count(0) == 2


@pytest.mark.parametrize(("retroactive", "bonus"), [(True, 3), (False, 1)])
def test_city_tribune_hard_doubles_politicians_this_turn(retroactive: bool, bonus: int) -> None:
    """City Tribune hard: "double the points from your yellow politicians this turn"; by
    default (A-28) politicians activated before it count too."""
    s = main_game(RuleOptions(tribune_retroactive=retroactive))
    place(s, 0, "city-tribune", "E8", complete=True)
    give(s, 0, Meeple.YELLOW, Bucket.HARD)
    give(s, 0, Meeple.YELLOW, Bucket.STEADY)
    give(s, 0, Meeple.PURPLE, Bucket.HARD)

    s.apply("activate yellow hard")  # 2 VP before the Tribune
    use(s, "hard", "E8")
    s.apply("activate yellow steady")  # 1 VP after it

    assert s.score[0][Score.POLITICIANS] == 3
    assert s.score[0][Score.ABILITIES] == bonus


def test_city_tribune_steady_scores_one(game: GameState) -> None:
    s = game
    place(s, 0, "city-tribune", "E8", complete=True)
    give(s, 0, Meeple.PURPLE, Bucket.STEADY)
    use(s, "steady", "E8")
    assert s.score[0][Score.ABILITIES] == 1
