"""Scenarios for the game end and final scoring (RULES.md §6, §7, A-50)."""

from __future__ import annotations

import pytest
from tests.rules.conftest import CATALOGUE, give, main_game, pass_turn, place, refresh, texts

from heights_rules import (
    Bucket,
    Cube,
    GameState,
    Meeple,
    Phase,
    Score,
    Termination,
    outcome,
)


def ad(ad_id: str) -> int:
    return next(a.index for a in CATALOGUE.ads if a.id == ad_id)


def target(target_id: str) -> int:
    return next(t.index for t in CATALOGUE.targets if t.id == target_id)


def one_wood_from_the_end(s: GameState, p: int) -> int:
    """p's Viceroy House lacks one wood; p holds the last wood cube not on a building."""
    viceroy = place(s, p, "viceroy-house", "E8")
    s.fill[viceroy] = (1, 1, 3)
    s.on_buildings[Cube.WOOD] = s.total[Cube.WOOD] - 1
    s.supply[Cube.WOOD] = 0
    s.cubes[p][Cube.WOOD] = 1
    refresh(s)
    return viceroy


def play_to_main_of(s: GameState, p: int) -> None:
    while not (s.seat == p and "end" in texts(s)):
        legal = texts(s)
        s.apply("roll" if "roll" in legal else "stop" if "stop" in legal else "end")


@pytest.mark.parametrize("trigger_seat", [0, 1])
def test_the_last_wood_built_ends_the_game_after_one_more_full_round(trigger_seat: int) -> None:
    """§6: when every cube of a colour in play is on buildings, finish the round, then play
    one more, so every player has had the same number of turns - also when the trigger
    comes in the last player's turn."""
    s = main_game()
    one_wood_from_the_end(s, trigger_seat)
    play_to_main_of(s, trigger_seat)

    events = s.apply("build E8/3")

    assert [e.data["final_round"] for e in events if e.kind == "end_triggered"] == [2]
    s.apply("gain clear")
    s.apply("end")
    while s.phase is Phase.TURN:
        pass_turn(s)
    assert s.phase is Phase.TARGETS
    assert s.round == 2
    assert s.turn_no == [2, 2]


def test_final_scoring_adds_ads_target_end_bonuses_and_wild_tokens() -> None:
    """§7: the 3 Ads, then the chosen Target, then (A-50) tile end bonuses, then 1 VP per
    unused Wild Token."""
    s = main_game()
    one_wood_from_the_end(s, 0)
    place(s, 0, "city-hall", "E9", complete=True)  # end bonus: 2 per own completed Civic
    s.apply("build E8/3")
    s.apply("gain clear")
    s.apply("end")
    for _ in range(3):
        pass_turn(s)
    assert texts(s) == ["target 1", "target 2"]
    assert s.current_player() == 0

    # The game's objectives, chosen so the expected points can be counted by hand.
    s.ads = (ad("AD-06"), ad("AD-08"))  # 2 per neighborhood; 2 per building of height >= 4
    s.targets[0] = sorted([target("TG-01"), target("TG-13")])  # 1 per meeple; 2 per token
    s.targets[1] = sorted([target("TG-01"), target("TG-13")])
    s.wild[0] = 3
    refresh(s)
    s.apply("target 2")
    assert s.current_player() == 1
    events = s.apply("target 1")

    assert s.phase is Phase.OVER
    assert [e.kind for e in events][-1] == "final"
    mine = s.score[0]
    assert mine[Score.ADS] == 2 + 2 * 2  # one neighborhood (E8, E9), two tall buildings
    assert mine[Score.TARGET] == 2 * 3  # Rainy Day Fund: 2 per Wild Token
    assert mine[Score.END_BONUS] == 2  # City Hall is the only completed Civic
    assert mine[Score.WILD_TOKENS] == 3
    assert s.score[1][Score.TARGET] == s.meeple_count(1)  # Big Payroll: 1 per meeple
    result = outcome(s)
    assert result.termination is Termination.TRIGGER
    assert result.totals == tuple(s.totals())


def finished(totals: list[int], meeples: list[int]) -> GameState:
    s = main_game(players=len(totals))
    for p, (vp, n) in enumerate(zip(totals, meeples, strict=True)):
        s.score[p] = [0] * len(s.score[p])
        s.score[p][Score.COMPLETION] = vp
        s.meeples[p] = [0] * len(s.meeples[p])
        give(s, p, Meeple.NAVY, Bucket.IDLE, n)
    s.phase = Phase.OVER
    s.termination = Termination.TRIGGER
    return s


@pytest.mark.parametrize(
    ("totals", "meeples", "ranks"),
    [
        ([30, 25], [4, 9], (1, 2)),  # most VP wins
        ([30, 30], [5, 6], (2, 1)),  # tied VP: most meeples
        ([30, 30, 12], [6, 6, 9], (1, 1, 3)),  # still tied: a shared victory
        ([20, 20, 20, 20], [5, 7, 7, 4], (3, 1, 1, 4)),
    ],
)
def test_outcome_ranks_by_points_then_meeples_then_shares(
    totals: list[int], meeples: list[int], ranks: tuple[int, ...]
) -> None:
    """§7: "In the case of a tie, the tied player with the most meeples wins. If there is
    still a tie, the tied players share the victory.\""""
    result = outcome(finished(totals, meeples))
    assert result.totals == tuple(totals)
    assert result.meeples == tuple(meeples)
    assert result.ranks == ranks


def test_outcome_of_a_game_in_progress_is_an_error(game: GameState) -> None:
    with pytest.raises(ValueError, match="not over"):
        outcome(game)
