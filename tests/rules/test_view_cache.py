"""`ViewCache`: views built with it are the views built without it, byte for byte, and
share the parts that did not change (what makes the engine's next patch cheap)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from heights_bots.greedy import greedy_action
from heights_bots.random_bot import RandomBot
from heights_rules import CHANCE, GameConfig, GameState, ViewCache
from heights_rules.game import new_game
from heights_rules.observation import PUBLIC


def _text(view: dict[str, Any]) -> str:
    # Key order too: the engine's patches and the runner's bytes depend on it.
    return json.dumps(view, separators=(",", ":"))


def _steps(state: GameState, seed: int, greedy: bool) -> Any:
    bot = RandomBot(seed)
    while not state.is_terminal():
        seat = state.current_player()
        if seat == CHANCE:
            state.apply(state.legal_actions()[0])
            continue
        yield seat
        state.apply(greedy_action(state, seat) if greedy else bot.act(state, seat))


@pytest.mark.parametrize(
    ("players", "seed", "greedy"), [(4, 11, True), (3, 12, False), (2, 13, True), (4, 14, False)]
)
def test_every_view_of_a_game_is_the_uncached_one(players: int, seed: int, greedy: bool) -> None:
    state = new_game(GameConfig(players=players), seed)
    cache = ViewCache()
    views = 0
    for seat in _steps(state, seed, greedy):
        # The seat to move, another seat and a spectator, in a changing order: one cache
        # serves every viewer of a game.
        for viewer in (seat, (seat + 1) % players, PUBLIC)[views % 3 :]:
            assert _text(state.observation(viewer, cache)) == _text(state.observation(viewer))
        views += 1
    assert views > 100


def test_unchanged_parts_are_shared_and_changed_ones_rebuilt() -> None:
    state = new_game(GameConfig(players=4), 5)
    cache = ViewCache()
    steps = _steps(state, 5, True)
    next(steps)
    first = state.observation(state.current_player(), cache)
    while not state.is_terminal():  # up to the first building placed on the map
        next(steps)
        later = state.observation(state.current_player(), cache)
        built = [c for c in later["map"]["land"] if "building" in c]
        if built:
            break
    else:
        pytest.fail("no building was ever placed")
    assert later["map"] is not first["map"]
    cells = zip(first["map"]["land"], later["map"]["land"], strict=True)
    assert all((a is b) == ("building" not in b) for a, b in cells)
    again = state.observation(PUBLIC, cache)
    assert again["map"] is later["map"]
    assert all(a is b for a, b in zip(again["markets"], later["markets"], strict=True))
    # A seat's row is shared by the viewers who may not see its Targets; a viewer's own
    # row (with its Targets) is not.
    seen = later["viewer"]
    for p, row in enumerate(again["players"]):
        assert (row is later["players"][p]) == (p != seen)
    assert again["infoset"]["config"] is first["infoset"]["config"]
    assert again["infoset"]["fill"] is later["infoset"]["fill"]
    assert again["infoset"]["owner"] is later["infoset"]["owner"]
    # Without a cache nothing is shared: a caller may edit what it was given.
    assert state.observation(PUBLIC)["map"] is not again["map"]
