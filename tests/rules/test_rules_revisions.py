"""The defect fixes of rules revision 2, each named after the rule it checks, and the
revision-1 behaviour that games recorded before the fix still verify with."""

from __future__ import annotations

import pytest
from tests.rules.conftest import CATALOGUE, main_game, place
from tests.rules.test_scenario_solo import rounds

from heights_rules import RULES_REVISION, GameConfig, GameState, RuleOptions
from heights_rules.economy import wild_in_circulation
from heights_rules.geometry import space_name
from heights_rules.scoring import evaluate

LIMIT = 4


def _full_wild_supply(rules_revision: int) -> GameState:
    """A solo game at its first MAIN whose Wild Tokens in circulation reach the limit."""
    s = main_game(RuleOptions(wild_supply_limit=LIMIT), solo=True, rules_revision=rules_revision)
    s.wild[0] = LIMIT
    return s


def _step_a_with_tokens(base: GameState) -> GameState:
    """The first Mayor's turn that takes the 3rd plan (a die of 5 or 6)."""
    for s, die in rounds(base):
        if die >= 5:
            return s
    pytest.fail("the Mayor never rolled 5 or 6")


def test_solo_step_a_wild_tokens_stay_within_wild_supply_limit() -> None:
    """§8.3 Step A with A-24's limited supply: "place a Wild Token on the first 2
    spaces" takes tokens from the same limited supply as every other gain, so with the
    supply exhausted none is placed (rules revision 2)."""
    base = _full_wild_supply(RULES_REVISION)
    s = _step_a_with_tokens(base)
    assert wild_in_circulation(s) == LIMIT
    assert [s.tile_wild[t] for t in s.market[0][:2] if t >= 0] == [0, 0]


def test_solo_step_a_wild_tokens_fill_the_supply_up_to_the_limit_only() -> None:
    """§8.3 Step A, A-24: one token left in the supply: the first space gets it."""
    base = _full_wild_supply(RULES_REVISION)
    base.wild[0] = LIMIT - 1
    s = _step_a_with_tokens(base)
    assert wild_in_circulation(s) == LIMIT


def test_revision_1_solo_step_a_ignores_the_wild_supply_limit_as_recorded() -> None:
    """Games recorded under revision 1 placed the tokens whatever the limit; that
    behaviour is kept for them, so their replays verify."""
    base = _full_wild_supply(1)
    s = _step_a_with_tokens(base)
    assert wild_in_circulation(s) == LIMIT + 2


def _parks_beside_bungalows(rules_revision: int) -> tuple[GameState, int, list[int]]:
    """Seat 0's completed Parkside Bungalows (1 VP + 1 per adjacent Park) with two empty
    land neighbours in its neighborhood; returns (state, its space, the neighbours)."""
    s = main_game(rules_revision=rules_revision)
    geo = s.geo
    for space in geo.land_spaces:
        near = [
            n
            for n in geo.adjacent[space]
            if geo.land[n] and geo.neighborhood[n] == geo.neighborhood[space]
        ]
        if len(near) >= 2 and not geo.zoning_vp[space]:
            place(s, 0, "parkside-bungalows", space_name(space), complete=True)
            return s, space, near[:2]
    pytest.fail("no land space with two land neighbours in its neighborhood")


def _park_views(s: GameState) -> int:
    ad = next(a for a in CATALOGUE.ads if a.id == "AD-10")
    return evaluate(s, 0, ad.scoring)


def test_ad10_rescores_a_variable_vp_building_at_its_value_recomputed_at_game_end() -> None:
    """§10.1 Ad 10 [PROPOSAL]: "Variable-VP buildings re-score their value recomputed at
    game end": the printed VP plus the variable VP on the final board (revision 2)."""
    s, _, (first, second) = _parks_beside_bungalows(RULES_REVISION)
    bungalows = CATALOGUE.tile_by_id("parkside-bungalows")
    assert bungalows.variable_vp is not None
    assert bungalows.vp == 1
    place(s, 1, "commons-green", space_name(first))  # a Park: the most Parks are here
    assert _park_views(s) == 1 + 1
    place(s, 1, "willow-creek-playground", space_name(second))  # another, after completion
    assert _park_views(s) == 1 + 2


def test_revision_1_ad10_rescores_only_the_printed_vp_as_recorded() -> None:
    """Games recorded under revision 1 re-scored the printed VP only; kept for them."""
    s, _, (first, second) = _parks_beside_bungalows(1)
    place(s, 1, "commons-green", space_name(first))
    place(s, 1, "willow-creek-playground", space_name(second))
    assert _park_views(s) == 1


def test_a_configuration_records_its_rules_revision_and_none_means_revision_1() -> None:
    """Replay format: `rules_revision` is written from revision 2 on; a record without
    it was played under revision 1."""
    current = GameConfig(players=2)
    assert current.rules_revision == RULES_REVISION == 2
    assert current.to_dict()["rules_revision"] == 2
    old = GameConfig(players=2, catalogue_id="reconstructed-v1", rules_revision=1)
    assert "rules_revision" not in old.to_dict()
    assert GameConfig.from_dict(old.to_dict()).rules_revision == 1
    assert GameConfig.from_dict(current.to_dict()) == current


@pytest.mark.parametrize("revision", [0, 3, True, "2"])
def test_an_unknown_rules_revision_is_refused_by_name(revision: object) -> None:
    doc = GameConfig(players=2).to_dict() | {"rules_revision": revision}
    with pytest.raises(ValueError, match=r"rules.revision"):
        GameConfig.from_dict(doc)
