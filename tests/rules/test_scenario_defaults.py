"""Defaults of RULES.md §13 that no other scenario states on its own."""

from __future__ import annotations

from tests.rules.conftest import CATALOGUE, main_game, place

from heights_rules import CHANCE, GameConfig, RuleOptions, Score, Termination, new_game, outcome
from heights_rules.geometry import space_name
from heights_rules.rng import KeyedRng
from heights_rules.scoring import evaluate


def test_the_round_cap_ends_the_game_with_round_cap() -> None:
    """A-22 / decision 5: the safety valve ends the game after `round_cap` rounds, with
    termination ROUND_CAP (never the trigger's)."""
    state = new_game(GameConfig(players=2, options=RuleOptions(round_cap=2)), 5)
    policy = KeyedRng(5)
    while not state.is_terminal():
        legal = state.legal_actions()
        pick = (
            0 if state.current_player() == CHANCE else policy.below(len(legal), b"p", state.steps)
        )
        state.apply(legal[pick])
    result = outcome(state)
    assert result.termination is Termination.ROUND_CAP
    assert result.rounds == 2


def test_a_score_may_go_below_zero() -> None:
    """A-37: scores are integers and may be negative (Ad 9 takes points away)."""
    s = main_game()
    space = next(sp for sp in s.geo.land_spaces if not s.geo.zoning_vp[sp])
    place(s, 0, "lumber-mill", space_name(space))  # an Industry tile: the majority is here
    blight = next(a for a in CATALOGUE.ads if a.id == "AD-09")
    penalty = evaluate(s, 0, blight.scoring)
    assert penalty == -1
    s.add_score(0, Score.ADS, penalty, blight.name)
    assert s.totals()[0] == -1
