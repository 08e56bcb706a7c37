"""Scenarios for the starting placement (RULES.md §3, A-05, A-13)."""

from __future__ import annotations

import pytest
from tests.rules.conftest import CATALOGUE, texts

from heights_rules import CHANCE, Action, GameConfig, InvalidActionError, Score, new_game
from heights_rules.geometry import manhattan, parse_space, space_name
from heights_rules.state import Phase


def test_starting_placement_runs_in_reverse_order_with_level_one_plans() -> None:
    """§3: from the last player counter-clockwise, each takes a face-up Level 1 plan for
    free and puts it on an empty land space without prime real estate."""
    s = new_game(GameConfig(players=3), 5)
    start = s.start_seat
    order = [(start - 1) % 3, (start - 2) % 3, start]
    market = list(s.market[0])
    assert texts(s) == [f"start L1#{pos}" for pos in range(1, 10)]
    with pytest.raises(InvalidActionError):
        Action.parse("start L2#1")

    placed: list[int] = []
    chosen: list[int] = []
    for seat in order:
        assert s.current_player() == seat
        choice = texts(s)[0]  # the market slides only after everyone has placed
        chosen.append(s.market[0][int(choice[-1]) - 1])
        s.apply(choice)
        spaces = [parse_space(t.removeprefix("place ")) for t in texts(s)]
        assert spaces
        for sp in spaces:
            assert s.geo.land[sp]
            assert not s.geo.prime[sp]
            assert s.on_cell[sp] < 0
            # A-05 default: nothing within Manhattan distance 2 of another player's tile.
            assert all(manhattan(sp, other) > 2 for other in placed)
        expected = [
            sp
            for sp in s.geo.land_spaces
            if not s.geo.prime[sp]
            and s.on_cell[sp] < 0
            and all(manhattan(sp, other) > 2 for other in placed)
        ]
        assert spaces == expected
        s.apply(Action.from_id(s.legal_actions()[-1]))
        placed.append(spaces[-1])

    assert chosen == market[:3]
    assert [s.owner[t] for t in chosen] == order
    assert [s.space_of[t] for t in chosen] == placed
    assert all(CATALOGUE.tiles[t].level == 1 for t in chosen)
    # Then the market slides and refills; no Wild Tokens, no payment.
    assert s.market[0][:6] == market[3:]
    assert -1 not in s.market[0]
    assert sum(s.tile_wild) == 0
    assert all(sum(cubes) == 0 for cubes in s.cubes)
    assert s.phase is Phase.TURN
    assert s.round == 1
    assert s.current_player() == CHANCE
    assert s.seat == start


def test_starting_placement_scores_the_zoning_bonus() -> None:
    """§3 step 5: a space that awards VP for the plan's type scores them at once."""
    for seed in range(20):
        s = new_game(GameConfig(players=2), seed)
        first = s.current_player()
        for pos, tile in enumerate(s.market[0], start=1):
            kind = CATALOGUE.tiles[tile].type
            good = [
                sp
                for sp in s.geo.land_spaces
                if s.geo.zoning_types[sp] >> kind & 1 and not s.geo.prime[sp]
            ]
            if good:
                s.apply(f"start L1#{pos}")
                events = s.apply(f"place {space_name(good[0])}")
                vp = s.geo.zoning_vp[good[0]]
                assert vp > 0
                assert s.score[first][Score.ZONING] == vp
                assert [e.data["vp"] for e in events if e.kind == "score"] == [vp]
                return
    pytest.fail("no zoning bonus reachable in 20 seeds")
