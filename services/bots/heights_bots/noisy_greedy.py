"""Noisy greedy bots: greedy, except that with probability epsilon a uniform legal action.

They grade the population between `random` (epsilon 1) and `greedy` (epsilon 0), so a
ladder of them has a strength order known by construction (`heights ladder-sim`).
"""

from __future__ import annotations

from heights_bots.greedy import GreedyBot
from heights_rules import GameState, KeyedRng

# The built-in variants, by name: epsilon in percent, so a name holds no dot.
NOISY_EPSILONS: dict[str, float] = {
    "noisy-greedy-50": 0.5,
    "noisy-greedy-25": 0.25,
    "noisy-greedy-10": 0.1,
}
_SCALE = 1 << 30  # the resolution of the epsilon draw


class NoisyGreedyBot:
    """Greedy with probability 1 - epsilon, a uniform legal action otherwise.

    Both draws of the n-th decision are keyed by the bot's seed and n, so the same seed
    makes the same choices in the same game. A forced decision (one legal action) draws
    nothing, as for the greedy bot.
    """

    def __init__(self, seed: int, epsilon: float, name: str = "noisy-greedy") -> None:
        if not 0.0 <= epsilon <= 1.0:
            raise ValueError(f"epsilon must be between 0 and 1, got {epsilon}")
        self.name = name
        self.epsilon = epsilon
        self._greedy = GreedyBot(seed)
        self._rng = KeyedRng(seed)
        self._decisions = 0

    def act(self, state: GameState, seat: int) -> int:
        return self.act_with_note(state, seat)[0]

    def act_with_note(self, state: GameState, seat: int) -> tuple[int, str]:
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0], "forced"
        n = self._decisions
        self._decisions += 1
        if self._rng.below(_SCALE, b"noise", n) < self.epsilon * _SCALE:
            return legal[self._rng.below(len(legal), b"noise-pick", n)], "random (noise)"
        return self._greedy.act_with_note(state, seat)
