"""The greedy bot: fast fixed priorities, no look-ahead (see `greedy_main` for MAIN)."""

from __future__ import annotations

from heights_bots.greedy_choices import DECIDE
from heights_rules import GameState


class GreedyBot:
    """A rule-based player; a pure function of the seat's view of the state.

    It keeps no memory between decisions, so it can be asked about any state (a
    search bot uses it for every seat in its simulations).
    """

    name = "greedy"

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed  # unused: the greedy bot is deterministic

    def act(self, state: GameState, seat: int) -> int:
        return self.act_with_note(state, seat)[0]

    def act_with_note(self, state: GameState, seat: int) -> tuple[int, str]:
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0], "forced"
        return DECIDE[state.stack[-1].kind](state, seat, legal)


def greedy_action(state: GameState, seat: int) -> int:
    """The greedy choice, without building a bot (the search's rollout policy)."""
    legal = state.legal_actions()
    if len(legal) == 1:
        return legal[0]
    return DECIDE[state.stack[-1].kind](state, seat, legal)[0]
