"""Built-in bots do not stall: a seat with no open plan buys one it can afford, so the
game reaches its real end (RULES.md decision 5: the round cap never fires)."""

from __future__ import annotations

import math

import pytest

from heights_bots import action_ids as ids
from heights_bots import greedy_main, make_bot, seat_seed
from heights_bots.play import play_game
from heights_rules import CHANCE, GameConfig, GameState, Termination, new_game, outcome


@pytest.mark.parametrize("catalogue", [f"reconstructed-v{n}" for n in (1, 2, 3, 4)])
def test_greedy_two_player_seed_32_ends_by_the_trigger(catalogue: str) -> None:
    """v1, 2 players, seed 32: both greedy seats once stopped buying and the game ran to
    the 40-round cap."""
    config = GameConfig(players=2, catalogue_id=catalogue)
    bots = [make_bot("greedy", seat_seed(32, seat)) for seat in range(2)]
    state, _ = play_game(config, 32, bots)
    result = outcome(state)
    assert result.termination is Termination.TRIGGER
    assert result.rounds < config.options.round_cap


def _first_buy_decision(seed: int) -> tuple[GameState, int, list[int]]:
    """The first MAIN decision of a greedy game where a purchase is legal and the seat
    owns no incomplete plan."""
    config = GameConfig(players=2, catalogue_id="reconstructed-v1")
    state = new_game(config, seed)
    bots = [make_bot("greedy", seat_seed(seed, seat)) for seat in range(2)]
    while not state.is_terminal():
        seat = state.current_player()
        if seat == CHANCE:
            state.apply(state.legal_actions()[0])
            continue
        legal = state.legal_actions()
        buys = [a for a in legal if ids.BUY <= a < ids.BUY_END]
        open_plan = any(not state.complete[t] for t in state.owned[seat])
        if buys and not open_plan and not state.bought:
            return state, seat, legal
        state.apply(bots[seat].act(state, seat))
    pytest.fail("no purchase decision without an open plan")


def test_a_seat_without_an_open_plan_buys_whatever_the_plans_are_worth() -> None:
    state, seat, _ = _first_buy_decision(7)
    assert greedy_main.buy_threshold(state, seat) == -math.inf


def test_a_seat_with_an_open_plan_keeps_the_value_threshold() -> None:
    state, seat, _ = _first_buy_decision(7)
    tile = next(t for t in state.market[0] if t >= 0)
    state.owned[seat].append(tile)  # an incomplete plan of its own
    assert greedy_main.buy_threshold(state, seat) == greedy_main.BUY_MIN_VP
