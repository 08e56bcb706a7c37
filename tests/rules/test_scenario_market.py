"""Scenarios for buying and placing plans, sweetening and the market refill
(RULES.md §4.3.8, §4.4, A-06 to A-12)."""

from __future__ import annotations

import pytest
from tests.rules.conftest import CATALOGUE, main_game, pass_turn, pay_all, place, refresh, texts

from heights_rules import Cube, GameState
from heights_rules.economy import MISC
from heights_rules.geometry import COLS, parse_space, space_name

# (row, column) offsets from the own tile for each distance-cost case of the video example.
OFFSETS = {
    "adjacent": ((0, 1), 0),
    "diagonal": ((1, 1), 1),
    "two-in-line": ((0, 2), 1),
    "three-away": ((1, 2), 2),
}


def offset(space: int, dr: int, dc: int) -> int | None:
    row, col = divmod(space, COLS)
    if 0 <= row + dr < 8 and 0 <= col + dc < COLS:
        return (row + dr) * COLS + col + dc
    return None


def anchor_for(s: GameState) -> str:
    """An empty plain land space from which every case of OFFSETS is plain empty land."""

    def plain(sp: int | None) -> bool:
        return sp is not None and s.geo.land[sp] and s.geo.prime[sp] == 0

    for sp in s.geo.land_spaces:
        if plain(sp) and all(plain(offset(sp, *d)) for d, _ in OFFSETS.values()):
            return space_name(sp)
    raise AssertionError("no anchor on this map")


def spend(s: GameState, sp: int) -> None:
    s.sp = sp
    refresh(s)


@pytest.mark.parametrize("case", OFFSETS)
def test_distance_cost_is_one_cube_per_space_between(game: GameState, case: str) -> None:
    """§4.3.8 and the video: "place here, and you need to pay 0 extra cubes, 1 extra cube,
    2 extra cubes" - measured orthogonally to your closest plan (A-06)."""
    s = game
    anchor = anchor_for(s)
    place(s, 0, "viceroy-house", anchor)
    (dr, dc), extra = OFFSETS[case]
    target = offset(parse_space(anchor), dr, dc)
    assert target is not None
    spend(s, 10)

    s.apply("buy L1#1")  # market cost 1
    s.apply(f"place {space_name(target)}")

    assert pay_all(s, "sp") == 1 + extra
    assert s.owner[s.on_cell[target]] == 0


def test_place_options_are_the_spaces_you_can_afford(game: GameState) -> None:
    """ "If you cannot pay the full costs at that moment, then you cannot buy that tile":
    with 2 to spend on a cost-1 plan, only spaces costing at most 1 more are offered."""
    s = game
    anchor = anchor_for(s)
    place(s, 0, "viceroy-house", anchor)
    spend(s, 2)
    s.apply("buy L1#1")
    offered = {t.removeprefix("place ") for t in texts(s)}
    a = parse_space(anchor)
    for (dr, dc), extra in OFFSETS.values():
        name = space_name(offset(a, dr, dc) or 0)
        assert (name in offered) == (extra <= 1), name
    for name in offered:
        sp = parse_space(name)
        row, col = divmod(sp, COLS)
        distance = abs(row - a // COLS) + abs(col - a % COLS)
        assert s.geo.prime[sp] + max(0, distance - 1) <= 1


def test_prime_real_estate_adds_its_printed_cost(game: GameState) -> None:
    s = game
    prime = next(sp for sp in s.geo.land_spaces if s.geo.prime[sp] == 2)
    near = next(n for n in s.geo.adjacent[prime] if s.geo.land[n] and s.geo.prime[n] == 0)
    place(s, 0, "viceroy-house", space_name(near))
    spend(s, 10)
    s.apply("buy L1#3")  # market cost 2
    s.apply(f"place {space_name(prime)}")
    assert pay_all(s, "sp") == 2 + 2


@pytest.mark.parametrize(
    ("level", "costs"), [(1, [1, 1, 2, 2, 3, 3, 4, 4, 5]), (2, [2, 2, 3, 3, 4, 4, 5, 5, 6])]
)
def test_market_cost_depends_on_the_position(level: int, costs: list[int]) -> None:
    """A-07 default costs; a plan you cannot pay for is not offered."""
    for pos, cost in enumerate(costs, start=1):
        s = main_game()
        spend(s, cost - 1)
        assert f"buy L{level}#{pos}" not in texts(s)
        spend(s, cost)
        s.apply(f"buy L{level}#{pos}")
        s.apply(texts(s)[0])  # no own plan yet: every space is free of distance cost
        assert pay_all(s, "sp") == cost + s.geo.prime[s.space_of[s.owned[0][0]]]


def test_only_one_purchase_per_turn(game: GameState) -> None:
    s = game
    spend(s, 10)
    s.apply("buy L1#1")
    s.apply(texts(s)[0])
    pay_all(s, "sp")
    assert not any(t.startswith("buy") for t in texts(s))


def test_cubes_and_spending_power_pay_with_misc_cubes_first(game: GameState) -> None:
    """§4.3.6 Any Cube, §5.3: cubes go back to the supply; misc cubes must go first."""
    s = game
    s.supply[Cube.WOOD] -= 1
    s.cubes[0][Cube.WOOD] = 1
    s.cubes[0][MISC + Cube.STEEL] = 1
    s.sp = 1
    refresh(s)
    wood = s.supply[Cube.WOOD]
    s.apply("buy L1#3")  # cost 2
    s.apply(texts(s)[0])
    assert texts(s) == ["pay sp", "pay misc-steel"]
    s.apply("pay misc-steel")
    assert texts(s) == ["pay sp", "pay wood"]
    s.apply("pay wood")
    assert "end" in texts(s)
    assert s.supply[Cube.WOOD] == wood + 1
    assert s.sp == 1


def test_buying_beyond_position_two_sweetens_positions_one_and_two(game: GameState) -> None:
    """§4.3.8: buying a plan that is not one of the 2 farthest from the draw pile puts a
    Wild Token on each of those 2 at the end of the turn; whoever buys one later gets it."""
    s = game
    first, second = s.market[0][0], s.market[0][1]
    spend(s, 10)
    s.apply("buy L1#5")
    s.apply(texts(s)[0])
    pay_all(s, "sp")
    assert (s.tile_wild[first], s.tile_wild[second]) == (0, 0)  # not before the end of turn

    s.apply("end")
    assert (s.tile_wild[first], s.tile_wild[second]) == (1, 1)
    assert s.market[0][:2] == [first, second]
    assert sum(s.tile_wild) == 2

    while "end" not in texts(s):  # seat 1 rolls, then stops
        s.apply("roll" if "roll" in texts(s) else "stop")
    spend(s, 1)
    s.apply("buy L1#2")
    s.apply(texts(s)[0])
    pay_all(s, "sp")
    assert s.wild[1] == 1
    assert s.tile_wild[second] == 0


@pytest.mark.parametrize("bought", ["L1#1", "L1#2", "L2#1"])
def test_buying_at_positions_one_or_two_sweetens_nothing(game: GameState, bought: str) -> None:
    s = game
    spend(s, 10)
    s.apply(f"buy {bought}")
    s.apply(texts(s)[0])
    pay_all(s, "sp")
    s.apply("end")
    assert sum(s.tile_wild) == 0


def test_a_level_two_purchase_sweetens_only_its_own_market(game: GameState) -> None:
    s = game
    spend(s, 10)
    s.apply("buy L2#4")
    s.apply(texts(s)[0])
    pay_all(s, "sp")
    s.apply("end")
    assert [s.tile_wild[t] for t in s.market[1][:2]] == [1, 1]
    assert [s.tile_wild[t] for t in s.market[0][:2]] == [0, 0]


def test_cleanup_slides_the_market_and_refills_from_its_pile(game: GameState) -> None:
    """§4.4: tiles slide toward position 1 and the draw pile refills the top."""
    s = game
    before, top = list(s.market[0]), s.piles[0][-1]
    spend(s, 10)
    s.apply("buy L1#4")
    s.apply(texts(s)[0])
    pay_all(s, "sp")
    s.apply("end")
    assert s.market[0] == before[:3] + before[4:] + [top]


def test_an_empty_pile_refills_from_the_other_market_pile(game: GameState) -> None:
    """§4.4: "In the rare case that a draw area has run out of tiles, refill from the draw
    area of the other market instead"; with both empty the space stays blank (A-09)."""
    s = game
    s.piles[0] = []
    top = s.piles[1][-1]
    assert CATALOGUE.tiles[top].level == 2
    spend(s, 10)
    s.apply("buy L1#4")
    s.apply(texts(s)[0])
    pay_all(s, "sp")
    s.apply("end")
    assert s.market[0][8] == top

    s.piles[1] = []
    pass_turn(s)  # seat 1
    spend(s, 10)
    s.apply("buy L1#1")
    s.apply(texts(s)[0])
    pay_all(s, "sp")
    s.apply("end")
    assert s.market[0][8] == -1
    while "end" not in texts(s):  # seat 1 rolls, then stops
        s.apply("roll" if "roll" in texts(s) else "stop")
    spend(s, 10)
    assert "buy L1#9" not in texts(s)
    assert "buy L1#8" in texts(s)
