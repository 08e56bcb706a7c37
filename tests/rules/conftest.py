"""Helpers for the rules scenarios: arrange a state directly, then drive it only by actions.

Scenario tests import the plain helpers (`from tests.rules.conftest import ...`); the
`game` fixture is the usual starting point.
"""

from __future__ import annotations

import pytest

from heights_rules import (
    RULES_REVISION,
    Action,
    Bucket,
    GameConfig,
    GameState,
    Meeple,
    RuleOptions,
    new_game,
)
from heights_rules.catalogue import load_catalogue
from heights_rules.components import MEEPLES, N_BUCKETS
from heights_rules.frames import F, frame
from heights_rules.geometry import parse_space
from heights_rules.market import put_on_map, slide_and_refill
from heights_rules.state import Phase

# The scenarios count points by hand from this catalogue's values; the rules they check
# do not depend on which catalogue is loaded.
SCENARIO_CATALOGUE = "reconstructed-v1"
CATALOGUE = load_catalogue(SCENARIO_CATALOGUE)
SEED = 11


def main_game(
    options: RuleOptions | None = None,
    *,
    players: int = 2,
    solo: bool = False,
    seed: int = SEED,
    rules_revision: int = RULES_REVISION,
) -> GameState:
    """Seat 0's first MAIN decision of round 1: an empty map and an empty hand for seat 0.

    Starting placement is skipped (see test_scenario_setup for it); the other seats
    keep their four starting meeples.
    """
    opts = options or RuleOptions()
    config = GameConfig(
        players=1 if solo else players,
        solo=solo,
        options=opts,
        catalogue_id=SCENARIO_CATALOGUE,
        rules_revision=rules_revision,
    )
    s = new_game(config, seed)
    s.phase, s.round, s.start_seat, s.seat, s.order = Phase.TURN, 1, 0, 0, []
    s.turn_no[0] = 1
    s.stack = [frame(F.MAIN, 0)]
    for colour in MEEPLES:
        base = colour * N_BUCKETS
        s.meeple_supply[colour] += sum(s.meeples[0][base : base + N_BUCKETS])
        s.meeples[0][base : base + N_BUCKETS] = [0] * N_BUCKETS
    refresh(s)
    return s


@pytest.fixture
def game() -> GameState:
    return main_game()


def refresh(s: GameState) -> None:
    """Forget cached legal actions and placement costs after arranging a state by hand."""
    s._legal = None
    s.invalidate_map()


def texts(s: GameState) -> list[str]:
    return [Action.from_id(a).text() for a in s.legal_actions()]


def tile_index(tile_id: str) -> int:
    return CATALOGUE.tile_by_id(tile_id).index


def give(s: GameState, p: int, colour: Meeple, bucket: Bucket, n: int = 1) -> None:
    """Move n meeples of `colour` from the supply to player p, in `bucket`."""
    s.meeple_supply[colour] -= n
    s.meeples[p][colour * N_BUCKETS + bucket] += n
    refresh(s)


def held(s: GameState, p: int, colour: Meeple, bucket: Bucket) -> int:
    return s.meeples[p][colour * N_BUCKETS + bucket]


def place(s: GameState, p: int, tile_id: str, space: str, *, complete: bool = False) -> int:
    """Put a catalogue tile on the map for p (taken out of the market or a pile).

    A complete tile gets its cubes from the supply, as if p had built them.
    """
    tile = tile_index(tile_id)
    for row in s.market:
        if tile in row:
            row[row.index(tile)] = -1
            slide_and_refill(s)
    for pile in s.piles:
        if tile in pile:
            pile.remove(tile)
    put_on_map(s, p, tile, parse_space(space))
    if complete:
        stacks = CATALOGUE.tiles[tile].stacks
        s.fill[tile] = tuple(h for _, h in stacks)
        s.complete[tile] = True
        for colour, height in stacks:
            s.supply[colour] -= height
            s.on_buildings[colour] += height
    refresh(s)
    return tile


def pay_all(s: GameState, source: str) -> int:
    """Answer every pending PAY decision with `pay <source>`; returns the units paid."""
    paid = 0
    while any(t.startswith("pay ") for t in texts(s)):
        s.apply(f"pay {source}")
        paid += 1
    return paid


def pass_turn(s: GameState) -> None:
    """Play the current seat's turn doing nothing: roll, stop, end."""
    seat = s.seat
    while s.seat == seat and s.phase is Phase.TURN:
        legal = texts(s)
        s.apply("roll" if "roll" in legal else "stop" if "stop" in legal else "end")
