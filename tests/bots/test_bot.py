"""The bot interface and the registry."""

from __future__ import annotations

from typing import Any

import pytest

from heights_bots import BOT_NAMES, Bot, make_bot, seat_seed
from heights_bots.greedy import GreedyBot
from heights_bots.mcts import MctsBot
from heights_bots.noisy_greedy import NoisyGreedyBot
from heights_bots.random_bot import RandomBot
from heights_bots.search import SearchBot
from heights_rules.game import new_game
from heights_rules.options import GameConfig


def test_registry_builds_every_named_bot() -> None:
    assert BOT_NAMES == (
        "random",
        "noisy-greedy-50",
        "noisy-greedy-25",
        "noisy-greedy-10",
        "greedy",
        "search",
        "mcts",
    )
    kinds = {name: type(make_bot(name, seed=1)) for name in BOT_NAMES}
    assert kinds == {
        "random": RandomBot,
        "noisy-greedy-50": NoisyGreedyBot,
        "noisy-greedy-25": NoisyGreedyBot,
        "noisy-greedy-10": NoisyGreedyBot,
        "greedy": GreedyBot,
        "search": SearchBot,
        "mcts": MctsBot,
    }


@pytest.mark.parametrize("name", BOT_NAMES)
def test_every_bot_has_its_name_and_meets_the_protocol(name: str) -> None:
    bot = make_bot(name, seed=3)
    assert isinstance(bot, Bot)
    assert bot.name == name


def test_budget_reaches_the_search_bot_and_is_ignored_by_the_others() -> None:
    search = make_bot("search", seed=1, iterations=5, horizon=1)
    assert isinstance(search, SearchBot)
    assert (search.iterations, search.horizon) == (5, 1)
    assert isinstance(make_bot("greedy", seed=1, iterations=5), GreedyBot)


def test_unknown_bot_name_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="unknown bot 'smart'"):
        make_bot("smart", seed=0)


def test_search_rejects_an_empty_budget() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        SearchBot(seed=0, iterations=0)


_SMALL_BUDGET: dict[str, Any] = {
    "iterations": 4,
    "horizon": 1,
    "mcts_seconds": None,
    "mcts_iterations": 8,
}


@pytest.mark.parametrize("name", BOT_NAMES)
def test_note_comes_with_the_same_action(name: str) -> None:
    state = new_game(GameConfig(players=2), seed=11)
    seat = state.current_player()
    # Iteration budgets only: a wall-clock budget's search depends on the machine's load.
    first = make_bot(name, seed=5, **_SMALL_BUDGET)
    second = make_bot(name, seed=5, **_SMALL_BUDGET)
    action, note = first.act_with_note(state, seat)
    assert action == second.act(state, seat)
    assert action in state.legal_actions()
    assert isinstance(note, str)
    assert note


@pytest.mark.parametrize("name", BOT_NAMES)
def test_a_bot_leaves_the_state_it_reads_as_it_was(name: str) -> None:
    # The protocol bots hand a bot a state whose lists are those of the observation the
    # SDK keeps as the base of the next patch (from_infoset with owned=True): a bot that
    # wrote to its state would corrupt every later observation of its seat.
    state = new_game(GameConfig(players=3), seed=4)
    bot = make_bot(name, seed=2, **_SMALL_BUDGET)
    for _ in range(60):
        seat = state.current_player()
        if seat < 0:
            state.apply(state.legal_actions()[0])
            continue
        before = state.to_bytes()
        action = bot.act(state, seat)
        assert state.to_bytes() == before
        state.apply(action)


@pytest.mark.parametrize("seed", [0, 7, 2**61, 2**63 - 1, 2**64 - 1])
def test_every_bot_takes_the_seat_seed_of_any_match_seed(seed: int) -> None:
    seeds = [seat_seed(seed, seat) for seat in range(4)]
    assert len(set(seeds)) == 4
    assert all(0 <= s < 2**64 for s in seeds)
    state = new_game(GameConfig(players=2), 1)
    for name in BOT_NAMES:
        bot = (
            make_bot(name, seeds[3], iterations=4) if name == "search" else make_bot(name, seeds[3])
        )
        assert bot.act(state.clone(), state.current_player()) in state.legal_actions()


def test_seat_seeds_are_stable_and_do_not_give_the_match_seed_away() -> None:
    # Re-runs replay identically: the same match seed and seat, the same bot seed.
    assert seat_seed(7, 2) == seat_seed(7, 2)
    seeds = [seat_seed(7, seat) for seat in range(4)]
    # The old seat seed was `seed * 8 + seat`: nothing that simple leads back to 7.
    for seat, own in enumerate(seeds):
        assert 7 not in {own, own >> 3, (own - seat) // 8, own - seat, own % 2**32}
    assert seat_seed(8, 0) != seeds[0] + 8


def test_one_budget_for_every_seat_reaches_each_bot_s_own_knobs() -> None:
    budget = {"iterations": 5, "mcts_seconds": 0.25, "mcts_iterations": 7}
    search = make_bot("search", seed=1, **budget)
    mcts = make_bot("mcts", seed=1, **budget)
    assert isinstance(search, SearchBot)
    assert search.iterations == 5
    assert isinstance(mcts, MctsBot)
    assert (mcts.seconds, mcts.iterations) == (0.25, 7)
