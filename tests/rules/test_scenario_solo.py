"""Scenarios for the solo Mayor (RULES.md §8, A-32 to A-36, project decision 9).

The Mayor's die is keyed by the round, so each scenario arranges the Mayor's turn in
several rounds and checks what the Mayor did against the die it rolled.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from tests.rules.conftest import CATALOGUE, main_game, place, refresh, texts, tile_index

from heights_rules import GameState, RuleOptions, Score
from heights_rules.catalogue import BOARD_COLS, BOARD_ROWS
from heights_rules.frames import F, RollKind, frame
from heights_rules.geometry import COLS, space_name
from heights_rules.state import Phase

MAYOR = 1
STEP_A_CUBES = 3
STEP_B_CUBES = 12


def mayor_turn(base: GameState, round_no: int) -> GameState:
    """A copy of `base` at the Mayor's single die roll in round `round_no`."""
    s = base.clone()
    s.phase, s.round, s.roll_idx = Phase.MAYOR, round_no, 0
    s.stack = [frame(F.ROLL, -1, RollKind.MAYOR, 0)]
    refresh(s)
    return s


def roll(s: GameState, *, last: bool = False) -> int:
    """Roll the Mayor's die and answer the solo player's choices (the first or the last
    option offered); returns the die."""
    events = s.apply("roll")
    die = next(int(e.data["die"]) for e in events if e.kind == "mayor_die")
    while s.phase is Phase.MAYOR and s.current_player() == 0:
        legal = texts(s)
        s.apply(legal[-1] if last else legal[0])
    assert s.phase is Phase.TURN  # the Mayor's turn is over; the next round began
    return die


def rounds(base: GameState) -> Iterator[tuple[GameState, int]]:
    """The Mayor's turn in rounds 1, 2, ...: (state after the roll, die)."""
    for round_no in range(1, 80):
        s = mayor_turn(base, round_no)
        yield s, roll(s)


def slot_of(s: GameState, die: int) -> int:
    return s.token_slot[die - 1]


def centre_rank(space: int) -> int:
    """Squared distance (x4) to the centre of the space's 4 x 5 board."""
    row, col = divmod(space, COLS)
    r, c = row % BOARD_ROWS, col % BOARD_COLS
    return (2 * r - (BOARD_ROWS - 1)) ** 2 + (2 * c - (BOARD_COLS - 1)) ** 2


def centermost(s: GameState, slot: int) -> list[int]:
    empty = [sp for sp in s.geo.neighborhood_spaces[slot] if s.on_cell[sp] < 0]
    best = min(centre_rank(sp) for sp in empty)
    return [sp for sp in empty if centre_rank(sp) == best]


def mayor_tiles(s: GameState) -> list[int]:
    return list(s.owned[MAYOR])


def test_step_a_takes_the_plan_the_die_names_and_places_three_cubes() -> None:
    """§8.3 Step A: 1-2 takes the 1st Level 1 plan, 3-4 the 2nd, 5-6 the 3rd and puts a
    Wild Token on the first 2 spaces; 3 cubes from the supply go on it; the Mayor never
    scores the tile's printed VP and gains no meeples."""
    base = main_game(solo=True)
    before = list(base.market[0])
    seen: set[int] = set()
    for s, die in rounds(base):
        pos = (die - 1) // 2
        seen.add(pos)
        (tile,) = mayor_tiles(s)
        t = CATALOGUE.tiles[tile]
        assert tile == before[pos]
        assert t.level == 1
        assert s.geo.neighborhood[s.space_of[tile]] == slot_of(s, die)
        placed = min(STEP_A_CUBES, t.cubes)
        assert sum(s.fill[tile]) == placed
        assert sum(s.supply) == sum(base.supply) - placed
        tokens = [s.tile_wild[before[0]], s.tile_wild[before[1]]]
        assert tokens == ([1, 1] if pos == 2 else [0, 0])
        assert s.score[MAYOR][Score.COMPLETION] == 0
        assert sum(s.meeples[MAYOR]) == 0
        if seen == {0, 1, 2}:
            return
    pytest.fail(f"dice classes seen: {sorted(seen)}")


def test_step_a_cubes_that_complete_the_plan_score_one_each() -> None:
    """§8.3 Step A: "If the 3 cubes complete the building, the Mayor scores 1 per cube";
    the printed VP and meeples of the tile are not the Mayor's."""
    base = main_game(solo=True)
    small = tile_index("elm-street-housing-project")
    assert CATALOGUE.tiles[small].cubes == STEP_A_CUBES
    for level in base.market:
        if small in level:
            level[level.index(small)] = base.market[0][0]
    for pile in base.piles:
        if small in pile:
            pile[pile.index(small)] = base.market[0][0]
    base.market[0][0] = small
    for s, die in rounds(base):
        if die > 2:
            continue
        assert s.complete[small]
        assert s.owner[small] == MAYOR
        assert s.score[MAYOR][Score.MAYOR_CUBES] == STEP_A_CUBES
        assert s.score[MAYOR][Score.COMPLETION] == 0
        assert sum(s.meeples[MAYOR]) == 0
        return
    pytest.fail("no die of 1-2 rolled")


def test_the_mayor_collects_the_wild_tokens_on_its_plan() -> None:
    """§8.5: "The Mayor scores 1 per Wild Token they picked up"."""
    base = main_game(solo=True)
    for tile in base.market[0]:
        base.tile_wild[tile] = 2
    s, _ = next(rounds(base))
    assert s.wild[MAYOR] == 2


def test_ties_for_the_centermost_space_are_the_solo_players_choice() -> None:
    """§8.3 and decision 9: the Mayor takes the centermost land space of the neighborhood;
    when several tie, the solo player chooses among them through PLACE actions."""
    base = main_game(solo=True)
    for round_no in range(1, 80):
        s = mayor_turn(base, round_no)
        events = s.apply("roll")
        die = next(int(e.data["die"]) for e in events if e.kind == "mayor_die")
        ties = centermost(base, slot_of(s, die))
        if len(ties) < 2:
            continue
        assert s.phase is Phase.MAYOR
        assert s.current_player() == 0
        assert texts(s) == [f"place {space_name(sp)}" for sp in ties]
        s.apply(f"place {space_name(ties[-1])}")
        (tile,) = mayor_tiles(s)
        assert s.space_of[tile] == ties[-1]
        return
    pytest.fail("no tied neighborhood rolled")


def test_after_a_completed_building_the_mayor_takes_level_two_next_to_its_own() -> None:
    """§8.3: with a completed building in the neighborhood the Mayor takes a LEVEL 2 plan
    and places it orthogonally adjacent to one of its buildings there."""
    base = main_game(solo=True)
    pile = iter(base.piles[0][:6])
    for slot in range(6):
        space = centermost(base, slot)[0]
        place(base, MAYOR, CATALOGUE.tiles[next(pile)].id, space_name(space), complete=True)
    before = list(base.market[1])
    for s, die in rounds(base):
        new = [t for t in mayor_tiles(s) if t not in base.owned[MAYOR]]
        (tile,) = new
        assert tile == before[(die - 1) // 2]
        assert CATALOGUE.tiles[tile].level == 2
        slot = slot_of(s, die)
        beside = {
            n
            for t in base.owned[MAYOR]
            if s.geo.neighborhood[s.space_of[t]] == slot
            for n in s.geo.adjacent[s.space_of[t]]
        }
        if any(base.on_cell[n] < 0 and s.geo.land[n] for n in beside):
            assert s.space_of[tile] in beside
        if die <= 4:
            return
    pytest.fail("no die of 1-4 rolled")


def test_step_b_places_up_to_twelve_cubes_and_scores_one_per_cube() -> None:
    """§8.3 Step B: up to 12 cubes of the solo player's choice go on the Mayor's building
    in progress; if that completes it, the Mayor scores 1 VP per cube in the building
    (never the tile's VP); if not, the roll ends there."""
    base = main_game(solo=True)
    hall = place(base, MAYOR, "city-hall", space_name(centermost(base, 0)[0]))
    small = {}
    for slot in range(1, 6):
        tile = base.piles[0][slot]
        small[slot] = place(
            base, MAYOR, CATALOGUE.tiles[tile].id, space_name(centermost(base, slot)[0])
        )
    done = set()
    for round_no in range(1, 80):
        s = mayor_turn(base, round_no)
        die = roll(s, last=True)  # where there is a choice, take the steel stack
        slot = slot_of(s, die)
        if slot == 0:
            assert s.fill[hall] == (1, 2, 0, 3, 6)  # 12 of its 14 cubes, steel first
            assert not s.complete[hall]
            assert s.score[MAYOR][Score.MAYOR_CUBES] == 0
        else:
            t = CATALOGUE.tiles[small[slot]]
            assert t.cubes <= STEP_B_CUBES
            assert s.complete[small[slot]]
            assert s.score[MAYOR][Score.MAYOR_CUBES] == t.cubes
            assert s.score[MAYOR][Score.COMPLETION] == 0
            assert sum(s.meeples[MAYOR]) == 0
        done.add(slot == 0)
        if done == {True, False}:
            return
    pytest.fail("the City Hall neighborhood was never rolled")


@pytest.mark.parametrize(
    ("round_no", "hard", "rolls"),
    [
        *((r, False, n) for r, n in [(1, 1), (5, 1), (6, 2), (11, 2), (12, 3), (20, 3)]),
        *((r, True, n) for r, n in [(9, 2), (10, 3)]),
    ],
)
def test_the_mayor_rolls_more_often_as_the_game_goes_on(
    round_no: int, hard: bool, rolls: int
) -> None:
    """§8.3: 1 roll in rounds 1-5, 2 from round 6, 3 from round 12 (from 10 when hard)."""
    s = main_game(RuleOptions(mayor_hard=hard), solo=True)
    s.round = round_no
    events = s.apply("end")
    assert [e.data["rolls"] for e in events if e.kind == "mayor_turn"] == [rolls]
    dice = 0
    while s.phase is Phase.MAYOR:
        legal = texts(s)
        dice += sum(1 for e in s.apply(legal[0]) if e.kind == "mayor_die")
    assert dice == rolls
    assert s.round == round_no + 1
