"""The random bot: a uniform choice among the legal actions."""

from __future__ import annotations

from heights_rules import GameState, KeyedRng


class RandomBot:
    """Uniform over legal actions, drawn from its own keyed generator.

    The draw for the n-th decision is keyed by n, so a bot built with the same seed
    makes the same choices in the same game.
    """

    name = "random"

    def __init__(self, seed: int) -> None:
        self._rng = KeyedRng(seed)
        self._decisions = 0

    def act(self, state: GameState, seat: int) -> int:
        legal = state.legal_actions()
        index = self._rng.below(len(legal), b"random-bot", self._decisions)
        self._decisions += 1
        return legal[index]

    def act_with_note(self, state: GameState, seat: int) -> tuple[int, str]:
        return self.act(state, seat), "random"
