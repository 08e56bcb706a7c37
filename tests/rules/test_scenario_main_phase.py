"""Scenarios for MAIN-phase activations: Public Servant, City Planner, commodity trades and
Wild Tokens (RULES.md §4.3.2-§4.3.4, §4.3.7, §4.3.9)."""

from __future__ import annotations

import pytest
from tests.rules.conftest import give, held, main_game, pay_all, place, refresh, texts

from heights_rules import CHANCE, Bucket, Cube, GameState, Meeple, RuleOptions
from heights_rules.geometry import manhattan, parse_space, space_name


def servant_table(s: GameState) -> None:
    """Two Public Servants and one meeple in every situation a Servant might look at."""
    give(s, 0, Meeple.GREEN, Bucket.STEADY)
    give(s, 0, Meeple.GREEN, Bucket.HARD)
    give(s, 0, Meeple.NAVY, Bucket.EXHAUSTED)
    give(s, 0, Meeple.BROWN, Bucket.STEADY)
    give(s, 0, Meeple.CLEAR, Bucket.HARD)  # already at the top
    give(s, 0, Meeple.YELLOW, Bucket.USED_STEADY)  # already activated this turn
    give(s, 0, Meeple.BLUE, Bucket.IDLE)  # set aside / gained this turn


def test_steady_public_servant_upgrades_one_step(game: GameState) -> None:
    """§4.3.3: a Working Steady Servant upgrades 1 Exhausted meeple to Steady or 1 Steady
    meeple to Hard; never a Servant, an activated meeple or a set-aside one."""
    s = game
    servant_table(s)
    s.apply("activate green steady")
    assert texts(s) == ["pick brown steady", "pick navy exhausted"]  # no "done" before a step

    s.apply("pick navy exhausted")

    assert held(s, 0, Meeple.NAVY, Bucket.STEADY) == 1
    assert "end" in texts(s)
    assert "activate navy steady" in texts(s)  # the upgraded meeple can act this turn


@pytest.mark.parametrize(
    ("picks", "after"),
    [
        (["pick navy exhausted", "pick navy steady"], {Meeple.NAVY: Bucket.HARD}),
        (
            ["pick navy exhausted", "pick brown steady"],
            {Meeple.NAVY: Bucket.STEADY, Meeple.BROWN: Bucket.HARD},
        ),
        (["pick brown steady", "done"], {Meeple.BROWN: Bucket.HARD, Meeple.NAVY: Bucket.EXHAUSTED}),
    ],
    ids=["exhausted-to-hard", "two-meeples", "one-step-then-done"],
)
def test_hard_public_servant_takes_up_to_two_steps(
    game: GameState, picks: list[str], after: dict[Meeple, Bucket]
) -> None:
    """§4.3.3: a Working Hard Servant upgrades 2 meeples one step each, or 1 Exhausted
    meeple straight to Working Hard; "up to", so it may stop after one (A-27)."""
    s = game
    servant_table(s)
    s.apply("activate green hard")
    s.apply(picks[0])
    assert "done" in texts(s)
    assert not any(
        t.startswith(("pick green", "pick yellow", "pick blue", "pick clear")) for t in texts(s)
    )
    s.apply(picks[1])

    for colour, bucket in after.items():
        assert held(s, 0, colour, bucket) == 1
    assert "end" in texts(s)
    assert held(s, 0, Meeple.GREEN, Bucket.STEADY) == 1  # the other Servant is untouched


def test_a_servant_with_nothing_to_upgrade_cannot_be_activated(game: GameState) -> None:
    s = game
    give(s, 0, Meeple.GREEN, Bucket.HARD)
    give(s, 0, Meeple.CLEAR, Bucket.HARD)
    assert not any(t.startswith("activate green") for t in texts(s))


def test_steady_city_planner_rerolls_once_and_cannot_bust() -> None:
    """§4.3.4: re-roll all Exhausted meeples once; if all stay Exhausted, nothing happens:
    no strike and no Wild Token."""
    s = main_game(RuleOptions(landing_hard_permille=0, landing_steady_permille=0))
    give(s, 0, Meeple.BLACK, Bucket.STEADY)
    give(s, 0, Meeple.BROWN, Bucket.HARD)
    give(s, 0, Meeple.NAVY, Bucket.EXHAUSTED, 2)

    s.apply("activate black steady")
    assert s.current_player() == CHANCE
    events = s.apply("roll")

    assert not [e for e in events if e.kind in ("strike", "wild")]
    assert s.wild[0] == 0
    assert held(s, 0, Meeple.NAVY, Bucket.EXHAUSTED) == 2
    assert held(s, 0, Meeple.BROWN, Bucket.HARD) == 1
    assert "end" in texts(s)
    assert not any(t.startswith(("pick", "rally")) for t in texts(s))


def test_steady_city_planner_results_can_be_activated(game: GameState) -> None:
    s = game
    give(s, 0, Meeple.BLACK, Bucket.STEADY)
    give(s, 0, Meeple.CLEAR, Bucket.EXHAUSTED, 6)
    s.apply("activate black steady")
    events = s.apply("roll")
    hard, steady, exhausted = next(e.data["results"]["CLEAR"] for e in events if e.kind == "roll")
    assert (hard, steady, exhausted) == (
        held(s, 0, Meeple.CLEAR, Bucket.HARD),
        held(s, 0, Meeple.CLEAR, Bucket.STEADY),
        held(s, 0, Meeple.CLEAR, Bucket.EXHAUSTED),
    )
    assert ("activate clear steady" in texts(s)) == (steady > 0)


def test_no_city_planner_reroll_without_exhausted_meeples(game: GameState) -> None:
    s = game
    give(s, 0, Meeple.BLACK, Bucket.STEADY)
    give(s, 0, Meeple.BROWN, Bucket.STEADY)
    assert "activate black steady" not in texts(s)


def test_hard_city_planner_takes_any_plan_free_ignoring_distance(game: GameState) -> None:
    """§4.3.4: take any tile from either market ignoring its cost, place it on any space
    ignoring distance, pay only prime real estate; in addition to the one purchase."""
    s = game
    place(s, 0, "viceroy-house", "A1")
    give(s, 0, Meeple.BLACK, Bucket.HARD)
    prize = s.market[1][8]

    s.apply("activate black hard")
    assert texts(s) == [f"take L{lv}#{pos}" for lv in (1, 2) for pos in range(1, 10)]
    s.apply("take L2#9")  # the dearest plan, 6 in the market
    spaces = texts(s)
    free_land = [
        space_name(sp) for sp in s.geo.land_spaces if s.on_cell[sp] < 0 and s.geo.prime[sp] == 0
    ]
    assert spaces == [f"place {name}" for name in free_land]  # no funds: no prime spaces
    far = max(free_land, key=lambda name: manhattan(parse_space(name), parse_space("A1")))
    assert manhattan(parse_space(far), parse_space("A1")) >= 10
    s.apply(f"place {far}")

    assert s.owner[prize] == 0
    assert s.space_of[prize] == parse_space(far)
    assert "end" in texts(s)  # no payment was asked
    s.sp = 1
    refresh(s)
    assert "buy L1#1" in texts(s)  # the normal purchase is still available
    s.apply("end")
    # a free take beyond position 2 sweetens positions 1 and 2 of its market too.
    assert [s.tile_wild[t] for t in s.market[1][:2]] == [1, 1]


def test_hard_city_planner_pays_the_prime_cost(game: GameState) -> None:
    s = game
    prime = [sp for sp in s.geo.land_spaces if s.geo.prime[sp] == 2]
    assert prime
    give(s, 0, Meeple.BLACK, Bucket.HARD)
    s.sp = 2
    refresh(s)
    s.apply("activate black hard")
    s.apply("take L1#1")
    assert f"place {space_name(prime[0])}" in texts(s)
    s.apply(f"place {space_name(prime[0])}")
    assert pay_all(s, "sp") == 2


def test_commodity_trades_cost_two_or_three_for_steel(game: GameState) -> None:
    """§4.3.7: pay 2 any for wood, concrete or glass; 3 any for steel (SP counts)."""
    s = game
    s.supply[Cube.WOOD] -= 2
    s.cubes[0][Cube.WOOD] = 2
    refresh(s)
    trades = [t for t in texts(s) if t.startswith("trade")]
    assert trades == ["trade wood", "trade concrete", "trade glass"]

    s.sp = 1
    refresh(s)
    assert "trade steel" in texts(s)
    supply = list(s.supply)
    s.apply("trade steel")
    assert texts(s) == ["pay sp", "pay wood"]
    for source in ("wood", "wood", "sp"):
        s.apply(f"pay {source}")

    assert s.cubes[0][Cube.STEEL] == 1
    assert s.supply[Cube.WOOD] == supply[Cube.WOOD] + 2
    assert s.supply[Cube.STEEL] == supply[Cube.STEEL] - 1
    assert s.sp == 0


def test_a_trade_returns_its_payment_before_taking_the_cube(game: GameState) -> None:
    """A-19: the glass paid goes back to the supply first, so trading glass for glass
    with an empty glass supply still yields a real glass cube, not a misc one."""
    s = game
    s.cubes[0][Cube.GLASS] = 2
    s.on_buildings[Cube.GLASS] = s.supply[Cube.GLASS] - 2  # the rest is built
    s.supply[Cube.GLASS] = 0
    refresh(s)
    s.apply("trade glass")
    pay_all(s, "glass")
    assert s.cubes[0][Cube.GLASS] == 1
    assert s.cubes[0][4 + Cube.GLASS] == 0
    assert s.supply[Cube.GLASS] == 1
    assert not s.misc_in_play


def test_a_wild_token_buys_one_cube_of_any_colour(game: GameState) -> None:
    """§4.3.9: discard a Wild Token to gain 1 cube of any colour."""
    s = game
    s.wild[0] = 1
    refresh(s)
    assert [t for t in texts(s) if t.startswith("wild")] == [
        "wild wood",
        "wild concrete",
        "wild glass",
        "wild steel",
    ]
    s.apply("wild steel")
    assert s.cubes[0][Cube.STEEL] == 1
    assert s.wild[0] == 0
    assert not any(t.startswith("wild") for t in texts(s))
