"""Scenarios for turn.py: PREP, RISK and the strike, CLEANUP (RULES.md §4.1, §4.2, §4.4)."""

from __future__ import annotations

import pytest
from tests.rules.conftest import give, held, main_game, refresh, texts

from heights_rules import CHANCE, Bucket, Cube, GameState, Meeple, RuleOptions
from heights_rules.components import MEEPLES
from heights_rules.economy import MISC
from heights_rules.frames import F, frame

ALWAYS_EXHAUSTED = RuleOptions(landing_hard_permille=0, landing_steady_permille=0)


def working(s: GameState, p: int) -> int:
    return sum(held(s, p, c, Bucket.HARD) + held(s, p, c, Bucket.STEADY) for c in MEEPLES)


def at_risk(s: GameState) -> None:
    """Seat 0 has rolled and now chooses to rally or stop."""
    s.stack.append(frame(F.RISK, 0))
    refresh(s)


@pytest.mark.parametrize(
    ("choice", "left"),
    [
        ("pick brown hard", {"brown hard": 0, "navy steady": 2}),
        ("pick navy steady", {"brown hard": 1, "navy steady": 1}),
    ],
)
def test_strike_returns_half_rounded_down_chosen_by_the_player(
    choice: str, left: dict[str, int]
) -> None:
    """§4.2 STRIKE, the rulebook example: 1 Working Hard and 2 Working Steady meeples bust,
    so 1 of them (the player's choice) goes back to the box, and a Wild Token is gained."""
    s = main_game(ALWAYS_EXHAUSTED)
    give(s, 0, Meeple.BROWN, Bucket.HARD)
    give(s, 0, Meeple.NAVY, Bucket.STEADY, 2)
    give(s, 0, Meeple.CLEAR, Bucket.EXHAUSTED, 2)
    at_risk(s)
    assert texts(s) == ["rally", "stop"]

    s.apply("rally")
    assert s.current_player() == CHANCE
    events = s.apply("roll")

    assert [e.data["returned"] for e in events if e.kind == "strike"] == [1]
    assert s.wild[0] == 1
    assert texts(s) == ["pick brown hard", "pick navy steady"]
    s.apply(choice)
    assert held(s, 0, Meeple.BROWN, Bucket.HARD) == left["brown hard"]
    assert held(s, 0, Meeple.NAVY, Bucket.STEADY) == left["navy steady"]
    assert working(s, 0) == 2
    assert held(s, 0, Meeple.CLEAR, Bucket.EXHAUSTED) == 2
    # The strike ends RISK: straight to MAIN, no second rally.
    legal = texts(s)
    assert "end" in legal
    assert "rally" not in legal


def test_strike_with_one_working_meeple_loses_none_but_gains_a_token() -> None:
    """A-04: W = 1 returns floor(1/2) = 0 meeples and still gives a Wild Token."""
    s = main_game(ALWAYS_EXHAUSTED)
    give(s, 0, Meeple.YELLOW, Bucket.HARD)
    give(s, 0, Meeple.NAVY, Bucket.EXHAUSTED, 3)
    at_risk(s)
    s.apply("rally")
    events = s.apply("roll")

    assert [e.data["returned"] for e in events if e.kind == "strike"] == [0]
    assert s.wild[0] == 1
    assert held(s, 0, Meeple.YELLOW, Bucket.HARD) == 1
    assert held(s, 0, Meeple.NAVY, Bucket.EXHAUSTED) == 3
    assert not any(t.startswith("pick") for t in texts(s))
    assert "activate yellow hard" in texts(s)


def test_a_rally_that_is_not_a_bust_offers_the_next_choice() -> None:
    """§4.2: any working result is kept and, with meeples still exhausted, RISK repeats."""
    for round_no in range(1, 40):
        s = main_game()
        s.round = round_no
        s.turn_no[0] = round_no
        give(s, 0, Meeple.BROWN, Bucket.HARD)
        give(s, 0, Meeple.NAVY, Bucket.EXHAUSTED, 4)
        at_risk(s)
        s.apply("rally")
        events = s.apply("roll")
        rolled = next(e.data["results"] for e in events if e.kind == "roll")
        up = rolled["NAVY"][0] + rolled["NAVY"][1]
        if 0 < up < 4:
            assert not [e for e in events if e.kind == "strike"]
            assert s.wild[0] == 0
            assert working(s, 0) == 1 + up
            assert texts(s) == ["rally", "stop"]
            return
    pytest.fail("no partial rally in 39 turns")


def test_prep_rolls_until_at_least_half_of_five_are_working() -> None:
    """§4.1 and the video's example: with 5 active meeples, roll and pluck until at least 3
    are working, then stop rolling (checked over many seeds)."""
    for seed in range(150):
        s = main_game(seed=seed)
        give(s, 1, Meeple.YELLOW, Bucket.IDLE)  # seat 1 now owns 5 meeples
        s.apply("end")
        assert s.current_player() == CHANCE
        events = s.apply("roll")

        assert working(s, 1) >= 3
        rolls = [e.data["results"] for e in events if e.kind == "roll"]
        ups = [sum(h + st for h, st, _ in r.values()) for r in rolls]
        assert sum(ups[:-1]) < 3 <= sum(ups), f"seed {seed}: rolled on past the threshold"
        exhausted = sum(held(s, 1, c, Bucket.EXHAUSTED) for c in MEEPLES)
        assert exhausted == 5 - working(s, 1)
        if exhausted:
            assert texts(s) == ["rally", "stop"]
        else:
            assert "end" in texts(s)


def test_prep_with_more_than_ten_meeples_sets_aside_exactly_the_extra() -> None:
    """§4.1: with more than 10 meeples, choose 10 to roll; the rest sit out the turn."""
    s = main_game()
    give(s, 1, Meeple.CLEAR, Bucket.IDLE, 4)
    give(s, 1, Meeple.YELLOW, Bucket.IDLE, 4)  # 4 starting + 8 = 12 meeples
    s.apply("end")

    assert texts(s) == ["aside brown", "aside navy", "aside clear", "aside yellow"]
    s.apply("aside yellow")
    s.apply("aside clear")
    assert texts(s) == ["roll"]
    s.apply("roll")

    assert held(s, 1, Meeple.YELLOW, Bucket.IDLE) == 1
    assert held(s, 1, Meeple.CLEAR, Bucket.IDLE) == 1
    active = sum(
        held(s, 1, c, b) for c in MEEPLES for b in (Bucket.HARD, Bucket.STEADY, Bucket.EXHAUSTED)
    )
    assert active == 10
    assert working(s, 1) >= 5


def test_cleanup_returns_cubes_loses_spending_power_and_gathers_meeples(game: GameState) -> None:
    """§4.4: unspent cubes (misc too) go back, Spending Power is lost, meeples are gathered."""
    s = game
    s.supply[Cube.WOOD] -= 2
    s.cubes[0][Cube.WOOD] = 2
    s.cubes[0][MISC + Cube.GLASS] = 1
    s.sp = 3
    s.wild[0] = 2
    give(s, 0, Meeple.BROWN, Bucket.USED_HARD)
    give(s, 0, Meeple.NAVY, Bucket.STEADY)
    give(s, 0, Meeple.CLEAR, Bucket.IDLE)
    supply = list(s.supply)

    s.apply("end")

    assert s.cubes[0] == [0] * 8
    assert s.supply[Cube.WOOD] == supply[Cube.WOOD] + 2
    assert s.supply[Cube.GLASS] == supply[Cube.GLASS]  # a misc cube is not a real glass cube
    assert s.sp == 0
    assert s.wild[0] == 2  # Wild Tokens are kept
    for colour in (Meeple.BROWN, Meeple.NAVY, Meeple.CLEAR):
        assert held(s, 0, colour, Bucket.IDLE) == 1
    assert s.seat == 1
