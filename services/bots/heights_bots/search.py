"""The search bot: Monte Carlo search over sampled determinizations of the seat's
information set, with the greedy bot as the default policy.

At a decision worth searching (`candidates`), the bot draws determinizations of what
the seat knows (draw-pile order, other seats' Targets, future dice), and for each
candidate move plays the game on with the greedy policy for every seat up to the
horizon (the end of the seat's own turn, or of its next one), where a heuristic
evaluation judges the position. Every candidate is played in the same sampled worlds
(common random numbers: dice are keyed by seat and turn, so a world rolls the same
dice whatever the moves), which makes the comparisons paired and far less noisy than
independent samples. The budget is spent by sequential halving: all candidates get a
few worlds, the better half gets more, and so on.

The state handed in is first reduced to the seat's information set, so the true state
and any determinization of it give the same search; every determinization key comes
from the bot's seed, the game's step counter (public) and the world's number.
"""

from __future__ import annotations

import math
import time

from heights_bots import action_ids as ids
from heights_bots.candidates import candidates
from heights_bots.evaluation import evaluate_for
from heights_bots.greedy import greedy_action
from heights_rules import CHANCE, GameState, KeyedRng, determinize, from_infoset, infoset

MAX_ROLLOUT_STEPS = 20_000  # a safety bound; a turn takes a few dozen steps


# Simulations a searched decision by default: the population's rung between greedy and
# mcts (docs/ranking.md, "search").
ITERATIONS = 24


class SearchBot:
    """Determinized Monte Carlo search with paired samples and sequential halving.

    `iterations` is the number of simulations per searched decision (deterministic);
    `seconds`, if given, also caps the time per decision (the result then depends on
    the machine's speed). `horizon` is how many of the seat's own turn ends each
    simulation plays to. A move other than the greedy one is chosen only if it beats
    the greedy move, in the same worlds, by more than `margin` VP on average.
    """

    name = "search"

    def __init__(
        self,
        seed: int,
        iterations: int = ITERATIONS,
        seconds: float | None = None,
        horizon: int = 4,
        margin: float = 0.2,
    ) -> None:
        if iterations < 1 or horizon < 1:
            raise ValueError("iterations and horizon must be at least 1")
        self.seed = seed
        self.iterations = iterations
        self.seconds = seconds
        self.horizon = horizon
        self.margin = margin
        self._rng = KeyedRng(seed)

    def act(self, state: GameState, seat: int) -> int:
        return self.act_with_note(state, seat)[0]

    def act_with_note(self, state: GameState, seat: int) -> tuple[int, str]:
        moves = candidates(state, seat, state.legal_actions())
        if len(moves) == 1:
            return moves[0], "greedy (nothing to search)"
        root = from_infoset(infoset(state, seat))
        worlds: list[GameState] = []
        values: dict[int, list[float]] = {move: [] for move in moves}
        deadline = None if self.seconds is None else time.perf_counter() + self.seconds
        alive = list(moves)
        spent = 0
        while len(alive) > 1:
            rounds = math.ceil(math.log2(len(alive)))
            share = max(1, (self.iterations - spent) // (len(alive) * rounds))
            for _ in range(share):
                if deadline is not None and worlds and time.perf_counter() > deadline:
                    break
                if len(worlds) < len(values[alive[0]]) + 1:
                    key = self._key(state.steps, len(worlds))
                    worlds.append(determinize(root, seat, key))
                world = worlds[len(values[alive[0]])]
                for move in alive:
                    values[move].append(self._simulate(world.clone(), seat, move))
                spent += len(alive)
            alive.sort(key=lambda mv: -_mean(values[mv]))
            alive = alive[: max(1, len(alive) // 2)]
        return self._verdict(moves, alive[0], values, spent)

    def _key(self, step: int, world: int) -> int:
        digest = self._rng.digest(b"determinize", step, world)
        return int.from_bytes(digest[:8], "little") >> 1

    def _simulate(self, d: GameState, seat: int, move: int) -> float:
        """Play `move`, then greedy for everyone to the horizon; evaluate for the seat."""
        ends = 1 if move == ids.END else 0
        d.apply(move)
        return greedy_rollout(d, seat, ends, self.horizon)

    def _verdict(
        self, moves: list[int], best: int, values: dict[int, list[float]], spent: int
    ) -> tuple[int, str]:
        greedy = moves[0]
        if best == greedy:
            return greedy, f"search {spent} sims, {len(moves)} moves: greedy's is best"
        # Compare on the worlds both moves were played in (paired differences).
        n = min(len(values[best]), len(values[greedy]))
        edge = _mean(values[best][:n]) - _mean(values[greedy][:n])
        if edge <= self.margin:
            return greedy, f"search {spent} sims: best edge {edge:+.2f} too small, greedy's"
        return best, f"search {spent} sims, {len(moves)} moves: {edge:+.2f} VP over greedy's"


def _mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else -1e9


def greedy_rollout(d: GameState, seat: int, ends: int, horizon: int) -> float:
    """Greedy for everyone from `d` (in place) until `seat` has ended `horizon` turns in
    all (`ends` of them already) or the game is over; `d` evaluated for the seat."""
    for _ in range(MAX_ROLLOUT_STEPS):
        if d.is_terminal() or ends >= horizon:
            break
        player = d.current_player()
        if player == CHANCE:
            d.apply(d.legal_actions()[0])
            continue
        action = greedy_action(d, player)
        if player == seat and action == ids.END:
            ends += 1
        d.apply(action)
    return evaluate_for(d, seat)
